"""Comparisons along one axis, found from the cases of many records of one kind.

- A **comparison** (kind, identity key, axis, the other axis values held fixed): cases from at
  least two records that agree on every identity field and on every axis field but `axis`, and
  take at least two values of `axis` at a common point (context or token length; a case with no
  point in common with a case of another value is left out). Its baseline is the first value in
  natural sort order.
- A pair of records of one kind that share an identity key but have no pair of cases differing
  in at most one axis field is **confounded**: every difference of its closest pairs of cases is
  named, and nothing is drawn.
- Cases of different records that differ in no axis field are **repeats** of one setup; they sit
  in the same row group of any comparison that includes them.

Deterministic: the same cases in the same order give the same comparisons in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Iterable, Sequence

from benchledger.cases.base import Case, CaseKind, Point, Role, natural_key

Key = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Difference:
    """One axis field that differs between two cases."""

    field: str
    a: str
    b: str

    def __str__(self) -> str:
        return f"{self.field}: {self.a} vs {self.b}"


def differences(a: Case, b: Case) -> list[Difference]:
    """The axis fields whose values differ between `a` and `b`, in table order."""
    right = dict(b.axes)
    return [Difference(name, value, right.get(name, "n/a")) for name, value in a.axes if right.get(name, "n/a") != value]


@dataclass(frozen=True)
class Comparison:
    """Cases along one axis, everything else agreeing."""

    schema: str
    identity: Key
    axis: str
    fixed: Key  # the other axis fields and their (shared) values
    cases: tuple[Case, ...]  # sorted by axis value, then by input order

    def value_of(self, case: Case) -> str:
        return dict(case.axes)[self.axis]

    @property
    def values(self) -> list[str]:
        """The distinct axis values, in natural order; the first is the baseline."""
        return list(dict.fromkeys(self.value_of(c) for c in self.cases))

    @property
    def baseline(self) -> str:
        return self.values[0]

    @property
    def records(self) -> list[str]:
        """The sha256 of every contributing record, in first-seen order."""
        return list(dict.fromkeys(c.record_sha256 for c in self.cases))

    def by_value(self) -> list[tuple[str, list[Case]]]:
        """(axis value, its cases) in axis order."""
        out: dict[str, list[Case]] = {}
        for c in self.cases:
            out.setdefault(self.value_of(c), []).append(c)
        return list(out.items())


@dataclass(frozen=True)
class Confounded:
    """Two groups of records (same setup within a group) that share an identity key but differ
    in two or more axis fields in every pair of their cases."""

    schema: str
    identity: Key
    a: tuple[tuple[str, str], ...]  # (sha256, path) of the records on one side
    b: tuple[tuple[str, str], ...]
    differences: tuple[Difference, ...]  # of the closest pair of cases (fewest differences)


@dataclass(frozen=True)
class Found:
    comparisons: list[Comparison]
    confounded: list[Confounded]


def find(kind: CaseKind, cases: Sequence[Case]) -> Found:
    """Every comparison and every confounded pair among `cases` (all of `kind`)."""
    axis_names = [f.name for f in kind.fields_of(Role.AXIS)]
    comparisons = []
    for axis in axis_names:
        groups: dict[tuple[Key, Key], list[Case]] = {}
        for case in cases:
            fixed = tuple((n, v) for n, v in case.axes if n != axis)
            groups.setdefault((case.identity, fixed), []).append(case)
        for (identity, fixed), members in groups.items():
            members = _sharing_points(members, axis)
            values = {dict(c.axes)[axis] for c in members}
            if len(values) < 2 or len({c.record_sha256 for c in members}) < 2:
                continue
            ordered = sorted(enumerate(members), key=lambda ic: (natural_key(dict(ic[1].axes)[axis]), ic[0]))
            comparisons.append(Comparison(kind.schema, identity, axis, fixed, tuple(c for _, c in ordered)))
    return Found(comparisons, _confounded(kind, cases))


def _sharing_points(members: list[Case], axis: str) -> list[Case]:
    """The members with a point (context, token length) that a case of another axis value also
    has: without a common point there is nothing to set side by side."""
    values_at: dict[Key, set[str]] = {}
    for case in members:
        for point in case.points:
            values_at.setdefault(point.key, set()).add(dict(case.axes)[axis])
    shared = {key for key, values in values_at.items() if len(values) > 1}
    return [c for c in members if any(p.key in shared for p in c.points)]


def _confounded(kind: CaseKind, cases: Sequence[Case]) -> list[Confounded]:
    """Record groups sharing an identity key and connected by no case pair within one axis.

    Records are grouped by their signature (the set of setups, i.e. axis values, of their cases
    with this identity) first: records with equal signatures are repeats, so the pairwise work
    grows with distinct setups, not with records."""
    by_identity: dict[Key, dict[str, list[Case]]] = {}
    paths: dict[str, str] = {}
    for case in cases:
        by_identity.setdefault(case.identity, {}).setdefault(case.record_sha256, []).append(case)
        paths[case.record_sha256] = case.record_path
    out = []
    for identity, records in by_identity.items():
        signatures: dict[frozenset, list[str]] = {}
        for sha, record_cases in records.items():
            signatures.setdefault(frozenset(c.axes for c in record_cases), []).append(sha)
        groups = list(signatures.items())
        for (sig_a, shas_a), (sig_b, shas_b) in combinations(groups, 2):
            closest: list[Difference] | None = None
            for axes_a in sorted(sig_a):
                for axes_b in sorted(sig_b):
                    right = dict(axes_b)
                    diff = [Difference(n, v, right.get(n, "n/a")) for n, v in axes_a if right.get(n, "n/a") != v]
                    if closest is None or len(diff) < len(closest):
                        closest = diff
            if closest is not None and len(closest) >= 2:
                out.append(Confounded(kind.schema, identity, tuple((s, paths[s]) for s in shas_a),
                                      tuple((s, paths[s]) for s in shas_b), tuple(closest)))
    return out


@dataclass(frozen=True)
class PointMatch:
    """Points of two cases matched on their point key, and those without a partner."""

    matched: list[tuple[Point, Point]]
    only_a: list[Point]
    only_b: list[Point]


def match_points(a: Case, b: Case) -> PointMatch:
    """Pair the points of `a` and `b` with equal keys (context length, token length)."""
    right = {p.key: p for p in b.points}
    left_keys = {p.key for p in a.points}
    return PointMatch(
        [(p, right[p.key]) for p in a.points if p.key in right],
        [p for p in a.points if p.key not in right],
        [p for p in b.points if p.key not in left_keys],
    )


def cases_of(kind: CaseKind, records: Iterable[tuple[object, str, str]]) -> list[Case]:
    """The cases of (data, sha256, path) records, in the given order."""
    return [c for data, sha, path in records for c in kind.cases(data, sha, path)]
