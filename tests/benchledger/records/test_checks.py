"""Consistency checks: the seeds hold; each rule catches a broken derived value and names the
record, the place, the expected and the found value."""

import math
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchledger.records.checks import (CHECKS, GROUP_STATISTICS, RELATIVE_TOLERANCE, STATISTICS_PROOF_RULES, check_record, checks_for,
                                        statistics_hold)
from benchledger.records.numbers import is_number

from tests.history import add_requests, graph_with_samples
from tests.store_copies import GSH, TGR, leaves, seed


def test_seeds_hold_together():
    assert check_record(seed(GSH), GSH, "a.json") == []
    assert check_record(seed(TGR), TGR, "b.json") == []


def test_checks_have_stable_unique_ids_and_descriptions():
    ids = [c.id for c in CHECKS]
    assert len(ids) == len(set(ids))
    assert all(c.description.endswith(".") and len(c.description) > 20 for c in CHECKS)
    assert {c.schema for c in CHECKS} == {GSH, TGR, "llama-bench/1"}
    assert [c.id for c in checks_for(TGR)] == [c.id for c in CHECKS if c.id.startswith("tgr-")]


def _case0(d):
    return d["cases"][0]


def _group0(d):
    return d["cases"][0]["groups"][0]


def _set(getter, key, value):
    def mutate(d):
        getter(d)[key] = value
    return mutate


