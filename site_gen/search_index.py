"""The site's search index: Pagefind (the `pagefind-bin` package's binary) run over the built
HTML. Its index is split into chunks and fragments, so a query fetches only the few pieces that
hold its words and the results it shows, instead of one index of every page; everything is
served by the site itself (nothing from the network) and needs http, as any fetch does.

A large site's index is several Pagefind bundles, which the search page merges (Pagefind's
`mergeIndex`): the primary one at pagefind/ for every page but the record articles, and shards
under pagefind/shards/, each for the articles whose path hashes to it. Pagefind cannot update an
index, and indexing 1,000 articles took 6-8 s of every rebuild; sealing one more record changes
its own article and the site-wide pages, so a rebuild indexes the primary bundle and one shard
and keeps the rest. A bundle is kept only when the HTML it was made from is byte for byte this
build's (the build passes the hashes), leaving out only the article series' run links (`RUNS_NAV`,
which Pagefind does not read), and the site folder is as the last build left it (a dirty MkDocs
build, whose plan checked that).

Each bundle ranks its results by its own word statistics (BM25's inverse document frequency),
and the merged results are sorted by those scores: a shard of a few pages would rank its pages
far below the primary's. So a shard holds `PAGES_PER_SHARD` articles or more, and a site with
fewer than two shards' worth has one bundle, as before; the number of shards follows the
number of articles (a site that crosses a step indexes everything once, in the new shards).

Pagefind's output is a function of the HTML it reads (no clock, no random names), and which
bundle indexes a page is a function of its path, so two builds of one ledger keep giving
byte-identical sites."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from benchledger.atomic import write_if_changed
from benchledger.errors import BuildError
from benchledger.records.digest import sha256_hex

BUNDLE_DIR = "pagefind"  # in the site: the search page loads pagefind/pagefind-ui.js from here
SHARDS_DIR = f"{BUNDLE_DIR}/shards"
# The shards present, as a JSON list of their folder names under SHARDS_DIR: the search page
# reads it to merge them (a shard no article hashes to is not made).
SHARDS_MANIFEST = f"{SHARDS_DIR}/index.json"
PAGES_PER_SHARD = 250
MAX_SHARDS = 8
SHARDED_PREFIX = "articles/"  # record articles: most of the site's text, one page per record
# What a merged bundle needs (the primary's UI scripts and WebAssembly serve them all).
SHARD_KEEPS = ("pagefind-entry.json", ".pf_meta", "index", "fragment", "filter")
# What is indexed: the page's article (not the header, tabs or footer every page repeats).
ROOT_SELECTOR = "article.md-content__inner"
# Left out: permalink signs, the data tables behind charts (the numbers a page shows are
# indexed where the page shows them), and listings of records (`bl-listing`: the home page's
# cards, the audit page's ledger and sums, a series' records table, the write-ups' index and
# tag pages), whose every line is indexed on that record's or write-up's own page. Left in, at
# 1,000 articles they were fragments of 250 KB to 930 KB of text that a query for one hash prefix
# downloaded beside the record's own; and a search for "qwen" listed three tag pages and the
# write-ups' index, but not the write-up itself.
EXCLUDE_SELECTORS = ".headerlink, .bl-chart-data, .bl-listing"


# The article series' run links (site_gen/pages/record_article.py): a <nav> Pagefind leaves out
# (`data-pagefind-ignore`), holding no <nav>, no id and no data-pagefind attribute. Sealing a run
# rewrites it on the previous run's article ("later run"), nothing else there: keyed by its whole
# bytes, that page re-indexed its shard (1.5-2 s at 1,000 articles) to the same bundle. So a page
# is keyed by its bytes without this element, cut from its start tag to the first "</nav>" after
# it: at most the element (record text in it is escaped, so holds no "</nav>"), never more, and
# the line end after it (a series' second run adds the whole block, line end included, to the
# first run's page; whitespace between elements is no text Pagefind reads).
RUNS_NAV = '<nav class="bl-runs" aria-label="Earlier and later runs" data-pagefind-ignore>'
_RUNS_NAV_START, _NAV_END = RUNS_NAV.encode(), b"</nav>"


def indexed_sha256(page: bytes) -> str | None:
    """The SHA-256 of what Pagefind can read of an HTML page: its bytes less each `RUNS_NAV`;
    None for a page without one (its own SHA-256 is that)."""
    start = page.find(_RUNS_NAV_START)
    if start == -1:
        return None
    while start != -1:
        end = page.find(_NAV_END, start)
        if end == -1:
            break
        end += len(_NAV_END)
        page = page[:start] + page[end + 1 if page[end:end + 1] == b"\n" else end:]
        start = page.find(_RUNS_NAV_START, start)
    return sha256_hex(page)


def pagefind_executable() -> Path:
    """The Pagefind binary shipped in the `pagefind-bin` wheel."""
    try:
        from pagefind_bin import get_executable
    except ImportError:
        raise BuildError("the search index needs the pagefind-bin package: pip install pagefind-bin") from None
    return Path(get_executable())


def shard_count(articles: int) -> int:
    """How many shards `articles` record articles are indexed in (0: one bundle for all)."""
    count = min(MAX_SHARDS, articles // PAGES_PER_SHARD)
    return count if count >= 2 else 0


def bundle_of(page: str, shards: int) -> str:
    """The site folder of the bundle that indexes the HTML page at site path `page`."""
    if not shards or not page.startswith(SHARDED_PREFIX):
        return BUNDLE_DIR
    return f"{SHARDS_DIR}/{int(sha256_hex(page.encode())[:8], 16) % shards}"


@dataclass(frozen=True)
class Indexed:
    """What `index_site` left: each bundle's folder -> digest of its pages, the bundles it
    indexed (again) rather than kept, and each page's sha256 -> `indexed_sha256` of it (where
    the next build finds a page's bytes unchanged, it reads it no more)."""

    digests: dict[str, str]
    indexed: tuple[str, ...]
    page_keys: dict[str, str]

    def state(self) -> dict:
        """What the next build passes back as `kept` (JSON)."""
        return {"bundles": self.digests, "pages": self.page_keys}


