"""`verify --site`'s step on charts: every charted point, range and x against its record, a
series chart's labels and order against its records, the table behind each chart against its
points, the rest of each spec against what benchledger writes for those points, and the static
image each chart shows against its spec."""

from __future__ import annotations

import html as htmllib
import math
import posixpath
import re
import statistics
from functools import lru_cache
from typing import Any, Callable
from urllib.parse import unquote

from benchledger.cases.base import Case, CaseKind, value_text
from benchledger.cases.series import position_key
from benchledger.errors import Problem
from benchledger.records.display import readable
from benchledger.records.numbers import is_number
from benchledger.records.pointer import resolve, to_jsonpath
from site_gen.audit.numbers import MISSING, named, quoted, quoted_apart, recomputed
from site_gen.audit.redraw import ShownChart
from site_gen.audit.site import SiteAudit, site_json
from site_gen.chart_labels import chart_label, points_text, series_ticks, title_unit
from site_gen.chart_specs import point_layer, rebuilt_spec
from site_gen.quantity import axis_number, declared_unit, ladder, origin_text, rescaled
from site_gen.static_chart import POINTS_UNIT, canonical_json, static_sha256, static_spec, svg_path
from site_gen.tables import cell_text, data_cell


# A chart's data rows, by kind (a line chart's or a series chart's): the key of the charted
# value, and the row's keys in the order of its data table's columns ("origin": the source its
# tooltip names, which the browser makes from its trace).
_CHART_ROWS = {"y": ("x", "y", "series", "origin"), "value": ("label", "value", "low", "high", "origin")}


def check_chart_data(audit: SiteAudit) -> list[Problem]:
    """Every charted point is its record's value (rescaled to the unit its trace names) or its
    formula recomputed from its inputs, a line chart's point at the x its record gives (`_chart_x`),
    a series chart's point labelled by its record's value of the series field, in series order
    (`_chart_labels`), and the table behind each chart shows the chart's own rows: an edited spec or table
    (18.98 -> 9.98 ms, 322 -> 1,024 tokens) no longer passes. A spec whose data passes is then
    held to the drawing benchledger makes of it (`_chart_drawing`): data of its own in a layer,
    a filter or a mark hiding points is named too."""
    problems = []
    for rel, _, _ in audit.pages:
        scanned = audit.scan(rel)
        if len(scanned.specs) != len(scanned.tables):
            problems.append(Problem(audit.shown(rel), "", f"has {len(scanned.specs)} chart specs and {len(scanned.tables)} tables "
                                                          "behind charts: the page was edited (each chart shows its data below it)"))
        checked: dict[str, dict] = {}  # spec id -> spec, of the specs whose data passed
        for n, (script_id, text) in enumerate(scanned.specs):
            where = f"script {script_id or n}"
            try:
                spec = site_json(text)
                rows = spec["datasets"]["points"]
                if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
                    raise TypeError
            except (ValueError, TypeError, KeyError):
                problems.append(Problem(audit.shown(rel), where, "is not a chart spec benchledger writes (its points in datasets.points)"))
                continue
            found = len(problems)
            for i, row in enumerate(rows):
                problems += _row_fields(audit.shown(rel), f"{where} $.datasets.points[{i}]", row)
                problems += _chart_value(audit, audit.shown(rel), f"{where} $.datasets.points[{i}]",
                                         row.get("y" if "y" in row else "value"), row.get("trace"))
                if "y" in row:  # a line chart's point: its x is a record's too
                    problems += _chart_x(audit, audit.shown(rel), f"{where} $.datasets.points[{i}].x", row)
                for end in ("low", "high"):  # a series point's range: each end from a pointer of the point's record
                    if row.get(end) is not None or f"{end}_trace" in row:
                        problems += _chart_value(audit, audit.shown(rel), f"{where} $.datasets.points[{i}].{end}", row.get(end),
                                                 row.get(f"{end}_trace"), of=row.get("trace"))
            if rows and not any("y" in row for row in rows):  # a series chart: its x is its records' too
                problems += _chart_labels(audit, rel, where, spec, rows)
            problems += _chart_segments(audit.shown(rel), where, spec["datasets"], rows)
            problems += _points_unit(audit.shown(rel), where, spec, rows)
            if len(problems) == found:  # an edited point's drawing and image differ too: one finding, its data's, says so
                problems += _chart_drawing(audit.shown(rel), where, spec)
            if len(problems) == found:
                checked[script_id] = spec
            if n < len(scanned.tables):
                problems += _chart_table(audit.shown(rel), where, rows, scanned.tables[n])
        # every chart view's image, a second view of one spec too (a dict would keep only the last)
        problems += [p for view, src, _ in scanned.images if view in checked
                     for p in _chart_image(audit, rel, f"script {view}", checked[view], src)]
        problems += [p for view, _, alt in scanned.images if view in checked
                     for p in _line_alt(audit.shown(rel), f"script {view}", checked[view], alt)]
    return problems


