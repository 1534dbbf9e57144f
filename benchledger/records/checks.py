"""Consistency checks: derived numbers in a record recomputed from their inputs.

Each check is a small rule object with a stable `id`, the `schema` it applies to and a one-line
`description` (the site's methodology page lists them). A check runs on a record that already
validates against its schema, so it may rely on the schema's shapes; values that are null
(unavailable, e.g. GPU metrics on a machine without a GPU) are skipped, never treated as zero.

Tolerance: floats are compared with a relative tolerance of RELATIVE_TOLERANCE (1e-9), plus
ABSOLUTE_TOLERANCE (1e-9) so that values near zero compare sanely. The seeds' derived values are
recomputed exactly or to ~1e-15 (summation order), so 1e-9 only absorbs floating-point rounding;
any real transcription or arithmetic error is far larger. Counts and byte sizes compare exactly."""

from __future__ import annotations

import functools
import math
import operator
import statistics
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterable, Iterator

from benchledger.errors import Problem
from benchledger.records.digest import sha256_hex
from benchledger.records.numbers import is_number
from benchledger.records.pointer import to_jsonpath
from benchledger.records.summaries import summarize, timing_summary

try:
    # Five rules proven in C, in one walk over a record's groups and resources blocks (see the C
    # file's comment): where `statistics_hold` is True they find nothing, and are not run (half of
    # the checks' time on a record, bench/HISTORY.md 12-07); where it is False they run and name
    # what is wrong. It is compiled where the package is installed from source with a C compiler
    # (setup.py); without it the rules always run.
    from benchledger.records._statsproof import statistics_hold
except ImportError:
    statistics_hold = None
STATISTICS_PROOF_RULES = ("gsh-statistic-order", "gsh-resources-sample-counts", "gsh-group-statistic-counts",
                          "gsh-resources-counter-intervals", "gsh-telemetry-phase-samples")

RELATIVE_TOLERANCE = 1e-9
ABSOLUTE_TOLERANCE = 1e-9

GSH = "gsh-llm-core-article/1"
TGR = "torch-graph-replay/1"

Parts = tuple[str | int, ...]

# Keys of objects the schemas leave open to others: a rule reads these, never whatever else is
# there (tests/benchledger/records/test_checks.py holds them to the schemas).
THERMAL_KINDS = ("hardware", "software")
THERMAL_STATES = ("active", "not_active", "unavailable")
TIMING_PATHS = ("eager", "graph")


@dataclass(frozen=True)
class Mismatch:
    """A derived value that does not follow from its inputs."""

    parts: Parts  # where the found value is
    expected: Any  # a number, or text such as "<= 81"
    found: Any
    formula: str  # how `expected` is computed, in the record's own names


@dataclass(frozen=True)
class Check:
    """One consistency rule for one schema."""

    id: str
    schema: str
    description: str
    run: Callable[[Any], Iterable[Mismatch]]

    def problems(self, data: Any, file: str) -> list[Problem]:
        """Every mismatch of this rule in `data`, as Problems naming file, place, expected, found."""
        found = []
        try:
            for m in self.run(data):
                found.append(Problem(file, to_jsonpath(m.parts),
                                     f"expected {_show(m.expected)} ({m.formula}), found {_show(m.found)} [check {self.id}]"))
        except (KeyError, TypeError, AttributeError, IndexError, ValueError) as err:
            # where a schema leaves an object open, a valid record can hold a key or value a rule
            # does not expect: the record is refused naming the rule, not with a traceback (which
            # also stopped verify and build of a store holding it)
            found.append(Problem(file, "", f"cannot be checked: {type(err).__name__} {err} where the rule expects one of the "
                                           f"fields the schema describes; remove what the schema does not name [check {self.id}]"))
        return found


CHECKS: list[Check] = []


def _check(check_id: str, schema: str, description: str):
    def register(run: Callable[[Any], Iterable[Mismatch]]) -> Callable[[Any], Iterable[Mismatch]]:
        CHECKS.append(Check(check_id, schema, description, run))
        return run

    return register


def checks_for(schema_id: str) -> list[Check]:
    """The checks that apply to records of `schema_id`, in registry order."""
    return [c for c in CHECKS if c.schema == schema_id]


def check_record(data: Any, schema_id: str, file: str) -> list[Problem]:
    """Every consistency failure of a schema-valid record; [] when its numbers hold together."""
    walked = _Walked(data) if isinstance(data, dict) else data
    proven = STATISTICS_PROOF_RULES if schema_id == GSH and statistics_hold is not None and statistics_hold(data) else ()
    return [p for c in checks_for(schema_id) if c.id not in proven for p in c.problems(walked, file)]


