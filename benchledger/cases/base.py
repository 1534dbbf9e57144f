"""The per-kind case table: what a case of a record kind is, which fields of its key must agree
(identity), which may differ one at a time (axis) and which are only shown (context), and which
headline metrics each point of a case carries. See the package docstring for the contract.

Everything here is data plus one generic reader (`CaseKind.cases`): a kind is an instance of
`CaseKind` built from its tables, validated on construction."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import Any, Callable

from benchledger.records.display import names_unix_time, utc_date
from benchledger.records.numbers import is_integer, is_number
from benchledger.records.pointer import parse_pointer, resolve


class Role(str, Enum):
    """What a field of a case's key means for comparisons."""

    IDENTITY = "identity"  # must agree for two cases to be compared at all
    AXIS = "axis"  # may differ, one at a time: a comparison along it
    CONTEXT = "context"  # shown beside the numbers, never required to agree


class Scope(str, Enum):
    """Where a field's or metric's pointers are resolved."""

    RECORD = "record"  # from the record's root
    ENTRY = "entry"  # from the record's entry the case names (`CaseKind.entry`: the model a case served)
    CASE = "case"  # from the case (the record itself for a kind whose record is one case)
    POINT = "point"  # from one point of the case (a context length, a token length)


class Better(str, Enum):
    """Which direction of a metric is an improvement (for wording, and for regressions)."""

    HIGHER = "higher"
    LOWER = "lower"


