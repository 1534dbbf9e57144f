"""`build_site`: sealed records -> MkDocs site, in four stages: load and verify, contexts,
render, write. Nothing is built unless every record verifies (invariant 4), and the same ledger
with the same code gives a byte-identical site (invariant 5). MkDocs runs dirty (reusing the
unchanged record articles) only where site_gen/dirty_build.py proves a clean build's bytes."""

from __future__ import annotations

import logging
import os
import posixpath
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, closing, contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Iterator

from benchledger.atomic import write_if_changed
from benchledger.errors import BuildError, ProblemsError, os_reason
from benchledger.records.display import visible
from benchledger.records.ledger import GENESIS_SHA256, encode_ledger
from benchledger.records.store import Store
from benchledger.records.tlog import published_log
from benchledger.records.validation_cache import ValidationCache, default_cache_dir
from site_gen import dialect, dirty_build, escape, site_folder
from site_gen.charts import ChartCache
from site_gen.checksums import SUMS_NAME, site_hashes, sums_of
from site_gen.context import BuildOptions, SiteContext
from site_gen.docs_tree import MANIFEST_NAME as DOCS_MANIFEST_NAME, DocsTree
from site_gen.feed import FEED, feed_title
from site_gen.page import Asset, Page, PendingAsset, asset_sha256
from site_gen.pages.registry import NAV, PAGE_KINDS
from site_gen.render_cache import RenderCache
from site_gen.search_index import index_site
from site_gen.static_chart import VEGA_BUNDLE_PATH
from site_gen.templating import make_jinja_env, override_problems, template_bytes

STATIC_ASSETS = ("assets/benchledger.css", "assets/benchledger.js")
# Material's base.html extended (templates/theme/main.html), written beside mkdocs.yml as its
# theme.custom_dir, so that a project's templates folder may replace it like any template.
THEME_OVERRIDE = "theme/main.html"
HOOKS_FILE = Path(__file__).resolve().parent / "mkdocs_hooks.py"


@dataclass(frozen=True)
class BuildResult:
    """What a build produced."""

    out_dir: Path
    docs_dir: Path  # the generated Markdown and assets MkDocs built from
    config_file: Path  # the generated mkdocs.yml
    pages: int
    files_written: int  # generated files whose bytes changed (a warm build writes none)
    charts_rendered: int  # SVGs rendered (a warm build renders none: they come from the cache)
    renderings_reused: int  # per-record renderings taken from the render cache
    notes: tuple[str, ...] = ()  # what the user should know, though nothing failed
    mkdocs_dirty: bool = False  # MkDocs reused unchanged articles (site_gen/dirty_build.py)
    mkdocs_mode: str = ""  # why the MkDocs step was dirty or clean
    search_indexed: bool = True  # False: no search bundle was indexed (their pages were the last build's)


