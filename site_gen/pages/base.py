"""The page-kind interface: a small base class, one module per kind."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Iterable

if TYPE_CHECKING:
    from site_gen.context import SiteContext


@dataclass(frozen=True)
class Page:
    """One generated Markdown page, relative to the generated docs directory."""

    path: str  # posix, e.g. "articles/llm-cpu-offload-2026-09-27.md"
    title: str
    markdown: str
    assets: dict[str, bytes] = field(default_factory=dict)  # extra files, path -> bytes


class PageKind(ABC):
    """A kind of page (home, record article, comparison, methodology, audit, authored article)."""

    name: ClassVar[str]

    @abstractmethod
    def pages(self, site: "SiteContext") -> Iterable[Page]:
        """Every page of this kind for the site."""
