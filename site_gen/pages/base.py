"""The page-kind interface: a small base class, one module per kind."""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar, Iterable

from site_gen.page import Page

if TYPE_CHECKING:
    from site_gen.context import SiteContext


# Threads a page kind may render with: charts are rendered by vl-convert, which runs partly
# outside the GIL, so pages (and a page's charts) rendered side by side finish sooner.
RENDER_WORKERS = min(4, os.cpu_count() or 1)


class PageKind(ABC):
    """A kind of page (home, record article, comparison, methodology, audit, authored article)."""

    name: ClassVar[str]

    @abstractmethod
    def pages(self, site: "SiteContext") -> Iterable[Page]:
        """Every page of this kind for the site."""
