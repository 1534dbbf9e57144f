"""Series: comparisons whose axis is ordered. Cases of one kind that agree on every identity
field and on every axis field but an *ordered* one (a runtime release, a driver, a torch
version), taken from at least two records, form a series along that field, in its order. Cases
that agree on every identity and axis field (repeats of one setup) form a series along the
kind's ordered context field instead (the test date), when at least two dates differ.

Deterministic: positions are ordered by the series field (natural order, numbers by value),
then by the kind's date field, then by input order (the ledger's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from benchledger.cases.base import Case, CaseKind, Role, natural_key
from benchledger.records.digest import short_id
from benchledger.records.numbers import is_number

Key = tuple[tuple[str, str], ...]


def order_key(value: Any, text: str) -> tuple:
    """Sort key of a field value: numbers by value, text in natural order (b9 < b10)."""
    if is_number(value):
        return (0, float(value), ())
    return (1, 0.0, natural_key(text))


@dataclass(frozen=True)
class Series:
    """Cases along one ordered field, everything else that matters agreeing."""

    schema: str
    identity: Key
    field: str  # the ordered field the series runs along
    fixed: Key  # the axis fields held fixed, with their values
    cases: tuple[Case, ...]  # in series order
    along_axis: bool  # True: `field` is an axis; False: a date of repeats of one setup

    @property
    def slug(self) -> str:
        """A stable short id of the series: the same key gives the same id in every build."""
        return short_id((self.schema, self.identity, self.field, self.fixed))

    def value_of(self, case: Case) -> str:
        """The case's value of the series field, as text (what the JSON data says)."""
        return case.values[self.field].text

    def shown_of(self, case: Case) -> str:
        """The case's value of the series field as a page shows it (`FieldValue.shown`)."""
        return case.values[self.field].shown

    @property
    def records(self) -> list[str]:
        """The sha256 of every record in the series, in series order."""
        return list(dict.fromkeys(c.record_sha256 for c in self.cases))


def _date_field(kind: CaseKind) -> str | None:
    dates = [f.name for f in kind.fields_of(Role.CONTEXT) if f.ordered]
    return dates[0] if dates else None


def position_key(kind: CaseKind, field: str, case: Case) -> tuple:
    """Where `case` sits in a series of `kind` along `field`: by its value there, then (along an
    axis) by the kind's date; cases of equal keys keep ledger order. What `verify --site` checks
    a series chart's order by too."""
    date = _date_field(kind)
    value = case.values[field]
    when = case.values[date] if date is not None and date != field else None
    return (order_key(value.value, value.text), order_key(when.value, when.text) if when else ())


def _ordered(kind: CaseKind, cases: list[tuple[int, Case]], field: str) -> tuple[Case, ...]:
    return tuple(c for _, c in sorted(cases, key=lambda item: (position_key(kind, field, item[1]), item[0])))


def find_series(kind: CaseKind, cases: Sequence[Case]) -> list[Series]:
    """Every series among `cases` (all of `kind`), axis series first, in table order."""
    out: list[Series] = []
    date = _date_field(kind)
    for axis in (f.name for f in kind.fields_of(Role.AXIS) if f.ordered):
        groups: dict[tuple[Key, Key], list[tuple[int, Case]]] = {}
        for i, case in enumerate(cases):
            fixed = tuple((n, v) for n, v in case.axes if n != axis)
            groups.setdefault((case.identity, fixed), []).append((i, case))
        for (identity, fixed), members in groups.items():
            if len({c.values[axis].text for _, c in members}) < 2 or len({c.record_sha256 for _, c in members}) < 2:
                continue
            out.append(Series(kind.schema, identity, axis, fixed, _ordered(kind, members, axis), True))
    if date is not None:
        repeats: dict[tuple[Key, Key], list[tuple[int, Case]]] = {}
        for i, case in enumerate(cases):
            repeats.setdefault((case.identity, case.axes), []).append((i, case))
        for (identity, axes), members in repeats.items():
            if len({c.values[date].text for _, c in members}) < 2 or len({c.record_sha256 for _, c in members}) < 2:
                continue
            out.append(Series(kind.schema, identity, date, axes, _ordered(kind, members, date), False))
    return out