def _show(value: Any) -> str:
    if isinstance(value, float):
        short = repr(value)  # 5.0 stays 5.0; long fractions are cut to 12 significant digits
        return short if len(short) <= 14 else f"{value:.12g}"
    return str(value)


def close(a: float, b: float) -> bool:
    """Whether two floats agree within the documented tolerance."""
    return math.isclose(a, b, rel_tol=RELATIVE_TOLERANCE, abs_tol=ABSOLUTE_TOLERANCE)


# The three comparisons below return a tuple (empty, or the one mismatch) for a check to `yield
# from`: a record runs them about 300 times, nearly always empty, and iterating an empty tuple
# costs a fraction of making a generator that yields nothing.
_NO_MISMATCH: tuple[Mismatch, ...] = ()


def _derived(parts: Parts, found: Any, expected: float, formula: str) -> tuple[Mismatch, ...]:
    """A mismatch when a non-null `found` differs from `expected` beyond the tolerance. (A value
    equal to what it is derived from, as a collector writes nearly all of them, is decided by
    that one comparison: close() is not called.)"""
    if found != expected and is_number(found) and not close(found, expected):
        return (Mismatch(parts, expected, found, formula),)
    return _NO_MISMATCH


def _equal(parts: Parts, found: Any, expected: Any, formula: str) -> tuple[Mismatch, ...]:
    if found is not None and expected is not None and found != expected:
        return (Mismatch(parts, expected, found, formula),)
    return _NO_MISMATCH


def _at_most(parts: Parts, found: Any, limit: Any, formula: str) -> tuple[Mismatch, ...]:
    if is_number(found) and is_number(limit) and found > limit:
        return (Mismatch(parts, f"<= {_show(limit)}", found, formula),)
    return _NO_MISMATCH


# --- gsh-llm-core-article/1 -------------------------------------------------------------------


def _shared(data: dict, slot: str, walk: Callable[[dict], Iterable]) -> Iterable:
    """`walk(data)`, made once per `check_record` run and kept in `data`'s `slot` for the checks
    that follow (see `_Walked`); a plain walk for any other dict."""
    if not isinstance(data, _Walked):
        return walk(data)
    made = getattr(data, slot)
    if made is None:
        made = list(walk(data))
        setattr(data, slot, made)
    return made


def _cases(data: dict) -> Iterable[tuple[Parts, dict]]:
    return _shared(data, "cases", _walk_cases)


def _walk_cases(data: dict) -> Iterator[tuple[Parts, dict]]:
    for i, case in enumerate(data["cases"]):
        yield ("cases", i), case


def _groups(data: dict) -> Iterable[tuple[Parts, dict, dict]]:
    return _shared(data, "groups", _walk_groups)


def _walk_groups(data: dict) -> Iterator[tuple[Parts, dict, dict]]:
    for parts, case in _cases(data):
        for j, group in enumerate(case.get("groups", [])):
            yield parts + ("groups", j), group, case


class _Walked(dict):
    """A record's top level, copied for one `check_record` run, holding the walks several checks
    share, each made once: six checks go through every case, eight through every group, six
    through every resources block, three through every available energy block."""

    __slots__ = ("cases", "groups", "blocks", "energies")

    def __init__(self, data: dict):
        super().__init__(data)
        self.cases: list[tuple[Parts, dict]] | None = None
        self.groups: list[tuple[Parts, dict, dict]] | None = None
        self.blocks: list[tuple[Parts, dict]] | None = None
        self.energies: list[tuple[Parts, dict, dict]] | None = None


def _resource_blocks(data: dict) -> Iterable[tuple[Parts, dict]]:
    """Every resources block: per case all completed responses, per group, per phase."""
    return _shared(data, "blocks", _walk_resource_blocks)


def _walk_resource_blocks(data: dict) -> Iterator[tuple[Parts, dict]]:
    for parts, case in _cases(data):
        if "completed_response_resources" in case:
            yield parts + ("completed_response_resources",), case["completed_response_resources"]
        for j, group in enumerate(case.get("groups", [])):
            if "resources" in group:
                yield parts + ("groups", j, "resources"), group["resources"]
        for phase, block in case.get("resources_by_phase", {}).items():
            yield parts + ("resources_by_phase", phase), block


def _available_energy(data: dict) -> Iterable[tuple[Parts, dict, dict]]:
    """(parts, energy, its resources block) of every GPU energy block that is available."""
    return _shared(data, "energies", _walk_available_energy)


def _walk_available_energy(data: dict) -> Iterator[tuple[Parts, dict, dict]]:
    return ((parts + ("gpu_energy",), block["gpu_energy"], block) for parts, block in _resource_blocks(data)
            if block["gpu_energy"]["available"])