# (check id, mutation, expected problem line); every check appears at least once (asserted below)
BROKEN = [
    ("gsh-energy-watt-hours", _set(lambda d: _group0(d)["resources"]["gpu_energy"], "watt_hours", 5.0),
     "a.json: $.cases[0].groups[0].resources.gpu_energy.watt_hours: expected 4.80081267908 (joules / 3600), found 5.0 [check gsh-energy-watt-hours]"),
    ("gsh-energy-mean-watts", _set(lambda d: _group0(d)["resources"]["gpu_energy"], "time_weighted_mean_watts", 310.0),
     "a.json: $.cases[0].groups[0].resources.gpu_energy.time_weighted_mean_watts: expected 299.863150035 (joules / response_union_seconds), found 310.0 [check gsh-energy-mean-watts]"),
    ("gsh-energy-union", _set(lambda d: _case0(d)["resources_by_phase"]["load"]["gpu_energy"], "response_union_seconds", 7.3),
     "a.json: $.cases[0].resources_by_phase.load.gpu_energy.response_union_seconds: expected 7.21096188901 (the enclosing block's response_union_seconds), found 7.3 [check gsh-energy-union]"),
    ("gsh-group-aggregate-rate", _set(_group0, "aggregate_output_tokens_per_second", 25.0),
     "a.json: $.cases[0].groups[0].aggregate_output_tokens_per_second: expected 22.2083251376 (completed_output_tokens / response_window_union_seconds), found 25.0 [check gsh-group-aggregate-rate]"),
    ("gsh-group-output-tokens", _set(_group0, "completed_output_tokens", 1279),
     "a.json: $.cases[0].groups[0].completed_output_tokens: expected 1280 (completed_request_count x settings.output_tokens), found 1279 [check gsh-group-output-tokens]"),
    ("gsh-group-request-count", _set(_group0, "failed_request_count", 1),
     "a.json: $.cases[0].groups[0].completed_request_count: expected 5 (completed + failed requests = measured_rounds x settings.concurrency), found 6 [check gsh-group-request-count]"),
    ("gsh-group-statistic-counts", _set(lambda d: _group0(d)["response_seconds"], "sample_count", 4),
     "a.json: $.cases[0].groups[0].response_seconds.sample_count: expected 5 (completed_request_count), found 4 [check gsh-group-statistic-counts]"),
    ("gsh-group-union", _set(_group0, "response_outer_span_seconds", 50.0),
     "a.json: $.cases[0].groups[0].response_window_union_seconds: expected <= 50.0 (response_outer_span_seconds), found 57.6360437841 [check gsh-group-union]"),
    ("gsh-group-cpu-percent", _set(lambda d: _group0(d)["cpu_snapshot_intervals"], "process_cpu_seconds", 50.0),
     "a.json: $.cases[0].groups[0].cpu_snapshot_intervals.one_logical_cpu_percent: expected 86.728582809 (100 x process_cpu_seconds / interval_seconds), found 99.8766359629 [check gsh-group-cpu-percent]"),
    ("gsh-case-contexts", _set(lambda d: _case0(d)["settings"], "contexts", [2048, 4096]),
     "a.json: $.cases[0].groups: expected [2048, 4096] (groups[].context_tokens = settings.contexts), found [2048, 8192] [check gsh-case-contexts]"),
    ("gsh-case-completed-union", _set(lambda d: _case0(d)["completed_response_resources"], "host_sample_count", 141),
     "a.json: $.cases[0].completed_response_resources.host_sample_count: expected 142 (sum of groups[].resources.host_sample_count), found 141 [check gsh-case-completed-union]"),
    ("gsh-statistic-order", _set(lambda d: _group0(d)["response_seconds"], "median", 12.0),
     "a.json: $.cases[0].groups[0].response_seconds.median: expected between 11.374376884 and 11.647003977 (minimum <= value <= maximum), found 12.0 [check gsh-statistic-order]"),
    ("gsh-resources-sample-counts", _set(lambda d: _group0(d)["resources"]["metrics"]["process_rss_bytes"], "sample_count", 56),
     "a.json: $.cases[0].groups[0].resources.metrics.process_rss_bytes.sample_count: expected 57 (process_sample_count), found 56 [check gsh-resources-sample-counts]"),
    ("gsh-resources-counter-intervals", _set(lambda d: _case0(d)["resources_by_phase"]["baseline"]["sampled_counter_deltas"], "observed_intervals", 2),
     "a.json: $.cases[0].resources_by_phase.baseline.sampled_counter_deltas.observed_intervals: expected <= 1 (requested_intervals), found 2 [check gsh-resources-counter-intervals]"),
    ("gsh-telemetry-thermal-states", _set(lambda d: _case0(d)["telemetry"]["thermal_slowdown_states"]["software"], "active", 1),
     "a.json: $.cases[0].telemetry.thermal_slowdown_states.software: expected 186 (telemetry.gpu_samples = sum of state counts), found 187 [check gsh-telemetry-thermal-states]"),
    ("gsh-telemetry-phase-samples", _set(lambda d: _case0(d)["telemetry"], "host_samples", 100),
     "a.json: $.cases[0].telemetry.host_samples: expected <= 100 (sum of resources_by_phase.*.host_sample_count <= telemetry.host_samples), found 179 [check gsh-telemetry-phase-samples]"),
    ("gsh-case-placement", _set(lambda d: _case0(d)["placement"], "gpu_layers", 80),
     "a.json: $.cases[0].placement.gpu_layers: expected 81 (settings.placement.gpu_layers capped at placement.total_layers), found 80 [check gsh-case-placement]"),
    ("gsh-article-references", _set(lambda d: d["comparisons"][0]["cases"], 2, "offload-72b-10"),
     "a.json: $.comparisons[0].cases[2]: expected one of ['offload-72b-full', 'offload-72b-40', 'offload-72b-20'] (cases[].id), found offload-72b-10 [check gsh-article-references]"),
    ("gsh-article-status", _set(lambda d: d, "status", "partial"),
     "a.json: $.status: expected completed (from cases[].status), found partial [check gsh-article-status]"),
    ("gsh-group-requests", lambda d: add_requests(d)["cases"][0]["groups"][0]["requests"][1].update(predicted_ms=10937.0),
     "a.json: $.cases[0].groups[0].server_decode_tokens_per_second.mean: expected 25.4004475889 ((requests[].predicted_n - 1) / requests[].predicted_ms x 1000), found 25.8584597494 [check gsh-group-requests]"),
    ("tgr-timing-samples", lambda d: d.update(graph_with_samples()) or d["measurements"][0]["timing"]["eager"]["samples_ms"].__setitem__(0, 50.0),
     None),
    ("tgr-mean-speedup", _set(lambda d: d["measurements"][3], "mean_speedup", 2.2),
     "b.json: $.measurements[3].mean_speedup: expected 2.10144677274 (timing.eager.mean_ms / timing.graph.mean_ms), found 2.2 [check tgr-mean-speedup]"),
    ("tgr-capture-increase", _set(lambda d: d["measurements"][0], "capture_reserved_increase_bytes", 50331647),
     "b.json: $.measurements[0].capture_reserved_increase_bytes: expected 50331648 (after_capture_reserved_bytes - before_capture_reserved_bytes), found 50331647 [check tgr-capture-increase]"),
    ("tgr-mismatch-bounds", _set(lambda d: d["measurements"][0], "bitwise_mismatches", 31),
     "b.json: $.measurements[0].bitwise_mismatches: expected <= 30 (comparisons), found 31 [check tgr-mismatch-bounds]"),
    ("tgr-timing-order", _set(lambda d: d["measurements"][0]["timing"]["graph"], "p95_ms", 4.0),
     "b.json: $.measurements[0].timing.graph.median_ms: expected <= 4.0 (p95_ms), found 4.72278706729 [check tgr-timing-order]"),
    ("tgr-memory-order", _set(lambda d: d["measurements"][0], "peak_reserved_bytes", 824180735),
     "b.json: $.measurements[0].reserved_bytes: expected <= 824180735 (peak_reserved_bytes), found 824180736 [check tgr-memory-order]"),
    ("tgr-exact-flag", _set(lambda d: d["measurements"][0], "decision_mismatches", 1),
     "b.json: $.measurements[0].decision_mismatches: expected 0 (numeric_and_decision_exact_in_observed_sample is true), found 1 [check tgr-exact-flag]"),
    ("tgr-overlimit-above-measured", _set(lambda d: d["overlimit"][0], "tokens", 32768),
     "b.json: $.overlimit[0].tokens: expected > 32768 (longest measurements[].tokens), found 32768 [check tgr-overlimit-above-measured]"),
    ("tgr-adoption", _set(lambda d: d, "adopted_for_full_quality", True),
     "b.json: $.adopted_for_full_quality: expected False (full_quality_graph_qualified is false), found True [check tgr-adoption]"),
]


