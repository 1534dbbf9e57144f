"""Limitations: what a number cannot tell the reader, shown next to that number.

Two sources: what the record says about itself (its `limitations` list, its `meaning` strings,
its flags) and the generator's own rules. Each rule has an id, a condition and a wording, and
is listed on the methodology page (`RULES`). A rule looks at the record's data (its schema's
vocabulary, never a seed's ids) and yields `Limitation`s scoped to a JSON pointer: a page shows
each limitation beside the part of the record it scopes (the case, the group, the number).

Public API (stable; other page kinds use it):
- `find_limitations(data) -> list[Limitation]`: every limitation of a record, in record order.
- `limitations_for(data, pointer) -> list[Limitation]`: those that apply to the value at
  `pointer`: scoped at it or at one of its ancestors (a record-wide one applies everywhere).
- `withheld_percentile(limitations, pointer, name) -> Limitation | None`: whether percentile
  `name` ("p95") of the summary at `pointer` is withheld, and why.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import repeat
from typing import Any, Callable, Iterator

from benchledger.records.checks import GROUP_STATISTICS
from benchledger.records.digest import sha256_hex
from benchledger.records.numbers import is_number
from benchledger.records.pointer import to_pointer

# MLPerf LoadGen's early-stopping minimums: fewer samples than this and the percentile estimate
# is not trustworthy enough to print.
DEFAULT_PERCENTILE_MINIMUMS = {"p90": 64, "p95": 130, "p99": 662}
# Sampling interval assumed when a record does not declare one (the collector's default, 1 Hz
# telemetry); a gap counts when it exceeds the interval by half of it (timer jitter is not a gap).
DEFAULT_SAMPLING_INTERVAL_S = 1.0
GAP_TOLERANCE = 1.5
# Fewer samples than this whose highest is this many times their lowest: the median or mean of
# a few values that scatter this much is no stable estimate (a tiny model's three requests
# decoded at 6.3, 1,180 and 6,738 tokens/s; the seeds' five spread 2.6 % at most).
FEW_SAMPLES, SCATTERED_RATIO = 10, 1.5
# Mean GPU utilisation during responses below which the GPU mostly waited (CPU-bound placement).
IDLE_GPU_UTILIZATION_PERCENT = 50.0

# Flags whose value limits what the record shows: key -> (value that limits, wording).
FLAG_WORDINGS: dict[str, tuple[Any, str]] = {
    "exact_shape_only": (True, "Graph replay was measured at exact input shapes only; other shapes fall back or need new captures."),
    "padded_buckets_tested": (False, "Padded shape buckets were not tested: inputs of other lengths are not covered."),
    "full_quality_graph_qualified": (False, "The graph path is not qualified for full-quality use."),
    "adopted_for_full_quality": (False, "The graph path was not adopted for full-quality use."),
    "graph_capture_and_replay_executed": (False, "No graph was captured or replayed."),
    "complete": (False, "The record says its run is not complete."),
    "historical_results_pooled": (True, "Historical results are pooled into this record."),
    "CPU_fallback": (True, "Part of the work fell back to the CPU."),
    "thermal_slowdown_fully_available": (False, "Thermal slowdown state was not available for every sample."),
}


@dataclass(frozen=True)
class Limitation:
    """One limitation, scoped to the part of a record it limits."""

    rule_id: str  # a RULES id, or "record-limitation" / "record-meaning" / "record-flag"
    scope: str  # JSON pointer of what it limits ("" = the whole record)
    text: str  # plain text (may contain record strings: escape when rendering)
    source: str  # "record" (the record says so) or "generator" (a rule of this generator)
    percentile: str | None = None  # for withheld percentiles: "p95"

    def place(self, record_path: str) -> str:
        """Where it applies, as a comparison's list of caveats names it: the record's path and
        its scope ("(whole record)" for the root)."""
        return f"{record_path} {self.scope or '(whole record)'}"

    @property
    def anchor(self) -> str:
        """A stable HTML id for this limitation's note on a page."""
        key = f"{self.rule_id}\0{self.scope}\0{self.percentile}\0{self.text}"
        return "lim-" + sha256_hex(key.encode())[:10]


