"""Case tables and one-axis comparisons on real variant records (made from the seeds, checked
against the schema and the consistency checks before use)."""

from __future__ import annotations

import pytest

from benchledger.cases import evidence
from benchledger.cases.base import CaseKind, Field, Metric, Role, Better, natural_key
from benchledger.cases.comparison import differences, find, match_points
from benchledger.cases.registry import KINDS, kind_for
from tests.llama_bench_support import LLB, record as llama_bench_record
from benchledger.records.checks import check_record
from benchledger.records.schema import validate
from tests.store_copies import GSH, TGR, seed
from tests.variants import H200, graph_variant, llm_variant


def cases(schema, *records):
    kind = KINDS[schema]
    out = []
    for i, data in enumerate(records):
        assert validate(data, schema, f"r{i}") == [] and check_record(data, schema, f"r{i}") == []
        out += kind.cases(data, f"{i:064x}", f"r{i}.json")
    return kind, out


def test_every_registered_kind_names_a_shipped_schema_and_reads_its_seed():
    assert set(KINDS) == {GSH, TGR, LLB} and kind_for("nope/1") is None
    for schema, kind in KINDS.items():
        found = kind.cases(llama_bench_record() if schema == LLB else seed(schema), "0" * 64, "seed.json")
        assert found and all(c.points for c in found)
        for case in found:
            for name, value in case.values.items():
                assert value.pointer is not None or value.value is None
            for point in case.points:
                for name in kind.headline:
                    m = point.measures[name]
                    assert m.value is not None, (schema, name, point.pointer)


def test_llm_seed_cases_points_and_measures_carry_their_pointers():
    kind = KINDS[GSH]
    [full, l40, l20] = kind.cases(seed(GSH), "a" * 64, "llm.json")
    assert [c.label for c in (full, l40, l20)] == ["offload-72b-full", "offload-72b-40", "offload-72b-20"]
    assert dict(full.axes)["gpu_layers"] == "81" and dict(l20.axes)["gpu_layers"] == "20"
    assert full.values["gpu"].pointer == "/hardware/gpu"
    assert full.values["gpu_layers"].pointer == "/cases/0/placement/gpu_layers"
    assert [p.key for p in full.points] == [(("context_tokens", "2048"),), (("context_tokens", "8192"),)]
    decode = full.points[0].measures["decode_tokens_per_s"]
    assert decode.pointer == "/cases/0/groups/0/server_decode_tokens_per_second/median"
    assert decode.count == 5 and decode.minimum <= decode.value <= decode.maximum
    energy = full.points[0].measures["gpu_energy_j_per_token"]
    group = seed(GSH)["cases"][0]["groups"][0]
    assert energy.pointer is None and energy.value == group["resources"]["gpu_energy"]["joules"] / group["completed_output_tokens"]
    assert dict(energy.inputs) == {"joules": "/cases/0/groups/0/resources/gpu_energy/joules",
                                   "completed_output_tokens": "/cases/0/groups/0/completed_output_tokens"}


def test_energy_unavailable_gives_no_number_and_says_where():
    data = seed(GSH)
    group = data["cases"][0]["groups"][0]
    group["resources"]["gpu_energy"] = {"available": False, "joules": None, "reason": "unbracketed_boundary"}
    m = KINDS[GSH].cases(data, "a" * 64)[0].points[0].measures["gpu_energy_j_per_token"]
    assert m.value is None and m.available_pointer == "/cases/0/groups/0/resources/gpu_energy/available"


def test_graph_replay_on_h200_same_profile_is_a_device_comparison():
    kind, found = cases(TGR, seed(TGR), graph_variant(device=H200, eager_factor=0.6, graph_factor=0.7))
    result = find(kind, found)
    assert [(c.axis, c.values) for c in result.comparisons] == [("device", ["NVIDIA GeForce RTX 4090", H200])]
    assert result.confounded == []
    comp = result.comparisons[0]
    assert comp.baseline == "NVIDIA GeForce RTX 4090"  # the first in natural order
    a, b = comp.cases
    match = match_points(a, b)
    assert len(match.matched) == 8 and not match.only_a and not match.only_b


def test_graph_replay_on_h200_in_bf16_is_confounded_naming_both_differences():
    kind, found = cases(TGR, seed(TGR), graph_variant(device=H200, profile="bf16"))
    result = find(kind, found)
    assert result.comparisons == []
    [conf] = result.confounded
    assert [str(d) for d in conf.differences] == ["device: NVIDIA GeForce RTX 4090 vs NVIDIA H200", "profile: fp16 vs bf16"]
    assert [p for _, p in conf.a] == ["r0.json"] and [p for _, p in conf.b] == ["r1.json"]


