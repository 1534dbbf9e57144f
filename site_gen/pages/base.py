"""The page-kind interface: a small base class, one module per kind."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar, Iterable

from site_gen.chart_workers import default_count
from site_gen.page import Page

if TYPE_CHECKING:
    from site_gen.context import SiteContext


# Threads a page kind may render with. A chart not in the cache is drawn by a vl-convert worker
# process (site_gen/chart_workers.py) while the thread waits outside the GIL: two threads per
# worker keep every worker busy while the others do the pages' Python work; more would only wait.
RENDER_WORKERS = 2 * default_count()


class PageKind(ABC):
    """A kind of page (home, record article, comparison, methodology, audit, authored article)."""

    name: ClassVar[str]

    @abstractmethod
    def pages(self, site: "SiteContext") -> Iterable[Page]:
        """Every page of this kind for the site."""
