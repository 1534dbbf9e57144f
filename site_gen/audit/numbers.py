"""`verify --site`'s steps on what pages show of records: every traced number and piece of
record text against the served record (under the formatting rule, `quantity.format_value`), and
every derived number against its formula recomputed (site_gen.formula)."""

from __future__ import annotations

import html as htmllib
import math
import re
from typing import Any, Iterator

from benchledger.cases.base import value_text
from benchledger.errors import Problem
from benchledger.records.display import readable
from benchledger.records.numbers import is_number
from benchledger.records.pointer import resolve
from site_gen import escape
from site_gen.audit.site import SiteAudit
from site_gen.formula import recompute
from site_gen.quantity import DIGITS, MAX_DIGITS, declared_unit, format_value, hover_text, ladder

# What a record does not hold at a pointer, or an input no record served intact gives.
MISSING = object()


def check_displayed_numbers(audit: SiteAudit) -> list[Problem]:
    """Every number shown with `data-sha256` and `data-pointer` reads, under the site's
    formatting rule (`quantity.format_value`), as the value at that pointer in that served
    record: an edited page number (25.8 -> 99.9) no longer passes."""
    problems = []
    for rel, _, _ in audit.pages:
        for span in audit.scan(rel).numbers:
            if span.sha256 not in audit.sealed:
                if not re.fullmatch(r"[0-9a-fA-F]{64}", span.sha256):  # a hash, unsealed: check_stated_hashes said so
                    problems.append(Problem(audit.shown(rel), "", f"shows {quoted(span.text)} as a traced number without a record's sha256 "
                                                     f"(data-sha256={span.sha256[:70]!r}): the page was edited"))
                continue
            data = audit.record_data(span.sha256)
            if data is None:
                continue  # not served intact: reported by the steps above
            value = resolve(data, span.pointer, default=MISSING)
            if value is MISSING:
                problems.append(Problem(audit.shown(rel), "", f"shows {quoted(span.text)} from {span.sha256[:12]} {span.pointer}, which that record does not have"))
            elif not reads_as(span.text, value, span.pointer):
                problems.append(Problem(audit.shown(rel), "", f"shows {quoted(span.text)} for {span.sha256[:12]} {span.pointer}, but the record holds "
                                                 f"{value!r} ({_expected(span.text, value, span.pointer)} under the formatting rule): the page was edited"))
            elif (wrong := _hover_problem(audit, span, value)) is not None:
                problems.append(Problem(audit.shown(rel), "", wrong))
    return problems


def check_displayed_text(audit: SiteAudit) -> list[Problem]:
    """Every piece of record text shown with its record and pointer (a GPU's name, a model, a
    setting: `bl-text` spans) reads as the record's value there: an edited "NVIDIA H200" ->
    "NVIDIA B200" no longer passes."""
    problems = []
    for rel, _, _ in audit.pages:
        for span in audit.scan(rel).texts:
            data = audit.record_data(span.sha256)
            if data is None or not span.pointer:
                continue  # not served intact (said above), or a field the record lacks ("n/a")
            value = resolve(data, span.pointer, default=MISSING)
            if value is MISSING:
                problems.append(Problem(audit.shown(rel), "", f"shows {quoted(span.text)} from {span.sha256[:12]} {span.pointer}, which that record does not have"))
            elif span.text != _as_text(value):
                problems.append(Problem(audit.shown(rel), "", f"shows {quoted(span.text)} for {span.sha256[:12]} {span.pointer}, but the record holds "
                                                              f"{quoted(_as_text(value))}: the page was edited"))
            # its hover names where it comes from (`quantity.traced_text`): the pointer (a record's
            # own page, a comparison's table) or the record and the pointer (a write-up's citation)
            elif span.title not in (hovers := (readable(span.pointer),
                                               readable(hover_text(span.sha256, span.pointer, None, with_value=False)))):
                problems.append(Problem(audit.shown(rel), "", f"shows {quoted(span.text)} for {span.sha256[:12]} {span.pointer} with a hover "
                                                              f"reading {quoted(span.title[:120])} where its record makes {quoted(hovers[0][:120])}: "
                                                              "the page was edited"))
    return problems


def _as_text(value: Any) -> str:
    """A record value as a page shows it as text, read back as a browser reads it: its
    canonical text (`value_text`), whitespace folded as site_gen.escape writes it."""
    return htmllib.unescape(escape.shown_attr(value_text(value)))