GROUP_STATISTICS = ("response_seconds", "server_decode_tokens_per_second", "synthetic_first_token_seconds")


def _statistics(data: dict) -> Iterator[tuple[Parts, Iterable[tuple[str, dict | None]]]]:
    """Every statistic block {minimum, maximum, mean, median, sample_count} the schema defines,
    by parent: (parts of the parent, its (key, block or None) pairs); a path is built only for a
    mismatch."""
    for parts, group, _ in _groups(data):
        yield parts, [(name, group[name]) for name in GROUP_STATISTICS if name in group]
    for parts, block in _resource_blocks(data):
        yield parts + ("metrics",), block["metrics"].items()


@_check("gsh-energy-watt-hours", GSH, "GPU energy in watt-hours equals joules / 3600.")
def _energy_watt_hours(data):
    for parts, energy, _ in _available_energy(data):
        yield from _derived(parts + ("watt_hours",), energy["watt_hours"], energy["joules"] / 3600, "joules / 3600")


@_check("gsh-energy-mean-watts", GSH, "Time-weighted mean GPU board power equals joules / response_union_seconds.")
def _energy_mean_watts(data):
    for parts, energy, _ in _available_energy(data):
        if energy["response_union_seconds"] > 0:
            yield from _derived(parts + ("time_weighted_mean_watts",), energy["time_weighted_mean_watts"],
                                energy["joules"] / energy["response_union_seconds"], "joules / response_union_seconds")


@_check("gsh-energy-union", GSH, "GPU energy is integrated over the same interval union as its resources block.")
def _energy_union(data):
    for parts, energy, block in _available_energy(data):
        yield from _derived(parts + ("response_union_seconds",), energy["response_union_seconds"],
                            block["response_union_seconds"], "the enclosing block's response_union_seconds")


@_check("gsh-group-aggregate-rate", GSH,
        "Aggregate output tokens/s equals completed_output_tokens / response_window_union_seconds.")
def _group_aggregate_rate(data):
    for parts, group, _ in _groups(data):
        if group["response_window_union_seconds"] > 0:
            yield from _derived(parts + ("aggregate_output_tokens_per_second",), group["aggregate_output_tokens_per_second"],
                                group["completed_output_tokens"] / group["response_window_union_seconds"],
                                "completed_output_tokens / response_window_union_seconds")


@_check("gsh-group-output-tokens", GSH,
        "With ignore_eos, completed_output_tokens equals completed_request_count x settings.output_tokens.")
def _group_output_tokens(data):
    for parts, group, case in _groups(data):
        if case["settings"].get("ignore_eos") is True:
            yield from _equal(parts + ("completed_output_tokens",), group["completed_output_tokens"],
                              group["completed_request_count"] * case["settings"]["output_tokens"],
                              "completed_request_count x settings.output_tokens")


@_check("gsh-group-request-count", GSH,
        "Completed plus failed requests equal measured_rounds x settings.concurrency.")
def _group_request_count(data):
    for parts, group, case in _groups(data):
        yield from _equal(parts + ("completed_request_count",), group["completed_request_count"] + group["failed_request_count"],
                          group["measured_rounds"] * case["settings"]["concurrency"],
                          "completed + failed requests = measured_rounds x settings.concurrency")


@_check("gsh-group-statistic-counts", GSH,
        "Per-request statistics (response, decode, first-token) have one sample per completed request.")
def _group_statistic_counts(data):
    for parts, group, _ in _groups(data):
        for name in GROUP_STATISTICS:
            if name in group:
                yield from _equal(parts + (name, "sample_count"), group[name]["sample_count"],
                                  group["completed_request_count"], "completed_request_count")


def _summary_mismatches(parts: Parts, found: dict, expected: dict | None, formula: str) -> Iterator[Mismatch]:
    """Each field of a summary block that does not follow from the values it summarises."""
    if expected is None:
        return
    for key, value in expected.items():
        where = parts + (key,)
        if key in ("sample_count", "repetitions"):
            yield from _equal(where, found.get(key), value, formula)
        else:
            yield from _derived(where, found.get(key), value, formula)


# What each per-request statistic is, computed from one entry of `requests` (None: no value).
REQUEST_VALUES: dict[str, tuple[str, Callable[[dict], float | None]]] = {
    "response_seconds": ("requests[].response_seconds", lambda r: r.get("response_seconds")),
    "server_decode_tokens_per_second": (
        "(requests[].predicted_n - 1) / requests[].predicted_ms x 1000",
        lambda r: (r["predicted_n"] - 1) / r["predicted_ms"] * 1000
        if is_number(r.get("predicted_n")) and is_number(r.get("predicted_ms")) and r["predicted_n"] >= 2 and r["predicted_ms"] > 0 else None),
    "synthetic_first_token_seconds": ("requests[].prompt_ms / 1000",
                                      lambda r: r["prompt_ms"] / 1000 if is_number(r.get("prompt_ms")) else None),
}


