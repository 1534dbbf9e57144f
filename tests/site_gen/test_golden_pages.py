"""Golden files for the generated Markdown of the two seed articles, the home page and the audit
page: any change to what a reader sees shows up as a reviewable diff.
BENCHLEDGER_UPDATE_GOLDEN=1 rewrites them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.site_gen.site_support import build

GOLDEN = Path(__file__).resolve().parent / "golden_site"
PAGES = {
    "articles/llm-cpu-offload/2026-09-27.md": "article-llm-cpu-offload.md",
    "articles/torch-graph-replay/2026-10-28.md": "article-torch-graph-replay.md",
    "index.md": "home.md",
    "audit.md": "audit.md",
    "comparisons/index.md": "comparisons.md",
    "transparency.md": "transparency.md",
}


@pytest.fixture(scope="module")
def docs(tmp_path_factory):
    return build(tmp_path_factory.mktemp("golden")).docs_dir


@pytest.mark.parametrize("page", sorted(PAGES))
def test_generated_markdown_matches_golden(docs, page):
    text = (docs / page).read_text(encoding="utf-8")
    path = GOLDEN / PAGES[page]
    if os.environ.get("BENCHLEDGER_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"no golden file {path}; run with BENCHLEDGER_UPDATE_GOLDEN=1 once and review it"
    assert text == path.read_text(encoding="utf-8"), (
        f"{page} differs from {path.name}: if the change is intended, rerun with BENCHLEDGER_UPDATE_GOLDEN=1 "
        "and review the diff of tests/site_gen/golden_site/")