def test_llm_on_another_gpu_compares_each_placement_along_gpu():
    kind, found = cases(GSH, seed(GSH), llm_variant(gpu=H200, decode_factor=1.5, first_token_factor=0.5))
    result = find(kind, found)
    gpu = [c for c in result.comparisons if c.axis == "gpu"]
    # one comparison per placement held fixed (81, 40, 20 layers), each with both records
    assert sorted(dict(c.fixed)["gpu_layers"] for c in gpu) == ["20", "40", "81"]
    assert all(len(c.records) == 2 for c in gpu)
    # gpu_layers varies only inside each record: a comparison needs cases of two records
    assert {c.axis for c in result.comparisons} == {"gpu"}
    assert result.confounded == []


def test_llm_with_a_later_release_compares_along_the_release():
    kind, found = cases(GSH, seed(GSH), llm_variant(release="b11200", decode_factor=1.1))
    result = find(kind, found)
    assert {c.axis for c in result.comparisons} == {"runtime_release"}
    assert result.comparisons[0].values == ["b11146", "b11200"]


def test_llm_on_another_gpu_and_release_is_confounded():
    kind, found = cases(GSH, seed(GSH), llm_variant(gpu=H200, release="b11200"))
    result = find(kind, found)
    assert result.comparisons == []
    [conf] = result.confounded
    assert {d.field for d in conf.differences} == {"gpu", "runtime_release"}


def test_context_fields_never_block_a_comparison_and_identity_fields_always_do():
    other_kernel = llm_variant(gpu=H200)
    other_kernel["environment"]["kernel"] = "6.1.0"
    kind, found = cases(GSH, seed(GSH), other_kernel)
    assert {c.axis for c in find(kind, found).comparisons} == {"gpu"}
    other_model = llm_variant(gpu=H200)
    other_model["models"][0]["quantization"] = "Q8_0"
    kind, found = cases(GSH, seed(GSH), other_model)
    result = find(kind, found)
    assert result.comparisons == [] and result.confounded == []


def test_differences_name_every_differing_axis():
    kind, found = cases(GSH, seed(GSH))
    full, l40, _ = found
    assert [str(d) for d in differences(full, l40)] == ["gpu_layers: 81 vs 40"]


def test_natural_order_of_releases_and_versions():
    assert sorted(["b9", "b11146", "b100"], key=natural_key) == ["b9", "b100", "b11146"]
    assert sorted(["550.2", "535.10", "535.9"], key=natural_key) == ["535.9", "535.10", "550.2"]


# -- the rule for calling a difference ---------------------------------------------------------
def _measure(median, low, high, n, name="decode_tokens_per_s"):
    from benchledger.cases.base import Measure
    return Measure(KINDS[GSH].metric(name), median, "/x", n, low, high)


def test_disjoint_ranges_of_five_each_are_called_with_the_exact_rank_test_p():
    v = evidence.verdict(_measure(10, 9, 11, 5), _measure(15, 14, 16, 5))
    assert v.status == evidence.CALLED and v.direction == "higher"
    assert v.p == pytest.approx(2 / 252) and "0.0079" in v.text


def test_a_clear_difference_under_one_percent_is_small_not_called():
    """An audit: 0.998 x between two GPUs was "lower" because the ranges were disjoint. Clear, it
    is now "small", with its size; BH still demotes it like a called one."""
    v = evidence.verdict(_measure(100.0, 99.9, 100.1, 5), _measure(100.3, 100.2, 100.4, 5))
    assert (v.status, v.direction) == (evidence.SMALL, "higher") and v.change_percent == pytest.approx(0.3)
    assert v.short == "small: higher by 0.3 % (p = 0.0079)"
    assert v.text.startswith("B is higher by 0.3 %, under the 1 % this site calls a difference: all 5 values of B lie above")
    assert evidence.verdict(_measure(100.0, 99.9, 100.1, 5), _measure(101.5, 101, 102, 5)).status == evidence.CALLED
    overlapping = [evidence.verdict(_measure(10, 9, 12, 5), _measure(11, 10, 13, 5))] * 6
    after = evidence.control_false_discoveries([v, *overlapping])
    assert after[0].status == evidence.NOT_SHOWN and after[0].adjusted_p == pytest.approx(7 * 2 / 252)


def test_overlapping_or_touching_ranges_are_not_called():
    assert evidence.verdict(_measure(10, 9, 12, 5), _measure(12, 11.5, 13, 5)).status == evidence.OVERLAP
    assert evidence.verdict(_measure(10, 9, 12, 5), _measure(13, 12, 14, 5)).status == evidence.OVERLAP