@dataclass(frozen=True)
class Rule:
    """A rule of the generator: `find(data, objects)` yields (scope pointer parts, wording
    fields); `objects` is every (pointer parts, object) of the record in document order, walked
    once for all rules (a value that is not an object is reached through its object's items)."""

    id: str
    condition: str  # when it applies, for the methodology page
    wording: str  # str.format template over the fields `find` yields
    find: Callable[[Any, list], Iterator[tuple[list, dict]]]  # (data, every (parts, object)) -> matches
    percentile: str | None = None


def _is_summary(node: Any) -> bool:
    return isinstance(node, dict) and is_number(node.get("sample_count")) and "median" in node


def _nearest(data: Any, parts: list, key: str) -> tuple[list, Any] | None:
    """The closest `settings.<key>` (or `<key>`) on the path from `parts` up to the root."""
    for depth in range(len(parts), -1, -1):
        node = data
        for p in parts[:depth]:
            node = node[p]
        if isinstance(node, dict):
            if isinstance(node.get("settings"), dict) and key in node["settings"]:
                return parts[:depth] + ["settings", key], node["settings"][key]
            if key in node:
                return parts[:depth] + [key], node[key]
    return None


# The percentile a page shows beside each per-request summary (its p95 column): the one whose
# default minimum applies to those summaries when the record declares none.
SUMMARY_PERCENTILE = "p95"


def _percentile_rule(name: str) -> Rule:
    default = DEFAULT_PERCENTILE_MINIMUMS[name]
    shown_for_summaries = name == SUMMARY_PERCENTILE
    timing, declaring = f"{name}_ms", f"{name}_minimum_requests"

    def find(data: Any, objects: list) -> Iterator[tuple[list, dict]]:
        for parts, node in objects:
            if not isinstance(node, dict):
                continue
            # the declared minimum is looked up (a walk up from the root) only for a node that
            # could need it: for every node of a record it was most of finding its limitations
            if timing in node and is_number(node.get("repetitions")):
                count = node["repetitions"]
                declared = _nearest(data, parts, declaring)
            elif parts and parts[-1] in GROUP_STATISTICS and _is_summary(node):
                # A per-request summary (a telemetry summary has no percentile to withhold): its
                # p95 against the declared minimum or the default, another percentile only
                # against a declared one (no page shows it)
                declared = _nearest(data, parts, declaring)
                if not declared and not shown_for_summaries:
                    continue
                count = node["sample_count"]
            else:
                continue
            if declared and is_number(declared[1]):
                minimum, basis = declared[1], f"the record's own minimum ({to_pointer(declared[0])})"
            else:
                minimum, basis = default, "the generator's default (MLPerf LoadGen early-stopping minimum)"
            if count < minimum:
                yield parts, {"count": count, "minimum": minimum, "basis": basis, "name": name}

    return Rule(
        id=f"percentile-{name}-minimum-samples",
        condition=(
            f"a {name} is shown for a per-request summary or a timing with `{name}_ms`, and its "
            f"sample count is below the record's `{name}_minimum_requests` or, when the record "
            f"declares none, below {default}"
            + ("" if shown_for_summaries else f" (for a timing; a per-request summary, whose page shows its {SUMMARY_PERCENTILE}, only against a declared minimum)")
        ),
        wording="{name} withheld: {count} samples, below {minimum} required by {basis}.",
        find=find,
        percentile=name,
    )


def _scattered(data: Any, objects: list) -> Iterator[tuple[list, dict]]:
    for parts, node in objects:
        if not isinstance(node, dict):
            continue
        if parts and parts[-1] in GROUP_STATISTICS and _is_summary(node):
            count, low, high = node["sample_count"], node.get("minimum"), node.get("maximum")
        elif isinstance(node.get("samples_ms"), list) and node["samples_ms"] and all(is_number(v) for v in node["samples_ms"]):
            count, low, high = len(node["samples_ms"]), min(node["samples_ms"]), max(node["samples_ms"])
        else:
            continue
        if is_number(low) and is_number(high) and 0 < low and count < FEW_SAMPLES and high >= SCATTERED_RATIO * low:
            yield parts, {"count": count, "ratio": f"{high / low:,.1f}"}