def _named_unit(spec: dict) -> str | None:
    """The unit a line chart's spec names for its points (`usermeta.pointsUnit`), None for none."""
    meta = spec.get("usermeta")
    unit = meta.get(POINTS_UNIT) if isinstance(meta, dict) else None
    return unit if isinstance(unit, str) else None


def _points_unit(shown: str, where: str, spec: dict, rows: list[dict]) -> list[Problem]:
    """The units a chart names for its points, where a size or a duration, are the ones their
    records give them: the unit a point's trace names (its value rescaled to it) or, for a
    record's own value, the one its field's name declares (`quantity.declared_unit`). A line
    chart names one for its alt text ("705 ms": `usermeta.pointsUnit`), and either kind may name
    one in an axis's title ("mean time (ms)": `chart_labels.title_unit`), which a reader sees
    beside the axis (a line chart's x too, held to its points' x traces). "705 ms" told as "705
    s" no longer passes. As for a cited number (`numbers.reads_as`), another unit ("tokens/s",
    "%"), or a point derived by a formula, leaves the unit to the page's words."""
    line = bool(rows) and "y" in rows[0]
    named = [(f"{where} $.usermeta.{POINTS_UNIT}", "gives its points in", _named_unit(spec), "trace")] if line else []
    named += _title_units(where, spec, ("y", "x") if line else ("y",))
    for path, says, unit, traced_by in named:
        rescalable = ladder(unit) if unit is not None else ()
        for i, row in enumerate(rows if rescalable else ()):
            trace = row.get(traced_by)
            if not isinstance(trace, dict) or not isinstance(trace.get("pointer"), str):
                continue
            given = trace.get("unit") or declared_unit(trace["pointer"])
            if given in rescalable and given != unit:
                return [Problem(shown, path, f"{says} {unit!r}, but point {i} ({trace['pointer'][:80]}) is in {given!r} as its "
                                             "record gives it: the page was edited")]
    return []


def _title_units(where: str, spec: dict, axes: tuple[str, ...]) -> list[tuple[str, str, str, str]]:
    """(path, "titles its y axis in", unit, the rows' trace key for that axis) for each of `axes`
    whose title names a unit, as the point layer gives it (`chart_specs.rebuilt_spec` holds the
    other layers' to it); none where the spec has no such titles (the drawing check names a spec
    of another shape)."""
    try:
        layer = point_layer(spec)
        titles = [(axis, spec["layer"][layer]["encoding"][axis]["title"]) for axis in axes]
    except (KeyError, IndexError, TypeError, AttributeError, StopIteration):
        return []
    found = []
    for axis, title in titles:
        unit = title_unit(title) if isinstance(title, str) else None
        if unit is not None:
            found.append((f"{where} $.layer[{layer}].encoding.{axis}.title", f"titles its {axis} axis in", unit,
                          "trace" if axis == "y" else "x_trace"))
    return found


