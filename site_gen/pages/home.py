"""The home page: every article as a card (title, date, hardware, the headline sentence with its
traced numbers, record hash, limitation count), newest first. The hand-written intro comes from docs/home.md."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Iterable

from site_gen.page import Page
from site_gen.pages.base import PageKind
from site_gen.pages.records.base import on_home
from site_gen.pages.records.registry import renderer_for
from site_gen.resources import guide_text
from site_gen.templating import url

if TYPE_CHECKING:
    from site_gen.context import RecordView, SiteContext


def card(view: "RecordView") -> dict:
    """What a record's card shows (JSON, so the render cache can keep it)."""
    summary = renderer_for(view.schema, view.entry.path).summary(view)
    return {"summary": dataclasses.asdict(summary), "limitations": len({lim.text for lim in view.limitations})}


def _linked(card: dict, view: "RecordView") -> dict:
    """The card with its headline's limitation markers linking to the notes on the article."""
    article = url("index.md", view.page_path)
    summary = card["summary"]
    summary = {**summary, "headline_html": on_home(summary["headline_html"], article)}
    return {**card, "summary": summary}


class HomePage(PageKind):
    name = "home"

    def pages(self, site: "SiteContext") -> Iterable[Page]:
        cards = [{"view": view, **_linked(site.render_cache.memo(view, "card", lambda: card(view)), view)} for view in site.views]
        # Newest first; ledger position breaks ties so the order never depends on anything else.
        cards.sort(key=lambda c: (c["summary"]["date"], c["view"].entry.position), reverse=True)
        intro = guide_text("home.md")
        yield Page("index.md", "Articles", site.render("home.md.j2", intro=intro, cards=cards, page_path="index.md"))
