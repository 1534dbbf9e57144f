"""`verify --site`'s step on caveats: each record's page shows every limitation of the record
(site_gen.limitations), marks numbers only with them and every number one is scoped at with its
⚠, and a comparison page lists only limitations of the records it names, and every one that
applies to a number or text of a record it shows."""

from __future__ import annotations

import html as htmllib
import re

from benchledger.errors import Problem
from benchledger.records.display import readable
from benchledger.records.numbers import is_number
from benchledger.records.pointer import resolve
from site_gen import escape
from site_gen.audit.numbers import named, quoted
from site_gen.audit.site import RECORDS, SiteAudit
from site_gen.limitations import by_scope, scoped_along


# A record page's limitation note as pages/records/base.py writes it (its words escaped, so
# no "<" inside): source, its anchors, rule id, words; and each anchor.
_LIMITATION_ITEM = re.compile(r'<li class="bl-lim bl-lim-([a-z]+)">((?:<span id="lim-[0-9a-f]+"></span>)+)'
                              r'<span class="bl-lim-rule" title="[^"]*">([^<]*)</span> ([^<]*)</li>')
_LIMITATION_ID = re.compile(r'<span id="(lim-[0-9a-f]+)"></span>')
# A limitation where records are compared (pages/comparisons.py): source, rule id, words, and
# the records it applies to ("path pointer; ..."), all escaped.
_PLACED_LIMITATION = re.compile(r'<li class="bl-lim bl-lim-([a-z]+)"><span class="bl-lim-rule">([^<]*)</span> ([^<]*) '
                                r'<span class="bl-lim-where">\(([^<]*)\)</span></li>')
# A marker beside a number linking to a note on its page (quantity.limitations_marker): its
# anchor, its hover (the limitations' words, escaped) and how many it counts (none: one).
_LIMITATION_MARK = re.compile(r'<a class="bl-lim-mark" href="#(lim-[0-9a-f]+)" aria-label="[^"]*" title="([^"]*)">'
                              r"&#9888;(?:<sup>(\d+)</sup>)?</a>")

# One of the record's own numbers, not derived (quantity.traced), with the markers right after
# it (quantity.limitation_marker, limitations_marker): its sha256, pointer (escaped) and markers.
_MARKED_NUMBER = re.compile(r'<span class="bl-num" data-sha256="([0-9a-f]{64})"(?: data-unit="[^"]*")? '
                            r'data-pointer="([^"]*)" title="[^"]*">[^<]*</span>'
                            r'((?:&#8288;<a class="bl-lim-mark" [^>]*>&#9888;(?:<sup>\d+</sup>)?</a>)*)')


def check_limitations(audit: SiteAudit) -> list[Problem]:
    """Each record's page (the one holding its audit block) shows every limitation of the record,
    what it says of itself and what the generator's rules find in it (site_gen.limitations),
    each under its anchor with its rule and its words; and every served record has its page. A
    caveat cut from a record's page, or reworded, no longer passes."""
    problems = []
    for sha, rel in audit.record_pages.items():
        lims = audit.limitations(sha)
        if lims is None:
            continue  # not served intact: said by the steps that read records
        text = audit.texts[rel]
        shown = {anchor: (source, rule, words) for source, anchors, rule, words in _LIMITATION_ITEM.findall(text)
                 for anchor in _LIMITATION_ID.findall(anchors)}
        # a note shows its text once, under the first rule of those with that text: a record may
        # say in its own words what a rule says
        named: dict[str, set[tuple[str, str]]] = {}
        for lim in lims:
            named.setdefault(lim.text, set()).add((lim.source, escape.html(lim.rule_id)))
        for lim in lims:
            found = shown.get(lim.anchor)
            if found is None:
                problems.append(Problem(audit.shown(rel), "", f"lacks the limitation {lim.anchor} of {sha[:12]} ({lim.rule_id}: "
                                                              f"{quoted(lim.text[:80])}): a caveat of the record was cut from its page"))
            elif found[2] != escape.html(lim.text) or found[:2] not in named[lim.text]:
                problems.append(Problem(audit.shown(rel), "", f"shows the limitation {lim.anchor} of {sha[:12]} as "
                                                              f"{quoted(htmllib.unescape(found[2])[:80])}, but the record's reads "
                                                              f"{quoted(lim.text[:80])} ({lim.rule_id}): the page was edited"))
        problems += _marker_problems(audit.shown(rel), sha, lims, _LIMITATION_MARK.findall(text))
        problems += _unmarked_problems(audit.shown(rel), sha, audit.record_data(sha), lims, text)
    for entry in audit.read.entries:
        if entry.sha256 not in audit.record_pages and audit.record_data(entry.sha256) is not None:
            problems.append(Problem(audit.shown(f"{RECORDS}/{entry.path}"), "", "no page shows this record's audit block and "
                                                                                "limitations: its page was removed or cut"))
    return problems + _placed_problems(audit) + _unlisted_problems(audit)


