"""The explorer: one page per record kind with a sortable, filterable table of every case of
every record (data in `site_gen.explorer`, behaviour in templates/assets/explorer.js). The page
itself carries only the table's shell; the rows come from the kind's data script, loaded by
this page alone."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from site_gen.comparisons import comparisons_of, kind_slug
from site_gen.templating import template_bytes, url
from site_gen.explorer import SCRIPT, data_path, data_script, explorer_data, page_path, record_refs
from site_gen.page import Page
from site_gen.pages.base import PageKind
from site_gen.pages.records.registry import renderer_for

if TYPE_CHECKING:
    from site_gen.context import SiteContext


class ExplorerPages(PageKind):
    name = "explorer"

    def pages(self, site: "SiteContext") -> Iterable[Page]:
        compared = comparisons_of(site)
        script = template_bytes(SCRIPT, site.options.templates_dir)
        for kind in compared.kinds:
            path = page_path(kind)
            cases = compared.cases[kind.schema]
            anchors = {}
            for case in cases:
                view = site.view(case.record_sha256)
                anchors[(case.record_sha256, case.pointer)] = renderer_for(view.schema, view.entry.path).case_anchor(case.pointer)
            data = explorer_data(kind, cases, record_refs(site, path), anchors)
            slug = kind_slug(kind.schema)
            title = f"Explore: {kind.title} cases"
            markdown = site.render(
                "explorer.md.j2", title=title, kind=kind, slug=slug, page_path=path,
                records=len(data["records"]), rows=len(data["rows"]),
                data_src=url(path, data_path(kind)), script_src=url(path, SCRIPT),
                comparisons=url(path, "comparisons/index.md"))
            yield Page(path, title, markdown, {data_path(kind): data_script(slug, data), SCRIPT: script})