def test_every_check_has_a_breaking_case():
    # llama-bench/1's checks break real llama-bench output in test_checks_llama_bench.py
    assert sorted(c.id for c in CHECKS if c.schema in (GSH, TGR)) == sorted(check_id for check_id, _, _ in BROKEN)


@pytest.mark.parametrize("check_id, mutate, line", BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_value_is_named(check_id, mutate, line):
    schema_id = GSH if check_id.startswith("gsh-") else TGR
    record = seed(schema_id)
    mutate(record)
    problems = check_record(record, schema_id, "a.json" if schema_id == GSH else "b.json")
    mine = [p for p in problems if p.message.endswith(f"[check {check_id}]")]
    assert mine, f"{check_id} did not fire"
    if line is not None:
        assert str(mine[0]) == line


def test_rounding_within_tolerance_passes_and_beyond_fails():
    record = seed(GSH)
    energy = _group0(record)["resources"]["gpu_energy"]
    energy["watt_hours"] = energy["joules"] / 3600 * (1 + RELATIVE_TOLERANCE / 10)
    assert check_record(record, GSH, "a.json") == []
    energy["watt_hours"] = energy["joules"] / 3600 * (1 + RELATIVE_TOLERANCE * 10)
    assert [p.path for p in check_record(record, GSH, "a.json")] == ["$.cases[0].groups[0].resources.gpu_energy.watt_hours"]


def test_unavailable_values_are_skipped_not_zeroed():
    """A CPU-only record: energy unavailable and GPU metrics null must not fail any check."""
    record = seed(GSH)
    for case in record["cases"]:
        blocks = [case["completed_response_resources"], *case["resources_by_phase"].values(), *(g["resources"] for g in case["groups"])]
        for block in blocks:
            block["gpu_energy"] = {"available": False, "joules": None, "reason": "no_gpu"}
            for name in list(block["metrics"]):
                if name.startswith("gpu_"):
                    block["metrics"][name] = None
    assert check_record(record, GSH, "a.json") == []


@pytest.mark.parametrize("figures, found", [
    ({"median": None}, []),
    ({"minimum": None, "mean": 99.0}, []),  # no range to be outside of
    ({"median": None, "mean": 12.0}, ["mean"]),
    ({"mean": None, "median": 11.0}, ["median"]),
])
def test_statistic_order_skips_null_figures_and_still_names_one_out_of_range(figures, found):
    record = seed(GSH)
    stat = _group0(record)["response_seconds"]
    stat.update(figures)
    problems = [p for p in check_record(record, GSH, "a.json") if "gsh-statistic-order" in p.message]
    assert [p.path.rpartition(".")[2] for p in problems] == found


def test_raw_values_beside_the_summaries_hold_and_validate():
    """Records that carry their raw values (per request, per repetition) satisfy every check
    and their schema; the summaries are those the values give."""
    from benchledger.records.schema import validate

    llm = add_requests(seed(GSH))
    assert check_record(llm, GSH, "a.json") == []
    assert validate(llm, GSH, "a.json") == []
    graph = graph_with_samples()
    assert check_record(graph, TGR, "b.json") == []
    assert validate(graph, TGR, "b.json") == []


def test_requests_that_do_not_match_their_count_are_named():
    llm = add_requests(seed(GSH))
    llm["cases"][0]["groups"][0]["requests"].pop()
    lines = [str(p) for p in check_record(llm, GSH, "a.json")]
    assert "a.json: $.cases[0].groups[0].requests: expected 5 (one entry per completed request (completed_request_count)), found 4 [check gsh-group-requests]" in lines
    assert "a.json: $.cases[0].groups[0].completed_output_tokens: expected 1024 (sum of requests[].predicted_n), found 1280 [check gsh-group-requests]" in lines


def test_timing_samples_give_every_summary():
    graph = graph_with_samples()
    timing = graph["measurements"][2]["timing"]["graph"]
    timing["samples_ms"] = timing["samples_ms"][:-1]
    paths = {p.path for p in check_record(graph, TGR, "b.json") if "tgr-timing-samples" in p.message}
    assert "$.measurements[2].timing.graph.repetitions" in paths


class _Measured(float):
    """A float subclass (as numpy's float64 is) that an importer's in-memory record may hold."""


_values = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True),
                    st.text(max_size=3), st.floats(-1e6, 1e6).map(_Measured))


