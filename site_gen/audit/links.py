"""`verify --site`'s step on links: every link and load on every page leads to a file the site
holds, and each #fragment to an element with that id on the page it names. Links to another
host are the reader's to follow (loads from one are check_no_external_loads'); a site path (/x:
the 404 page's, which MkDocs writes from the site's URL, for any folder it is served from) is
not resolved."""

from __future__ import annotations

import html as htmllib
import posixpath
import re

from benchledger.errors import Problem
from site_gen.audit.site import SiteAudit, link_target

_ID = re.compile(r'\sid="([^"]*)"')


def check_links(audit: SiteAudit) -> list[Problem]:
    """Each page's local links and loads (`Scanned.links`), each named once a page: a link into
    a folder leads to its index.html; one out of the site's folder leads nowhere. The older
    list pages' ⚠ linked under older/, where no article is (1,506 dead links at 1,000 articles),
    and no step said so."""
    files = {p.relative_to(audit.site).as_posix() for p in audit.site.rglob("*") if p.is_file()}
    folders = {posixpath.dirname(f) for f in files}
    ids: dict[str, set[str]] = {}
    problems = []
    for rel, _, _ in audit.pages:
        for ref in dict.fromkeys(audit.scan(rel).links):
            found = link_target(rel, ref)
            if found is None:
                continue
            target, fragment = found
            if target in folders or target == "." or target.endswith("/"):
                target = posixpath.normpath(posixpath.join(target, "index.html"))
            if target == ".." or target.startswith("../") or target not in files:
                problems.append(Problem(audit.shown(rel), "", f"links {ref[:80]!r}, which leads to no file of the site "
                                                              f"({target[:80]}): the link is dead"))
                continue
            if fragment and target.endswith(".html") and target in audit.texts:
                if target not in ids:
                    ids[target] = {htmllib.unescape(value) for value in _ID.findall(audit.texts[target])}
                if fragment not in ids[target]:
                    problems.append(Problem(audit.shown(rel), "", f"links {ref[:80]!r}, but {target[:80]} has no element "
                                                                  f"with the id {fragment[:80]!r}: the link is dead"))
    return problems
