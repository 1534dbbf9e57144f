"""Shared by the authored-article tests: temp copies of the shipped store and articles, and a
build of the authored pages from them with the real Store, SiteContext and page kind."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from benchledger.records.store import Store
from site_gen.build import build_site
from site_gen.charts import ChartCache
from site_gen.context import BuildOptions, SiteContext
from site_gen.page import Page
from site_gen.pages.authored import AuthoredArticles
from tests.store_copies import shipped_copy

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden_authored"
OFFLOAD = "ebcfc483a547a02e0f9e7e00a6c699af613474daff04624c2863ae89c6af96a1"
GRAPH = "24492206c24d2b9ed84f821d36e701636564c8365cc09ba52fb35703b9c4e2fe"


def copy_project(tmp: Path) -> tuple[Path, Path]:
    """A temp copy of records/ and docs/articles/: (records dir, articles dir)."""
    records = shipped_copy(tmp)
    articles = tmp / "docs" / "articles"
    shutil.copytree(ROOT / "docs" / "articles", articles)
    return records, articles


def build_pages(records: Path, articles: Path, site_url: str = "") -> dict[str, Page]:
    """The authored pages built from a store and an articles dir, by docs path."""
    store = Store(records)
    site = SiteContext(
        records=store.load_verified(),
        entries=store.entries(),
        head_sha256=store.head_sha256(),
        charts=ChartCache(None),
    )
    if site_url:
        site.options = BuildOptions(site_url=site_url)
    return {p.path: p for p in AuthoredArticles(articles).pages(site)}


def build_real(tmp: Path, records: Path, articles: Path, site_url: str = "") -> Path:
    """The whole site built by the real build (MkDocs, strict) into tmp/site; returns it."""
    result = build_site(records, tmp / "site", cache_dir=tmp / "cache", options=BuildOptions(site_url=site_url, articles_dir=articles))
    return result.out_dir


def write_article(articles: Path, slug: str, body: str, records: dict[str, str], date: str = "2026-12-01", tags: str = "[test]") -> Path:
    """An article file with valid front matter and `body`; returns its path."""
    refs = "\n".join(f'  {name}: "{ref}"' for name, ref in records.items())
    path = articles / f"{slug}.md"
    path.write_text(
        f"---\ntitle: {slug}\ndate: {date}\nauthors: [Tester]\ntags: {tags}\nsummary: About {slug}.\nrecords:\n{refs}\n---\n{body}",
        encoding="utf-8",
    )
    return path


def check_golden(name: str, text: str) -> None:
    """Compare with golden_authored/<name>; BENCHLEDGER_UPDATE_GOLDEN=1 rewrites it."""
    path = GOLDEN / name
    if os.environ.get("BENCHLEDGER_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"no golden file {path}; run with BENCHLEDGER_UPDATE_GOLDEN=1 once and review it"
    assert text == path.read_text(encoding="utf-8"), (
        f"{name} differs from its golden file: if the change is intended, rerun with "
        "BENCHLEDGER_UPDATE_GOLDEN=1 and review the diff of tests/site_gen/golden_authored/")