def request_values(group: dict, statistic: str) -> list[float] | None:
    """The per-request values that `group[statistic]` summarises, from the group's `requests`
    (None when the record does not carry them)."""
    requests = group.get("requests")
    if not isinstance(requests, list):
        return None
    value_of = REQUEST_VALUES[statistic][1]
    values = [value_of(r) for r in requests if isinstance(r, dict)]
    return [v for v in values if v is not None]


@_check("gsh-group-requests", GSH,
        "Where a group carries its per-request figures (`requests`): one per completed request, their predicted tokens "
        "add up to completed_output_tokens, and the response, decode and first-token statistics follow from them.")
def _group_requests(data):
    for parts, group, _ in _groups(data):
        requests = group.get("requests")
        if not isinstance(requests, list):
            continue
        yield from _equal(parts + ("requests",), len(requests), group["completed_request_count"],
                          "one entry per completed request (completed_request_count)")
        tokens = [r.get("predicted_n") for r in requests if isinstance(r, dict)]
        if all(is_number(t) for t in tokens):
            yield from _equal(parts + ("completed_output_tokens",), group["completed_output_tokens"], sum(tokens),
                              "sum of requests[].predicted_n")
        for name, (formula, _) in REQUEST_VALUES.items():
            if name in group and group[name] is not None:
                yield from _summary_mismatches(parts + (name,), group[name], summarize(request_values(group, name) or []), formula)


@_check("gsh-group-union", GSH,
        "A group's response window union lies within its outer span and equals its resources' interval union.")
def _group_union(data):
    for parts, group, _ in _groups(data):
        union = group["response_window_union_seconds"]
        yield from _at_most(parts + ("response_window_union_seconds",), union,
                            group.get("response_outer_span_seconds"), "response_outer_span_seconds")
        if "resources" in group:
            yield from _derived(parts + ("resources", "response_union_seconds"), group["resources"]["response_union_seconds"],
                                union, "response_window_union_seconds")


@_check("gsh-group-cpu-percent", GSH,
        "CPU percentages equal 100 x process_cpu_seconds / interval_seconds (per logical CPU, and over all of them).")
def _group_cpu_percent(data):
    cpus = data["hardware"]["logical_cpu_count"]
    for parts, group, _ in _groups(data):
        cpu = group.get("cpu_snapshot_intervals")
        if cpu is None or cpu["interval_seconds"] <= 0:
            continue
        one = 100 * cpu["process_cpu_seconds"] / cpu["interval_seconds"]
        where = parts + ("cpu_snapshot_intervals",)
        yield from _derived(where + ("one_logical_cpu_percent",), cpu.get("one_logical_cpu_percent"), one,
                            "100 x process_cpu_seconds / interval_seconds")
        yield from _derived(where + ("host_capacity_percent",), cpu.get("host_capacity_percent"), one / cpus,
                            "100 x process_cpu_seconds / interval_seconds / hardware.logical_cpu_count")


@_check("gsh-case-contexts", GSH, "A completed case has one group per planned context length, in plan order.")
def _case_contexts(data):
    for parts, case in _cases(data):
        if case["status"] == "completed":
            yield from _equal(parts + ("groups",), [g["context_tokens"] for g in case["groups"]], case["settings"]["contexts"],
                              "groups[].context_tokens = settings.contexts")


@_check("gsh-case-completed-union", GSH,
        "All-responses resources cover the union of the groups: seconds, energy and sample counts are their sums.")
def _case_completed_union(data):
    for parts, case in _cases(data):
        total = case.get("completed_response_resources")
        if total is None or not case["groups"]:
            continue
        where = parts + ("completed_response_resources",)
        groups = case["groups"]
        yield from _derived(where + ("response_union_seconds",), total["response_union_seconds"],
                            math.fsum(g["response_window_union_seconds"] for g in groups), "sum of groups[].response_window_union_seconds")
        for count in ("gpu_sample_count", "host_sample_count", "process_sample_count"):
            if all("resources" in g for g in groups):
                yield from _equal(where + (count,), total[count], sum(g["resources"][count] for g in groups),
                                  f"sum of groups[].resources.{count}")
        energies = [g.get("resources", {}).get("gpu_energy", {}) for g in groups]
        if total["gpu_energy"]["available"] and all(e.get("available") for e in energies):
            yield from _derived(where + ("gpu_energy", "joules"), total["gpu_energy"]["joules"],
                                math.fsum(e["joules"] for e in energies), "sum of groups[].resources.gpu_energy.joules")