def _line_alt(shown: str, where: str, spec: dict, alt: str) -> list[Problem]:
    """A line chart's alt text, which a screen reader reads in place of the chart, against the
    chart's checked points: after its opening sentence it lists every point the chart draws
    (`chart_labels.points_text`, y in the unit the spec names in `usermeta.pointsUnit`), and then
    at most that the y axis is logarithmic. A point retold in the alt text ("705 ms" as "70.5
    ms"), added or left out no longer passes. A series chart's alt text is the series step's."""
    rows = spec["datasets"]["points"]
    if not rows or "y" not in rows[0]:
        return []
    if not all(isinstance(row.get("series"), str) for row in rows):
        return [Problem(shown, where, "has a point on no line (its series is not text), as benchledger writes no chart: "
                                      "the page was edited")]
    unit = _named_unit(spec)
    if unit is None:
        return [Problem(shown, f"{where} $.usermeta.{POINTS_UNIT}", "names no unit for the points its alt text lists, as "
                                                                   "benchledger writes each line chart: the page was edited")]
    listed = readable(f"{points_text(rows, unit)}.")
    if any(alt.endswith(f" {listed}{log}") for log in ("", " Log scale.")):
        return []
    said, drawn = _last_difference_quoted(alt.removesuffix(" Log scale."), listed)
    return [Problem(shown, where, f"lists its points to a screen reader as {said}, but the chart draws {drawn} there: "
                                  "the page was edited")]


def _last_difference_quoted(said: str, made: str) -> tuple[str, str]:
    """Two texts that should end alike, each quoted for a message around the last place they
    differ (counted from their ends: a number retold in a long list of points is found there),
    from the word starting 30 or more characters before it."""
    back = next((i for i, (x, y) in enumerate(zip(reversed(said), reversed(made))) if x != y), min(len(said), len(made)))

    def around(text: str) -> str:
        at = max(0, len(text) - back - 1)
        start = 0 if at < 30 else text.rfind(" ", 0, at - 30) + 1
        end = min(len(text), at + 50)
        return quoted(("…" if start else "") + text[start:end] + ("…" if end < len(text) else ""))

    return around(said), around(made)


# A repeat's label: its value's, numbered ("b11146 #2"); the number kept to what int() reads.
_REPEAT = re.compile(r"(.*) #([1-9][0-9]{0,8})", re.S)


def _chart_labels(audit: SiteAudit, rel: str, where: str, spec: dict, rows: list[dict]) -> list[Problem]:
    """A series chart's x against its points' records: each point's label is its case's value of
    the ordered field the x axis is titled by, as the series page shows it (`FieldValue.shown`
    cut as `chart_labels.chart_label` cuts it), numbered #2, #3 ... for repeats of one value, the
    numbers rising along the chart (a track can skip a record, so a number may skip too); the
    points in series order (`series.position_key`); and the spec places them by those labels
    in row order. Two points' labels swapped (a regression moved to another release or date)
    no longer pass. On a series' page, each label is the one its case has among the series'
    served records (`SiteAudit.case_labels`), numbers included: a repeat numbered past its
    place, or two repeats of one value trading places and numbers, no longer pass either."""
    shown, exact = audit.shown(rel), audit.case_labels(rel)
    problems = _chart_order(shown, where, spec, rows)
    titles = sorted({str(x.get("title")) for _, x in _x_encodings(spec) if "title" in x})
    numbered: dict[str, int] = {}  # a value -> the last number a label of it had on this chart
    last: tuple | None = None  # the last point's (series position, label)
    for i, row in enumerate(rows):
        at, label, trace = f"{where} $.datasets.points[{i}].label", row.get("label"), row.get("trace")
        found = _point_case(audit, trace)
        if found is None:
            continue  # no record served intact to read it from: the point's own check says so
        kind, case = found
        if case is None:
            problems.append(Problem(shown, at, f"labels {str(label)[:80]!r} a value of {trace['sha256'][:12]} in none of its cases "
                                               "(a series charts its cases' values): the page was edited"))
            continue
        field = next((f for f in kind.fields if f.ordered and f.name in case.values and [chart_label(f.label)] == titles), None)
        if field is None:
            return problems + [Problem(shown, where, f"titles its x axis {', '.join(titles)[:70]!r}, which names no ordered "
                                                     f"field of a {kind.schema} record: the page was edited")]
        value = case.values[field.name].shown
        number = _repeat_number(label, value, lambda: audit.schema_cases(kind.schema))
        if number is None:
            problems.append(Problem(shown, at, f"labels {str(label)[:80]!r} the point of {case.record_sha256[:12]} "
                                               f"{case.pointer or '(the record)'}, whose {field.label} is {value[:80]!r}: "
                                               "the page was edited"))
        elif number <= numbered.get(value, 0):
            problems.append(Problem(shown, at, f"numbers {str(label)[:80]!r} repeat {number} of {value[:80]!r} after repeat "
                                               f"{numbered[value]} (repeats are numbered in series order): the page was edited"))
        else:
            numbered[value] = number
            wanted = exact.get((case.record_sha256, case.pointer)) if exact is not None else None
            if wanted is not None and label != wanted:
                problems.append(Problem(shown, at, f"labels {str(label)[:80]!r} the point of {case.record_sha256[:12]} "
                                                   f"{case.pointer or '(the record)'}, which the series' served records, in "
                                                   f"order, label {wanted[:80]!r}: the page was edited"))
        key = position_key(kind, field.name, case)
        if last is not None and key < last[0]:
            problems.append(Problem(shown, at, f"charts {str(label)[:80]!r} after {str(last[1])[:80]!r}, but its {field.label} comes "
                                               "before that one's in the series' order: the page was edited"))
        last = (key, label)
    return problems