@given(_values, st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True)))
def test_a_derived_value_is_a_mismatch_exactly_when_it_is_a_number_beyond_the_tolerance(found, expected):
    """The rule every derived-number check applies, against its definition: a non-null number
    (not a boolean) that math.isclose, at the documented tolerances, says differs."""
    from benchledger.records.checks import ABSOLUTE_TOLERANCE, _derived

    number = isinstance(found, (int, float)) and not isinstance(found, bool)
    differs = number and not math.isclose(found, expected, rel_tol=RELATIVE_TOLERANCE, abs_tol=ABSOLUTE_TOLERANCE)
    assert bool(list(_derived(("x",), found, expected, "f"))) == differs


@pytest.mark.parametrize("key, figures, expected", [
    # an audit sealed this: its comparison page then showed a ratio of -0.603 x, "lower (p = 0.0079)"
    ("synthetic_first_token_seconds", {"minimum": -2.0, "median": -1.0, "mean": -1.0, "maximum": 0.0}, "> 0 (a duration or rate), found -2.0"),
    ("response_seconds", {"minimum": 0.0}, "> 0 (a duration or rate), found 0.0"),
])
def test_a_duration_or_rate_of_zero_or_less_is_refused(key, figures, expected):
    record = seed(GSH)
    _group0(record)[key].update(figures)
    problems = [str(p) for p in check_record(record, GSH, "a.json") if "gsh-statistic-order" in p.message]
    assert f"a.json: $.cases[0].groups[0].{key}.minimum: expected {expected} [check gsh-statistic-order]" in problems, problems


def test_a_negative_resource_figure_is_refused_and_zero_utilisation_is_not():
    record = seed(GSH)
    metrics = _group0(record)["resources"]["metrics"]
    metrics["gpu_utilization_percent"].update({"minimum": 0.0})
    assert check_record(record, GSH, "a.json") == []
    metrics["gpu_board_watts"].update({"minimum": -1.0})
    assert [str(p) for p in check_record(record, GSH, "a.json")] == [
        "a.json: $.cases[0].groups[0].resources.metrics.gpu_board_watts.minimum: expected >= 0 (a measured quantity), found -1.0 "
        "[check gsh-statistic-order]"]


def test_a_graph_replay_latency_of_zero_is_refused():
    record = seed(TGR)
    timing = next(t for t in record["measurements"][0]["timing"].values() if t is not None)
    timing["median_ms"] = 0.0
    assert any(str(p).endswith("median_ms: expected > 0 (a duration), found 0.0 [check tgr-timing-order]")
               for p in check_record(record, TGR, "b.json"))


def _valid(data, schema_id):
    from benchledger.records import schema

    return schema.validate(data, schema_id, "x.json") == []


