"""Exactness and timing helpers of the graph-replay module on crafted tensors: the bit view
compares NaN and signed zeros honestly, one ulp is a mismatch, and statistics are exact."""

import math

import pytest

torch = pytest.importorskip("torch")

from collector.modules.graph_replay.exactness import Comparison, Tally, bit_view, compare  # noqa: E402
from collector.modules.graph_replay.timing import PathTiming, mean_speedup, percentile  # noqa: E402

pytestmark = pytest.mark.torch


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_signed_zeros_are_a_bitwise_mismatch_with_zero_error(dtype):
    plus = torch.tensor([[0.0, 1.0]], dtype=dtype)
    minus = torch.tensor([[-0.0, 1.0]], dtype=dtype)
    assert torch.equal(plus, minus)  # what torch.equal would have said
    result = compare(plus, minus)
    assert result == Comparison(identical=False, max_absolute_error=0.0, decision_equal=True)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_identical_nans_are_identical_and_differing_payloads_are_not(dtype):
    nan = torch.tensor([[float("nan"), 2.0]], dtype=dtype)
    assert not torch.equal(nan, nan.clone())  # NaN != NaN by value
    assert compare(nan, nan.clone()) == Comparison(True, 0.0, True)
    other_payload = nan.clone()
    bit_view(other_payload)[0] ^= 1  # still a NaN, different bits (int16 view for 2-byte floats)
    assert math.isnan(other_payload[0, 0].item())
    assert compare(nan, other_payload) == Comparison(False, 0.0, True)


def test_nan_against_a_number_has_no_finite_error():
    result = compare(torch.tensor([[float("nan"), 0.0]]), torch.tensor([[1.0, 0.0]]))
    assert not result.identical and result.max_absolute_error is None


def test_equal_infinities_have_zero_error_and_opposite_ones_none():
    inf = torch.tensor([[float("inf"), 1.0]])
    assert compare(inf, inf.clone()) == Comparison(True, 0.0, True)
    assert compare(inf, -inf).max_absolute_error is None


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_one_ulp_is_a_mismatch_with_the_ulp_as_error(dtype):
    a = torch.tensor([[1.0, 0.5]], dtype=dtype)
    b = a.clone()
    bit_view(b)[0] += 1  # the next representable value after 1.0
    ulp = torch.finfo(dtype).eps
    result = compare(a, b)
    assert not result.identical
    assert result.max_absolute_error == pytest.approx(ulp, rel=1e-12)
    assert result.decision_equal


def test_decision_changes_and_shape_or_dtype_changes_are_reported():
    assert not compare(torch.tensor([[1.0, 2.0]]), torch.tensor([[2.0, 1.0]])).decision_equal
    assert compare(torch.zeros(1, 2), torch.zeros(1, 3)) == Comparison(False, None, False)
    same_values = compare(torch.ones(1, 2), torch.ones(1, 2, dtype=torch.float64))
    assert not same_values.identical and same_values.max_absolute_error == 0.0


def test_tally_counts_mismatches_and_keeps_the_largest_error():
    tally = Tally()
    assert tally.max_absolute_error is None and not tally.exact  # no comparison: nothing shown exact
    tally.add(Comparison(True, 0.0, True))
    assert tally.exact and tally.max_absolute_error == 0.0
    tally.add(Comparison(False, 0.25, True))
    tally.add(Comparison(False, 0.5, False))
    assert (tally.comparisons, tally.bitwise_mismatches, tally.decision_mismatches) == (3, 2, 1)
    assert tally.max_absolute_error == 0.5 and not tally.exact
    tally.add(Comparison(False, None, False))
    assert tally.max_absolute_error is None


def test_timing_summary_uses_linear_interpolation_and_marks_few_samples():
    timing = PathTiming(tuple(float(x) for x in range(1, 21)))  # 1..20 ms
    assert timing.as_record() == {"repetitions": 20, "mean_ms": 10.5, "median_ms": 10.5,
                                  "p95_ms": pytest.approx(19.05), "samples_ms": [float(x) for x in range(1, 21)]}
    assert timing.p95_few_samples
    assert not PathTiming(tuple(float(x) for x in range(200))).p95_few_samples
    assert percentile([3.0], 0.95) == 3.0


def test_speedup_is_eager_mean_over_graph_mean_and_none_without_a_graph():
    eager, graph = PathTiming((4.0, 6.0)), PathTiming((1.0, 1.5))
    assert mean_speedup(eager, graph) == pytest.approx(5.0 / 1.25)
    assert mean_speedup(eager, None) is None
