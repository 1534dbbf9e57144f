"""A project's own hand-written pages (benchledger.toml's [[pages]]): published as written at
pages/<slug>.md and listed in the navigation after the site's own entries."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from benchledger.errors import BuildError
from site_gen.page import Page
from site_gen.pages.base import PageKind

if TYPE_CHECKING:
    from site_gen.context import SiteContext


class HandWrittenPages(PageKind):
    name = "handwritten"

    def pages(self, site: "SiteContext") -> Iterable[Page]:
        for extra in site.options.extra_pages:
            try:
                text = extra.source.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as err:
                raise BuildError(f"{extra.source}: cannot read this page of the project: {getattr(err, 'strerror', None) or err}") from None
            yield Page(f"pages/{extra.slug}.md", extra.title, text)
