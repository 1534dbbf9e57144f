"""The whole build: strict MkDocs, byte-identical rebuilds, a warm rebuild that rewrites and
re-renders nothing, no remote loads, every internal link resolving, and refusal to build from
an altered or unsealed store."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from benchledger.errors import BuildError, LedgerError
from site_gen.build import _mkdocs_build, build_site, mkdocs_config
from site_gen.docs_tree import DocsTree
from site_gen.context import BuildOptions

from tests.site_gen.site_support import ROOT, build
from tests.store_copies import shipped_copy, tree_digest


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("build")
    return tmp, build(tmp)


def tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


def test_two_builds_are_byte_identical_and_a_warm_build_does_no_work(built, tmp_path):
    tmp, first = built
    # A second build from scratch (own cache, own output, another process with another hash
    # seed, so set and dict orders differ) gives the same bytes...
    articles = ROOT / "docs" / "articles"  # what site_support.build publishes, as `make site` does
    code = (f"from pathlib import Path; from site_gen.build import build_site; from site_gen.context import BuildOptions; "
            f"build_site({str(tmp / 'records')!r}, {str(tmp_path / 'site')!r}, cache_dir={str(tmp_path / 'cache')!r}, "
            f"options=BuildOptions(articles_dir=Path({str(articles)!r})))")
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, "PYTHONHASHSEED": "12345"})
    assert tree(first.out_dir) == tree(tmp_path / "site")
    # ...and a rebuild over the same cache rewrites no generated file and renders no chart.
    warm = build_site(tmp / "records", tmp_path / "site", cache_dir=tmp_path / "cache", options=BuildOptions(articles_dir=articles))
    assert (warm.files_written, warm.charts_rendered) == (0, 0)
    # The build's cache folder holds its validation passes too (one cache folder, not two).
    assert len((tmp_path / "cache" / "validation-passes.txt").read_text().splitlines()) == 2
    assert warm.renderings_reused >= 4  # each record's article and home card
    assert tree(first.out_dir) == tree(warm.out_dir)
    # A cached page's assets that the docs tree holds already are handed on unread: with their
    # blobs gone, a build still writes nothing (and re-renders nothing, which would store them).
    docs = tmp_path / "cache" / "mkdocs" / "docs"
    blobs = tmp_path / "cache" / "render" / "blobs"
    svgs = {p.relative_to(docs).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in docs.rglob("*.svg")}
    gone = [blobs / sha for sha in svgs.values() if (blobs / sha).is_file()]
    assert gone  # the records' articles keep their charts as blobs
    for blob in gone:
        blob.unlink()
    again = build_site(tmp / "records", tmp_path / "site", cache_dir=tmp_path / "cache", options=BuildOptions(articles_dir=articles))
    assert again.files_written == 0 and not any(blob.exists() for blob in gone)
    # ...and one the tree no longer holds (edited there) is made again, to the same bytes
    victim = docs / next(rel for rel, sha in svgs.items() if blobs / sha in gone)
    victim.write_bytes(victim.read_bytes().replace(b"<svg", b"<svg data-edited", 1))
    mended = build_site(tmp / "records", tmp_path / "site", cache_dir=tmp_path / "cache", options=BuildOptions(articles_dir=articles))
    assert mended.files_written == 1 and tree(first.out_dir) == tree(mended.out_dir)


class Refs(HTMLParser):
    """Every URL a page loads (script/link/img/iframe/source) or links (a), and every id."""

    def __init__(self) -> None:
        super().__init__()
        self.loads: list[str] = []
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag in ("script", "img", "iframe", "source", "audio", "video") and a.get("src"):
            self.loads.append(a["src"])
        if tag == "link" and a.get("href"):
            self.loads.append(a["href"])
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])


def parsed(page: Path) -> Refs:
    refs = Refs()
    refs.feed(page.read_text(encoding="utf-8"))
    return refs


def test_no_page_loads_anything_from_the_network(built):
    _, result = built
    pages = sorted(result.out_dir.rglob("*.html"))
    assert len(pages) >= 6
    remote = [(p.name, url) for p in pages for url in parsed(p).loads if re.match(r"(https?:)?//", url)]
    assert remote == []
    # Material's fonts and the offline plugin's iframe-worker would come from a CDN.
    for p in pages:
        text = p.read_text(encoding="utf-8")
        assert "fonts.googleapis" not in text and "iframe-worker" not in text


def test_every_internal_link_and_anchor_resolves(built):
    _, result = built
    site = result.out_dir
    broken = []
    ids = {p: parsed(p).ids for p in site.rglob("*.html")}
    for page in ids:
        refs = parsed(page)
        if page.name == "404.html":  # served at any path, so MkDocs gives it root-absolute links
            continue
        for url in refs.links + refs.loads:
            parts = urlsplit(url)
            if parts.scheme or url.startswith("//") or url.startswith("mailto:"):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{page.relative_to(site)}: {url}")
            elif parts.fragment and target.suffix == ".html" and parts.fragment not in ids.get(target, parsed(target).ids):
                broken.append(f"{page.relative_to(site)}: {url} (no such anchor)")
    assert broken == []


def test_served_records_are_the_exact_sealed_bytes(built):
    tmp, result = built
    for record in (tmp / "records").rglob("*.json"):
        rel = record.relative_to(tmp / "records")
        assert (result.out_dir / "records" / rel).read_bytes() == record.read_bytes()


def test_an_altered_record_stops_the_build_naming_the_file(tmp_path):
    records = shipped_copy(tmp_path)
    target = records / "torch-graph-replay" / "2026-10-28.json"
    target.write_bytes(target.read_bytes().replace(b'"complete": true', b'"complete": false'))
    with pytest.raises(LedgerError) as err:
        build_site(records, tmp_path / "site", cache_dir=tmp_path / "cache")
    assert "torch-graph-replay/2026-10-28.json" in "\n".join(err.value.lines())
    assert "altered" in "\n".join(err.value.lines())
    assert not (tmp_path / "site").exists()


def test_an_unsealed_record_stops_the_build(tmp_path):
    records = shipped_copy(tmp_path)
    (records / "stray.json").write_bytes(b"{}")
    with pytest.raises(LedgerError) as err:
        build_site(records, tmp_path / "site", cache_dir=tmp_path / "cache")
    assert any("stray.json" in line and "unsealed" in line for line in err.value.lines())


def test_a_strict_mkdocs_failure_becomes_a_build_error(tmp_path):
    files = {
        "mkdocs.yml": mkdocs_config(BuildOptions(), tmp_path / "site").encode(),
        "docs/index.md": b"# Home\n\n[broken](nowhere.md)\n",
    }
    DocsTree(tmp_path / "work").write(files)
    with pytest.raises(BuildError, match="nowhere.md"):
        _mkdocs_build(tmp_path / "work" / "mkdocs.yml", 0)


def test_cli_build_reports_a_bad_store_in_one_line_per_problem(tmp_path, capsys):
    from benchledger.cli.main import main

    records = shipped_copy(tmp_path)
    (records / "llm-cpu-offload" / "2026-09-27.json").write_bytes(b"{}")
    code = main(["build", "--records", str(records), "--out", str(tmp_path / "site"), "--cache", str(tmp_path / "cache")])
    err = capsys.readouterr().err
    assert code == 1
    assert "benchledger build: error:" in err and "llm-cpu-offload/2026-09-27.json" in err and "Traceback" not in err
    assert not (tmp_path / "site").exists()


def test_cli_build_reports_an_unwritable_cache_in_one_line(tmp_path, capsys):
    from benchledger.cli.main import main

    records = shipped_copy(tmp_path)
    (tmp_path / "cache").write_bytes(b"a file, not a folder")
    code = main(["build", "--records", str(records), "--out", str(tmp_path / "site"), "--cache", str(tmp_path / "cache")])
    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1 and "benchledger build: error:" in err and str(tmp_path / "cache") in err
    assert "Not a directory" in err and "Traceback" not in err


def test_cli_build_refuses_an_articles_folder_that_does_not_exist(tmp_path, capsys):
    from benchledger.cli.main import main

    code = main(["build", "--records", str(tmp_path / "records"), "--out", str(tmp_path / "site"),
                 "--articles", str(tmp_path / "typo")])
    assert code == 1
    assert capsys.readouterr().err == f"benchledger build: error: {tmp_path / 'typo'}: no such articles folder\n"


@pytest.mark.parametrize("where", ["records", "project", "cache", "foreign", "inside-records"])
def test_build_refuses_an_out_folder_it_would_destroy(tmp_path, where, capsys):
    """Issue 11 class 2: MkDocs empties --out; `--out records` deleted the store, `--out .` the
    project. Now such a folder is refused before anything is read or written."""
    from benchledger.cli.main import main

    project = tmp_path / "project"
    project.mkdir()
    records = shipped_copy(project)
    (project / "notes.txt").write_text("not the build's")
    foreign = project / "mine"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("mine")
    out = {"records": records, "project": project, "cache": project / ".cache", "foreign": foreign,
           "inside-records": records / "site"}[where]
    (project / ".cache").mkdir()
    before = tree_digest(project)
    code = main(["build", "--project", str(project), "--records", str(records), "--out", str(out),
                 "--cache", str(project / ".cache")])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert {"records": "is the records store", "project": "contains the records store", "cache": "is the cache",
            "foreign": "is not empty and was not made by `benchledger build`",
            "inside-records": "lies inside the records store"}[where] in err, err
    assert tree_digest(project) == before  # nothing deleted, nothing written


def test_build_marks_its_folder_and_rebuilds_into_it(tmp_path):
    from site_gen.site_folder import MARKER

    records = shipped_copy(tmp_path)
    first = build_site(records, tmp_path / "site", cache_dir=tmp_path / "cache")
    assert (first.out_dir / MARKER).is_file()
    build_site(records, tmp_path / "site", cache_dir=tmp_path / "cache")  # its own folder: rebuilt
    (tmp_path / "empty").mkdir()
    assert (build_site(records, tmp_path / "empty", cache_dir=tmp_path / "cache").out_dir / MARKER).is_file()


def test_a_folder_that_only_looks_like_an_old_site_is_not_emptied(tmp_path):
    """Three empty files named like an old site's (assets/benchledger.js, records/ledger.jsonl,
    sitemap.xml) made a user's folder pass for one built before the marker: the build emptied it."""
    records = shipped_copy(tmp_path)
    mine = tmp_path / "mine"
    for rel in ("assets/benchledger.js", "records/ledger.jsonl", "sitemap.xml"):
        (mine / rel).parent.mkdir(parents=True, exist_ok=True)
        (mine / rel).touch()
    (mine / "notes.txt").write_text("keep me")
    before = tree_digest(mine)
    with pytest.raises(BuildError, match="is not empty and was not made by `benchledger build`"):
        build_site(records, mine, cache_dir=tmp_path / "cache")
    assert tree_digest(mine) == before