def test_keys_the_schema_leaves_open_are_not_read_as_counts_or_timings():
    """A schema-valid record with one more key in thermal_slowdown_states or a measurement's
    timing made a check raise (`sum(states.values())` over an int; `timing["median_ms"]` of
    another key): seal ended in a traceback, and verify and build of a store holding such bytes
    too. The rules read the kinds, states and paths the schema names."""
    gsh = seed(GSH)
    gsh["cases"][0]["telemetry"]["thermal_slowdown_states"]["zz"] = 1
    tgr = seed(TGR)
    tgr["measurements"][0]["timing"]["zz"] = 5
    for data, schema_id in ((gsh, GSH), (tgr, TGR)):
        assert _valid(data, schema_id)
        assert check_record(data, schema_id, "x.json") == []


def test_a_rule_that_cannot_read_what_it_is_given_names_itself_instead_of_raising():
    """Whatever else an open object may hold that a rule does not expect, the record is refused
    in one line naming the rule, not with a traceback that stops verify and build."""
    from benchledger.records.checks import Check

    def reads_a_missing_key(data):
        yield from ()
        data["absent"]

    [problem] = Check("gsh-example", GSH, "an example rule", reads_a_missing_key).problems({}, "x.json")
    assert str(problem) == ("x.json: cannot be checked: KeyError 'absent' where the rule expects one of the fields the "
                            "schema describes; remove what the schema does not name [check gsh-example]")


def test_the_keys_rules_read_in_open_objects_are_the_ones_the_schemas_describe():
    """The rules read only the keys the schemas name where objects stay open to others
    (checks.THERMAL_KINDS, THERMAL_STATES, TIMING_PATHS): a key added to a schema and not there
    would go unchecked, one there and not in the schema would never be read."""
    from benchledger.records import checks
    from benchledger.records.schema import load_schema

    telemetry = load_schema(GSH)["$defs"]["case"]["properties"]["telemetry"]["properties"]
    states = telemetry["thermal_slowdown_states"]["properties"]
    assert tuple(states) == checks.THERMAL_KINDS
    assert {kind: tuple(states[kind]["properties"]) for kind in states} == dict.fromkeys(checks.THERMAL_KINDS, checks.THERMAL_STATES)
    assert tuple(load_schema(TGR)["$defs"]["measurement"]["properties"]["timing"]["properties"]) == checks.TIMING_PATHS


# The rules compiled by Cython (setup.py) are the same source as the rules above run as Python:
# the tests above run whichever this install uses, the ones below hold the two to each other.

def test_the_development_install_compiled_the_checks():
    """`make` builds the compiled twin into the checkout: without it a verify runs the rules as
    Python, about a quarter slower, and the comparisons below would have nothing to compare."""
    from benchledger.records import checks

    assert checks._twin is not None, \
        "no compiled checks built from benchledger/records/checks.py as it is now: run make (or pip install -e .) again"
    assert check_record is checks._twin.check_record is not checks.python_check_record


def test_a_twin_compiled_from_other_source_is_not_used():
    """An edit of checks.py not built yet runs as written: the twin names the SHA-256 of the
    source it was compiled from, and counts only while that is the file's."""
    from benchledger.records import checks

    source = Path(checks.__file__).read_bytes()
    assert checks.compiled_from(checks._twin, source)
    assert not checks.compiled_from(checks._twin, source + b"\n# an edit not built yet\n")
    assert not checks.compiled_from(checks, source)  # a module that names no source


@pytest.mark.parametrize("check_id, mutate, line", BROKEN, ids=[b[0] for b in BROKEN])
def test_the_compiled_rules_name_what_the_python_rules_name(check_id, mutate, line):
    from benchledger.records import checks

    schema_id = GSH if check_id.startswith("gsh-") else TGR
    record = seed(schema_id)
    mutate(record)
    problems = checks.python_check_record(record, schema_id, "a.json")
    assert problems and checks._twin.check_record(record, schema_id, "a.json") == problems


_SEED_LEAVES = {schema_id: [parts for parts, _ in leaves(seed(schema_id))] for schema_id in (GSH, TGR)}
_replacements = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=True, allow_infinity=True),
                          st.text(max_size=8), st.lists(st.integers(0, 9), max_size=3), st.dictionaries(st.text(max_size=4), st.integers(), max_size=2))


