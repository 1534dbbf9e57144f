"""Limitation rules on the seeds (each rule where it should fire and nowhere else), rules firing
on changed data, and the scope semantics other page kinds rely on."""

from __future__ import annotations

import copy
import json

from hypothesis import given
from hypothesis import strategies as st

from site_gen.limitations import Limitation, RULES, by_scope, find_limitations, limitations_for, scoped_along, withheld_percentile

from tests.site_gen.site_support import ROOT

OFFLOAD = json.loads((ROOT / "records" / "llm-cpu-offload" / "2026-09-27.json").read_bytes())
GRAPH = json.loads((ROOT / "records" / "torch-graph-replay" / "2026-10-28.json").read_bytes())


def by_rule(data) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for lim in find_limitations(data):
        out.setdefault(lim.rule_id, []).append(lim.scope)
    return out


def test_rule_ids_are_unique_and_documented():
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids))
    assert all(r.condition and r.wording for r in RULES)


def test_offload_seed_rules():
    found = by_rule(OFFLOAD)
    # p95 withheld per request summary: 3 cases x 2 contexts x 3 summaries, 5 requests < 200.
    assert len(found["percentile-p95-minimum-samples"]) == 18
    assert "percentile-p90-minimum-samples" not in found  # the record declares only a p95 minimum
    assert found["gpu-mostly-idle"] == ["/cases/1", "/cases/2"]
    # the figure it quotes is the one the case's phase table shows (11.2%, not "11%"), and it says
    # which responses it pools, beside per-context figures of 5.83% and 15.7%
    idle = [lim.text for lim in find_limitations(OFFLOAD) if lim.rule_id == "gpu-mostly-idle"]
    assert idle[0].startswith("The GPU was mostly idle while this case answered: 11.2% mean utilisation over its "
                              "whole responses phase (every context length together)"), idle
    assert found["single-stream"] == found["fixed-output-length"] == found["synthetic-prompts"] == ["/cases/0", "/cases/1", "/cases/2"]
    assert found["energy-unavailable"][0] == "/cases/0/resources_by_phase/baseline/gpu_energy"
    assert all("host_gap" in s for s in found["sampling-gap"])  # GPU gaps of 1.006 s are timer jitter
    assert "thermal-slowdown-observed" not in found
    assert len(found["record-limitation"]) == 8
    assert found["claimed-upstream-hashes"] == [""]


def test_graph_seed_rules():
    found = by_rule(GRAPH)
    assert len(found["percentile-p95-minimum-samples"]) == 16  # 8 lengths x eager/graph, 30 < 130
    assert len(found["record-flag"]) == 4
    texts = [lim.text for lim in find_limitations(GRAPH) if lim.rule_id == "record-flag"]
    assert "Padded shape buckets were not tested: inputs of other lengths are not covered. (padded_buckets_tested: false)" in texts
    lim = withheld_percentile(find_limitations(GRAPH), "/measurements/0/timing/eager", "p95")
    assert lim is not None and "30 samples, below 130" in lim.text and "MLPerf" in lim.text


def test_rules_fire_on_changed_data():
    data = copy.deepcopy(OFFLOAD)
    data["cases"][0]["telemetry"]["thermal_slowdown_observed_samples"] = 3
    data["cases"][0]["telemetry"]["sampling_interval_s"] = 0.5
    data["cases"][0]["settings"]["p95_minimum_requests"] = 5
    data["cases"][1]["telemetry"]["gpu"] = {"available": True, "unavailable_metrics": {
        "board_watts": "nvmlDeviceGetPowerUsage: Not Supported", "utilization_percent": "MIG enabled"}}
    found = by_rule(data)
    assert found["thermal-slowdown-observed"] == ["/cases/0/telemetry"]
    assert found["gpu-metric-unavailable"] == ["/cases/1", "/cases/1"]
    texts = [lim.text for lim in limitations_for(data, "/cases/1/resources_by_phase/responses/metrics")
             if lim.rule_id == "gpu-metric-unavailable"]
    assert texts == ["The GPU never gave board_watts here (nvmlDeviceGetPowerUsage: Not Supported): its figures "
                     "are missing, not zero.", "The GPU never gave utilization_percent here (MIG enabled): its "
                     "figures are missing, not zero."]
    # With a declared 0.5 s interval, the 1.006 s GPU gap now counts.
    assert "/cases/0/telemetry/maximum_gpu_gap_seconds" in found["sampling-gap"]
    # Five requests meet a minimum of five: case 0's percentiles are no longer withheld.
    assert not any(s.startswith("/cases/0/") for s in found["percentile-p95-minimum-samples"])


