"""Numbers on pages: formatting with units and sensible precision, and the traceability markup.

Every number a page shows goes through `traced()`: the visible text is the formatted value, and
the markup carries where it came from (record sha256 + RFC 6901 JSON pointer), or, for a derived
number, its formula and the pointers of its inputs. The raw value stays in the downloadable
record; the `title` shows it on hover. The markup is plain inline HTML, safe both inside a
Markdown paragraph or table cell and inside a raw HTML block.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from benchledger.records.numbers import is_number
from site_gen import escape

if TYPE_CHECKING:
    from site_gen.limitations import Limitation

# Binary prefixes for byte counts; SI prefixes would disagree with what tools like `free -h` show.
BYTE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
# A duration under a second reads in milliseconds ("48.0 ms", not "0.0480 s" beside times in ms).
TIME_UNITS = ("ms", "s")


def ladder(unit: str) -> tuple[str, ...]:
    """The units a value in `unit` may be shown in once rescaled (`format_value`), smallest
    first; () for a unit never rescaled."""
    return next((units for units in (BYTE_UNITS, TIME_UNITS) if unit in units), ())


@dataclass(frozen=True)
class Formatted:
    """A value formatted for reading: `number` and `unit` as shown (unit may be rescaled)."""

    number: str
    unit: str

    def __str__(self) -> str:
        if not self.unit:
            return self.number
        sep = "" if self.unit == "%" else "\u202f"  # narrow no-break space between number and unit
        return f"{self.number}{sep}{self.unit}"


# The significant digits a number gets (`DIGITS`), and at most (`MAX_DIGITS`) where a range's
# two ends would otherwise read alike ("1.08–1.08" for 1.0771 and 1.0794).
DIGITS, MAX_DIGITS = 3, 7


def format_number(value: float | int, digits: int = DIGITS) -> str:
    """A number with about `digits` significant digits; integers and values >= 10^digits in
    full with thousands separators (`43,317`), smaller values to that many significant digits
    (`1.08`, `0.738`)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    if magnitude < -3:
        return f"{value:.{digits}g}"  # 1.23e-05: a row of zeros would hide the digits
    if magnitude < digits and abs(round(value, max(0, digits - 1 - magnitude))) >= 10 ** (magnitude + 1):
        magnitude += 1  # rounding carries into the next power of ten: 0.9997 reads 1.00, not 1.000 beside 1.0003's 1.00
    if magnitude >= digits:
        return f"{value:,.0f}"
    decimals = max(0, digits - 1 - magnitude)
    return f"{value:,.{decimals}f}"


def format_value(value: float | int | None, unit: str = "", digits: int = DIGITS) -> Formatted:
    """`value` in `unit`, rescaled where a reader expects it (bytes -> KiB/MiB/GiB; 41,298 MiB
    -> 40.3 GiB; 0.048 s -> 48.0 ms)."""
    if value is None:
        return Formatted("n/a", "")
    unit = "B" if unit == "bytes" else unit
    if unit in BYTE_UNITS and not isinstance(value, bool):
        scaled, index = float(value), BYTE_UNITS.index(unit)
        while abs(scaled) >= 1024 and index < len(BYTE_UNITS) - 1:
            scaled /= 1024
            index += 1
        if index == 0:
            return Formatted(format_number(int(value)), "B")
        return Formatted(format_number(scaled, digits), BYTE_UNITS[index])
    if unit == "s" and is_number(value) and 0 < abs(value) < 1:
        return Formatted(format_number(value * 1000, digits), "ms")
    return Formatted(format_number(value, digits), unit)


@lru_cache(maxsize=4096)  # a site's pages and its audit ask about the same few hundred keys, 680,000 times at 1,000 articles
def unit_for(key: str) -> str:
    """The unit a field name declares by its suffix (the project's naming rule)."""
    for suffix, unit in (
        ("_bytes", "B"), ("_seconds", "s"), ("_s", "s"), ("_ms", "ms"), ("_mib", "MiB"), ("_gb", "GB"),
        ("_percent", "%"), ("_watts", "W"), ("_joules", "J"), ("joules", "J"), ("watt_hours", "Wh"),
        ("_mhz", "MHz"), ("_per_second", "/s"), ("_tokens", "tokens"),
    ):
        if key.endswith(suffix):
            return unit
    return ""


def rescaled(value: float, unit: str, to_unit: str) -> float:
    """`value` in `unit` (a unit of a `ladder`) as `to_unit` of the same ladder: 1,048,576 B is
    1.0 MiB, 0.048 s is 48.0 ms. A ValueError names units that are not on one ladder."""
    units = ladder(unit)
    if to_unit not in units:
        raise ValueError(f"{unit!r} cannot be rescaled to {to_unit!r}")
    step = 1024 if units is BYTE_UNITS else 1000
    return value / step ** (units.index(to_unit) - units.index(unit))