def _point_case(audit: SiteAudit, trace: Any) -> tuple[CaseKind, Case | None] | None:
    """The case a traced point is of: the one whose pointer its value's (a formula's first input's)
    lies under; (kind, None) where none holds it, None where the record is not read (no trace, not
    served intact, of no case table)."""
    if not isinstance(trace, dict) or not isinstance(trace.get("sha256"), str):
        return None
    found = audit.record_cases(trace["sha256"])
    pointer = trace.get("pointer", next(iter(named(str(trace.get("inputs", ""))).values()), None))
    if found is None or not isinstance(pointer, str):
        return None
    kind, cases = found
    under = [c for c in cases if pointer == c.pointer or pointer.startswith(c.pointer + "/")]
    return kind, max(under, key=lambda c: len(c.pointer), default=None)


def _repeat_number(label: Any, value: str, most: Callable[[], int]) -> int | None:
    """Which repeat of `value` `label` names (1 for the value itself, k for "value #k"), None
    when it is no label of `value`; a label cut to MAX_LABEL_CHARS is looked up among the cut
    labels of the repeats a kind with `most()` cases can have."""
    if not isinstance(label, str):
        return None
    if label == chart_label(value):
        return 1
    repeat = _REPEAT.fullmatch(label)
    if repeat and label == chart_label(f"{value} #{repeat.group(2)}"):
        return int(repeat.group(2))
    return _cut_repeats(value, most()).get(label) if "…" in label else None


@lru_cache(maxsize=256)
def _cut_repeats(value: str, most: int) -> dict[str, int]:
    """The labels of `value`'s repeats #2 to #`most` as a chart cuts them, to their numbers: a
    cut label hides its number in the hash it ends with. Once per value: its every chart and
    point asks again."""
    return {chart_label(f"{value} #{k}"): k for k in range(2, most + 1)}


def _chart_order(shown: str, where: str, spec: dict, rows: list[dict]) -> list[Problem]:
    """A series chart places its records by one x domain, its points' labels in row order, in
    every layer, and labels the axis ticks `chart_labels.series_ticks` picks of them: a domain of
    another order drew each point at another record's place, whatever its label says."""
    order = [row.get("label") for row in rows]
    layers = _x_encodings(spec)
    if not layers:
        return [Problem(shown, where, "places its points by no x axis of theirs (a series chart has one per layer): the page was edited")]
    for at, x in layers:
        scale, axis = x.get("scale"), x.get("axis")
        if not isinstance(scale, dict) or scale.get("domain") != order:
            return [Problem(shown, f"{where} {at}.scale.domain", "places the points in another order than its rows' labels "
                                                                 "(a series chart's x domain is its points' labels in row order): "
                                                                 "the page was edited")]
        if isinstance(axis, dict) and "values" in axis and axis["values"] != series_ticks(order):
            return [Problem(shown, f"{where} {at}.axis.values", "labels other ticks than its points' labels in row order, "
                                                                "every so many (chart_labels.series_ticks): the page was edited")]
    return []