def index_site(site_dir: Path, work_dir: Path, html_sha256: dict[str, str], kept: dict | None = None) -> Indexed:
    """(Re)build the search bundles of `site_dir` from its HTML pages (`html_sha256`: every
    one's site path -> sha256). `kept`: `Indexed.state()` of the last build, when the site
    folder is as that build left it; a bundle whose pages are still the same, as Pagefind reads
    them (`indexed_sha256`), is kept. `work_dir` (the cache) holds each bundle's pages while
    Pagefind reads them. Reads and writes nothing but the HTML pages and the bundles' folders.
    Raises BuildError on failure."""
    kept = kept if isinstance(kept, dict) else {}
    kept_bundles, kept_keys = kept.get("bundles") or {}, kept.get("pages") or {}
    page_keys = {sha: kept_keys.get(sha) or indexed_sha256((site_dir / page).read_bytes()) or sha
                 for page, sha in html_sha256.items()}
    shards = shard_count(sum(page.startswith(SHARDED_PREFIX) for page in html_sha256))
    groups: dict[str, list[str]] = {}
    for page in sorted(html_sha256):
        groups.setdefault(bundle_of(page, shards), []).append(page)
    groups.setdefault(BUNDLE_DIR, [])
    digests = {folder: sha256_hex("".join(f"{page_keys[html_sha256[p]]}  {p}\n" for p in pages).encode())
               for folder, pages in groups.items()}
    indexed = tuple(folder for folder in sorted(groups) if kept_bundles.get(folder) != digests[folder]
                    or not (site_dir / folder / "pagefind-entry.json").is_file())
    for folder in indexed:
        _index_bundle(site_dir, work_dir, folder, groups[folder])
    present = sorted(folder[len(SHARDS_DIR) + 1:] for folder in groups if folder != BUNDLE_DIR)
    shards_dir = site_dir / SHARDS_DIR
    for entry in shards_dir.iterdir() if shards_dir.is_dir() else ():
        if entry.is_dir() and entry.name not in present:  # no page hashes to it any more
            shutil.rmtree(entry)
    shards_dir.mkdir(parents=True, exist_ok=True)
    manifest = json.dumps(present).encode()
    write_if_changed(site_dir / SHARDS_MANIFEST, manifest)
    return Indexed(digests, indexed, page_keys)