def build_site(records_dir: Path | str, out_dir: Path | str, *, cache_dir: Path | str | None = None,
               options: BuildOptions | None = None) -> BuildResult:
    """Verify the store at `records_dir`, render every page kind, and build the site into
    `out_dir` with MkDocs (strict). Raises LedgerError/SchemaError/... when a record fails
    verification, BuildError when a page or MkDocs fails."""
    records_dir, out_dir = Path(records_dir), Path(out_dir).resolve()
    cache_dir = Path(cache_dir).resolve() if cache_dir else default_cache_dir(records_dir)
    work_dir = cache_dir / "mkdocs"
    options = options or BuildOptions()
    # MkDocs empties the output folder: refuse one that holds what the build did not make
    site_folder.check_out_dir(out_dir, {
        "the records store": records_dir, "the cache": cache_dir, "the project folder": options.project_root,
        "the articles folder": options.articles_dir, "the templates folder": options.templates_dir,
    })

    # the build writes charts, renderings and MkDocs' tree into the cache folder
    site_folder.check_cache_dir(cache_dir, {"the articles folder": options.articles_dir, "the templates folder": options.templates_dir})

    if options.templates_dir is not None and (unused := override_problems(options.templates_dir, options.templates_dir.as_posix())):
        raise ProblemsError(unused, f"{len(unused)} file(s) of the templates folder replace nothing; nothing was built")

    # Load and verify: every byte, the chain, the schemas and the consistency checks, or nothing.
    store = Store(records_dir, ValidationCache(cache_dir))
    records = store.load_verified()
    log = published_log(store, [record.entry for record in records])

    # Contexts: what every page kind renders from.
    # The ledger, its head and its served bytes come from the verified records themselves, not
    # from another read of ledger.jsonl, which a concurrent seal could have grown meanwhile.
    charts = ChartCache(cache_dir / "charts")
    docs = DocsTree(work_dir, cache_dir / DOCS_MANIFEST_NAME)
    entries = [record.entry for record in records]
    head = entries[-1].entry_sha256 if entries else GENESIS_SHA256
    site = SiteContext(records, entries, head, charts, ledger_bytes=encode_ledger(entries), options=options,
                       render_cache=RenderCache(cache_dir / "render", options.templates_dir,
                                                holds=lambda path, sha: docs.holds(f"docs/{path}", sha)),
                       env=make_jinja_env(options.templates_dir), log=log)

    try:  # e.g. an output or cache folder that cannot be written: the user's to fix, not a crash
        with closing(charts):  # the vl-convert worker processes end with the build
            # Render: every page of every kind, plus the site's static assets (the Vega bundle is
            # made by a chart worker meanwhile). The workers draw the charts while the pages
            # render, and go on drawing through MkDocs' build.
            files: dict[str, Asset] = {}
            with ThreadPoolExecutor(1) as background:
                bundle = background.submit(charts.vega_bundle)
                pages = [page for kind in PAGE_KINDS for page in kind.pages(site)]
                files[VEGA_BUNDLE_PATH] = bundle.result()
            files.update({name: template_bytes(name, options.templates_dir) for name in STATIC_ASSETS})
            if options.logo is not None:
                files[logo_path(options)] = options.logo.read_bytes()
            drawing = _collect(pages, files)
            # every page's head links the feed, where the site has one (never a link to no file)
            feed = FEED if f"docs/{FEED}" in files else None
            files["mkdocs.yml"] = mkdocs_config(site.options, out_dir, feed=feed).encode()
            if feed is not None:
                files[THEME_OVERRIDE] = template_bytes(THEME_OVERRIDE, options.templates_dir)

            # Write: only changed files, stale ones removed, then MkDocs builds the site (strict),
            # dirty where that provably gives a clean build's bytes (site_gen/dirty_build.py).
            changed: set[str] = set()
            written = docs.write(files, changed, later=drawing)
            site_folder.mark(out_dir)
            ident = dirty_build.identity(out_dir, files["mkdocs.yml"], site.render_cache.fingerprint)
            state_file = cache_dir / dirty_build.STATE_NAME
            docs_changed = {rel[len("docs/"):] for rel in changed if rel.startswith("docs/")}
            state = dirty_build.load_state(state_file)
            plan = dirty_build.plan(state, ident, out_dir,
                                    {rel[len("docs/"):] for rel in files if rel.startswith("docs/") and rel.endswith(".md")},
                                    docs_changed)
            state_file.unlink(missing_ok=True)  # from here on the site folder is being rewritten
            anchors_in, anchors_out = cache_dir / "mkdocs-anchors-in.json", cache_dir / "mkdocs-anchors-out.json"
            # a dirty build starts from the last build's site, whose list of files is still true
            # (the plan checked that nothing touched the folder since)
            sums_before = (out_dir / SUMS_NAME).read_bytes() if plan.dirty and (out_dir / SUMS_NAME).is_file() else None
            # the hashes of files no one has written since the last build (the plan checked the folder)
            known = dirty_build.known_sums(state, sums_before) if sums_before is not None else {}
            if plan.dirty:
                dirty_build.prepare(plan, out_dir, anchors_in)
            _mkdocs_build(work_dir / "mkdocs.yml", build_epoch(site), dirty=plan.dirty,
                          anchors_in=anchors_in if plan.dirty else None, anchors_out=anchors_out,
                          sources={f"pages/{p.slug}.md": p.source.as_posix() for p in options.extra_pages})
            # Index: Pagefind's bundles are a function of the site's HTML pages, final now; only
            # those whose pages changed are indexed again (site_gen/search_index.py). Pagefind
            # reads no chart (an SVG file), so it runs, in its own processes, while the charts
            # still being drawn go into the docs tree and the site (MkDocs copied the docs
            # tree's SVG of each, if it held one: named by its spec's hash, it held these bytes
            # unless vl-convert changed) and the pages that show them into the render cache.
            pages_known = site_hashes(out_dir, known, ".html")
            html = {rel: sha for rel, (_, _, sha) in pages_known.items()}
            with ThreadPoolExecutor(1) as indexer:
                indexing = indexer.submit(index_site, out_dir, cache_dir / "pagefind", html,
                                          (state or {}).get("search", {}) if plan.dirty else {})
                site.render_cache.store_finished()  # each page as its charts are drawn
                written += _place_drawn(drawing, docs, out_dir)
                search = indexing.result()

        # Last, once nothing else writes into the site: the list of every file it serves (only
        # what this build wrote is hashed again), unless every byte is the last build's.
        sums = sums_of(site_hashes(out_dir, {**known, **pages_known}))
        if sums != sums_before:
            write_if_changed(out_dir / SUMS_NAME, sums)
        dirty_build.save_state(state_file, ident, out_dir, anchors_out, search.state())
        # Evict: the render and chart caches keep what this build used, and nothing else
        # (site_gen/eviction.py).
        site.render_cache.sweep()
        charts.sweep(rel[len("docs/"):] for rel in [*files, *drawing] if rel.startswith("docs/"))
    except OSError as err:
        where = Path(err.filename) if isinstance(err.filename, str) else None
        hint = (f"; the cache {cache_dir} holds something the build did not write there: remove that folder, "
                "or build with --no-cache") if where is not None and where.is_relative_to(cache_dir) else ""
        raise BuildError(f"{err.filename or out_dir}: {os_reason(err)} (while rendering or writing the site){hint}") from None
    return BuildResult(out_dir, work_dir / "docs", work_dir / "mkdocs.yml", len(pages), written, charts.rendered,
                       site.render_cache.hits, tuple(site.notes), plan.dirty, plan.reason, bool(search.indexed))


