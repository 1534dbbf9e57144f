"""A project's own hand-written pages (benchledger.toml's [[pages]]): published as written at
pages/<slug>.md and listed in the navigation after the site's own entries, unless one would load
something from another host. The files a page shows or links by a relative path (an image, a
CSV beside it) are published with it, at that path under pages/."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Iterable
from urllib.parse import unquote, urlsplit

from benchledger.errors import BuildError
from benchledger.files import read_input
from site_gen import dialect, urls
from site_gen.audit.scan import external_loads, local_references
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
            html = dialect.render(text)
            loads = external_loads(html)
            if loads:
                tag, url = loads[0]
                raise BuildError(f"{extra.source}: would load {url} from outside the site (<{tag}>)"
                                 + (f" and {len(loads) - 1} more" if len(loads) > 1 else "")
                                 + "; the site loads nothing from another host: put the file in the project and link it relatively")
            assets = {}
            for ref in local_references(html):
                found = files_beside(extra.source, ref)
                if found is not None:
                    assets[f"pages/{found[0]}"] = found[1]
            yield Page(f"pages/{extra.slug}.md", extra.title, text, assets)


def files_beside(source: Path, ref: str) -> tuple[str, bytes] | None:
    """(path under pages/, bytes) of the file in `source`'s folder (or below it) that the
    page's reference `ref` names, which a reader's browser resolves against pages/. None for a
    reference that is not such a file: another host, a scheme (mailto:), a fragment, a site path
    (/x), a page (.md, .html, a folder) or a path out of the folder (../records/...: the site's,
    which MkDocs' strict link check judges)."""
    if urls.scheme(ref) is not None or urls.other_host(ref):
        return None
    path = unquote(urlsplit(ref).path)
    if not path or path.startswith("/") or path.endswith(("/", ".md", ".html")) or ".." in PurePosixPath(path).parts:
        return None
    rel = PurePosixPath(path).as_posix()  # "./a//b.png" -> "a/b.png"
    file = source.parent / rel
    if not file.exists():
        raise BuildError(f"{source}: shows or links {ref}, but there is no {file}; put the file there (the site publishes "
                         f"it as pages/{rel}) or fix the path")
    if not file.resolve().is_relative_to(source.parent.resolve()):
        raise BuildError(f"{source}: {ref} leads out of the page's folder through a symbolic link ({file.resolve()}); "
                         "put the file itself beside the page")
    return rel, read_input(file, what="a file a page shows")  # a folder or a FIFO: InputError names it
