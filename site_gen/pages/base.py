"""The page-kind interface: a small base class, one module per kind."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar, Iterable

from site_gen.page import Page

if TYPE_CHECKING:
    from site_gen.context import SiteContext


class PageKind(ABC):
    """A kind of page (home, record article, comparison, methodology, audit, authored article)."""

    name: ClassVar[str]

    @abstractmethod
    def pages(self, site: "SiteContext") -> Iterable[Page]:
        """Every page of this kind for the site."""
