"""The llama-bench/1 checks: real llama-bench output holds (its integer figures exactly, its
printed floats within what printing changes); each rule catches a broken value; and any
samples printed the way llama-bench prints them pass (a property over random samples)."""

import copy
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchledger.records.checks import check_record, checks_for, llama_bench_stddev_ns
from tests.llama_bench_support import LLB, record


@pytest.mark.parametrize("name", ["tiny-threads-1.json", "tiny-threads-2.json", "tiny-threads-1.jsonl", "tiny-threads-1-2.json"])
def test_real_llama_bench_output_holds(name):
    assert check_record(record(name), LLB, "r.json") == []


def _broken(change):
    data = copy.deepcopy(record())
    change(data)
    return [str(p) for p in check_record(data, LLB, "r.json")]


@pytest.mark.parametrize("change, check, where", [
    (lambda d: d["tests"][0].update(avg_ns=d["tests"][0]["avg_ns"] + 1), "llama-bench-avg-ns", "$.tests[0].avg_ns"),
    (lambda d: d["tests"][1].update(stddev_ns=d["tests"][1]["stddev_ns"] + 1), "llama-bench-stddev-ns", "$.tests[1].stddev_ns"),
    (lambda d: d["tests"][0].update(avg_ts=d["tests"][0]["avg_ts"] * 1.001), "llama-bench-avg-ts", "$.tests[0].avg_ts"),
    (lambda d: d["tests"][1].update(stddev_ts=d["tests"][1]["stddev_ts"] * 1.5 + 1), "llama-bench-stddev-ts", "$.tests[1].stddev_ts"),
    (lambda d: d["import"].update(test_count=3), "llama-bench-import-block", "$.import.test_count"),
    (lambda d: d["import"].update(tool_version="build 1"), "llama-bench-import-block", "$.import.tool_version"),
])
def test_each_rule_catches_its_broken_value(change, check, where):
    problems = _broken(change)
    assert len(problems) == 1 and problems[0].startswith(f"r.json: {where}: expected ") and problems[0].endswith(f"[check {check}]")


def test_a_changed_sample_is_caught_against_its_time_and_its_average():
    def change(d):
        d["tests"][0]["samples_ts"][2] *= 1.01
    problems = _broken(change)
    assert [p.rsplit("[check ", 1)[1] for p in problems] == ["llama-bench-samples-ts]", "llama-bench-avg-ts]", "llama-bench-stddev-ts]"]
    assert problems[0].startswith("r.json: $.tests[0].samples_ts[2]: expected ")


def test_sample_counts_must_agree():
    problems = _broken(lambda d: d["tests"][0]["samples_ts"].pop())
    assert any("[check llama-bench-sample-counts]" in p for p in problems)


def test_uint64_stddev_wraps_like_llama_bench():
    # five 2-second samples: their squares sum past 2^64, and llama-bench's uint64 arithmetic wraps
    samples = [2_000_000_000, 2_000_000_001, 2_000_000_003, 1_999_999_990, 2_000_000_010]
    exact = math.isqrt(round(sum((x - sum(samples) / 5) ** 2 for x in samples) / 4))
    assert llama_bench_stddev_ns(samples) != exact
    assert llama_bench_stddev_ns([5]) == 0


def _as_llama_bench_prints(samples_ns, n_prompt, n_gen):
    """A row as llama-bench computes and prints it (C++ stream: 6 significant digits; %f: 6 decimals)."""
    tokens = n_prompt + n_gen
    ts = [1e9 * tokens / ns for ns in samples_ns]
    mean = sum(ts) / len(ts)
    if len(ts) > 1:
        var = sum(t * t for t in ts) / (len(ts) - 1) - mean * mean * len(ts) / (len(ts) - 1)
        stddev = math.sqrt(var) if var > 0 else 0.0
    else:
        stddev = 0.0
    return {"n_prompt": n_prompt, "n_gen": n_gen, "samples_ns": samples_ns, "avg_ns": sum(samples_ns) // len(samples_ns),
            "stddev_ns": llama_bench_stddev_ns(samples_ns), "samples_ts": [float(f"{t:.6g}") for t in ts],
            "avg_ts": float(f"{mean:f}"), "stddev_ts": float(f"{stddev:f}")}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=10_000, max_value=30_000_000_000), min_size=1, max_size=10),
       st.sampled_from([(512, 0), (0, 128), (16, 0), (0, 1), (512, 128)]))
def test_rows_printed_as_llama_bench_prints_them_pass(samples_ns, tokens):
    data = copy.deepcopy(record())
    data["tests"] = [{**data["tests"][0], **_as_llama_bench_prints(samples_ns, *tokens)}]
    data["import"]["test_count"] = 1
    assert check_record(data, LLB, "r.json") == []


def test_checks_cover_the_schema():
    assert [c.id for c in checks_for(LLB)] == [
        "llama-bench-sample-counts", "llama-bench-avg-ns", "llama-bench-stddev-ns", "llama-bench-samples-ts",
        "llama-bench-avg-ts", "llama-bench-stddev-ts", "llama-bench-import-block"]
