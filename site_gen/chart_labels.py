"""Chart labels: record text as a chart draws it (cut and escaped), which of a series chart's
record labels its axis shows, and a line chart's points as its alt text lists them. Apart from
site_gen.charts (pandas, vl-convert) so that `verify --site` reads a chart's labels and alt
text by these very functions without loading those."""

from __future__ import annotations

import re
from itertools import groupby
from typing import Iterable, Sequence

from benchledger.records.digest import sha256_hex
from site_gen import escape
from site_gen.quantity import format_value

MAX_AXIS_LABELS = 24  # labels a series chart's record axis shows at most
# Characters of record text a chart draws in one label (a legend entry, a record on the axis):
# vl-convert measures each label in time growing with the square of its length, and one setting
# of 300,000 characters kept a build drawing for over 15 minutes.
MAX_LABEL_CHARS = 80


# What a y axis's title ends with where benchledger chose a log axis for it (`charts.line_chart`).
LOG_SCALE = ", log scale"
_TITLE_UNIT = re.compile(rf"\(([^()]+)\)(?:{re.escape(LOG_SCALE)})?\Z")


def title_unit(title: str) -> str | None:
    """The unit an axis title names in its closing parentheses ("mean time (ms)", "memory (GiB),
    log scale"), None where it names none ("decode tokens/s")."""
    match = _TITLE_UNIT.search(title)
    return match.group(1) if match else None


def chart_label(label: str) -> str:
    """Text as a chart draws it, escaped for the chart (`escape.chart_text`): past MAX_LABEL_CHARS
    cut, with "…" and six hex digits of the whole text's SHA-256 so that two cut labels stay
    apart (a series chart places its records by label)."""
    if len(label) > MAX_LABEL_CHARS:
        label = f"{label[:MAX_LABEL_CHARS - 7]}…{sha256_hex(label.encode('utf-8', 'surrogatepass'))[:6]}"
    return escape.chart_text(label)


def numbered(labels: Iterable[str]) -> list[str]:
    """`labels` with each repeat of one numbered #2, #3 ... in order ("b11146", "b11146 #2"): a
    chart keeps its points or lines apart by label, and two alike would be drawn as one."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
    return out


def series_ticks(order: Sequence[str]) -> list[str]:
    """The labels a series chart's record axis shows, of its records' labels in order (all of
    them up to MAX_AXIS_LABELS)."""
    # Past a couple of dozen records, labels on every one would overlap unreadably, and vl-convert
    # measures each label's text: label every k-th record instead. Every point keeps its label in
    # the tooltip and the data table.
    step = max(1, -(-len(order) // MAX_AXIS_LABELS))  # the ceiling: at most MAX_AXIS_LABELS ticks
    return list(order[::step])


def points_text(rows: Sequence[dict], unit: str) -> str:
    """Every point a line chart draws, as its alt text lists them (`label: x → y; ...`), from the
    chart's data rows, series by series: x as the page writes numbers ("32,768", where `:g` wrote
    "32768" and a million "1e+06"), y in `unit` as `format_value` rescales it. `verify --site`
    makes it again from a page's spec (its rows and `usermeta.pointsUnit`)."""
    return "; ".join(f"{label}: " + ", ".join(f"{format_value(r['x'], '')} → {format_value(r['y'], unit)}" for r in group)
                     for label, group in groupby(rows, key=lambda r: r["series"]))