_ORDER_FIGURES = operator.itemgetter("minimum", "maximum", "median", "mean")


@_check("gsh-statistic-order", GSH, "Every statistic has 0 <= minimum <= median <= maximum and minimum <= mean <= "
        "maximum; a duration or rate of requests (response, first token, decode) has minimum > 0.")
def _statistic_order(data):
    for parts, stats in _statistics(data):
        for key, stat in stats:  # a loop per parent, not a generator step per statistic: ~300 a record
            if stat is None:
                continue
            low, high, median, mean = _ORDER_FIGURES(stat)
            try:  # nearly every statistic has all four figures in order: one comparison chain
                if 0 < low <= median <= high and low <= mean <= high:
                    continue
                if low < 0 or low == 0 and key in GROUP_STATISTICS:
                    # a time or rate of zero or less has no ratio: comparisons and changes divide by it
                    yield Mismatch(parts + (key, "minimum"), "> 0" if key in GROUP_STATISTICS else ">= 0", low,
                                   "a duration or rate" if key in GROUP_STATISTICS else "a measured quantity")
                if low <= median <= high and low <= mean <= high:
                    continue
            except TypeError:  # a null figure
                if low is None or high is None:
                    continue
            if (median is None or low <= median <= high) and (mean is None or low <= mean <= high):
                continue
            for name, value in (("median", median), ("mean", mean)):
                # the tolerance absorbs a mean of identical samples rounding a last bit outside
                if value is not None and not (low <= value <= high or close(value, low) or close(value, high)):
                    yield Mismatch(parts + (key, name), f"between {_show(low)} and {_show(high)}", value, "minimum <= value <= maximum")


@functools.lru_cache(maxsize=256)  # a record names a few dozen metrics; bounded, as the names are the record's
def _count_source(metric: str) -> str:
    """The block's sample count a metric's sample_count must equal, by the metric's name prefix
    (looked up once per name: the two prefix tests were half of this check's time)."""
    return "gpu_sample_count" if metric.startswith("gpu_") else "process_sample_count" if metric.startswith("process_") else "host_sample_count"


@_check("gsh-resources-sample-counts", GSH,
        "Each metric's sample_count equals its block's gpu_, process_ or host_sample_count (by metric name prefix).")
def _resources_sample_counts(data):
    for parts, block in _resource_blocks(data):
        for name, stat in block["metrics"].items():
            if stat is None:
                continue
            source = _count_source(name)
            found, expected = stat["sample_count"], block[source]
            # _equal inline: this runs for every metric of every block (a generator each was a third of the check)
            if found is not None and expected is not None and found != expected:
                yield Mismatch(parts + ("metrics", name, "sample_count"), expected, found, source)


@_check("gsh-resources-counter-intervals", GSH,
        "Counter deltas: observed intervals <= requested intervals, and deltas are null exactly when none was observed.")
def _resources_counter_intervals(data):
    for parts, block in _resource_blocks(data):
        counters = block.get("sampled_counter_deltas")
        if counters is None:
            continue
        where = parts + ("sampled_counter_deltas",)
        yield from _at_most(where + ("observed_intervals",), counters["observed_intervals"], counters["requested_intervals"],
                            "requested_intervals")
        if (counters["deltas"] is None) != (counters["observed_intervals"] == 0):
            expected = "null" if counters["observed_intervals"] == 0 else "an object"
            yield Mismatch(where + ("deltas",), expected, "null" if counters["deltas"] is None else "an object",
                           "null exactly when observed_intervals = 0")


@_check("gsh-telemetry-thermal-states", GSH,
        "Thermal-slowdown state counts (active + not_active + unavailable) add up to the GPU samples.")
def _telemetry_thermal_states(data):
    for parts, case in _cases(data):
        telemetry = case.get("telemetry", {})
        states_by_kind = telemetry.get("thermal_slowdown_states", {})
        for kind in THERMAL_KINDS:  # the schema's kinds and states: another key is no state count
            if kind in states_by_kind:
                states = states_by_kind[kind]
                yield from _equal(parts + ("telemetry", "thermal_slowdown_states", kind), sum(states[s] for s in THERMAL_STATES),
                                  telemetry["gpu_samples"], "telemetry.gpu_samples = sum of state counts")


@_check("gsh-telemetry-phase-samples", GSH,
        "Samples inside the (disjoint) phases add up to at most the case's telemetry samples.")
def _telemetry_phase_samples(data):
    for parts, case in _cases(data):
        if "telemetry" not in case or "resources_by_phase" not in case:
            continue
        phases = case["resources_by_phase"].values()
        for kind in ("gpu", "host"):
            yield from _at_most(parts + ("telemetry", f"{kind}_samples"), sum(p[f"{kind}_sample_count"] for p in phases),
                                case["telemetry"][f"{kind}_samples"],
                                f"sum of resources_by_phase.*.{kind}_sample_count <= telemetry.{kind}_samples")