def check_derived_numbers(audit: SiteAudit) -> list[Problem]:
    """Every derived number (a ratio, a difference, a sum, a count) reads, under the formatting
    rule, as its formula recomputed from its inputs' values in their served records
    (site_gen.formula): an edited ratio (0.714 -> 0.914) no longer passes. A formula of a shape
    it does not know, or inputs it cannot read, leave the number unchecked."""
    problems = []
    for rel, _, _ in audit.pages:
        for span in audit.scan(rel).derived:
            inputs, records = named(span.inputs), named(span.input_sha256)
            value = recomputed(audit, span.formula, {name: (records.get(name, span.sha256), pointer) for name, pointer in inputs.items()})
            if value is MISSING:
                continue  # an input not served intact, or absent: the numbers' own steps say so
            first = next(iter(inputs.values()))
            if value is not None and not reads_as(span.text, value, first):
                problems.append(Problem(audit.shown(rel), "", f"shows {quoted(span.text)} for {span.formula} ({span.inputs}), but its inputs "
                                                              f"give {value!r} ({_expected(span.text, value, first)} under the formatting "
                                                              "rule): the page was edited"))
                continue
            made = readable(hover_text(span.sha256, None, value, formula=span.formula, inputs=inputs, input_records=records))
            # the result as the page computed it, which may differ from this one in the last bit
            said, _, result = span.title.rpartition(" · result ")
            if span.title != made and not (said == made.rpartition(" · result ")[0] and _close(result, value)):
                problems.append(Problem(audit.shown(rel), "", f"shows {quoted(span.text)} for {span.formula} with a hover reading "
                                                              f"{_first_difference(span.title, made)} where its inputs make "
                                                              f"{_first_difference(made, span.title)}: the page was edited"))
    return problems


def _close(text: str, value: Any) -> bool:
    """Whether `text` is a float's repr within a rounding of `value`."""
    try:
        return is_number(value) and math.isclose(float(text), value, rel_tol=1e-12, abs_tol=0.0)
    except ValueError:
        return False


def recomputed(audit: SiteAudit, formula: str, inputs: dict[str, tuple[str, str]]) -> Any:
    """`formula` recomputed (site_gen.formula) over its inputs, each (record sha256, pointer):
    None where the formula gives none, MISSING where there is no input or one is not in a record
    served intact. What a derived number, a charted point and an explorer cell are checked by."""
    values = {}
    for name, (sha256, pointer) in inputs.items():
        data = audit.record_data(sha256)
        values[name] = MISSING if data is None else resolve(data, pointer, default=MISSING)
        if values[name] is MISSING:
            return MISSING
    return recompute(formula, values) if values else MISSING


def named(text: str) -> dict[str, str]:
    """"name = value; name = value" as a dict ({} when it does not read so)."""
    pairs = [part.partition(" = ") for part in text.split("; ")] if text else []
    return {name: value for name, sep, value in pairs if sep} if all(sep for _, sep, _ in pairs) else {}


# What a traced number may show instead of its value: a label chosen by the page, never a number.
_LABELS = re.compile(r"[^0-9]*")  # and no digit of any script either (see reads_as)


def _is_label(text: str) -> bool:
    return bool(_LABELS.fullmatch(text)) and not any(c.isnumeric() for c in text)  # "９９.９" is no label


def reads_as(text: str, value: Any, pointer: str) -> bool:
    """Whether `text` is how the site shows `value`: `format_value(value, unit)` for the unit
    the text names (bytes rescaled), or a label without digits (e.g. "withheld")."""
    return _is_label(text) or text in _candidates(text, value, pointer)