_NATURAL = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple:
    """Sort key that orders embedded numbers by value: b9 < b10, 535.1 < 535.10 < 550.2."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in _NATURAL.split(text) if p != "")


@dataclass(frozen=True)
class Field:
    """One field of a case's key.

    - `name`: stable id ([a-z0-9_]), used in URLs, `--axis`, JSON output.
    - `role`: identity, axis or context.
    - `pointers`: where the value is, relative to `scope`; the first present (not null) wins,
      so a field can fall back (`/placement/gpu_layers`, then `/settings/placement/gpu_layers`).
    - `label`: a short human name; `description`: one line for the methodology page.
    - `ordered`: the values have a meaningful order over time (a release, a version, a date),
      so a sequence along this axis is a series (issue 15); sort order is `natural_key` always.
    """

    name: str
    role: Role
    pointers: tuple[str, ...]
    label: str
    description: str = ""
    scope: Scope = Scope.CASE
    ordered: bool = False

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.name):
            raise ValueError(f"field name {self.name!r}: use [a-z][a-z0-9_]*")
        if not self.pointers:
            raise ValueError(f"field {self.name}: at least one pointer")
        for p in self.pointers:
            parse_pointer(p)  # raises on a malformed pointer
        if self.role is not Role.IDENTITY and self.scope is Scope.POINT:
            raise ValueError(f"field {self.name}: a point field is what points are matched on, so it is identity")


@dataclass(frozen=True)
class Metric:
    """A headline metric of each point.

    - `value`: pointer (relative to the point) of the number, or None for a derived metric, which
      gives `formula` and `inputs` {name: pointer relative to the point} and `derive` (the inputs'
      values -> the number, or None when it cannot be computed).
    - `count`, `minimum`, `maximum`: pointers of the sample count and of the range of the values
      the number summarises, where the record has them (the rule for calling a difference needs
      all three; without them no difference is called).
    - `available`: pointer of a boolean that must be true for the number to exist (energy).
    - `samples`: where the record carries the raw values the number summarises (per request,
      per repetition), the pointer (relative to the point) of that array, and `sample` turns
      one element into its value (None when the elements are the values); `sample_formula`
      says how, for the hover. Records without them have only the summary; a metric with raw
      values but no `count`/`minimum`/`maximum` takes its count and range from the raw values.
    """

    name: str
    label: str
    unit: str
    better: Better
    value: str | None = None
    statistic: str = ""  # "median", "mean", "" (a single value): how `value` summarises
    count: str | None = None
    minimum: str | None = None
    maximum: str | None = None
    available: str | None = None
    formula: str | None = None
    inputs: tuple[tuple[str, str], ...] = ()
    derive: Callable[..., float | None] | None = None
    samples: str | None = None
    sample: Callable[[Any], float | None] | None = None
    sample_formula: str = ""

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.name):
            raise ValueError(f"metric name {self.name!r}: use [a-z][a-z0-9_]*")
        if self.samples is not None and self.statistic not in ("median", "mean"):
            raise ValueError(f"metric {self.name}: raw samples need the statistic (median or mean) that summarises them")
        if self.sample is not None and (self.samples is None or not self.sample_formula):
            raise ValueError(f"metric {self.name}: a sample function needs `samples` and `sample_formula`")
        if (self.value is None) == (self.formula is None):
            raise ValueError(f"metric {self.name}: give either a value pointer or a formula")
        if self.formula is not None and (not self.inputs or self.derive is None):
            raise ValueError(f"metric {self.name}: a derived metric needs inputs and derive")
        if (self.minimum is None) != (self.maximum is None):
            raise ValueError(f"metric {self.name}: give both minimum and maximum, or neither")


@dataclass(frozen=True)
class FieldValue:
    """A field's value in one case: the JSON value, where it was found (absolute pointer, None
    when absent) and its canonical text (what keys compare on)."""

    field: Field
    value: Any
    pointer: str | None

    @cached_property  # asked for by every key, label and series position: encoded once
    def text(self) -> str:
        return value_text(self.value)

    @property
    def shown(self) -> str:
        """The value as a label shows it to a reader: a Unix time (a field named `*_epoch`) as
        its UTC date and time, where "1793167319.0615695" named nothing a reader knows; any
        other value as `text`."""
        when = utc_date(self.value, time=True) if names_unix_time(self.field.name) else ""
        return f"{when} UTC" if when else self.text


def value_text(value: Any) -> str:
    """A record value's canonical text: a string as it is, "n/a" for null or absent, anything
    else as compact JSON with sorted keys."""
    if value is None:
        return "n/a"
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class Measure:
    """One metric at one point: the number and where it comes from (absolute pointers)."""

    metric: Metric
    value: float | None
    pointer: str | None  # None for a derived number (see `inputs`)
    count: int | None = None
    minimum: float | None = None
    maximum: float | None = None
    count_pointer: str | None = None  # the count's own, or the array of raw values it counts (`counted`)
    counted: bool = False  # the count is the number of raw values at count_pointer, not a value there
    minimum_pointer: str | None = None
    maximum_pointer: str | None = None
    inputs: tuple[tuple[str, str], ...] = ()  # derived: (name, absolute pointer)
    available_pointer: str | None = None  # where the availability flag sits, when it is false
    samples: tuple[float, ...] | None = None  # the raw values, where the record carries them
    samples_pointer: str | None = None

    @property
    def has_range(self) -> bool:
        return self.count is not None and self.minimum is not None and self.maximum is not None


@dataclass(frozen=True)
class Point:
    """One point of a case (a context length, a token length): its key and its measures."""

    pointer: str  # absolute pointer of the point ("/cases/0/groups/1"; the case's for one point)
    key: tuple[tuple[str, str], ...]  # (field name, canonical text) of the point fields
    measures: dict[str, Measure]
    key_pointers: dict[str, str | None] = field(default_factory=dict)  # field name -> absolute pointer (None: absent)

    @property
    def label(self) -> str:
        return ", ".join(f"{k} {v}" for k, v in self.key) or "all"


@dataclass(frozen=True)
class Case:
    """One case of one record, as comparisons see it."""

    schema: str
    record_sha256: str
    record_path: str
    pointer: str  # absolute pointer of the case ("" for a record that is one case)
    label: str
    values: dict[str, FieldValue]  # field name -> value, for every case-level field of the kind
    points: tuple[Point, ...]

    def of(self, role: Role) -> tuple[tuple[str, str], ...]:
        """(name, canonical text) of the fields with `role`, in table order."""
        return tuple((n, v.text) for n, v in self.values.items() if v.field.role is role)

    # Kept once computed (a case never changes): finding comparisons and series, and every
    # table row of their pages, asks for them again, each time re-encoding every value.
    @cached_property
    def identity(self) -> tuple[tuple[str, str], ...]:
        return self.of(Role.IDENTITY)

    @cached_property
    def axes(self) -> tuple[tuple[str, str], ...]:
        return self.of(Role.AXIS)


@dataclass(frozen=True)
class CaseKind:
    """The comparison table of one record kind (schema).

    - `cases_at`: pointer of the array of cases, or None when the record is one case;
      `include`: (pointer relative to a case, value) that a case must have to count (a failed
      case has no numbers to compare); `case_label`: pointer of the case's label.
    - `points_at`: pointer (relative to the case) of the array of points, or None for one point.
    - `fields`, `metrics`: the tables; `headline`: the metric names charted on comparison pages.
    - `subject`: the field names whose values name what is measured in titles ("Qwen2.5-72B
      Q4_K_M"); `columns`: the field names the explorer shows for every case (besides the
      headline metrics), in order.
    - `case_limits`: pointers (relative to a case) whose limitations apply to every number of
      the case (telemetry: thermal slowdown, sampling gaps), shown beside the compared cases.
    - `entry`: (array pointer in the record, key of an element's id, pointer in a case of the id
      it names) for `Scope.ENTRY` fields: ("/models", "id", "/model") reads a case's model from
      the entry of `models` it served, not the record's first.
    """

    schema: str
    title: str  # "LLM server (llama-server)", for headings
    fields: tuple[Field, ...]
    metrics: tuple[Metric, ...]
    cases_at: str | None = None
    include: tuple[tuple[str, Any], ...] = ()
    case_label: str | None = None
    points_at: str | None = None
    headline: tuple[str, ...] = field(default=())
    subject: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()
    case_limits: tuple[str, ...] = ()
    entry: tuple[str, str, str] | None = None

    def __post_init__(self) -> None:
        names = [f.name for f in self.fields]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.schema}: duplicate field names")
        # a series chart names its field by the label alone (its x axis' title), and `verify
        # --site` reads which field that is back from the label
        ordered = [f.label for f in self.fields if f.ordered]
        if len(set(ordered)) != len(ordered):
            raise ValueError(f"{self.schema}: ordered fields share a label")
        metric_names = [m.name for m in self.metrics]
        if len(set(metric_names)) != len(metric_names):
            raise ValueError(f"{self.schema}: duplicate metric names")
        unknown = set(self.headline) - set(metric_names)
        if unknown:
            raise ValueError(f"{self.schema}: headline names unknown metrics {sorted(unknown)}")
        unknown_fields = (set(self.subject) | set(self.columns)) - set(names)
        if unknown_fields:
            raise ValueError(f"{self.schema}: subject/columns name unknown fields {sorted(unknown_fields)}")
        if not any(f.role is Role.AXIS for f in self.fields):
            raise ValueError(f"{self.schema}: a kind needs at least one axis field")
        if self.points_at is None and any(f.scope is Scope.POINT for f in self.fields):
            raise ValueError(f"{self.schema}: point fields need points_at")
        if self.entry is None and any(f.scope is Scope.ENTRY for f in self.fields):
            raise ValueError(f"{self.schema}: entry fields need entry")

    def field(self, name: str) -> Field:
        """The field called `name` (KeyError naming the known ones otherwise)."""
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"{self.schema} has no field {name!r} (known: {', '.join(f.name for f in self.fields)})")

    def fields_of(self, role: Role) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.role is role)

    def metric(self, name: str) -> Metric:
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(f"{self.schema} has no metric {name!r}")

    # -- reading a record -----------------------------------------------------------------
    def input_pointers(self, data: Any) -> set[str]:
        """Absolute pointers of every case's and point's key fields, under each pointer a field
        may be read from: what a run was given (a context length, the GPU layers), not what it
        measured."""
        out = set()
        for case in self.cases(data, ""):
            entry_ptr = self._entry(data, case.pointer)[0] if self.entry is not None else ""
            for f in self.fields:
                if f.scope is Scope.POINT:
                    out.update(point.pointer + p for point in case.points for p in f.pointers)
                elif f.scope is Scope.CASE:
                    out.update(case.pointer + p for p in f.pointers)
                elif f.scope is Scope.ENTRY:
                    out.update(entry_ptr + p for p in f.pointers)
                else:
                    out.update(f.pointers)
        return out

    def cases(self, data: Any, record_sha256: str, record_path: str = "") -> list[Case]:
        """Every counted case of a (schema-valid) record, with its key and its points."""
        out = []
        if self.cases_at is None:
            found = [("", data)]
        else:
            items = resolve(data, self.cases_at, default=[]) or []
            found = [(f"{self.cases_at}/{i}", c) for i, c in enumerate(items) if isinstance(c, dict)]
        for case_ptr, case in found:
            if any(resolve(case, p, default=None) != v for p, v in self.include):
                continue
            values = {}
            entry = self._entry(data, case_ptr) if self.entry is not None else None
            for f in self.fields:
                if f.scope is Scope.POINT:
                    continue
                base, node = {Scope.RECORD: ("", data), Scope.CASE: (case_ptr, case)}.get(f.scope) or entry
                values[f.name] = _first(f, node, base)
            label_value = resolve(case, self.case_label, default=None) if self.case_label else None
            label = str(label_value) if label_value is not None else (case_ptr or record_path or "record")
            out.append(Case(self.schema, record_sha256, record_path, case_ptr, label, values,
                            tuple(self._points(case, case_ptr))))
        return out

    def _entry(self, data: Any, case_ptr: str) -> tuple[str, Any]:
        """The absolute pointer and the node of the record's entry that the case at `case_ptr`
        names (`entry`); ("", None) where it names none (the consistency checks refuse that)."""
        array, key, named_at = self.entry  # type: ignore[misc]
        named = resolve(data, case_ptr + named_at, default=None)
        items = resolve(data, array, default=None)
        for i, item in enumerate(items if isinstance(items, list) else ()):
            if isinstance(item, dict) and named is not None and item.get(key) == named:
                return f"{array}/{i}", item
        return "", None

    def _points(self, case: Any, case_ptr: str) -> list[Point]:
        if self.points_at is None:
            found = [(case_ptr, case)]
        else:
            items = resolve(case, self.points_at, default=[]) or []
            found = [(f"{case_ptr}{self.points_at}/{i}", p) for i, p in enumerate(items) if isinstance(p, dict)]
        points = []
        for ptr, node in found:
            found_key = [_first(f, node, ptr) for f in self.fields if f.scope is Scope.POINT]
            measures = {m.name: _measure(m, node, ptr) for m in self.metrics}
            points.append(Point(ptr, tuple((v.field.name, v.text) for v in found_key), measures,
                                {v.field.name: v.pointer for v in found_key}))
        # Points in natural order of their key (context 2048 before 8192), record order on ties.
        return sorted(points, key=lambda p: tuple(natural_key(v) for _, v in p.key))


def _first(f: Field, node: Any, base: str) -> FieldValue:
    for p in f.pointers:
        value = resolve(node, p, default=None)
        if value is not None:
            return FieldValue(f, value, base + p)
    return FieldValue(f, None, None)


def _number(value: Any) -> float | None:
    return value if is_number(value) else None


def _measure(m: Metric, node: Any, base: str) -> Measure:
    def at(rel: str | None) -> tuple[Any, str | None]:
        return (resolve(node, rel, default=None), base + rel) if rel else (None, None)

    available, available_ptr = at(m.available)
    if m.available is not None and available is not True:
        return Measure(m, None, None, available_pointer=available_ptr)
    count, count_ptr = at(m.count)
    low, low_ptr = at(m.minimum)
    high, high_ptr = at(m.maximum)
    extra = dict(count=count if is_integer(count) else None,
                 minimum=_number(low), maximum=_number(high),
                 count_pointer=count_ptr, minimum_pointer=low_ptr, maximum_pointer=high_ptr)
    if m.formula is not None:
        inputs = tuple((name, base + rel) for name, rel in m.inputs)
        args = [_number(resolve(node, rel, default=None)) for _, rel in m.inputs]
        value = m.derive(*args) if all(a is not None for a in args) else None  # type: ignore[misc]
        return Measure(m, value, None, inputs=inputs, **extra)
    value, ptr = at(m.value)
    raw = _samples(m, node, base)
    if raw and extra["count"] is None and extra["minimum"] is None:
        # a record with the raw values but no summary of them (llama-bench's per-repetition
        # samples): the count and the range are the raw values' own, pointing at the elements
        values, where = raw["samples"], raw["samples_pointer"]
        low_i = min(range(len(values)), key=values.__getitem__)
        high_i = max(range(len(values)), key=values.__getitem__)
        exact = m.sample is None  # element i is value i only when no element was dropped
        extra.update(count=len(values), minimum=values[low_i], maximum=values[high_i], count_pointer=where, counted=True,
                     minimum_pointer=f"{where}/{low_i}" if exact else where,
                     maximum_pointer=f"{where}/{high_i}" if exact else where)
    return Measure(m, _number(value), ptr, **extra, **raw)


def _samples(m: Metric, node: Any, base: str) -> dict[str, Any]:
    """The raw values of `m` at this point (only when every element gives a number)."""
    if m.samples is None:
        return {}
    items = resolve(node, m.samples, default=None)
    if not isinstance(items, list) or not items:
        return {}
    values = [m.sample(item) if m.sample is not None else item for item in items]
    values = [v for v in values if v is not None]  # an entry without the value (no decode steps)
    if not values or not all(_number(v) is not None for v in values):
        return {}
    return {"samples": tuple(float(v) for v in values), "samples_pointer": base + m.samples}