@settings(max_examples=400, deadline=None)
@given(st.sampled_from([GSH, TGR]), st.lists(st.tuples(st.integers(0, 10**6), _replacements), min_size=1, max_size=3))
def test_the_compiled_rules_find_what_the_python_rules_find(schema_id, changes):
    """Any values put where a seed's were (numbers out of order, nulls, text, wrong shapes): the
    compiled rules give the same problems, word for word, as the rules run as Python."""
    from benchledger.records import checks

    record = seed(schema_id)
    for index, value in changes:
        *parents, last = _SEED_LEAVES[schema_id][index % len(_SEED_LEAVES[schema_id])]
        holder = record
        for part in parents:
            holder = holder[part]
        holder[last] = value
    assert checks._twin.check_record(record, schema_id, "x.json") == checks.python_check_record(record, schema_id, "x.json")


# The statistics proof compiled from C (_statsproof.c) lets check_record leave out five rules
# where it proves they find nothing: the tests below hold it to those rules, run in full.

def _rules(schema_id: str) -> list:
    """The rules of `schema_id` as `check_record` runs them: compiled where it runs compiled (the
    test above holds the two implementations to each other, this one the proof to its own)."""
    return sys.modules[check_record.__module__].checks_for(schema_id)


def _every_rule(record, schema_id: str) -> list:
    """The problems of every rule of `schema_id`, none left out by the proof."""
    return [p for c in _rules(schema_id) for p in c.problems(record, "x.json")]


def _proven_rules(record) -> list:
    return [p for c in _rules(GSH) if c.id in STATISTICS_PROOF_RULES for p in c.problems(record, "x.json")]


def test_the_development_install_compiled_the_statistics_proof():
    """`make` builds the proof into the checkout: without it every record runs all five rules, and
    the tests below would test nothing."""
    from benchledger.records import _statsproof, checks

    assert checks.statistics_hold is _statsproof.statistics_hold
    source = Path(checks.__file__).with_name("_statsproof.c")
    assert Path(_statsproof.__file__).stat().st_mtime >= source.stat().st_mtime, \
        "benchledger/records/_statsproof.c changed since it was compiled: run make (or pip install -e .) again"
    assert set(STATISTICS_PROOF_RULES) <= {c.id for c in checks_for(GSH)}


def test_the_statistics_proof_holds_for_the_seed():
    """What nearly every record is (bench/verify.py counts how many of its records are proven):
    the seed is proven, so a verify leaves the five rules out for it."""
    record = seed(GSH)
    assert statistics_hold(record) is True and _proven_rules(record) == []


@pytest.mark.parametrize("change", [
    lambda r: _group0(r)["response_seconds"].update({"median": None}),  # a null figure
    lambda r: _group0(r)["response_seconds"].update({"minimum": True}),  # a bool is no figure
    lambda r: _group0(r)["response_seconds"].update({"minimum": 2**53 + 1}),  # not exact as a double
    lambda r: _group0(r)["response_seconds"].update({"mean": math.nan}),
    lambda r: _group0(r)["response_seconds"].pop("maximum"),
    lambda r: _group0(r)["resources"]["metrics"]["gpu_board_watts"].update({"sample_count": 1.0}),
    lambda r: _group0(r)["resources"]["metrics"]["gpu_board_watts"].pop("sample_count"),
    lambda r: _group0(r)["resources"].pop("host_sample_count"),
    lambda r: _group0(r).update({"resources": []}),
    lambda r: r["cases"][0].update({"groups": ()}),
    lambda r: _group0(r).update({"response_seconds": None}),  # gsh-group-statistic-counts cannot read it
    lambda r: _group0(r).pop("completed_request_count"),
    lambda r: _group0(r)["resources"]["sampled_counter_deltas"].pop("deltas"),
    lambda r: _group0(r)["resources"]["sampled_counter_deltas"].update({"observed_intervals": 2.0}),
    lambda r: r["cases"][0]["telemetry"].update({"host_samples": None}),
    lambda r: next(iter(r["cases"][0]["resources_by_phase"].values())).pop("gpu_sample_count"),
    lambda r: r.update({"cases": None}),
])
def test_what_the_statistics_proof_does_not_prove_is_left_to_the_rules(change):
    record = seed(GSH)
    change(record)
    assert statistics_hold(record) is False
    assert check_record(record, GSH, "x.json") == _every_rule(record, GSH)