def test_a_site_published_under_a_sub_path_roots_its_404_page_and_sitemap_there(tmp_path):
    """A project site (https://user.github.io/repo/) serves 404.html for every missing page:
    its style sheet and links must lead into /repo/, not to the host's root."""
    records = shipped_copy(tmp_path / "records")
    build_site(records, tmp_path / "site", cache_dir=tmp_path / "cache",
               options=BuildOptions(site_url="https://example.org/bench/"))
    missing = (tmp_path / "site" / "404.html").read_text(encoding="utf-8")
    rooted = re.findall(r'(?:href|src)="(/[^"]*)"', missing)
    assert rooted and all(u.startswith("/bench/") for u in rooted), rooted
    sitemap = (tmp_path / "site" / "sitemap.xml").read_text(encoding="utf-8")
    assert "<loc>https://example.org/bench/index.html</loc>" in sitemap


def test_the_site_name_and_page_titles_show_a_bidi_override_as_its_code_point(tmp_path):
    """A project's site name or [[pages]] title holding U+202E reversed the header and the
    navigation (their <title> already showed [U+202E])."""
    import yaml

    from benchledger.project import ExtraPage

    options = BuildOptions(site_name="lab\u202e: bench", extra_pages=(ExtraPage("About\u202e us", tmp_path / "a.md", "about"),))
    config = yaml.safe_load(mkdocs_config(options, tmp_path / "site"))
    assert config["site_name"] == "lab[U+202E]: bench"
    assert {"About[U+202E] us": "pages/about.md"} in config["nav"]


