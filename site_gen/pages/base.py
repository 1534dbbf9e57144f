"""The page-kind interface: a small base class, one module per kind."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar, Iterable

from site_gen.chart_workers import default_count
from site_gen.page import Page

if TYPE_CHECKING:
    from site_gen.context import SiteContext


# Threads a page kind may render with. Charts are drawn meanwhile by vl-convert worker processes
# (site_gen/chart_workers.py) and waited for only once every page is rendered; the threads
# overlap the render cache's reads and writes with the pages' Python work (one thread was
# slower at 1,000 articles, more gained nothing).
RENDER_WORKERS = 2 * default_count()


class PageKind(ABC):
    """A kind of page (home, record article, comparison, methodology, audit, authored article)."""

    name: ClassVar[str]

    @abstractmethod
    def pages(self, site: "SiteContext") -> Iterable[Page]:
        """Every page of this kind for the site."""