@pytest.mark.parametrize("name", GROUP_STATISTICS)
def test_a_metric_named_as_a_group_statistic_is_a_duration_or_rate_to_the_proof_too(name):
    record = seed(GSH)
    block = _group0(record)["resources"]
    block["metrics"][name] = dict(block["metrics"]["gpu_board_watts"], minimum=0.0, sample_count=block["host_sample_count"])
    assert statistics_hold(record) is False
    assert [p.path for p in check_record(record, GSH, "x.json")] == [f"$.cases[0].groups[0].resources.metrics.{name}.minimum"]


@pytest.mark.parametrize("name, count", [("gpu_温度", "host_sample_count"), ("process_ü", "gpu_sample_count"), ("ｇpu_x", "gpu_sample_count")])
def test_the_statistics_proof_reads_a_metric_count_by_its_name_as_the_rule_does(name, count):
    """Names beyond ASCII: the prefix decides which block count a metric's sample_count must equal."""
    record = seed(GSH)
    block = _group0(record)["resources"]
    block["gpu_sample_count"], block["process_sample_count"], block["host_sample_count"] = 7, 8, 9
    for metric in block["metrics"].values():
        if metric is not None:
            metric["sample_count"] = None  # only the metric below is compared
    block["metrics"][name] = {"minimum": 1.0, "maximum": 3.0, "median": 2.0, "mean": 2.0, "sample_count": block[count]}
    assert check_record(record, GSH, "x.json") == _every_rule(record, GSH) != []


_PROVEN_KEYS = {"minimum", "maximum", "median", "mean", "sample_count", "gpu_sample_count", "process_sample_count",
                "host_sample_count", "completed_request_count", "observed_intervals", "requested_intervals", "gpu_samples",
                "host_samples"}
# the leaves the proven rules read (with every "deltas" and "sampled_counter_deltas", though null in the seed)
_STATISTIC_LEAVES = [parts for parts in _SEED_LEAVES[GSH] if parts[-1] in _PROVEN_KEYS or "deltas" in parts
                     or "sampled_counter_deltas" in parts]
_figures = st.one_of(st.none(), st.booleans(), st.sampled_from([0, 0.0, -0.0, 1, 2**53, 2**53 + 1, -(2**53) - 1, 2**64, math.inf, -math.inf, math.nan]),
                     st.integers(-10, 10**6), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=3))


@settings(max_examples=600, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**6), _figures, st.sampled_from([None, 1 + 1e-12, 1 - 1e-12])), min_size=1, max_size=4))
def test_where_the_statistics_proof_holds_the_five_rules_find_nothing(changes):
    """Figures and counts the proven rules read replaced (out of order, equal, zero, null, wide,
    not numbers; or the number there moved by one part in 10^12, inside the rules' tolerance): the
    problems are those of every rule run in full, and a proven record is one the five rules pass."""
    record = seed(GSH)
    for index, value, factor in changes:
        *parents, last = _STATISTIC_LEAVES[index % len(_STATISTIC_LEAVES)]
        holder = record
        for part in parents:
            holder = holder[part]
        holder[last] = holder[last] * factor if factor is not None and is_number(holder[last]) else value
    if statistics_hold(record):
        assert _proven_rules(record) == []
    assert check_record(record, GSH, "x.json") == _every_rule(record, GSH)


def _proven_rules_source() -> str:
    """The Python source the C walk restates: the five rules, the walks and comparisons they use."""
    import inspect

    from benchledger.records import checks

    functions = [c.run for c in CHECKS if c.id in STATISTICS_PROOF_RULES]
    functions += [checks._statistics, checks._count_source.__wrapped__, checks._walk_cases, checks._walk_groups,
                  checks._walk_resource_blocks, checks._at_most, checks._equal]
    return "".join(inspect.getsource(f) for f in functions) + repr((GROUP_STATISTICS, checks._ORDER_FIGURES))


def test_an_edit_of_a_proven_rule_is_reviewed_against_the_c_walk():
    """The C walk restates five rules: edited alone, a rule could refuse what the walk still
    vouches for, and the property above finds such a record only by chance. So an edit of their
    source stops here until _statsproof.c is read against it (and changed, or not); then the
    SHA-256 below is the new source's."""
    import hashlib

    found = hashlib.sha256(_proven_rules_source().encode()).hexdigest()
    assert found == "ddb7d6e3b99f28e564f67248d73242e63b786bf3cec1adbb82c5b48db1c1390e", \
        "a rule the C statistics proof restates changed: review benchledger/records/_statsproof.c against it"
