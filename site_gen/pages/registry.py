"""The page kinds of the site, in build order. Add a kind by writing its module under
site_gen/pages/ and listing an instance here.

The kinds that draw charts come first: vl-convert workers draw a page's charts while the later
pages render (site_gen/charts.py), so the chart-free kinds at the end run beside the drawing
instead of before it begins."""

from __future__ import annotations

from site_gen.pages.audit import AuditPage
from site_gen.pages.authored import AuthoredArticles
from site_gen.pages.base import PageKind
from site_gen.pages.comparisons import ComparisonPages
from site_gen.pages.explorer import ExplorerPages
from site_gen.pages.handwritten import HandWrittenPages
from site_gen.pages.home import HomePage
from site_gen.pages.methodology import MethodologyPage
from site_gen.pages.record_article import RecordArticles
from site_gen.pages.series import SeriesPages
from site_gen.pages.transparency import TransparencyPage
from site_gen.pages.search import SearchPage

PAGE_KINDS: tuple[PageKind, ...] = (
    RecordArticles(),
    AuthoredArticles(),
    ComparisonPages(),
    SeriesPages(),
    HomePage(),
    ExplorerPages(),
    MethodologyPage(),
    AuditPage(),
    HandWrittenPages(),
    TransparencyPage(),
    SearchPage(),
)

# The few pages the navigation lists; every other page is reached from these (a nav that grows
# with the number of articles makes MkDocs builds quadratic).
NAV: tuple[tuple[str, str], ...] = (
    ("Articles", "index.md"),
    ("Write-ups", "posts/index.md"),
    ("Comparisons", "comparisons/index.md"),
    ("History", "series/index.md"),
    ("Methodology", "methodology.md"),
    ("Audit", "audit.md"),
    ("Search", "search.md"),
)