def _energy_unavailable(data: Any, objects: list) -> Iterator[tuple[list, dict]]:
    for parts, node in objects:
        if parts and "energy" in str(parts[-1]) and isinstance(node, dict) and node.get("available") is False:
            yield parts, {"reason": node.get("reason") or "no reason given"}


def _thermal(data: Any, objects: list) -> Iterator[tuple[list, dict]]:
    for parts, node in objects:
        if isinstance(node, dict) and is_number(node.get("thermal_slowdown_observed_samples")):
            if node["thermal_slowdown_observed_samples"] > 0:
                yield parts, {"samples": node["thermal_slowdown_observed_samples"]}


def _sampling_gaps(data: Any, objects: list) -> Iterator[tuple[list, dict]]:
    for parts, node in objects:
        if not isinstance(node, dict):
            continue
        gaps = [(k, v) for k, v in node.items() if k.startswith("maximum_") and k.endswith("_gap_seconds") and is_number(v)]
        if not gaps:
            continue
        declared = _nearest(data, parts, "sampling_interval_s")
        interval = declared[1] if declared and is_number(declared[1]) else DEFAULT_SAMPLING_INTERVAL_S
        for key, value in gaps:
            if value > interval * GAP_TOLERANCE:
                what = key[len("maximum_"):-len("_gap_seconds")]
                yield parts + [key], {"what": what, "gap": f"{value:.2f}", "interval": f"{interval:g}"}


def _gpu_idle(data: Any, objects: list) -> Iterator[tuple[list, dict]]:
    for parts, node in objects:
        if isinstance(node, dict) and isinstance(node.get("resources_by_phase"), dict):
            responses = node["resources_by_phase"].get("responses") or {}
            util = ((responses.get("metrics") or {}).get("gpu_utilization_percent") or {}).get("mean")
            if is_number(util) and util < IDLE_GPU_UTILIZATION_PERCENT:
                yield parts, {"util": f"{util:.3g}"}  # three digits, as the phase table shows it


def _gpu_metrics_unavailable(data: Any, objects: list) -> Iterator[tuple[list, dict]]:
    for parts, node in objects:
        if parts[-2:] == ["gpu", "unavailable_metrics"] and isinstance(node, dict):
            owner = parts[:-3] if parts[-3:-2] == ["telemetry"] else parts[:-2]  # the case
            for metric, reason in sorted(node.items()):
                yield owner, {"metric": metric, "reason": reason}


def _setting_rule(key: str, value: Any) -> Callable[[Any, list], Iterator[tuple[list, dict]]]:
    def find(data: Any, objects: list) -> Iterator[tuple[list, dict]]:
        for parts, node in objects:
            if parts and parts[-1] == "settings" and isinstance(node, dict) and node.get(key) == value:
                yield parts[:-1], {}

    return find


def _synthetic_prompts(data: Any, objects: list) -> Iterator[tuple[list, dict]]:
    for parts, node in objects:
        if parts and parts[-1] == "settings" and isinstance(node, dict) and "synthetic_prompt_sha256" in node:
            yield parts[:-1], {}


def _claimed_hashes(data: Any, objects: list) -> Iterator[tuple[list, dict]]:
    count = 0
    for _, parent in objects:  # every keyed value is an item of an object
        for key, node in parent.items():
            if key.endswith("sha256"):
                count += len(node) if isinstance(node, list) else 1 if isinstance(node, str) else 0
            elif key == "original_artifact_hashes" and isinstance(node, dict):
                count += len(node)
    if count:
        yield [], {"count": count}


