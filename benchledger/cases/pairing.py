"""Two records side by side, case by case (what `benchledger compare A B` prints).

Each case of B is paired with the case of A that agrees on every identity field and differs in
the fewest axis fields; the pair counts when it differs in at most one (with `axis` given: in
no axis field but that one). Points of a pair are matched on their key, and every headline
metric of a matched point gets A, B, B/A and the verdict of the rule in `evidence.py`.
Cases and points that found no partner are listed, with the reason."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NamedTuple, Sequence

from benchledger.cases import evidence
from benchledger.cases.base import Case, CaseKind, Measure, Point
from benchledger.cases.comparison import Difference, differences, match_points


@dataclass(frozen=True)
class MetricRow:
    """One metric at one matched point of one matched pair."""

    a_case: Case
    b_case: Case
    a_point: Point
    b_point: Point
    a: Measure
    b: Measure
    verdict: evidence.Verdict

    @property
    def ratio(self) -> float | None:
        if self.a.value is None or self.b.value is None or self.a.value == 0:
            return None
        return self.b.value / self.a.value


@dataclass(frozen=True)
class Unmatched:
    """A case (or a point of a matched pair) with no partner, and why."""

    side: str  # "A" or "B"
    case: Case
    point: Point | None
    reason: str


class _Candidate(NamedTuple):
    """A case of A that could pair with a case of B, and where the two differ."""

    index: int  # in A's cases
    case: Case
    differences: list[Difference]


@dataclass
class PairReport:
    kind: CaseKind
    axis: str | None  # the one axis field that differs in the matched pairs (None: none differs)
    rows: list[MetricRow] = field(default_factory=list)
    pairs: list[tuple[Case, Case, list[Difference]]] = field(default_factory=list)
    unmatched: list[Unmatched] = field(default_factory=list)
    confounded: list[Difference] = field(default_factory=list)  # of the closest pair, when no pair matched

    @property
    def axes_differing(self) -> list[str]:
        return sorted({d.field for _, _, diff in self.pairs for d in diff})


def pair_records(kind: CaseKind, a_cases: Sequence[Case], b_cases: Sequence[Case], axis: str | None = None) -> PairReport:
    """Match the cases of B to those of A (see the module docstring)."""
    report = PairReport(kind, axis)
    used_a: set[int] = set()
    closest_overall: list[Difference] | None = None
    for b in b_cases:
        peers = [(i, a) for i, a in enumerate(a_cases) if a.identity == b.identity]
        if not peers:
            differ = _identity_difference(a_cases, b)
            report.unmatched.append(Unmatched("B", b, None, f"no case of A with the same identity ({differ})"))
            continue
        ranked = sorted((_Candidate(i, a, differences(a, b)) for i, a in peers), key=lambda c: (len(c.differences), c.index))
        allowed = [c for c in ranked if len(c.differences) <= 1 and (axis is None or all(d.field == axis for d in c.differences))]
        if not allowed:
            diff = ranked[0].differences
            if closest_overall is None or len(diff) < len(closest_overall):
                closest_overall = diff
            why = ("differs from every case of A in " + "; ".join(map(str, diff))) if len(diff) > 1 or axis is None else (
                f"differs from every case of A in an axis other than {axis}: " + "; ".join(map(str, diff)))
            report.unmatched.append(Unmatched("B", b, None, why))
            continue
        i, a, diff = allowed[0]
        used_a.add(i)
        report.pairs.append((a, b, diff))
        match = match_points(a, b)
        for pa, pb in match.matched:
            for name in kind.headline:
                ma, mb = pa.measures[name], pb.measures[name]
                report.rows.append(MetricRow(a, b, pa, pb, ma, mb, evidence.verdict(ma, mb)))
        report.unmatched += [Unmatched("A", a, p, "no point with this key in B's case") for p in match.only_a]
        report.unmatched += [Unmatched("B", b, p, "no point with this key in A's case") for p in match.only_b]
    for i, a in enumerate(a_cases):
        if i not in used_a:
            report.unmatched.append(Unmatched("A", a, None, "no case of B was paired with it"))
    # one report is one table of tests: its verdicts under false-discovery control, as on the site
    verdicts = evidence.control_false_discoveries([row.verdict for row in report.rows])
    report.rows = [replace(row, verdict=v) for row, v in zip(report.rows, verdicts)]
    axes = report.axes_differing
    if axis is None:
        report.axis = axes[0] if len(axes) == 1 else None
    if not report.pairs and closest_overall is not None and len(closest_overall) > 1:
        report.confounded = closest_overall
    return report


def _identity_difference(a_cases: Sequence[Case], b: Case) -> str:
    if not a_cases:
        return "A has no case"
    ref = dict(a_cases[0].identity)
    return "; ".join(f"{n}: {ref.get(n, 'n/a')} vs {v}" for n, v in b.identity if ref.get(n, "n/a") != v)