def test_a_median_of_few_scattered_samples_is_marked_and_tight_ones_are_not():
    """Three requests decoding at 6.3, 1,180 and 6,738 tokens/s (a real run on an
    oversubscribed CPU) gave a median with no word of warning; the seeds' five within 2.6 % get none."""
    assert "few-scattered-samples" not in by_rule(OFFLOAD) and "few-scattered-samples" not in by_rule(GRAPH)
    data = copy.deepcopy(OFFLOAD)
    data["cases"][0]["groups"][0]["server_decode_tokens_per_second"].update(
        sample_count=3, minimum=6.3, median=1179.7, mean=2641.5, maximum=6738.5)
    timing = data["cases"][1]["groups"][1]["response_seconds"]
    timing.update(minimum=timing["median"] / 1.49)  # under 1.5x apart: not marked
    graph = copy.deepcopy(GRAPH)
    graph["measurements"][0]["timing"]["eager"]["samples_ms"] = [30.0, 19.0, 19.2, 19.1, 19.0]  # a slow first repetition
    assert by_rule(data)["few-scattered-samples"] == ["/cases/0/groups/0/server_decode_tokens_per_second"]
    assert by_rule(graph)["few-scattered-samples"] == ["/measurements/0/timing/eager"]
    [lim] = [lim for lim in limitations_for(data, "/cases/0/groups/0/server_decode_tokens_per_second/median")
             if lim.rule_id == "few-scattered-samples"]
    assert lim.text == ("Only 3 samples, the highest 1,069.6x the lowest: a median or mean of so few scattered values "
                        "is no stable estimate.")


def test_a_per_request_p95_is_withheld_by_the_default_where_the_record_declares_no_minimum():
    """The rule says 130 applies where a record declares no p95 minimum; per-request summaries
    were skipped instead, and their p95 read "n/a" without a reason. A telemetry summary (boundary
    PSS) has no percentile to withhold, declared minimum or not."""
    data = copy.deepcopy(OFFLOAD)
    for case in data["cases"]:
        del case["settings"]["p95_minimum_requests"]
    data["cases"][0]["groups"][0]["resources"]["boundary_pss_bytes"] = {
        "minimum": 1, "maximum": 2, "mean": 1.5, "median": 1.5, "sample_count": 2}
    found = [lim for lim in find_limitations(data) if lim.rule_id.startswith("percentile-")]
    assert len(found) == 18 and {lim.rule_id for lim in found} == {"percentile-p95-minimum-samples"}
    lim = withheld_percentile(found, "/cases/0/groups/0/server_decode_tokens_per_second", "p95")
    assert lim.text == "p95 withheld: 5 samples, below 130 required by the generator's default (MLPerf LoadGen early-stopping minimum)."
    data["cases"][0]["settings"]["p95_minimum_requests"] = 200  # declared: the boundary summary stays out
    assert not any("boundary_pss" in lim.scope for lim in find_limitations(data))


def test_limitations_for_includes_ancestors_only():
    found = find_limitations(OFFLOAD)
    here = limitations_for(OFFLOAD, "/cases/1/groups/0/server_decode_tokens_per_second", found)
    scopes = {lim.scope for lim in here}
    assert {"", "/cases/1", "/cases/1/groups/0/server_decode_tokens_per_second"} <= scopes
    assert not any(s.startswith("/cases/0") or s.startswith("/cases/2") for s in scopes)
    scoped = by_scope(found)
    assert scoped["/cases/1"] and all(lim.scope == "/cases/1" for lim in scoped["/cases/1"])
    # each limitation once, under its scope, in the order found
    assert scoped == {scope: [lim for lim in found if lim.scope == scope] for scope in dict.fromkeys(l.scope for l in found)}


# Pointers over a few tokens, so that scopes and pointers share prefixes: "/a" is no ancestor of "/ab"
_POINTERS = st.lists(st.sampled_from(["a", "ab", "0", "1", "10", "~1", ""]), max_size=4).map(
    lambda tokens: "".join("/" + t for t in tokens))


@given(st.lists(_POINTERS, max_size=12), _POINTERS)
def test_scoped_along_finds_what_limitations_for_finds(scopes, pointer):
    """The ancestors' lookup a comparison's audit uses (`scoped_along`) finds exactly the
    limitations `limitations_for` tests one by one, for any scopes and pointer."""
    found = [Limitation(f"rule-{i}", scope, f"words {i}", "generator") for i, scope in enumerate(scopes)]
    assert sorted(lim.rule_id for lim in scoped_along(by_scope(found), pointer)) == \
        sorted(lim.rule_id for lim in limitations_for(None, pointer, found))


def test_anchors_are_stable_and_distinct():
    found = find_limitations(OFFLOAD)
    assert [lim.anchor for lim in found] == [lim.anchor for lim in find_limitations(copy.deepcopy(OFFLOAD))]
    assert len({lim.anchor for lim in found}) == len(set(found))


def test_a_records_limitations_are_kept_between_builds_and_read_back_unchanged(tmp_path):
    from benchledger.records.store import Store
    from site_gen.context import BuildOptions, RecordView
    from site_gen.render_cache import RenderCache
    from tests.store_copies import shipped_copy

    record = next(r for r in Store(shipped_copy(tmp_path)).load_verified() if r.entry.path.startswith("llm-cpu-offload/"))
    first = RenderCache(tmp_path / "render")
    assert RecordView(record, BuildOptions(), render_cache=first).limitations == find_limitations(OFFLOAD)
    assert first.hits == 0
    again = RenderCache(tmp_path / "render")  # the next build: read from disk, not computed
    kept = RecordView(record, BuildOptions(), render_cache=again).limitations
    assert again.hits == 1 and kept == find_limitations(OFFLOAD)
    assert [lim.anchor for lim in kept] == [lim.anchor for lim in find_limitations(OFFLOAD)]