def _index_bundle(site_dir: Path, work_dir: Path, folder: str, pages: list[str]) -> None:
    """Index `pages` into the bundle at `site_dir`/`folder`, replacing what it held."""
    name = folder.replace("/", "-")
    source, output = work_dir / "pages" / name, work_dir / "bundles" / name
    for scratch in (source, output):
        if scratch.exists():
            shutil.rmtree(scratch)
    # Pagefind indexes a folder: this bundle's pages, linked (or copied) at their site paths
    for page in pages:
        target = source / page
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(site_dir / page, target)
        except OSError:  # another file system, or no hard links there
            shutil.copyfile(site_dir / page, target)
    source.mkdir(parents=True, exist_ok=True)
    command = [str(pagefind_executable()), "--site", str(source), "--output-path", str(output),
               "--root-selector", ROOT_SELECTOR, "--exclude-selectors", EXCLUDE_SELECTORS,
               "--force-language", "en", "--keep-index-url", "--silent"]
    result = subprocess.run(command, capture_output=True, text=True)
    shutil.rmtree(source)
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        raise BuildError(f"{site_dir}: search indexing (pagefind) failed: {'; '.join(detail[-5:]) or f'exit {result.returncode}'}")
    # no fragment of a page gone may stay: the bundle's old files go first (the primary's
    # folder holds the shards' folder, which is not its own)
    bundle = site_dir / folder
    for entry in bundle.iterdir() if bundle.is_dir() else ():
        if folder == BUNDLE_DIR and entry.name == Path(SHARDS_DIR).name:
            continue
        shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    bundle.mkdir(parents=True, exist_ok=True)
    for entry in sorted(output.iterdir()):
        if folder != BUNDLE_DIR and not any(entry.name == keep or entry.name.endswith(keep) for keep in SHARD_KEEPS):
            continue
        shutil.move(str(entry), str(bundle / entry.name))
    shutil.rmtree(output)
    if folder == BUNDLE_DIR:
        for script in UI_SCRIPTS:
            escape_ampersands_in_excerpts(bundle / script)


# Pagefind's scripts build a result's excerpt (HTML, shown with innerHTML) from the page's plain
# text with "<" and ">" escaped but not "&" (Pagefind issue #67 fixed the first two): record text
# "Tom &amp; Jerry &#60;b&#62;" was shown as "Tom & Jerry <b>". Escaping "&" first makes the
# excerpt show the text as the page does. Only text changes (no markup can come from it either way).
UI_SCRIPTS = ("pagefind.js", "pagefind-worker.js")
_UNESCAPED = 'fragment.raw_content=fragment.content.replace(/</g,"&lt;")'
_ESCAPED = 'fragment.raw_content=fragment.content.replace(/&/g,"&amp;").replace(/</g,"&lt;")'


def escape_ampersands_in_excerpts(script: Path) -> bool:
    """Make Pagefind's `script` escape "&" in excerpts (see above); whether it was changed. A
    Pagefind whose script does not hold the expected code is left as it is (tests/site_gen/
    test_search_index.py fails on the version installed, so an upgrade is looked at)."""
    try:
        text = script.read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    if text.count(_UNESCAPED) != 1:
        return False
    script.write_text(text.replace(_UNESCAPED, _ESCAPED), encoding="utf-8")
    return True