def _x_encodings(spec: dict) -> list[tuple[str, dict]]:
    """Each layer's x channel ($.layer[i].encoding.x) of a spec; none where it is not layered so."""
    layers = spec.get("layer")
    out = []
    for i, layer in enumerate(layers if isinstance(layers, list) else []):
        x = layer.get("encoding", {}).get("x") if isinstance(layer, dict) and isinstance(layer.get("encoding"), dict) else None
        out.append((f"$.layer[{i}].encoding.x", x if isinstance(x, dict) else {}))
    return out


def _chart_segments(shown: str, where: str, datasets: dict, rows: list[dict]) -> list[Problem]:
    """A series chart's segment medians and claim rules against its own points, which are traced:
    each segment's median is the median of the points from its first record to its last, and
    each claim stands at one of the chart's records."""
    labels = [row.get("label") for row in rows]
    problems = []
    segments = datasets.get("segments", [])
    for i, seg in enumerate(segments if isinstance(segments, list) else [segments]):
        at = f"{where} $.datasets.segments[{i}]"
        try:
            first, last = labels.index(seg["first"]), labels.index(seg["last"])
            median = statistics.median(row["value"] for row in rows[first:last + 1])
        except (TypeError, KeyError, ValueError, statistics.StatisticsError):
            problems.append(Problem(shown, at, "is not a run of this chart's records (first and last as its points' labels): "
                                               "the page was edited"))
            continue
        if not (is_number(seg.get("median")) and is_number(median) and math.isclose(seg["median"], median, rel_tol=1e-12)):
            problems.append(Problem(shown, at, f"draws the median of {seg['first']!r} to {seg['last']!r} as {seg.get('median')!r}, "
                                               f"but the chart's points there give {median!r}: the page was edited"))
    claims = datasets.get("claims", [])
    for i, claim in enumerate(claims if isinstance(claims, list) else [claims]):
        if not isinstance(claim, dict) or claim.get("at") not in labels:
            problems.append(Problem(shown, f"{where} $.datasets.claims[{i}]", "marks a claim at no record of this chart: the page was edited"))
    return problems


def _chart_image(audit: SiteAudit, rel: str, where: str, spec: dict, src: str) -> list[Problem]:
    """The static SVG a chart shows (an <img> until benchledger.js draws the spec, and all a
    reader without scripts sees) against the spec checked here: the site names each SVG by the
    hash of the spec it is drawn from (`static_chart.svg_path`), so an image of other data, or of
    another chart, is named otherwise. Its bytes are not drawn again (vl-convert: 20-30 ms of CPU a
    chart, two thousand at 1,000 articles) unless the auditor asks for it (`--redraw-charts`), so
    an SVG file edited in place, with SHA256SUMS listed again, passes without."""
    try:
        static = static_spec(spec)
        expected = svg_path(static_sha256(static))
    except (TypeError, ValueError, AttributeError):
        return [Problem(audit.shown(rel), where, "is not a chart spec benchledger draws a static SVG of: the page was edited")]
    if posixpath.normpath(posixpath.join(posixpath.dirname(rel), unquote(src))) != expected:
        return [Problem(audit.shown(rel), f"{where} <img>", f"shows {src[:70]!r}, but this spec is drawn as {expected}: "
                                                            "the image is not of the data checked here (the page was edited)")]
    if not (audit.site / expected).is_file():
        return [Problem(audit.shown(rel), f"{where} <img>", f"shows {expected}, which the site does not hold")]
    audit.charts.setdefault(expected, ShownChart(static, audit.shown(rel), where))
    return []


def _chart_drawing(shown: str, where: str, spec: dict) -> list[Problem]:
    """All a chart's spec holds besides its data (layers, marks, encodings, scales, filters, the
    source its tooltip makes from each point's trace) is what benchledger writes for that data and
    the spec's titles, legend order, log axes and unit (`chart_specs.rebuilt_spec`): a filter
    hiding a point, a mark or a scale changed, data written into a layer, or a tooltip's source
    made otherwise no longer passes, whether the SVG was drawn and named again or not. The first
    place the two differ is named."""
    try:
        made = rebuilt_spec(spec)
    except ValueError:
        return [Problem(shown, where, "is not a chart benchledger writes (it has no layer of points with titled x and y "
                                      "axes): the page was edited")]
    drawn, made = ({k: v for k, v in s.items() if k != "datasets"} for s in (spec, made))
    if canonical_json(drawn) == canonical_json(made):
        return []
    parts, found, wanted = _first_apart(drawn, made, [])
    said, written = quoted_apart(found, wanted) if isinstance(found, str) and isinstance(wanted, str) else \
        (_json_words(found), _json_words(wanted))
    return [Problem(shown, f"{where} {to_jsonpath(parts)}", f"draws {said} where benchledger writes {written} for this "
                                                            "chart's data and titles: the page was edited")]