def test_a_site_name_page_title_address_and_site_folder_past_u_ffff_build(tmp_path):
    """mkdocs.yml wrote an emoji as JSON's surrogate pair, which PyYAML read as two lone
    surrogates: `build` stopped with a UnicodeEncodeError traceback from MkDocs."""
    from benchledger.project import ExtraPage

    (tmp_path / "records").mkdir()
    (tmp_path / "a.md").write_text("# About\n\nText.\n", encoding="utf-8")
    options = BuildOptions(site_name="Bench \U0001f680", site_url="https://example.org/\U0001f680/",
                           extra_pages=(ExtraPage("About \U00020000", tmp_path / "a.md", "about"),))
    result = build_site(tmp_path / "records", tmp_path / "site-\U0001f680", cache_dir=tmp_path / "cache", options=options)
    assert result.out_dir == tmp_path / "site-\U0001f680"
    home = (result.out_dir / "index.html").read_text(encoding="utf-8")
    assert "Bench \U0001f680" in home and "About \U00020000" in home
    assert "<title>About \U00020000" in (result.out_dir / "pages" / "about.html").read_text(encoding="utf-8")


def test_a_site_folder_whose_path_holds_quotes_backslashes_and_a_no_break_space_is_the_one_built(tmp_path):
    """mkdocs.yml named the site folder by Python's repr, which YAML reads otherwise: a project
    under `z\\y` had MkDocs write (and first empty) `z\\\\y/site`, and one with both quotes was
    no YAML at all."""
    records = shipped_copy(tmp_path)
    project = tmp_path / "z\\y 'q\" n\u00a0b"
    decoy = tmp_path / "z\\\\y 'q\" n\\xa0b" / "site"
    decoy.mkdir(parents=True)
    (decoy / "precious.txt").write_text("keep")
    project.mkdir()
    result = build_site(records, project / "site", cache_dir=tmp_path / "cache")
    assert (result.out_dir / "index.html").is_file() and result.out_dir == project / "site"
    assert (decoy / "precious.txt").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["cache", "records", project.name, decoy.parent.name])


def test_a_rebuild_gives_the_site_folder_the_modes_of_its_own_umask(tmp_path):
    """MkDocs empties the site folder but keeps it: a site first built under umask 077 stayed
    0700 (unreadable to a web server's user) through every later build under 022."""
    records = shipped_copy(tmp_path)
    old = os.umask(0o077)
    try:
        first = build_site(records, tmp_path / "site", cache_dir=tmp_path / "cache")
    finally:
        os.umask(old)
    assert first.out_dir.stat().st_mode & 0o777 == 0o700
    os.umask(0o022)
    try:
        again = build_site(records, tmp_path / "site", cache_dir=tmp_path / "cache-2")
    finally:
        os.umask(old)
    assert again.out_dir.stat().st_mode & 0o777 == 0o755
    assert (again.out_dir / ".benchledger-site").stat().st_mode & 0o777 == 0o644
    assert (again.out_dir / "index.html").stat().st_mode & 0o777 == 0o644