RULES: tuple[Rule, ...] = (
    _percentile_rule("p90"),
    _percentile_rule("p95"),
    _percentile_rule("p99"),
    Rule(
        "few-scattered-samples",
        f"a per-request summary or a timing rests on fewer than {FEW_SAMPLES} samples whose highest is "
        f"{SCATTERED_RATIO:g}x their lowest or more",
        "Only {count} samples, the highest {ratio}x the lowest: a median or mean of so few scattered values is no stable estimate.",
        _scattered,
    ),
    Rule(
        "energy-unavailable",
        "an energy figure has `available: false`",
        "Energy unavailable here: {reason}.",
        _energy_unavailable,
    ),
    Rule(
        "gpu-metric-unavailable",
        "the GPU telemetry lists a metric under `unavailable_metrics` (NVML never gave it)",
        "The GPU never gave {metric} here ({reason}): its figures are missing, not zero.",
        _gpu_metrics_unavailable,
    ),
    Rule(
        "thermal-slowdown-observed",
        "telemetry counted samples with thermal slowdown active",
        "Thermal slowdown was active in {samples} samples: the GPU ran below its normal clocks at times.",
        _thermal,
    ),
    Rule(
        "sampling-gap",
        f"a telemetry gap exceeds {GAP_TOLERANCE}x the sampling interval (the record's "
        f"`sampling_interval_s`, else {DEFAULT_SAMPLING_INTERVAL_S:g} s)",
        "The longest {what} sampling gap was {gap} s against a {interval} s interval: short events may be missing.",
        _sampling_gaps,
    ),
    Rule(
        "gpu-mostly-idle",
        f"mean GPU utilisation during responses is below {IDLE_GPU_UTILIZATION_PERCENT:g}%",
        "The GPU was mostly idle while this case answered: {util}% mean utilisation over its whole "
        "responses phase (every context length together): this placement is CPU-bound.",
        _gpu_idle,
    ),
    Rule(
        "synthetic-prompts",
        "the settings name a `synthetic_prompt_sha256`",
        "Prompts are synthetic (repeated and truncated text), not real user requests.",
        _synthetic_prompts,
    ),
    Rule(
        "fixed-output-length",
        "the settings say `ignore_eos: true`",
        "Output length is fixed (end-of-sequence ignored): real answers stop at varying lengths.",
        _setting_rule("ignore_eos", True),
    ),
    Rule(
        "single-stream",
        "the settings say `concurrency: 1`",
        "Single stream (concurrency 1): throughput under concurrent load is not measured.",
        _setting_rule("concurrency", 1),
    ),
    Rule(
        "claimed-upstream-hashes",
        "the record names hashes of files it does not ship (`*sha256` fields, artifact hashes)",
        "{count} hashes in this record name upstream files (models, binaries, plans) that are not "
        "published here: they are shown as claimed by the record and cannot be verified on this site.",
        _claimed_hashes,
    ),
)


def _record_own(parent: list, key: str, node: Any) -> Iterator[Limitation]:
    """What the record says of itself in one keyed value (`key` one of `_OWN_KEYS`), scoped at
    the object holding it."""
    if key == "limitations" and isinstance(node, list):
        for item in node:
            yield Limitation("record-limitation", to_pointer(parent), str(item), "record")
    elif key == "meaning" and isinstance(node, str):
        yield Limitation("record-meaning", to_pointer(parent), node, "record")
    elif key in FLAG_WORDINGS and node is FLAG_WORDINGS[key][0]:
        text = f"{FLAG_WORDINGS[key][1]} ({key}: {str(node).lower()})"
        yield Limitation("record-flag", to_pointer(parent), text, "record")
    elif key == "status" and isinstance(node, str) and node != "completed":
        yield Limitation("record-flag", to_pointer(parent), f"status: {node}. Not a completed run.", "record")


_OWN_KEYS = frozenset({"limitations", "meaning", "status", *FLAG_WORDINGS})


