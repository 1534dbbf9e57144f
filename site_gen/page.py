"""A generated page: the value every page kind produces and the render cache keeps. Its own
module so that the cache does not stand on the page-kind interface (which stands on the
site context, which holds the cache)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Page:
    """One generated Markdown page, relative to the generated docs directory."""

    path: str  # posix, e.g. "articles/llm-cpu-offload-2026-09-27.md"
    title: str
    markdown: str
    assets: dict[str, bytes] = field(default_factory=dict)  # extra files, path -> bytes
