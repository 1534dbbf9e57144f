"""`verify --site`'s step on loads: no page, chart or style sheet loads anything from another
host (what a page loads is read by `scan.Loads`, in the one parse of each page)."""

from __future__ import annotations

from benchledger.errors import Problem
from site_gen.audit.scan import css_urls, is_external
from site_gen.audit.site import SiteAudit


def check_no_external_loads(audit: SiteAudit) -> list[Problem]:
    """No page, script or style sheet loads anything from another host (links may point out)."""
    problems = []
    for rel, _, _ in audit.pages:
        problems += [Problem(audit.shown(rel), "", f"loads {url} from outside the site (<{tag}>)") for tag, url in audit.scan(rel).loads]
    for sheet in sorted(audit.site.rglob("*.css")):
        text = sheet.read_text(encoding="utf-8", errors="replace")
        for url in css_urls(text):
            if is_external(url):
                problems.append(Problem(sheet.as_posix(), "", f"loads {url} from outside the site (CSS)"))
    return problems