def _collect(pages: list[Page], files: dict[str, Asset]) -> dict[str, PendingAsset]:
    """Pages and their assets into `files` (docs-relative paths under docs/); a path produced
    twice with different bytes is a bug in a page kind, reported rather than overwritten.
    Returns the assets still being made (charts), by their docs/ path, kept out of `files`: a
    chart's file is named by its spec's hash, so two pages showing it show the same bytes."""
    drawing: dict[str, PendingAsset] = {}
    for page in pages:
        # the title MkDocs puts in <title> and the header comes from front matter, escaped here,
        # never from the page's first heading (which MkDocs would unescape into <title>)
        markdown = f"---\ntitle: {escape.page_title(page.title)}\n---\n\n{page.markdown}"
        for path, data in [(page.path, markdown.encode())] + sorted(page.assets.items()):
            if isinstance(data, PendingAsset):
                drawing[f"docs/{path}"] = data
                continue
            if path in files and files[path] != data and asset_sha256(files[path]) != asset_sha256(data):
                raise BuildError(f"two pages produce {path} with different content")
            files[path] = data
    for key in list(files):
        if key != "mkdocs.yml":
            files[f"docs/{key}"] = files.pop(key)
    return drawing


def _place_drawn(drawing: dict[str, PendingAsset], docs: DocsTree, out_dir: Path) -> int:
    """Wait for the assets still being made and write each into the docs tree and, at the same
    path, into the built site (where its bytes changed); returns how many the docs tree took."""
    made = {rel: asset.result() for rel, asset in drawing.items()}
    for rel, data in made.items():
        write_if_changed(out_dir / rel[len("docs/"):], data)
    return len(docs.add(made))