def _first_apart(found: Any, made: Any, parts: list) -> tuple[list, Any, Any]:
    """The parts of the first place where `found` and `made` differ, with what each holds there
    (MISSING where one holds nothing): a key only `found` has first (what an edit added), then
    the keys of `made` in order."""
    if isinstance(found, dict) and isinstance(made, dict):
        for key in [*(k for k in found if k not in made), *made]:
            here, there = found.get(key, MISSING), made.get(key, MISSING)
            if here is MISSING or there is MISSING or canonical_json(here) != canonical_json(there):
                return _first_apart(here, there, [*parts, key])
    elif isinstance(found, list) and isinstance(made, list):
        for i in range(max(len(found), len(made))):
            here, there = found[i] if i < len(found) else MISSING, made[i] if i < len(made) else MISSING
            if here is MISSING or there is MISSING or canonical_json(here) != canonical_json(there):
                return _first_apart(here, there, [*parts, i])
    return parts, found, made


def _json_words(value: Any) -> str:
    """A spec's part as JSON for a message, cut to 100 characters ("nothing" where there is none)."""
    if value is MISSING:
        return "nothing"
    text = canonical_json(value)
    return text if len(text) <= 100 else text[:99] + "…"


def _chart_x(audit: SiteAudit, shown: str, where: str, row: dict) -> list[Problem]:
    """A line chart point's x against where it comes from in its point's record
    (`quantity.Trace.x_fields`): the value there, read as the chart reads an axis value, or the
    place (1-based) of the point's own value in its array."""
    x, x_trace, trace = row.get("x"), row.get("x_trace"), row.get("trace")
    if not isinstance(trace, dict) or not isinstance(trace.get("sha256"), str):
        return []  # no record to read x from: the point's own check names its trace
    # only the shapes the generator writes: any other key (a "sha256" of another record, a
    # "unit") would chart x from somewhere the point's record does not say
    kind = next(iter(x_trace), None) if isinstance(x_trace, dict) and len(x_trace) == 1 else None
    if kind not in ("pointer", "position"):
        return _chart_value(audit, shown, where, x, None)
    if kind == "pointer":
        return _chart_value(audit, shown, where, x, {"sha256": trace["sha256"], "pointer": x_trace["pointer"]}, axis=True)
    position = x_trace["position"]
    if not isinstance(position, str) or position != trace.get("pointer"):
        return [Problem(shown, where, f"charts {x!r} as the place of {str(position)[:70]!r}, not of its point's value "
                                      f"{str(trace.get('pointer'))[:70]!r}: the page was edited")]
    head, _, last = position.rpartition("/")
    data = audit.record_data(trace["sha256"])
    if data is None or not isinstance(resolve(data, head, default=None), list):
        return []  # not served intact, or no value there: the point's own check says so
    index = int(last) if last.isascii() and last.isdigit() else None  # "³" is a digit int() cannot read
    if not (is_number(x) and index is not None and x == index + 1):
        return [Problem(shown, where, f"charts {x!r} as the place of {trace['sha256'][:12]} {position[:70]!r} in its array, "
                                      f"but it is number {index + 1 if index is not None else last[:70]!r} there: the page was edited")]
    return []