@_check("gsh-case-placement", GSH,
        "Placed GPU layers are the requested ones (\"all\" = total_layers), capped at the model's total layers.")
def _case_placement(data):
    for parts, case in _cases(data):
        placed = case.get("placement")
        requested = case["settings"].get("placement", {}).get("gpu_layers")
        if placed is None or requested is None:
            continue
        total = placed["total_layers"]
        expected = total if requested == "all" else min(requested, total)
        yield from _equal(parts + ("placement", "gpu_layers"), placed["gpu_layers"], expected,
                          "settings.placement.gpu_layers capped at placement.total_layers")


@_check("gsh-article-references", GSH,
        "Case ids are unique, every case names a listed model, and comparisons name existing cases.")
def _article_references(data):
    ids = [c["id"] for c in data["cases"]]
    models = {m["id"] for m in data["models"]}
    for i, case_id in enumerate(ids):
        if case_id in ids[:i]:
            yield Mismatch(("cases", i, "id"), "a unique case id", case_id, "case ids are unique")
    for parts, case in _cases(data):
        if case["model"] not in models:
            yield Mismatch(parts + ("model",), f"one of {sorted(models)}", case["model"], "models[].id")
    for i, comparison in enumerate(data["comparisons"]):
        for j, case_id in enumerate(comparison["cases"]):
            if case_id not in ids:
                yield Mismatch(("comparisons", i, "cases", j), f"one of {ids}", case_id, "cases[].id")


@_check("gsh-article-status", GSH,
        "Article status is completed when every case completed, failed when none did, partial otherwise.")
def _article_status(data):
    done = [c["status"] == "completed" for c in data["cases"]]
    expected = "completed" if all(done) else "failed" if not any(done) else "partial"
    yield from _equal(("status",), data["status"], expected, "from cases[].status")


# --- torch-graph-replay/1 ---------------------------------------------------------------------


def _measurements(data: dict) -> Iterator[tuple[Parts, dict]]:
    for i, m in enumerate(data["measurements"]):
        yield ("measurements", i), m


@_check("tgr-mean-speedup", TGR, "mean_speedup equals timing.eager.mean_ms / timing.graph.mean_ms.")
def _tgr_mean_speedup(data):
    for parts, m in _measurements(data):
        graph = m["timing"].get("graph")
        if graph is not None and graph["mean_ms"] > 0:
            yield from _derived(parts + ("mean_speedup",), m["mean_speedup"], m["timing"]["eager"]["mean_ms"] / graph["mean_ms"],
                                "timing.eager.mean_ms / timing.graph.mean_ms")


@_check("tgr-timing-samples", TGR,
        "Where a timing carries every repetition (`samples_ms`): repetitions, mean, median and linear-interpolated p95 "
        "follow from them.")
def _tgr_timing_samples(data):
    for parts, m in _measurements(data):
        for path, timing in _timings(m):
            samples = timing.get("samples_ms") if isinstance(timing, dict) else None
            if not isinstance(samples, list) or not samples:
                continue
            yield from _summary_mismatches(parts + ("timing", path), timing, timing_summary(samples),
                                           f"from timing.{path}.samples_ms")


@_check("tgr-capture-increase", TGR, "Capture memory increases equal after-capture minus before-capture bytes.")
def _tgr_capture_increase(data):
    for parts, m in _measurements(data):
        for kind in ("allocated", "reserved"):
            before, after = m.get(f"before_capture_{kind}_bytes"), m.get(f"after_capture_{kind}_bytes")
            if before is not None and after is not None:
                yield from _equal(parts + (f"capture_{kind}_increase_bytes",), m.get(f"capture_{kind}_increase_bytes"), after - before,
                                  f"after_capture_{kind}_bytes - before_capture_{kind}_bytes")


@_check("tgr-mismatch-bounds", TGR, "Decision and bitwise mismatches are at most the number of comparisons.")
def _tgr_mismatch_bounds(data):
    for parts, m in _measurements(data):
        for name in ("decision_mismatches", "bitwise_mismatches"):
            yield from _at_most(parts + (name,), m[name], m["comparisons"], "comparisons")


@_check("tgr-timing-order", TGR, "For each path, 0 < median latency <= 95th-percentile latency.")
def _tgr_timing_order(data):
    for parts, m in _measurements(data):
        for path, timing in _timings(m):
            if timing is not None:
                median = timing["median_ms"]
                if is_number(median) and median <= 0:  # speedups divide by it
                    yield Mismatch(parts + ("timing", path, "median_ms"), "> 0", median, "a duration")
                yield from _at_most(parts + ("timing", path, "median_ms"), median, timing["p95_ms"], "p95_ms")


