"""The site's search index: Pagefind (the `pagefind-bin` package's binary) run over the built
HTML. Its index is split into chunks and fragments, so a query fetches only the few pieces that
hold its words and the results it shows, instead of one index of every page; everything is
served by the site itself (nothing from the network) and needs http, as any fetch does.

Pagefind's output is a function of the HTML it reads (no clock, no random names), so two
builds of one ledger keep giving byte-identical sites."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from benchledger.errors import BuildError

BUNDLE_DIR = "pagefind"  # in the site: the search page loads pagefind/pagefind-ui.js from here
# What is indexed: the page's article (not the header, tabs or footer every page repeats).
ROOT_SELECTOR = "article.md-content__inner"
# Left out: permalink signs, the data tables behind charts (the numbers a page shows are
# indexed where the page shows them), and listings of records (`bl-listing`: the home page's
# cards, the audit page's ledger and sums, a series' records table), whose every line is
# indexed on that record's own page. Left in, at 1,000 articles they were fragments of 250 KB
# to 930 KB of text that a query for one hash prefix downloaded beside the record's own.
EXCLUDE_SELECTORS = ".headerlink, .bl-chart-data, .bl-listing"


def pagefind_executable() -> Path:
    """The Pagefind binary shipped in the `pagefind-bin` wheel."""
    try:
        from pagefind_bin import get_executable
    except ImportError:
        raise BuildError("the search index needs the pagefind-bin package: pip install pagefind-bin") from None
    return Path(get_executable())


def index_site(site_dir: Path) -> None:
    """(Re)build `site_dir`/pagefind from the HTML in `site_dir`; raises BuildError on failure."""
    bundle = site_dir / BUNDLE_DIR
    if bundle.exists():  # a dirty MkDocs build keeps the folder: no fragment of a page gone may stay
        shutil.rmtree(bundle)
    command = [str(pagefind_executable()), "--site", str(site_dir), "--output-subdir", BUNDLE_DIR,
               "--root-selector", ROOT_SELECTOR, "--exclude-selectors", EXCLUDE_SELECTORS,
               "--force-language", "en", "--keep-index-url", "--silent"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        raise BuildError(f"{site_dir}: search indexing (pagefind) failed: {'; '.join(detail[-5:]) or f'exit {result.returncode}'}")