def mkdocs_config(options: BuildOptions, out_dir: Path, *, feed: str | None = None) -> str:
    """The generated mkdocs.yml (`feed`: the docs path of the site's Atom feed, which every
    page's head then links through the theme override THEME_OVERRIDE; None: no feed, no
    link). A fixed, short nav (articles are reached from the home page and kept out of the
    inferred nav), no web fonts, URLs that work from file:// (no directory URLs),
    no MkDocs plugins: search is Pagefind's, indexed after MkDocs (site_gen/search_index.py),
    and Material's lunr search, which would parse every page once more into one index every
    reader downloads whole, is off. Generated HTML reaches MkDocs as raw blocks
    (site_gen/raw_html.py) whose ids the hooks hand to the anchor checks."""
    # Titles and paths are quoted YAML strings, which read as the same text (a project's page
    # title may hold a ':'; Python's repr of a path holding a backslash or a no-break space read
    # as another folder, which MkDocs then emptied); MkDocs escapes titles for HTML, and
    # `visible` shows a bidi override.
    nav = "\n".join(f"  - {title}: {path}" for title, path in NAV)
    nav += "".join(f"\n  - {escape.yaml_string(visible(page.title))}: pages/{page.slug}.md" for page in options.extra_pages)
    logo = f"\n  logo: {escape.yaml_string(logo_path(options))}" if options.logo is not None else ""
    # with the published address MkDocs fills the sitemap and roots the 404 page's links there
    # (under a sub-path such as a project site's /repo/, not at the host's root)
    site_url = f"\nsite_url: {escape.yaml_string(options.site_url)}" if options.site_url else ""
    # the theme folder is THEME_OVERRIDE's, beside mkdocs.yml (custom_dir is read relative to it)
    custom_dir = f"\n  custom_dir: {escape.yaml_string(posixpath.dirname(THEME_OVERRIDE))}" if feed else ""
    feed_link = (f"\n  benchledger_feed: {escape.yaml_string(feed)}"
                 f"\n  benchledger_feed_title: {escape.yaml_string(visible(feed_title(options.site_name)))}") if feed else ""
    return f"""# Generated by benchledger; do not edit.
site_name: {escape.yaml_string(visible(options.site_name))}{site_url}
docs_dir: docs
site_dir: {escape.yaml_string(out_dir.as_posix())}
use_directory_urls: false
strict: true
theme:
  name: material{custom_dir}
  font: false
  features: [navigation.tabs, navigation.top, content.code.copy]{logo}
  palette:  # light and dark as the reader's system prefers, the toggle overriding (Material keeps it in the browser)
    - media: "(prefers-color-scheme: light)"
      scheme: default
      primary: {escape.yaml_string(options.palette_primary)}
      accent: {escape.yaml_string(options.palette_accent)}
      toggle: {{icon: material/brightness-4, name: Switch to dark mode}}
    - media: "(prefers-color-scheme: dark)"
      scheme: slate
      primary: {escape.yaml_string(options.palette_primary)}
      accent: {escape.yaml_string(options.palette_accent)}
      toggle: {{icon: material/brightness-7, name: Switch to light mode}}
plugins: []
extra:
  generator: false{feed_link}
nav:
{nav}
not_in_nav: |
  /*/**
hooks:
  - {escape.yaml_string(HOOKS_FILE.as_posix())}
{dialect.mkdocs_yaml()}
validation:
  absolute_links: warn
  unrecognized_links: warn
  anchors: warn
extra_css:
  - assets/benchledger.css
extra_javascript:
  - assets/benchledger.js
"""


def logo_path(options: BuildOptions) -> str:
    """Where the project's logo is served inside the site."""
    assert options.logo is not None
    return f"assets/logo{options.logo.suffix.lower()}"


def build_epoch(site: SiteContext) -> int:
    """The build's SOURCE_DATE_EPOCH: the last sealing time, so dates in the site (sitemap)
    depend on the ledger only."""
    if not site.entries:
        return 0
    return int(datetime.fromisoformat(site.entries[-1].sealed_at.replace("Z", "+00:00")).timestamp())


@contextmanager
def _environment(name: str, value: str | None) -> Iterator[None]:
    """`name` set to `value` (unset for None) while inside."""
    old = os.environ.get(name)
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _dirty_notice(record: logging.LogRecord) -> bool:
    """False for MkDocs' warning that a dirty build may be inaccurate (strict mode would fail on
    it): site_gen/dirty_build.py only builds dirty where the result is a clean build's."""
    return not record.getMessage().startswith("A 'dirty' build is being performed")


def _mkdocs_build(config_file: Path, epoch: int, *, dirty: bool = False, anchors_in: Path | None = None,
                  anchors_out: Path | None = None, sources: dict[str, str] | None = None) -> None:
    """Run MkDocs in this process (strict); its warnings become the BuildError's lines, each
    docs file the project wrote named by its own file too (`sources`: docs path -> the
    project's file). The hooks read the reused pages' anchors from `anchors_in` and record
    every page's anchors and checked links into `anchors_out` (site_gen/dirty_build.py)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, MkDocsException

    handler = _Collect()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    build_logger = logging.getLogger("mkdocs.commands.build")
    build_logger.addFilter(_dirty_notice)
    try:
        with ExitStack() as stack:
            stack.enter_context(_environment("SOURCE_DATE_EPOCH", str(epoch)))
            stack.enter_context(_environment("NO_MKDOCS_2_WARNING", "1"))
            stack.enter_context(_environment(dirty_build.ENV_ANCHORS_IN, str(anchors_in) if anchors_in else None))
            stack.enter_context(_environment(dirty_build.ENV_ANCHORS_OUT, str(anchors_out) if anchors_out else None))
            config = load_config(str(config_file))
            build(config, dirty=dirty)
    except (Abort, MkDocsException) as err:  # Abort is a SystemExit: `except Exception` misses it
        details = "; ".join(handler.messages) or str(err)
        for docs_path, source in (sources or {}).items():
            details = details.replace(f"'{docs_path}'", f"'{docs_path}' (the project's {source})")
        raise BuildError(f"mkdocs build failed: {details}") from None
    finally:
        logger.removeHandler(handler)
        build_logger.removeFilter(_dirty_notice)