def axis_number(text: str | None) -> float | int | None:
    """A field's canonical text (`cases.base.value_text`) as a chart's x: its number, an integer
    as one (a context of 2048 tokens read "2048.0" in the table behind the chart); None when it
    is no number."""
    try:
        return None if text is None else int(text) if text.isascii() and text.isdigit() else float(text)
    except ValueError:
        return None


def named_list(pairs: Iterable[tuple[str, str]]) -> str:
    """(name, value) pairs as a traced number's markup writes them: "name = value; name = value"."""
    return "; ".join(f"{name} = {value}" for name, value in pairs)


def origin_text(fields: dict[str, str]) -> str:
    """Where a charted value comes from, as a reader sees it in the table behind the chart and
    in its tooltip (there made by the browser, `ORIGIN_EXPRESSION`), from what its trace says for
    a machine (`Trace.fields`): `verify --site` holds the table's words to its trace through this
    one spelling."""
    own = f"record {fields['sha256'][:12]}"
    if "pointer" in fields:
        return f"{own} · pointer {fields['pointer']}" + (f" · shown in {fields['unit']}" if fields.get("unit") else "")
    return f"{own} · derived: {fields.get('formula', '')} · inputs: {fields.get('inputs', '')}"


# `origin_text` in Vega's expression language, over a chart row's `trace` (`Trace.fields`): a
# chart computes each point's source when its tooltip is shown, so the words are not sent once
# per point (588 KB of the 4.06 MB series page of 502 records). `verify --site` holds each spec's
# tooltip to this very expression; a pointer is tested with isValid, not for truth, as "" is one.
ORIGIN_EXPRESSION = (
    "'record ' + substring(datum.trace.sha256, 0, 12) + (isValid(datum.trace.pointer)"
    " ? ' · pointer ' + datum.trace.pointer + (datum.trace.unit ? ' · shown in ' + datum.trace.unit : '')"
    " : ' · derived: ' + (isValid(datum.trace.formula) ? datum.trace.formula : '')"
    " + ' · inputs: ' + (isValid(datum.trace.inputs) ? datum.trace.inputs : ''))"
)
ORIGIN_TRANSFORM = {"calculate": ORIGIN_EXPRESSION, "as": "origin"}  # as a spec's layer lists it


@dataclass(frozen=True)
class Trace:
    """Where a charted value comes from, in the words of `traced()`'s markup: the record
    (`sha256`) and the RFC 6901 `pointer` of the value, charted in `unit` where it is rescaled
    from the unit its field's name declares (a `_bytes` field charted in MiB); or a `formula`
    over named input pointers in that record. A chart's data rows carry it (`fields`), so
    `verify --site` recomputes every point. Where the point's x comes from the same record too:
    `x_pointer`, the value it is charted at (a context size, a GPU-layer count), or `x_position`,
    x being `pointer`'s 1-based place in its array (a repetition's number); `x_fields` says which."""

    sha256: str
    pointer: str | None = None
    unit: str = ""
    formula: str = ""
    inputs: tuple[tuple[str, str], ...] = ()  # (name, pointer)
    x_pointer: str | None = None
    x_position: bool = False

    def fields(self) -> dict[str, str]:
        """The origin for a machine: what a traced number's data attributes say, by the same names."""
        if self.pointer is not None:
            return {"sha256": self.sha256, "pointer": self.pointer, **({"unit": self.unit} if self.unit else {})}
        return {"sha256": self.sha256, "formula": self.formula, "inputs": named_list(self.inputs)}

    def range_fields(self) -> dict[str, str]:
        """Where a range's end comes from, for a machine: `fields` without the record, which is
        its point's (`charts.SeriesPoint` holds to that), so it is not repeated: two hashes a
        point were a sixth of a long series page."""
        return {name: value for name, value in self.fields().items() if name != "sha256"}

    def x_fields(self) -> dict[str, str] | None:
        """Where the point's x comes from, for a machine (None where no record gives it): the
        record is `sha256`'s, so it is not repeated (a chart row is kept small)."""
        if self.x_pointer is not None:
            return {"pointer": self.x_pointer}
        if self.x_position and self.pointer is not None:
            return {"position": self.pointer}
        return None


