"""A project's own hand-written pages (benchledger.toml's [[pages]]): published as written at
pages/<slug>.md and listed in the navigation after the site's own entries, unless one would load
something from another host."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from benchledger.errors import BuildError
from benchledger.files import read_input
from site_gen import dialect
from site_gen.audit import external_loads
from site_gen.page import Page
from site_gen.pages.base import PageKind

if TYPE_CHECKING:
    from site_gen.context import SiteContext


class HandWrittenPages(PageKind):
    name = "handwritten"

    def pages(self, site: "SiteContext") -> Iterable[Page]:
        for extra in site.options.extra_pages:
            try:
                text = read_input(extra.source, what="a page").decode("utf-8")
            except UnicodeDecodeError as err:
                raise BuildError(f"{extra.source}: cannot read this page of the project: not UTF-8 ({err.reason} at byte {err.start})") from None
            # the site loads nothing from another host (verify --site checks it): refused here, not there
            loads = external_loads(dialect.render(text))
            if loads:
                tag, url = loads[0]
                raise BuildError(f"{extra.source}: would load {url} from outside the site (<{tag}>)"
                                 + (f" and {len(loads) - 1} more" if len(loads) > 1 else "")
                                 + "; the site loads nothing from another host: put the file in the project and link it relatively")
            yield Page(f"pages/{extra.slug}.md", extra.title, text)