@_check("tgr-memory-order", TGR, "Peak device memory >= final, and allocated <= reserved.")
def _tgr_memory_order(data):
    for parts, m in _measurements(data):
        for kind in ("allocated", "reserved"):
            yield from _at_most(parts + (f"{kind}_bytes",), m.get(f"{kind}_bytes"), m.get(f"peak_{kind}_bytes"), f"peak_{kind}_bytes")
        for prefix in ("", "peak_"):
            yield from _at_most(parts + (f"{prefix}allocated_bytes",), m.get(f"{prefix}allocated_bytes"), m.get(f"{prefix}reserved_bytes"),
                                f"{prefix}reserved_bytes")


@_check("tgr-exact-flag", TGR, "numeric_and_decision_exact_in_observed_sample = true requires zero mismatches in every measurement.")
def _tgr_exact_flag(data):
    if data.get("numeric_and_decision_exact_in_observed_sample") is not True:
        return
    for parts, m in _measurements(data):
        for name in ("decision_mismatches", "bitwise_mismatches"):
            yield from _equal(parts + (name,), m[name], 0, "numeric_and_decision_exact_in_observed_sample is true")


@_check("tgr-overlimit-above-measured", TGR, "Over-limit probes use more tokens than any measured input.")
def _tgr_overlimit(data):
    longest = max((m["tokens"] for m in data["measurements"]), default=0)
    for i, probe in enumerate(data["overlimit"]):
        if probe["tokens"] <= longest:
            yield Mismatch(("overlimit", i, "tokens"), f"> {longest}", probe["tokens"], "longest measurements[].tokens")


@_check("tgr-adoption", TGR, "adopted_for_full_quality = true requires full_quality_graph_qualified = true.")
def _tgr_adoption(data):
    if data["adopted_for_full_quality"] and not data["full_quality_graph_qualified"]:
        yield Mismatch(("adopted_for_full_quality",), False, True, "full_quality_graph_qualified is false")


# --- llama-bench/1 ----------------------------------------------------------------------------
#
# llama-bench computes its averages itself and prints them with limited precision
# (tools/llama-bench/llama-bench.cpp): samples_ns are integers; avg_ns is their integer mean
# (uint64 sum / count, truncated); stddev_ns is the sample standard deviation in uint64
# arithmetic (sqrt of sum(x²)/(n-1) - mean²·n/(n-1), each division truncated, the sqrt in double,
# truncated again); samples_ts[i] = 1e9·(n_prompt + n_gen) / samples_ns[i], printed by a C++
# stream with 6 significant digits; avg_ts and stddev_ts are the double mean and sample standard
# deviation of the unrounded speeds, printed with 6 decimals (std::to_string). So the integer
# figures are recomputed exactly, and the printed floats within what their printing can change:
# a relative 5e-6 per sample (half a unit of the 6th significant digit), which also bounds
# how far the mean of the printed samples can be from the printed mean, plus 5e-7 absolute for
# the 6 decimals.

LLB = "llama-bench/1"
LLB_SAMPLE_RELATIVE_TOLERANCE = 5e-6
LLB_PRINT_ABSOLUTE_TOLERANCE = 5e-7
_U64 = 2**64


def _tests(data: dict) -> Iterator[tuple[Parts, dict]]:
    for i, row in enumerate(data["tests"]):
        yield ("tests", i), row


def _llb_close(found: float, expected: float, scale: float) -> bool:
    """Within what llama-bench's printing can change: 5e-6 of `scale`, plus 5e-7 (+ float rounding)."""
    return abs(found - expected) <= LLB_SAMPLE_RELATIVE_TOLERANCE * abs(scale) + LLB_PRINT_ABSOLUTE_TOLERANCE + 1e-12 * abs(expected)


