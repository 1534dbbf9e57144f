"""The home page: every article as a card (title, date, hardware, the headline sentence with its
traced numbers, record hash, limitation count), newest first, `CARDS_PER_PAGE` to a page (the
rest on `older/N.html`, linked from a pager), with links to the explorer, where every case can
be filtered by GPU, model, release or setting. The hand-written intro comes from docs/home.md."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Iterable

from site_gen.article_series import chronological
from site_gen.comparisons import comparisons_of
from site_gen.explorer import page_path as explorer_path
from site_gen.page import Page
from site_gen.pages.base import PageKind
from site_gen.pages.records.base import on_home
from site_gen.pages.records.registry import summary_of
from site_gen.resources import guide_text
from site_gen.templating import url

if TYPE_CHECKING:
    from site_gen.context import RecordView, SiteContext


def card(site: "SiteContext", view: "RecordView") -> dict:
    """What a record's card shows (JSON, so the render cache can keep it)."""
    summary = summary_of(site, view)
    return {"summary": dataclasses.asdict(summary), "limitations": len({lim.text for lim in view.limitations})}


def cards_of(site: "SiteContext") -> dict[str, dict]:
    """Every record's card, by sha256, read once per build (kept in `site.derived`): the home
    page shows them, the articles' links to the runs before and after name their dates."""
    if "cards" not in site.derived:
        site.derived["cards"] = {view.sha256: site.render_cache.memo(view, "card", lambda: card(site, view)) for view in site.views}
    return site.derived["cards"]


def _linked(card: dict, view: "RecordView", page_path: str) -> dict:
    """The card, on the list page at `page_path`, with its headline's limitation markers linking
    to the notes on the article."""
    article = url(page_path, view.page_path)
    summary = card["summary"]
    summary = {**summary, "headline_html": on_home(summary["headline_html"], article)}
    return {**card, "summary": summary}


# Cards on one page of the list: one list of every card made the home page of a 1,000-record site
# 3.5 MB and 160 screens long.
CARDS_PER_PAGE = 30


def list_page_path(number: int) -> str:
    """Where page `number` (1-based) of the article list is."""
    return "index.md" if number == 1 else f"older/{number}.md"


class HomePage(PageKind):
    name = "home"

    def pages(self, site: "SiteContext") -> Iterable[Page]:
        known = cards_of(site)
        cards = [{"view": view, **known[view.sha256]} for view in site.views]
        cards.sort(key=lambda c: chronological(c["summary"]["date"], c["view"]), reverse=True)  # newest first
        intro = guide_text("home.md")
        explorers = [(kind.title, explorer_path(kind)) for kind in comparisons_of(site).kinds]
        count = max(1, -(-len(cards) // CARDS_PER_PAGE))
        for number in range(1, count + 1):
            path = list_page_path(number)
            title = "Articles" if number == 1 else f"Articles, page {number} of {count}"
            first = (number - 1) * CARDS_PER_PAGE
            pager = {"number": number, "count": count, "first": f"{first + 1:,}",
                     "last": f"{min(first + CARDS_PER_PAGE, len(cards)):,}", "total": f"{len(cards):,}",
                     "newer": list_page_path(number - 1) if number > 1 else None,
                     "older": list_page_path(number + 1) if number < count else None,
                     "pages": _pager_numbers(number, count)}
            yield Page(path, title, site.render("home.md.j2", intro=intro if number == 1 else "", title=title,
                                                cards=[_linked(c, c["view"], path) for c in cards[first:first + CARDS_PER_PAGE]],
                                                pager=pager,
                                                explorers=explorers, page_path=path))


def _pager_numbers(number: int, count: int) -> list[tuple[int | None, str]]:
    """The pages a pager links, (number, path): the first, the last and two either side of
    page `number`, a gap (None) where pages are left out, so the pager stays one line at
    10,000 records."""
    shown = sorted({1, count, *range(max(1, number - 2), min(count, number + 2) + 1)})
    out: list[tuple[int | None, str]] = []
    for n in shown:
        if out and n - (out[-1][0] or 0) > 1:
            out.append((None, ""))
        out.append((n, list_page_path(n)))
    return out