def test_disjoint_but_too_few_values_make_no_claim():
    v = evidence.verdict(_measure(10, 9, 11, 3), _measure(15, 14, 16, 3))
    assert v.status == evidence.TOO_FEW and v.p == pytest.approx(0.1) and "no claim" in v.text


def test_a_number_without_its_range_makes_no_claim():
    kind = KINDS[TGR]
    [a] = kind.cases(seed(TGR), "a" * 64)
    [b] = kind.cases(graph_variant(device=H200, eager_factor=0.5), "b" * 64)
    v = evidence.verdict(a.points[0].measures["eager_ms"], b.points[0].measures["eager_ms"])
    assert v.status == evidence.NO_RANGE


def test_tables_are_validated_on_construction():
    axis = Field("gpu", Role.AXIS, ("/gpu",), "GPU")
    with pytest.raises(ValueError, match="duplicate field"):
        CaseKind("x/1", "x", (axis, axis), ())
    with pytest.raises(ValueError, match="axis field"):
        CaseKind("x/1", "x", (Field("m", Role.IDENTITY, ("/m",), "m"),), ())
    with pytest.raises(ValueError, match="either a value pointer or a formula"):
        Metric("m", "m", "s", Better.LOWER)
    with pytest.raises(ValueError, match="pointer"):
        Field("gpu", Role.AXIS, ("gpu",), "GPU")


# -- with the values themselves (records of newer collectors) ----------------------------------
def test_values_in_both_records_get_the_mann_whitney_test_on_them():
    import random

    from tests.history import add_requests, add_samples, graph_with_samples, scale_requests

    kind = KINDS[TGR]
    [a] = kind.cases(graph_with_samples(), "a" * 64)
    faster = add_samples(seed(TGR), scale=0.6, rng=random.Random(1))
    [b] = kind.cases(faster, "b" * 64)
    v = evidence.verdict(a.points[0].measures["eager_ms"], b.points[0].measures["eager_ms"])
    assert (v.status, v.direction, v.method, v.n_a, v.n_b) == (evidence.CALLED, "lower", "exact", 30, 30)
    assert v.p < 1e-9 and "Mann-Whitney test on the 30 values of A and 30 of B" in v.text
    same = add_samples(seed(TGR), scale=1.0, rng=random.Random(2))
    [c] = kind.cases(same, "c" * 64)
    v = evidence.verdict(a.points[0].measures["eager_ms"], c.points[0].measures["eager_ms"])
    assert v.status == evidence.NOT_SHOWN and v.p > evidence.ALPHA and v.short.startswith("no difference shown (p = ")
    # five requests each: a 0.5% decode shift inside a 2% spread is not shown, a 5% one is
    llm = KINDS[GSH]
    [x, *_] = llm.cases(add_requests(seed(GSH)), "d" * 64)
    for factor, status, p in ((1.005, evidence.NOT_SHOWN, 0.42), (1.05, evidence.CALLED, 2 / 252)):
        shifted = add_requests(seed(GSH))
        scale_requests(shifted["cases"][0]["groups"][0], decode=factor)
        [y, *_] = llm.cases(shifted, "e" * 64)
        v = evidence.verdict(x.points[0].measures["decode_tokens_per_s"], y.points[0].measures["decode_tokens_per_s"])
        assert (v.method, v.n_a, v.n_b, v.status) == ("exact", 5, 5, status) and v.p == pytest.approx(p, abs=0.005)


def test_values_on_one_side_only_fall_back_to_the_range_rule():
    from tests.history import graph_with_samples

    kind = KINDS[TGR]
    [a] = kind.cases(graph_with_samples(), "a" * 64)
    [b] = kind.cases(graph_variant(device=H200, eager_factor=0.5), "b" * 64)
    assert evidence.verdict(a.points[0].measures["eager_ms"], b.points[0].measures["eager_ms"]).method == "range"


@pytest.mark.parametrize("a, b, expected_p", [
    ((5.0,) * 5, (6.0,) * 5, 2 / 252),  # tied within each side: the approximation said 0.004
    ((1.0, 2.0, 2.0, 3.0), (2.0, 3.0, 4.0, 4.0), None),
])
def test_tied_values_get_the_exact_rank_test_where_it_is_cheap(a, b, expected_p):
    """With ties among a few values, the p-value is exact over every split (as scipy's
    permutation method gives it), never below what the sample sizes allow."""
    import numpy as np
    from scipy.stats import PermutationMethod, mannwhitneyu

    v = evidence._rank_test(a, b)
    exact = mannwhitneyu(b, a, alternative="two-sided", method=PermutationMethod(n_resamples=np.inf)).pvalue
    assert v.method == "exact" and v.p == pytest.approx(exact, rel=1e-12)
    assert v.p >= evidence.rank_test_p(len(a), len(b))
    if expected_p is not None:
        assert v.p == pytest.approx(expected_p) and v.direction == "higher"