def _hover_problem(audit: SiteAudit, span: Any, value: Any) -> str | None:
    """What is wrong with a traced number's hover (None where nothing is): it must be the one
    `quantity.hover_text` makes from the served record, its record, pointer and raw value (a
    label, "withheld", may stand without the value), after the reasons a value is not shown
    where the page gives them, each one of the record's limitations (`_said_reasons`)."""
    made = [readable(hover_text(span.sha256, span.pointer, value))]
    if _is_label(span.text):
        made.append(readable(hover_text(span.sha256, span.pointer, None, with_value=False)))
    shown = f"shows {quoted(span.text)} for {span.sha256[:12]} {span.pointer}"
    for hover in made:
        if span.title == hover:
            return None
        if span.title.endswith(" · " + hover):
            reason = span.title[:-len(hover) - 3]
            return None if _said_reasons(audit, span.sha256, reason) else (
                f"{shown} with a hover giving the reason {quoted(reason[:120])}, which no limitation of {span.sha256[:12]} "
                "says: the page was edited")
    at = span.title.find("record sha256 ")  # what follows any reasons
    said = span.title[at:] if at > 0 else span.title
    hover = made[-1] if len(made) > 1 and "raw value" not in said else made[0]
    return (f"{shown} with a hover reading {_first_difference(said, hover)} where its record makes "
            f"{_first_difference(hover, said)}: the page was edited")


def _first_difference(text: str, other: str) -> str:
    """The first of `text`'s " · "-joined parts that `other` does not have in its place,
    quoted ("nothing" where `text` ends first)."""
    parts, others = text.split(" · "), other.split(" · ")
    for i, part in enumerate(parts):
        if i >= len(others) or others[i] != part:
            return quoted(part[:120])
    return "nothing"


def _said_reasons(audit: SiteAudit, sha256: str, reason: str) -> bool:
    """Whether `reason` (a hover's words before the record's) is limitations of the record, in
    their words, joined by "; " (`citations/value.py`, a withheld percentile's)."""
    words = {readable(lim.text) for lim in audit.limitations(sha256) or []}
    ends = {0}  # where in `reason` a run of limitations' words can end
    for at in range(len(reason) + 1):
        if at in ends:
            ends |= {at + len(w) + 2 for w in words if reason.startswith(w, at)}
    return len(reason) + 2 in ends


def _candidates(text: str, value: Any, pointer: str) -> Iterator[str]:
    """How the site may show `value` where a page shows `text`, the likeliest first: made one at
    a time, since nearly every number reads as the first (a page shows hundreds of thousands)."""
    number, _, unit = text.partition("\u202f")
    if not unit and text.endswith("%"):
        unit = "%"
    # A size or a duration is shown rescaled from the unit its field declares, or the nearest
    # key above it (reported_mib: 41,298 MiB shows as 40.3 GiB; capture_seconds: 0.048 s as
    # 48.0 ms; process_rss_bytes/maximum in bytes), or from any unit of its ladder where no key
    # declares one (the page chose it: fit_target in MiB).
    declared, units = declared_unit(pointer), ladder(unit)
    units = [declared] if declared in units else list(units or [unit])
    for u in units:
        try:
            shown = format_value(value, u)
        except (TypeError, ValueError, OverflowError):
            continue
        yield str(shown)
        try:
            # a range's ends may carry more digits, where fewer would read alike (range_digits)
            more = [str(format_value(value, u, digits)) for digits in range(DIGITS + 1, MAX_DIGITS + 1)]
        except (TypeError, ValueError, OverflowError):
            continue
        yield from more
        if ladder(u):
            continue  # a rescaled unit is the one the value reads in, never a label the caller chose
        # a caller's label after the number ("330 tokens" cited as "330 tokens" or "1,024 token")
        yield shown.number + ("\u202f" + unit if unit else "")
        yield shown.number + (" " + text.split(" ", 1)[1] if " " in text else "")


_TAG = re.compile(r"<[^>]*>")


def read_words(html: str) -> str:
    """Page HTML as a reader reads it, for a message: its text, tags dropped, entities decoded."""
    return htmllib.unescape(_TAG.sub("", html))


def quoted(text: str) -> str:
    """Page text quoted for a message (the narrow space between number and unit as a space)."""
    return '"' + text.replace("\u202f", " ") + '"'


def quoted_apart(a: str, b: str) -> tuple[str, str]:
    """Two texts quoted for a message where they first differ: each from its start where that
    falls in its first 60 characters, else from the word starting 30 or more characters before,
    80 characters of each."""
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = 0 if at < 60 else a.rfind(" ", 0, at - 30) + 1  # a word's start
    lead = "…" if start else ""
    return quoted(lead + a[start:start + 80]), quoted(lead + b[start:start + 80])


def _expected(text: str, value: Any, pointer: str) -> str:
    first = next(_candidates(text, value, pointer), None)
    return quoted(first) if first is not None else "no text"
