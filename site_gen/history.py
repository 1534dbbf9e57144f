"""History: every series of the verified records, each metric at each point tracked along it,
change detection on every track and the claims of each series (one page each; the
false-discovery rate is controlled across a series' claims, the page they appear on).

What the series pages, the `change` citation, the Atom feed and `benchledger check` all read:
the same records give the same report, so the site and CI never disagree."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Iterable, Mapping, Sequence

from benchledger.cases.base import Better, Case, Measure, Metric
from benchledger.cases.registry import KINDS
from benchledger.cases.series import Series, find_series
from site_gen.chart_labels import numbered
from site_gen.changes.claims import CHANGED, Claim, assess
from site_gen.changes.comparison import STATISTICS, Comparison
from site_gen.changes.detection import ALGORITHMS, Detection, detect
from site_gen.changes.observation import Observation
from site_gen.changes.rule import DEFAULT_RULE, Rule

Key = tuple[tuple[str, str], ...]


def observation(measure: Measure) -> Observation | None:
    """A measure as change detection sees it, or None when there is no positive number (an
    unavailable energy, a zero). Raw values that do not give the summary are left out (the
    consistency checks refuse such records; this keeps detection honest on anything else)."""
    value = measure.value
    if value is None or not math.isfinite(value) or value <= 0:
        return None
    rng = dict(count=measure.count, minimum=measure.minimum, maximum=measure.maximum) if measure.has_range else \
        dict(count=measure.count)
    statistic = measure.metric.statistic if measure.metric.statistic in ("median", "mean") else ""
    try:
        if measure.samples and statistic:
            return Observation(value, values=measure.samples, statistic=statistic, **rng)
        return Observation(value, statistic=statistic, **rng)
    except ValueError:
        try:
            return Observation(value, statistic=statistic, **rng)
        except ValueError:
            return None


@dataclass(frozen=True)
class Track:
    """One metric at one point (a context length, a token length) along a series: the cases
    that have a number for it (`positions` into the series' cases), their observations, the
    detection and (after `assess`) its claims."""

    series: Series
    point: Key
    metric: Metric
    positions: tuple[int, ...]
    measures: tuple[Measure, ...]
    observations: tuple[Observation, ...]
    detection: Detection

    @property
    def label(self) -> str:
        """"server decode (median) at context 2048": the metric and the point, in the kind's words."""
        kind = KINDS[self.series.schema]
        where = ", ".join(f"{kind.field(k).label} {v}" for k, v in self.point)
        return f"{self.metric.label}" + (f" at {where}" if where else "")

    def case_at(self, track_index: int) -> Case:
        """The case behind the track's `track_index`-th observation."""
        return self.series.cases[self.positions[track_index]]

    def cases_of(self, comparison: Comparison) -> tuple[list[Case], list[Case]]:
        """The cases of the two segments of a comparison."""
        before = [self.case_at(i) for i in range(comparison.before.start, comparison.before.stop)]
        after = [self.case_at(i) for i in range(comparison.after.start, comparison.after.stop)]
        return before, after


def is_regression(metric: Metric, claim: Claim) -> bool:
    """A *changed* claim that moved the wrong way for the metric."""
    if claim.verdict != CHANGED:
        return False
    return claim.ratio < 1 if metric.better is Better.HIGHER else claim.ratio > 1


@dataclass(frozen=True)
class Finding:
    """One claim of a track, with where it sits."""

    track: Track
    claim: Claim
    rule: Rule = DEFAULT_RULE

    @property
    def regression(self) -> bool:
        return is_regression(self.track.metric, self.claim)

    @property
    def first_after(self) -> Case:
        """The first case after the change (where the series is said to change)."""
        return self.track.case_at(self.claim.comparison.after.start)

    @property
    def records(self) -> list[str]:
        """The sha256 of every record the claim was computed from, in series order."""
        before, after = self.track.cases_of(self.claim.comparison)
        return list(dict.fromkeys(c.record_sha256 for c in before + after))


@dataclass(frozen=True)
class Change:
    """A detected change: every *changed* claim of one series whose new segment starts at the
    same case."""

    series: Series
    at: Case
    findings: tuple[Finding, ...]

    @property
    def regression(self) -> bool:
        return any(f.regression for f in self.findings)

    @property
    def records(self) -> list[str]:
        return list(dict.fromkeys(sha for f in self.findings for sha in f.records))

    @property
    def slug(self) -> str:
        return f"{self.series.slug}-{self.series.cases.index(self.at)}"


@dataclass(frozen=True)
class SeriesReport:
    """A series, every track along it, and their claims (one page)."""

    series: Series
    tracks: tuple[Track, ...]
    claims: tuple[tuple[Claim, ...], ...]  # per track, same order
    rule: Rule
    # The fixed fields that tell this series apart from others of the same kind, identity and
    # field (GPU layers 81 vs 40), for titles.
    distinct: Key = ()

    @property
    def title(self) -> str:
        return series_title(self.series, self.distinct)

    @cached_property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(Finding(t, c, self.rule) for t, cs in zip(self.tracks, self.claims) for c in cs)

    def findings_of(self, index: int) -> tuple[Finding, ...]:
        """The findings of `tracks[index]` (the same objects as in `findings`), in page order."""
        return self._findings_by_track[index]

    @cached_property
    def _findings_by_track(self) -> tuple[tuple[Finding, ...], ...]:
        out, start = [], 0
        for claims in self.claims:  # findings hold each track's claims in turn
            out.append(self.findings[start:start + len(claims)])
            start += len(claims)
        return tuple(out)

    @cached_property
    def changes(self) -> tuple[Change, ...]:
        """The detected changes, in series order."""
        by_case: dict[int, list[Finding]] = {}
        for f in self.findings:
            if f.claim.verdict == CHANGED:
                by_case.setdefault(self.series.cases.index(f.first_after), []).append(f)
        return tuple(Change(self.series, self.series.cases[i], tuple(fs)) for i, fs in sorted(by_case.items()))


def tracks_of(series: Series, metrics: Iterable[Metric], rule: Rule) -> list[Track]:
    """One track per (point, metric) that at least two cases of the series have."""
    metrics = list(metrics)
    # (point key, metric) -> the positions, measures and observations along the series, filled
    # from the points each case has (the first of a key, as a scan would find): a series of
    # hundreds of cases has most keys in a few of them only, and a lookup per (key, metric, case)
    # made 8 million lookups for 36 thousand observations at a thousand records
    found: dict[tuple[Key, int], tuple[list[int], list[Measure], list[Observation]]] = {}
    keys: dict[Key, None] = {}  # first-seen order: the tracks' order
    for i, case in enumerate(series.cases):
        seen: set[Key] = set()
        for p in case.points:
            if p.key in seen:
                continue
            seen.add(p.key)
            keys.setdefault(p.key, None)
            for j, metric in enumerate(metrics):
                measure = p.measures.get(metric.name)
                obs = observation(measure) if measure is not None else None
                if obs is not None:
                    positions, measures, observations = found.setdefault((p.key, j), ([], [], []))
                    positions.append(i)
                    measures.append(measure)
                    observations.append(obs)
    out = []
    for key in keys:
        for j, metric in enumerate(metrics):
            positions, measures, observations = found.get((key, j), ((), (), ()))
            if len(observations) >= 2:
                out.append(Track(series, key, metric, tuple(positions), tuple(measures), tuple(observations),
                                 detect(observations, rule, [series.value_of(series.cases[i]) for i in positions])))
    return out


def report(series: Series, rule: Rule = DEFAULT_RULE) -> SeriesReport:
    """Detection on every track of `series`, and the page's claims."""
    kind = KINDS[series.schema]
    metrics = [kind.metric(name) for name in kind.headline] + [m for m in kind.metrics if m.name not in kind.headline]
    tracks = tracks_of(series, metrics, rule)
    claims = assess([t.detection for t in tracks], rule)
    return SeriesReport(series, tuple(tracks), tuple(tuple(c) for c in claims), rule)


HISTORY_INDEX = "series/index.md"  # the docs path of the index of every series and change


def series_path(series: Series) -> str:
    """The docs path of the page of `series` (served as .html)."""
    return f"series/{series.slug}.md"


def case_labels(series: Series) -> list[str]:
    """One unique label per case of the series, in series order: its value of the series field
    as a page shows it, a repeat of a value numbered #2, #3 ... (its page's charts and tables
    name the cases so, and `verify --site` makes them again)."""
    return numbered(series.shown_of(case) for case in series.cases)


def history(records: Sequence[tuple[object, str, str, str]], rule: Rule = DEFAULT_RULE,
            cases_by_schema: Mapping[str, Sequence[Case]] | None = None) -> list[SeriesReport]:
    """Every series report of (data, sha256, path, schema) records, in ledger order: kinds in
    registry order, series as `find_series` gives them. `cases_by_schema`: the records' cases
    per schema in ledger order where the caller has them already (the site's comparisons)."""
    out = []
    for schema, kind in KINDS.items():
        if cases_by_schema is not None:
            cases = list(cases_by_schema.get(schema, ()))
        else:
            cases = [c for data, sha, path, s in records if s == schema for c in kind.cases(data, sha, path)]
        out.extend(report(series, rule) for series in find_series(kind, cases))
    # name what tells a series apart from the others of what it measures, along any field: a
    # date series of one GPU's repeats was titled by the model alone, beside the release series
    # of two GPUs, and its claims reached the index and the feed without the GPU
    siblings: dict[tuple, list[SeriesReport]] = {}
    for r in out:
        siblings.setdefault((r.series.schema, r.series.identity), []).append(r)
    titled = []
    for r in out:
        group = siblings[(r.series.schema, r.series.identity)]
        varying = {n for n, _ in r.series.fixed if len({dict(g.series.fixed).get(n) for g in group}) > 1}
        titled.append(replace(r, distinct=tuple((n, v) for n, v in r.series.fixed if n in varying)))
    return titled


# -- what a claim is made of, as data (hover text, `check --json`, the feed) ------------------

def series_title(series: Series, distinct: Key = ()) -> str:
    """A plain-text title: what is measured (and the `distinct` fixed fields that tell it from
    its sibling series), along what."""
    kind = KINDS[series.schema]
    identity = dict(series.identity)
    subject = " ".join(identity.get(name, "") for name in kind.subject).strip()
    setup = ", ".join(f"{kind.field(n).label} {v}" for n, v in distinct)
    named = ", ".join(part for part in (subject, setup) if part)
    along = f"{kind.title} along {kind.field(series.field).label}"
    return f"{named}: {along}" if named else along  # not "CUDA-graph replay: CUDA-graph replay along torch"


def setup_items(series: Series) -> list[str]:
    """The fixed setup of a series, one `label value` per field (plain text)."""
    kind = KINDS[series.schema]
    return [f"{kind.field(n).label} {v}" for n, v in series.fixed if v != "n/a"]


def series_setup(series: Series) -> str:
    """The fixed setup of a series as `label value` pairs (plain text)."""
    return ", ".join(setup_items(series))


def _side(track: Track, start: int, stop: int) -> list[dict]:
    out = []
    for i in range(start, stop):
        case, measure, obs = track.case_at(i), track.measures[i], track.observations[i]
        out.append({
            "path": case.record_path,
            "sha256": case.record_sha256,
            "case": case.pointer,
            "value_pointer": measure.pointer,
            "inputs": dict(measure.inputs) or None,
            "value": obs.value,
            "count": obs.count,
            "range": [obs.minimum, obs.maximum] if obs.has_range else None,
            "samples_pointer": measure.samples_pointer if obs.values is not None else None,
            track.series.field: track.series.value_of(case),
        })
    return out


def finding_json(finding: Finding) -> dict:
    """Everything a claim was computed from and how: records (paths, hashes, pointers), the
    statistic, its inputs, the algorithm with its parameters and the verdict."""
    track, claim = finding.track, finding.claim
    c = claim.comparison
    detection = track.detection
    return {
        "series": track.series.slug,
        "metric": track.metric.name,
        "metric_label": track.metric.label,
        "unit": track.metric.unit,
        "better": track.metric.better.value,
        "point": dict(track.point),
        "at": {"path": finding.first_after.record_path, "sha256": finding.first_after.record_sha256,
               track.series.field: track.series.value_of(finding.first_after)},
        "verdict": claim.verdict,
        "regression": finding.regression,
        "ratio": claim.ratio,
        "change_percent": (claim.ratio - 1) * 100,
        "interval": list(claim.interval) if claim.interval else None,
        "confidence": claim.confidence,
        "delta": claim.delta,
        "p_value": c.p_value,
        "adjusted_p": claim.adjusted_p,
        "tests_on_page": claim.tests_on_page,
        "selected_on_page": claim.selected_on_page,
        "minimum_detectable": claim.minimum_detectable,
        "statistic": {"method": c.method, "text": STATISTICS[c.method], "noise": c.noise,
                      "df": c.log_ratio.df if c.log_ratio else None,
                      "separation_gap": c.separation.gap if c.separation else None},
        "algorithm": {"name": detection.algorithm, "text": ALGORITHMS[detection.algorithm],
                      "records_in_series": detection.size,
                      "change_point_p": next((cp.pvalue for cp in detection.change_points if cp.index == c.after.start), None),
                      "parameters": finding.rule.parameters()},
        "before": _side(track, c.before.start, c.before.stop),
        "after": _side(track, c.after.start, c.after.stop),
    }