def _placed_problems(audit: SiteAudit) -> list[Problem]:
    """A limitation shown where records are compared (pages/comparisons.py: its rule and words,
    then the records it applies to) is one the first record it names has, in those words."""
    by_path = {entry.path: entry.sha256 for entry in audit.read.entries}
    problems = []
    for rel, _, text in audit.pages:
        if "bl-lim-where" not in text:
            continue
        for source, rule, words, where in _PLACED_LIMITATION.findall(text):
            path = htmllib.unescape(where).split(" ", 1)[0]  # a store path holds no space
            sha = by_path.get(path)
            lims = audit.limitations(sha) if sha is not None else None
            if sha is None:
                problems.append(Problem(audit.shown(rel), "", f"shows a limitation of {quoted(path[:80])}, which the ledger does not "
                                                              f"seal: the page was edited"))
            elif lims is not None and not any(lim.source == source and escape.html(lim.rule_id) == rule
                                              and escape.html(lim.text) == words for lim in lims):
                problems.append(Problem(audit.shown(rel), "", f"shows {quoted(htmllib.unescape(words)[:80])} ({htmllib.unescape(rule)[:80]}) "
                                                              f"as a limitation of {path}, which it is not: the page was edited"))
    return problems


# A comparison page (site_gen.comparisons.Comparison.path): comparisons/<kind>/<axis>-<id>.html.
_COMPARISON_PAGE = re.compile(r"comparisons/[^/]+/[^/]+\.html")


# Where a comparison's list says a limitation applies: "path scope; ...", then " and N more"
# past four (pages/comparisons.py `_Placed.block`).
_MORE_PLACES = re.compile(r" and (\d+) more$")


def _unlisted_problems(audit: SiteAudit) -> list[Problem]:
    """A comparison page lists every limitation that applies to a number or text of a record it
    shows (pages/comparisons.py: under the metric, the cases or "Limitations of the compared
    records"), naming the record and the limitation's scope, or counting it among "N more": a
    caveat cut from a comparison, or a record cut from the places one names, no longer passes."""
    by_sha = {entry.sha256: entry.path for entry in audit.read.entries}
    scoped: dict[str, dict[str, list]] = {}
    problems = []
    for rel, _, text in audit.pages:
        if not _COMPARISON_PAGE.fullmatch(rel):
            continue
        # (rule, words) -> [places named, how many more], all as the page writes them (escaped)
        listed: dict[tuple[str, str], list] = {}
        for _, rule, words, where in _PLACED_LIMITATION.findall(text):
            more = _MORE_PLACES.search(where)
            entry = listed.setdefault((rule, words), ["", 0])
            entry[0] += "; " + (where[:more.start()] if more else where) + "; "
            entry[1] += int(more.group(1)) if more else 0
        needed: dict[tuple[str, str], dict[str, tuple[str, object]]] = {}
        scanned = audit.scan(rel)
        shown = [(span.sha256, span.pointer) for span in scanned.numbers + scanned.texts]
        for number in scanned.derived:  # each input in its own record: a ratio's numerator is another's
            records = named(number.input_sha256)
            shown += [(records.get(name, number.sha256), pointer) for name, pointer in named(number.inputs).items()]
        for sha, pointer in shown:
            if sha not in by_sha or audit.limitations(sha) is None:
                continue  # not a sealed record served intact: said by the steps that read records
            if sha not in scoped:
                scoped[sha] = by_scope(audit.limitations(sha))
            for lim in scoped_along(scoped[sha], pointer):
                place = escape.html(lim.place(by_sha[sha]))
                needed.setdefault((escape.html(lim.rule_id), escape.html(lim.text)), {}).setdefault(place, (sha, lim))
        # "N more" stands only for places of the records shown: a list cut to "and 99 more" hides nothing
        have: dict[tuple[str, str], set[str]] = {}
        for sha in {sha for sha, _ in shown if sha in scoped}:
            for lim in audit.limitations(sha) or []:
                have.setdefault((escape.html(lim.rule_id), escape.html(lim.text)), set()).add(
                    escape.html(lim.place(by_sha[sha])))
        for (rule, words), (said, more) in listed.items():
            unnamed = len([place for place in have.get((rule, words), ()) if f"; {place}; " not in said])
            if more > unnamed:
                problems.append(Problem(audit.shown(rel), "", f"counts {more} more places for {quoted(htmllib.unescape(words)[:80])} "
                                                              f"({htmllib.unescape(rule)[:80]}), where the records it shows have "
                                                              f"{unnamed} more: the page was edited"))
        for key, places in needed.items():
            said, more = listed.get(key, ("", 0))
            unnamed = [places[place] for place in sorted(places) if f"; {place}; " not in said]
            # past four places a list counts the rest: which of the unnamed it counts is not said
            for sha, lim in unnamed if not more else unnamed[:1] if len(unnamed) > more else ():
                where = "all of them" if lim.scope == "" else f"those under {lim.scope[:80]}"
                problems.append(Problem(audit.shown(rel), "", f"shows numbers of {by_sha[sha][:80]} without its limitation "
                                                              f"{lim.anchor} ({lim.rule_id}: {quoted(lim.text[:80])}), which "
                                                              f"applies to {where}: a caveat was cut from the page"))
    return problems