def test_one_disjoint_cell_among_many_overlapping_is_not_called_after_false_discovery_control():
    lone = evidence.Verdict(evidence.CALLED, "higher", evidence.rank_test_p(5, 5), 5, 5)
    table = [lone] + [evidence.Verdict(evidence.OVERLAP, n_a=5, n_b=5)] * 19
    out = evidence.control_false_discoveries(table)
    assert out[0].status == evidence.NOT_SHOWN and out[0].adjusted_p == pytest.approx(20 * 2 / 252) and out[0].tests == 20
    assert out[0].short == "no difference shown (p = 0.0079, adjusted 0.16)"
    assert out[1:] == table[1:]
    every = evidence.control_false_discoveries([lone] * 6)  # a real difference in every cell stays called
    assert all(v.status == evidence.CALLED and v.adjusted_p == pytest.approx(2 / 252) for v in every)


def test_identical_setups_rarely_get_a_called_difference_in_a_table():
    """Samples of one distribution on both sides, 32 cells a table (an audit's comparison pages):
    tested alone at 0.05 about 1 table in 2 called something; under the control about 1 in 20."""
    import random

    rng = random.Random(11)

    def cell():
        a = tuple(rng.gauss(10, 1) for _ in range(5))
        b = tuple(rng.gauss(10, 1) for _ in range(5))
        return evidence._rank_test(a, b)

    tables = [[cell() for _ in range(32)] for _ in range(200)]
    alone = sum(any(v.status == evidence.CALLED for v in t) for t in tables)
    controlled = sum(any(v.status == evidence.CALLED for v in evidence.control_false_discoveries(t)) for t in tables)
    assert alone > 40 and controlled <= 20, (alone, controlled)


def test_other_weights_or_another_model_file_is_another_benchmark_not_an_axis():
    """An audit's graph-replay record on an A100 with other weights, and an LLM record whose
    model file had other bytes, were each compared as differing "only in" the hardware."""
    graph = seed(TGR)
    graph["device"] = "NVIDIA A100"
    graph["original_artifact_hashes"]["FP16_weight"] = "0" * 64
    [a] = kind_for(TGR).cases(seed(TGR), "a" * 64)
    [b] = kind_for(TGR).cases(graph, "b" * 64)
    assert [d.field for d in differences(a, b)] == ["device"] and dict(a.identity) != dict(b.identity)
    assert {n for n, v in a.identity if dict(b.identity)[n] != v} == {"model_weights"}
    llm = seed(GSH)
    llm["hardware"]["gpu"] = "NVIDIA H200"
    llm["models"][0]["files"][0]["sha256"] = "1" * 64
    a, b = kind_for(GSH).cases(seed(GSH), "a" * 64)[0], kind_for(GSH).cases(llm, "b" * 64)[0]
    assert [d.field for d in differences(a, b)] == ["gpu"]
    assert {n for n, v in a.identity if dict(b.identity)[n] != v} == {"model_file"}


def test_a_case_s_model_fields_come_from_the_model_it_served():
    """A record serving two models: the case serving the second (7B, Q8_0) was keyed, titled and
    compared as the record's first model (72B, Q4_K_M), and called 25x faster than it."""
    data = seed(GSH)
    small = {**data["models"][0], "id": "qwen25-7b-q8", "name": "Qwen2.5-7B-Instruct", "quantization": "Q8_0",
             "files": [{**data["models"][0]["files"][0], "sha256": "7" * 64}]}
    data["models"].append(small)
    data["cases"][2]["model"] = "qwen25-7b-q8"
    kind, [full, l40, l20] = cases(GSH, data)
    assert full.values["model"].text == "Qwen2.5-72B-Instruct" and full.values["model"].pointer == "/models/0/name"
    assert l20.values["model"].text == "Qwen2.5-7B-Instruct" and l20.values["model"].pointer == "/models/1/name"
    assert (l20.values["quantization"].text, l20.values["model_file"].pointer) == ("Q8_0", "/models/1/files/0/sha256")
    assert "/models/1/name" in kind.input_pointers(data) and "/models/0/name" in kind.input_pointers(data)
    # the 7B case at 20 GPU layers is another benchmark than the 72B one, on the same GPU
    other = kind.cases(llm_variant(gpu=H200), "b" * 64)[2]
    assert dict(l20.identity) != dict(other.identity)
    assert {n for n, v in l20.identity if dict(other.identity)[n] != v} >= {"model", "quantization", "model_file"}
