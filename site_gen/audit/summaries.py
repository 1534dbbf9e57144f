"""`verify --site`'s step on each record's summary: the headline its article leads with and its
card repeats (the home page and the older pages), and the cases it says were left out of the
numbers, as the record's renderer makes them again from the served record
(`RecordRenderer.summary`). Traced numbers are checked one by one elsewhere; this holds the
words around them: a headline whose "falling to" was edited to "rising to", or whose failed
cases were cut, no longer passes."""

from __future__ import annotations

import html as htmllib
import re
from typing import TYPE_CHECKING

from benchledger.errors import Problem
from site_gen import escape
from site_gen.audit.numbers import quoted, quoted_apart, read_words
from site_gen.audit.site import SiteAudit, link_target

if TYPE_CHECKING:
    from site_gen.pages.records.base import Summary

_HEADLINE = re.compile(r'<p class="bl-headline">(.*?)</p>', re.S)
# The parts of a card (templates/home.md.j2), in page order: its link to the article, its
# headline, and what it says was left out.
_CARD_PART = re.compile(r'<h2 class="bl-card-title"[^>]*><a href="([^"]*)">|<p class="bl-card-headline">(.*?)</p>'
                        r'|<p class="bl-left-out">(.*?)</p>', re.S)


def check_summaries(audit: SiteAudit) -> list[Problem]:
    """Each record's page leads with the headline its record makes and says which cases were
    left out; each card shows its article's headline (its ⚠ markers linking into the article,
    `records.base.on_home`) and what was left out, or nothing where nothing was."""
    from site_gen.pages.records.base import on_home

    problems = []
    made: dict[str, Summary | None] = {}  # each record's summary, for its page and its card
    for sha, rel in audit.record_pages.items():
        summary = _summary(audit, sha, made)
        if summary is None:
            continue  # not served intact: said by the steps that read records
        text = audit.texts[rel]
        for shown in _HEADLINE.findall(text):
            if shown != summary.headline_html:
                said, made_text = _quoted_apart(shown, summary.headline_html)
                problems.append(Problem(audit.shown(rel), "", f"leads with {said}, but its record {sha[:12]} makes {made_text}: "
                                                              "the page was edited"))
        if summary.left_out and f'<p class="bl-left-out">{escape.html(summary.left_out)}</p>' not in text:
            problems.append(Problem(audit.shown(rel), "", f"does not say {quoted(summary.left_out[:80])}, which its record "
                                                          f"{sha[:12]} gives: the page was edited"))
    pages = {rel: sha for sha, rel in audit.record_pages.items()}
    for rel, _, text in audit.pages:
        if 'class="bl-card-headline"' not in text:
            continue
        for href, headline, left_out in _cards(text):
            target = (link_target(rel, htmllib.unescape(href)) or ("", ""))[0]
            summary = _summary(audit, pages[target], made) if target in pages else None
            if summary is None:
                continue  # no record's page, or one not served intact: their own steps say so
            where = f"its card of {target}"
            if headline is not None and headline != (card := on_home(summary.headline_html, href)):
                said, made_text = _quoted_apart(headline, card)
                problems.append(Problem(audit.shown(rel), "", f"{where} reads {said}, but its record {pages[target][:12]} makes "
                                                              f"{made_text}: the page was edited"))
            if left_out != (escape.html(summary.left_out) if summary.left_out else None):
                problems.append(Problem(audit.shown(rel), "", f"{where} says {_words(left_out or 'no case was left out')} "
                                                              f"where its record {pages[target][:12]} gives "
                                                              f"{quoted((summary.left_out or 'none left out')[:80])}: the page was edited"))
    return problems


def _summary(audit: SiteAudit, sha256: str, made: dict[str, "Summary | None"]) -> "Summary | None":
    """The summary the record's renderer makes of the served record (None: not served intact,
    or of a schema no renderer writes), made once into `made`."""
    from site_gen.pages.records.registry import RENDERERS

    if sha256 not in made:
        view = audit.view(sha256)
        renderer = RENDERERS.get(view.schema) if view is not None else None
        made[sha256] = renderer.summary(view) if renderer is not None else None
    return made[sha256]


def _cards(text: str) -> list[tuple[str, str | None, str | None]]:
    """Each card of a page: (its link as written, its headline, what it says was left out),
    the last two None where the card shows none."""
    cards: list[list] = []
    for href, headline, left_out in _CARD_PART.findall(text):
        if href:
            cards.append([href, None, None])
        elif cards and headline:
            cards[-1][1] = headline
        elif cards and left_out and cards[-1][1] is not None:
            cards[-1][2] = left_out
    return [(href, headline, left_out) for href, headline, left_out in cards]


def _words(html: str) -> str:
    """Page HTML quoted for a message as a reader reads it: its text, cut to 80 characters."""
    return quoted(read_words(html)[:80])


def _quoted_apart(shown: str, made: str) -> tuple[str, str]:
    """A headline as the page shows it and as its record makes it, quoted for a message where
    they first differ (`quoted_apart`): as a reader reads them, or, where their words agree (a
    hover, a link or a marker retold), as HTML."""
    a, b = read_words(shown), read_words(made)
    return quoted_apart(a, b) if a != b else quoted_apart(shown, made)