def declared_unit(pointer: str) -> str:
    """The unit of the value at `pointer`: that of the nearest key on its path that declares one
    (`/process_rss_bytes/maximum` is in bytes), "" where none does."""
    return next((unit for key in reversed(pointer.split("/")) if (unit := unit_for(key))), "")


def misread_unit(unit: str, pointer: str) -> str | None:
    """The unit to cite the value at `pointer` in where `unit` would misread it, else None: a
    size or a duration is shown from the unit its field's name declares, rescaled for reading
    (`format_value`), so another unit of the same ladder ("s" for `mean_ms`, "MiB" for
    `peak_bytes`) would print the number under the wrong unit, 1,000 or 1,024 times off. The
    rule `verify --site` reads a shown number by (`audit.numbers.reads_as`)."""
    unit = "B" if unit == "bytes" else unit  # as format_value reads it
    declared = declared_unit(pointer)
    return declared if declared != unit and declared in ladder(unit) else None


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """A count with its noun in the number it takes: "1 record", "3 cases", "1,000 articles"."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def range_digits(low: object, high: object, unit: str = "") -> int:
    """The fewest significant digits (DIGITS to MAX_DIGITS) at which a range's two ends read
    differently, when they differ: a range shown as "1.08–1.08" hid what a verdict called."""
    if not all(is_number(v) for v in (low, high)) or low == high:
        return DIGITS
    for digits in range(DIGITS, MAX_DIGITS + 1):
        if str(format_value(low, unit, digits)) != str(format_value(high, unit, digits)):
            return digits
    return MAX_DIGITS


def _raw(value: object) -> str:
    return "null" if value is None else repr(value) if isinstance(value, float) else str(value)


def hover_text(sha256: str, pointer: str | None, value: object, *, with_value: bool = True, formula: str | None = None,
               inputs: Mapping[str, str] | None = None, input_records: Mapping[str, str] | None = None,
               reason: str | None = None) -> str:
    """The hover text of a traced number (`traced`'s title, before escaping): why no number is
    shown (`reason`), its record, its pointer and raw `value` (`with_value`: not where a label
    stands for a value the record does not give), or its formula, inputs and result. `verify
    --site` makes it again from the served record to hold a page's hover to it."""
    origin = ([reason] if reason else []) + [f"record sha256 {sha256}"]
    if pointer is not None:
        origin.append(f"pointer {pointer}")
        if with_value:
            origin.append(f"raw value {_raw(value)}")
    if formula:
        origin.append(f"derived: {formula}")
        if input_records:
            origin.append("inputs: " + "; ".join(
                f"{name} = record {input_records.get(name, sha256)} pointer {ptr}" for name, ptr in (inputs or {}).items()))
        elif inputs:
            origin.append(f"inputs: {named_list(inputs.items())}")
        origin.append(f"result {_raw(value)}")
    return " · ".join(origin)


def traced(
    value: float | int | None,
    unit: str,
    sha256: str,
    pointer: str | None,
    *,
    formula: str | None = None,
    inputs: Mapping[str, str] | None = None,
    input_records: Mapping[str, str] | None = None,
    limitations: Iterable["Limitation"] = (),
    text: str | None = None,
    reason: str | None = None,
    digits: int = DIGITS,
    unit_after: str | None = None,
) -> str:
    """Inline HTML for one number shown on a page.

    - `value`, `unit`: the raw value and its unit ("tokens/s", "s", "ms", "B", "%", "J", "");
      bytes are rescaled, everything gets about three significant digits.
    - `sha256`, `pointer`: the record (full sha256) and the RFC 6901 pointer of the value inside
      it. A derived number passes `pointer=None` with `formula` ("joules / completed tokens")
      and `inputs` {name: pointer}; the markup then lists every input's pointer.
    - `input_records`: for a number derived from several records (a ratio on a comparison
      page), {input name: sha256 of the record its pointer is in}; inputs not named here are
      in `sha256`'s record. Shown in the hover text and in `data-input-sha256`.
    - `limitations`: limitations that apply to this very number (e.g. a withheld percentile);
      each is shown as a marker beside the number linking to its note (`#<anchor>`).
    - `text`: overrides the visible text (e.g. "withheld"), the origin markup stays; a labelled
      cell without a value shows no "raw value" (a null there would read as a measured null).
    - `reason`: why no number is shown (a withheld percentile's rule); it leads the hover text.
    - `digits`: significant digits, more than DIGITS only for a range's ends (`range_digits`).
    - `unit_after`: the number is shown without its unit, which the text after it gives once
      (a range's first end, `traced_range`); `data-unit` tells an audit which.

    Returns `<span class="bl-num" data-sha256=.. data-pointer=.. title=..>25.8 tokens/s</span>`.
    """
    shown = text if text is not None else str(format_value(value, unit, digits))
    attrs = [f'class="bl-num{" bl-derived" if formula else ""}"', f'data-sha256="{sha256}"']
    if unit_after:
        attrs.append(f'data-unit="{escape.attr(unit_after)}"')
    if pointer is not None:
        attrs.append(f'data-pointer="{escape.attr(pointer)}"')
    if formula:
        attrs.append(f'data-formula="{escape.attr(formula)}"')
        attrs.append(f'data-inputs="{escape.attr(named_list((inputs or {}).items()))}"')
        if input_records:
            attrs.append(f'data-input-sha256="{escape.attr(named_list(input_records.items()))}"')
    hover = hover_text(sha256, pointer, value, with_value=value is not None or text is None, formula=formula,
                       inputs=inputs, input_records=input_records, reason=reason)
    attrs.append(f'title="{escape.shown_attr(hover)}"')
    markers = "".join(limitation_marker(lim) for lim in limitations)
    # `shown` is formatted here (or a caller's label): escaped, but its narrow spaces kept.
    return f"<span {' '.join(attrs)}>{html.escape(shown)}</span>{markers}"


def traced_text(text: str, sha256: str, pointer: str | None, *, name_record: bool) -> str:
    """Inline HTML for record text shown on a page (a GPU's name, a setting): `text` as the record
    gives it at `pointer` (None where the record gives none), which `verify --site` reads back
    against the record. Its hover names the pointer ("absent" without one), and the record too
    where nothing beside the text names it (`name_record`, a write-up's citation: `hover_text`
    without a value; a record's page is its record's, a comparison's row has a record column).

    Returns `<span class="bl-text" data-sha256=.. data-pointer=.. title=..>NVIDIA H200</span>`.
    """
    hover = hover_text(sha256, pointer, None, with_value=False) if name_record else pointer or "absent"
    return (f'<span class="bl-text" data-sha256="{sha256}" data-pointer="{escape.attr(pointer or "")}" '
            f'title="{escape.shown_attr(hover)}">{escape.html(text)}</span>')


def traced_range(
    low: object, high: object, unit: str, sha256: str, pointers: tuple[str | None, str | None],
    limitations: tuple[Iterable["Limitation"], Iterable["Limitation"]] = ((), ()),
) -> str:
    """"low–high unit": each end traced (`pointers`), with the digits that tell them apart
    (`range_digits`), the unit written once where both ends read in it ("195–210 ms", where the
    median above may read "200 ms": a unitless "0.195–0.210" under it read as another number)."""
    digits = range_digits(low, high, unit)
    first, last = format_value(low, unit, digits), format_value(high, unit, digits)  # type: ignore[arg-type]
    shared = first.unit if first.unit and first.unit == last.unit else None
    start = traced(low, unit, sha256, pointers[0], limitations=limitations[0], digits=digits,  # type: ignore[arg-type]
                   text=first.number if shared else None, unit_after=shared)
    end = traced(high, unit, sha256, pointers[1], limitations=limitations[1], digits=digits)  # type: ignore[arg-type]
    return f"{start}–{end}"


# Before every marker: a word joiner (U+2060), so a line never breaks between a number and its
# ⚠ (on a phone the marker wrapped to the next line, away from what it marks).
_JOINED = "&#8288;"


def limitations_marker(limitations: Sequence["Limitation"]) -> str:
    """One marker for several limitations of a value quoted in prose (a citation, a headline:
    several markers would bury the number): its hover lists them, its count says how many, its
    link goes to the first one's note. "" for none."""
    if not limitations:
        return ""
    texts = " · ".join(lim.text for lim in limitations)
    count = f"<sup>{len(limitations)}</sup>" if len(limitations) > 1 else ""
    return (f'{_JOINED}<a class="bl-lim-mark" href="#{limitations[0].anchor}" aria-label="{_marker_name(len(limitations))}" '
            f'title="{escape.shown_attr(texts)}">&#9888;{count}</a>')


def limitation_marker(limitation: "Limitation") -> str:
    """A small marker beside a number, linking to the limitation's note on the same page."""
    return (
        f'{_JOINED}<a class="bl-lim-mark" href="#{limitation.anchor}" aria-label="{_marker_name(1)}" '
        f'title="{escape.shown_attr(limitation.text)}">&#9888;</a>'
    )


def _marker_name(count: int) -> str:
    """A marker's name for a screen reader, which read "warning sign 3" (the title, its
    limitations' words, is read as its description)."""
    return "a limitation of this number" if count == 1 else f"{count} limitations of this number"