def _marker_problems(shown: str, sha: str, lims: list, marks: list[tuple[str, str, str]]) -> list[Problem]:
    """A record page's ⚠ markers beside its numbers (`quantity.limitations_marker`): each links
    to one of the record's limitations, and its hover lists that limitation's words first, then
    the others it counts, each a limitation of the record. (The words are compared one by one
    where no limitation's words are empty or hold the "·" that joins them.)"""
    by_anchor = {lim.anchor: lim for lim in lims}
    texts = {readable(lim.text) for lim in lims}
    plain = _told_apart(lims)
    problems = []
    for anchor, title, count in marks:
        lim = by_anchor.get(anchor)
        words = htmllib.unescape(title).split(" · ")
        if lim is None:
            problems.append(Problem(shown, "", f"marks a number with {anchor}, which is no limitation of {sha[:12]}: "
                                               f"the page was edited"))
        elif plain and (len(words) != int(count or 1) or words[0] != readable(lim.text) or not set(words) <= texts):
            problems.append(Problem(shown, "", f"marks a number with {anchor} of {sha[:12]}, whose hover reads "
                                               f"{quoted(htmllib.unescape(title)[:80])}, not the record's limitations: "
                                               f"the page was edited"))
    return problems


def _unmarked_problems(shown: str, sha: str, data: object, lims: list, text: str) -> list[Problem]:
    """Every number of the record on its page that limitations are scoped at carries their ⚠
    markers (as `ArticleWriter.num` writes them), and so does a block shown as unavailable: each
    limitation linked by a marker or, where one
    marker counts several (a headline's), among the words of its hover. (Where a limitation's
    words hold the "·" that joins them, only how many the markers count is held.) A ⚠ removed
    from beside a number, its note left lower on the page, no longer passes."""
    scoped = by_scope(lims)
    plain = _told_apart(lims)
    problems = []
    for number_sha, pointer_attr, markers in _MARKED_NUMBER.findall(text):
        pointer = htmllib.unescape(pointer_attr)
        value = resolve(data, pointer, default=None) if number_sha == sha else None
        # a block shown as unavailable (its `available` flag false) carries the block's caveats
        # (`ArticleWriter.num`'s limited_at); a summary's pointer stands for a percentile it
        # withholds (`ArticleWriter.percentile`), which shows that percentile's caveat alone
        scope = pointer if is_number(value) else pointer.rpartition("/")[0] if value is False and \
            pointer.endswith("/available") else None
        expected = scoped.get(scope) if scope is not None else None
        if not expected:
            continue
        marks = _LIMITATION_MARK.findall(markers)
        linked = {anchor for anchor, _, _ in marks}
        told = {word for _, title, _ in marks for word in htmllib.unescape(title).split(" · ")}
        unmarked = [lim for lim in expected if lim.anchor not in linked and readable(lim.text) not in told]
        if unmarked if plain else sum(int(count or 1) for _, _, count in marks) < len(expected):
            lim = unmarked[0] if unmarked else expected[0]
            problems.append(Problem(shown, "", f"shows {sha[:12]} {pointer[:80]} without the ⚠ of its limitation {lim.anchor} "
                                               f"({lim.rule_id}: {quoted(lim.text[:80])}): the page was edited"))
    return problems


def _told_apart(lims: list) -> bool:
    """Whether a hover's words, its limitations' joined by " · ", split back into each one's:
    none is empty or holds the "·" (`quantity.limitations_marker`)."""
    return all(readable(lim.text) and "·" not in readable(lim.text) for lim in lims)