def _chart_value(audit: SiteAudit, shown: str, where: str, charted: Any, trace: Any, of: Any = None,
                 axis: bool = False) -> list[Problem]:
    """One charted number (a point, a range's end, an x) against its trace; a range's end must
    come from the record of the point (`of`, the point's trace) it belongs to; an x (`axis`) is
    the record's value read as the chart reads an axis value (`quantity.axis_number`: 2048 for
    "2048")."""
    if isinstance(of, dict) and isinstance(trace, dict) and "sha256" not in trace:
        trace = {"sha256": of.get("sha256"), **trace}  # a range's end names no record: its point's (`Trace.range_fields`)
    if not isinstance(trace, dict) or not all(isinstance(v, str) for v in trace.values()):
        return [Problem(shown, where, f"charts {charted!r} without the record and pointer it comes from: the page was edited")]
    sha256 = trace.get("sha256", "")
    if isinstance(of, dict) and of.get("sha256") != sha256:
        return [Problem(shown, where, f"charts {charted!r} from record {sha256[:12]!r}, not from its point's record "
                                      f"{str(of.get('sha256'))[:12]!r}: the page was edited")]
    if sha256 not in audit.sealed:
        return [Problem(shown, where, f"charts {charted!r} from record {sha256[:70]!r}, which the ledger does not seal")]
    if audit.record_data(sha256) is None:
        return []  # not served intact: the records' own step says so
    if "pointer" in trace:
        value = resolve(audit.record_data(sha256), trace["pointer"], default=MISSING)
        what = f"{sha256[:12]} {trace['pointer']}"
        if is_number(value) and trace.get("unit"):
            try:
                value = rescaled(value, declared_unit(trace["pointer"]), trace["unit"])
            except ValueError as err:
                return [Problem(shown, where, f"charts {what} in {trace['unit']!r}, but {err}")]
    else:
        value = recomputed(audit, trace.get("formula", ""), {name: (sha256, pointer) for name, pointer in named(trace.get("inputs", "")).items()})
        what = f"{trace.get('formula')!r} over {sha256[:12]} {trace.get('inputs')}"
    if value is MISSING or value is None:
        return [Problem(shown, where, f"charts {charted!r} from {what}, which that record does not give")]
    if axis and (read := axis_number(value_text(value))) is not None:
        value = read
    # a pointer moved to text ("/model") gives no number: math.isclose would raise on it
    if not (is_number(charted) and is_number(value) and math.isclose(charted, value, rel_tol=1e-12, abs_tol=0.0)):
        return [Problem(shown, where, f"charts {charted!r} for {what}, but the record gives {value!r}: the page was edited")]
    return []


# The fields of a chart's data row, by kind (a line chart's or a series chart's): its charted
# values and where each comes from, which the steps above check, and its line's label.
_ROW_FIELDS = {"y": frozenset({"x", "y", "series", "trace", "x_trace"}),
               "value": frozenset({"label", "value", "low", "high", "trace", "low_trace", "high_trace"})}


def _row_fields(shown: str, where: str, row: dict) -> list[Problem]:
    """A chart row carries only the fields benchledger writes: any other (a source of another
    measurement for a tooltip to show) is text no record traces."""
    extra = sorted(str(k) for k in set(row) - _ROW_FIELDS["y" if "y" in row else "value"])
    if not extra:
        return []
    return [Problem(shown, where, f"carries fields benchledger does not write ({', '.join(extra)[:120]}), which no record "
                                  "traces: the page was edited")]


def _table_value(row: dict, key: str) -> Any:
    """A chart row's cell in the table behind the chart: its value, or for "origin" the source
    its tooltip names, made from its trace (`quantity.origin_text`)."""
    if key != "origin":
        return row.get(key)
    trace = row.get("trace")
    return origin_text(trace) if isinstance(trace, dict) and isinstance(trace.get("sha256"), str) else None


def _chart_table(shown: str, where: str, rows: list[dict], table: tuple[tuple[str, ...], ...]) -> list[Problem]:
    """The table behind a chart against the chart's rows: the same cells, row by row."""
    keys = _CHART_ROWS["y" if rows and "y" in rows[0] else "value"]
    expected = [tuple(htmllib.unescape(cell_text(data_cell(_table_value(row, k)))) for k in keys) for row in rows]
    if len(table) != len(expected):
        return [Problem(shown, where, f"charts {len(expected)} points, but the table behind it has {len(table)} rows: the page was edited")]
    for i, (got, want) in enumerate(zip(table, expected)):
        if got != want:
            column = next((k for k, a, b in zip(keys, got, want) if a != b), keys[-1])
            return [Problem(shown, where, f"the table behind this chart shows row {i + 1} as {got!r}, but the chart's "
                                          f"{column} there is {want[keys.index(column)]!r}: the page was edited")]
    return []