def _walk(data: Any) -> tuple[list[tuple[list, dict]], list[Limitation]]:
    """One walk of the record in document order: every (parts, object), and the record's own
    limitations in the order their values come. Only an object or an array gets a parts list
    (a value is pushed with its parent's): a list per value was most of the finding."""
    objects: list[tuple[list, dict]] = []
    own: list[Limitation] = []
    stack: list[tuple[list | None, Any, Any]] = [(None, None, data)]  # (parent's parts, key, value)
    while stack:
        parent, key, node = stack.pop()
        if parent is None:
            parts: list = []
        else:
            if key.__class__ is str and key in _OWN_KEYS:
                own.extend(_record_own(parent, key, node))
            if not isinstance(node, (dict, list)):
                continue
            parts = parent + [key]
        if isinstance(node, dict):
            objects.append((parts, node))
            stack.extend(zip(repeat(parts), reversed(node.keys()), reversed(node.values())))
        elif isinstance(node, list):
            stack.extend(zip(repeat(parts), range(len(node) - 1, -1, -1), reversed(node)))
    return objects, own


def find_limitations(data: Any) -> list[Limitation]:
    """Every limitation of a record: its own (list, meanings, flags) and the generator's rules."""
    objects, found = _walk(data)
    for rule in RULES:
        for parts, fields in rule.find(data, objects):
            found.append(Limitation(rule.id, to_pointer(parts), rule.wording.format(**fields), "generator", rule.percentile))
    return found


def _is_ancestor_or_self(scope: str, pointer: str) -> bool:
    # on the spelled pointers: '/' only ever separates tokens (RFC 6901 writes a '/' inside one
    # as ~1), so a token prefix is a string prefix ending at a '/'; no parsing per number
    return pointer == scope or pointer.startswith(scope + "/")


def limitations_for(data: Any, pointer: str = "", found: list[Limitation] | None = None) -> list[Limitation]:
    """The limitations that apply to the value at `pointer`: scoped at it or at an ancestor.
    Pass `found` (from `find_limitations`) to avoid recomputing them for every number."""
    found = find_limitations(data) if found is None else found
    return [lim for lim in found if _is_ancestor_or_self(lim.scope, pointer)]


def beside_value(data: Any, pointer: str, found: list[Limitation], is_input: bool = False) -> list[Limitation]:
    """The limitations a marker beside a value quoted out of its table lists (a write-up's
    citation, a headline): those scoped at it or at an ancestor below the record root (record-
    wide ones belong in the record's own list), leaving out percentile rules unless this value
    is that percentile. A run's input (a context length, the GPU layers) takes only those scoped
    at itself: "the GPU was mostly idle" is about what the case measured, not "2,048 tokens"."""
    withheld = withheld_at(found, pointer)
    return [lim for lim in limitations_for(data, pointer, found)
            if lim.scope != "" and not (is_input and lim.scope != pointer) and not (lim.percentile and lim != withheld)]


def withheld_at(found: list[Limitation], pointer: str) -> Limitation | None:
    """The limitation withholding the value at `pointer` when it is a percentile (`.../p95`,
    `.../p95_ms`), else None."""
    parent, _, last = pointer.rpartition("/")
    name = last.split("_", 1)[0]
    if not last or name not in ("p90", "p95", "p99"):
        return None
    return withheld_percentile(found, parent, name)


def by_scope(found: list[Limitation]) -> dict[str, list[Limitation]]:
    """The limitations scoped exactly at each pointer (what a section shows beside itself), each
    list in order; all at once: an article asks for those at each of its few hundred numbers."""
    out: dict[str, list[Limitation]] = {}
    for lim in found:
        out.setdefault(lim.scope, []).append(lim)
    return out


def scoped_along(scoped: dict[str, list[Limitation]], pointer: str) -> list[Limitation]:
    """The limitations that apply to the value at `pointer` (as `limitations_for`), from
    `by_scope`'s map: looked up at the root, each ancestor and the pointer itself, not tested
    one by one (a comparison page shows thousands of numbers of records with ~100 each)."""
    found = list(scoped.get("", ()))
    at = pointer.find("/", 1)
    while at != -1:
        found += scoped.get(pointer[:at], ())
        at = pointer.find("/", at + 1)
    return found + list(scoped.get(pointer, ())) if pointer else found


def withheld_percentile(found: list[Limitation], pointer: str, name: str) -> Limitation | None:
    """The limitation withholding percentile `name` of the summary at `pointer`, if any."""
    for lim in found:
        if lim.percentile == name and lim.scope == pointer:
            return lim
    return None