def llama_bench_stddev_ns(samples_ns: list[int]) -> int:
    """llama-bench's stddev_ns of `samples_ns`, in its unsigned 64-bit arithmetic (wraps as it does)."""
    n = len(samples_ns)
    if n <= 1:
        return 0
    mean = (sum(samples_ns) % _U64) // n
    squares = sum(x * x for x in samples_ns) % _U64
    variance = (squares // (n - 1) - (mean * mean * n % _U64) // (n - 1)) % _U64
    return int(math.sqrt(float(variance)))


def llama_bench_tool_version(rows: list[dict]) -> str:
    """llama-bench's build as its rows name it, "build N, commit C" (distinct ones joined by "; ")."""
    return "; ".join(dict.fromkeys(f"build {r['build_number']}, commit {r['build_commit']}" for r in rows))


@_check("llama-bench-sample-counts", LLB, "Every test has as many samples_ts as samples_ns (one per repetition).")
def _llb_sample_counts(data):
    for parts, row in _tests(data):
        yield from _equal(parts + ("samples_ts",), len(row["samples_ts"]), len(row["samples_ns"]),
                          "one per samples_ns (count)")


@_check("llama-bench-avg-ns", LLB, "avg_ns equals llama-bench's integer mean of samples_ns (sum // count), exactly.")
def _llb_avg_ns(data):
    for parts, row in _tests(data):
        samples = row["samples_ns"]
        yield from _equal(parts + ("avg_ns",), row["avg_ns"], sum(samples) // len(samples), "sum(samples_ns) // count")


@_check("llama-bench-stddev-ns", LLB,
        "stddev_ns equals llama-bench's sample standard deviation of samples_ns in unsigned 64-bit arithmetic, exactly.")
def _llb_stddev_ns(data):
    for parts, row in _tests(data):
        yield from _equal(parts + ("stddev_ns",), row["stddev_ns"], llama_bench_stddev_ns(row["samples_ns"]),
                          "llama-bench's uint64 stdev of samples_ns")


@_check("llama-bench-samples-ts", LLB,
        "Each samples_ts is 1e9 x (n_prompt + n_gen) / samples_ns within 5e-6 relative (printed with 6 significant digits).")
def _llb_samples_ts(data):
    for parts, row in _tests(data):
        tokens = row["n_prompt"] + row["n_gen"]
        for j, (ts, ns) in enumerate(zip(row["samples_ts"], row["samples_ns"])):
            expected = 1e9 * tokens / ns
            if not _llb_close(ts, expected, expected):
                yield Mismatch(parts + ("samples_ts", j), expected, ts, "1e9 x (n_prompt + n_gen) / samples_ns")


@_check("llama-bench-avg-ts", LLB,
        "avg_ts equals the mean of samples_ts within 5e-6 of the largest sample plus 5e-7 (llama-bench's printing).")
def _llb_avg_ts(data):
    for parts, row in _tests(data):
        samples = row["samples_ts"]
        expected = math.fsum(samples) / len(samples)
        if not _llb_close(row["avg_ts"], expected, max(samples)):
            yield Mismatch(parts + ("avg_ts",), expected, row["avg_ts"], "mean of samples_ts")


@_check("llama-bench-stddev-ts", LLB,
        "stddev_ts equals the sample standard deviation of samples_ts within 1e-5 of the largest sample plus 5e-7.")
def _llb_stddev_ts(data):
    for parts, row in _tests(data):
        samples = row["samples_ts"]
        expected = statistics.stdev(samples) if len(samples) > 1 else 0.0
        # rounding each sample by up to 5e-6 moves the deviation by up to about twice that
        if not _llb_close(row["stddev_ts"], expected, 2 * max(samples)):
            yield Mismatch(parts + ("stddev_ts",), expected, row["stddev_ts"], "sample standard deviation of samples_ts")


@_check("llama-bench-import-block", LLB, "import.test_count is the number of tests, and import.tool_version names their builds.")
def _llb_import_block(data):
    block, rows = data["import"], data["tests"]
    yield from _equal(("import", "test_count"), block["test_count"], len(rows), "number of tests")
    yield from _equal(("import", "tool_version"), block["tool_version"], llama_bench_tool_version(rows),
                      "\"build N, commit C\" of tests[]")


def _timings(measurement: dict) -> Iterator[tuple[str, Any]]:
    """(path, timing) of a measurement's scoring paths the schema names (eager, graph)."""
    timing = measurement["timing"]
    return ((path, timing[path]) for path in TIMING_PATHS if path in timing)


def compiled_from(twin: ModuleType, source: bytes) -> bool:
    """Whether `twin`, a build of this module (setup.py), was compiled from exactly `source`."""
    return getattr(twin, "COMPILED_FROM_SHA256", None) == sha256_hex(source)


def _compiled_twin() -> ModuleType | None:
    """This module as Cython compiled it (setup.py), where it was compiled from exactly the source
    file beside it: an edit not built yet is run as written, never an older build."""
    if __name__ != "benchledger.records.checks":  # the twin runs this source too
        return None
    try:
        from benchledger.records import _checks_compiled
    except ImportError:  # built without Cython or without a C compiler
        return None
    return _checks_compiled if compiled_from(_checks_compiled, Path(__file__).read_bytes()) else None


python_check_record = check_record
# the rules run compiled where they can: a record's checks take about a quarter less time
# (bench/HISTORY.md, 12-07), and the twin holds the same rules, as the same source
_twin = _compiled_twin()
check_record = python_check_record if _twin is None else _twin.check_record
