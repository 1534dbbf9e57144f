"""`benchledger compare A B`: variant records sealed beside the seeds (made consistent with the
checks), compared case by case: the matched table (golden), the axis that differs, confounded
pairs named with every difference, cases without a partner, --axis, --json, and clear errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from benchledger.records.store import Store
from tests.store_copies import GSH, TGR
from tests.variants import H200, encoded, graph_variant, llm_variant

GOLDEN = Path(__file__).parent / "golden" / "compare-llm-gpu.txt"
SEED_LLM = "records/llm-cpu-offload/2026-09-27.json"
SEED_GRAPH = "records/torch-graph-replay/2026-10-28.json"


@pytest.fixture
def variants(records):
    store = Store(records)
    store.seal_bytes(encoded(llm_variant(gpu=H200, decode_factor=1.5, first_token_factor=0.5)), GSH, "llm-cpu-offload/h200.json")
    store.seal_bytes(encoded(llm_variant(release="b11200", decode_factor=1.01)), GSH, "llm-cpu-offload/b11200.json")
    two = llm_variant(gpu=H200, release="b11200")
    del two["cases"][2]  # a case the other record has and this one lacks
    two["comparisons"][0]["cases"] = two["comparisons"][0]["cases"][:2]
    store.seal_bytes(encoded(two), GSH, "llm-cpu-offload/h200-b11200.json")
    store.seal_bytes(encoded(graph_variant(device=H200, eager_factor=0.6, graph_factor=0.7)), TGR, "torch-graph-replay/h200.json")
    store.seal_bytes(encoded(graph_variant(device=H200, profile="bf16")), TGR, "torch-graph-replay/h200-bf16.json")
    return records


def test_another_gpu_prints_the_matched_table_golden(variants, cli):
    result = cli("compare", SEED_LLM, "records/llm-cpu-offload/h200.json", "--records", "records")
    assert (result.code, result.err) == (0, [])
    if os.environ.get("BENCHLEDGER_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(result.out)
    assert result.out == GOLDEN.read_text()
    assert "axis: gpu (GPU): NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition -> NVIDIA H200" in result.out
    # 3 placements x 2 contexts x 4 headline metrics, decode called higher at n = 5 per side
    assert result.out.count("\n| offload-72b-") == 24  # rows (case A, then case B, in each)
    assert result.out.count("higher (p = 0.0079, adjusted 0.0079)") == 6 and result.out.count("lower (p = 0.0079, adjusted 0.0079)") == 6


def test_a_later_release_by_hash_prefix_as_json(variants, cli):
    b = next(e for e in Store(variants).entries() if e.path == "llm-cpu-offload/b11200.json")
    a = next(e for e in Store(variants).entries() if e.path == "llm-cpu-offload/2026-09-27.json")
    result = cli("compare", a.sha256[:12], b.sha256[:16], "--json", "--records", "records")
    report = json.loads(result.out)
    assert result.code == 0 and report["axis"] == "runtime_release"
    assert report["a"]["sha256"] == a.sha256 and report["b"]["sha256"] == b.sha256
    decode = [r for r in report["rows"] if r["metric"] == "decode_tokens_per_s"]
    assert len(decode) == 6 and all(r["ratio"] == pytest.approx(1.01) for r in decode)
    # a 1% shift: called exactly where the ranges of the 5 values no longer overlap (the
    # 40- and 20-layer cases vary far less than 1%), otherwise no claim
    for r in decode:
        disjoint = r["b"]["minimum"] > r["a"]["maximum"]
        assert r["verdict"]["status"] == ("called" if disjoint else "overlap"), r
    assert {r["verdict"]["status"] for r in decode} == {"called", "overlap"}
    row = decode[0]
    assert row["a"]["pointer"] == "/cases/0/groups/0/server_decode_tokens_per_second/median" and row["a"]["n"] == 5
    assert report["unmatched"] == []


def test_confounded_pair_names_every_difference_and_exits_1(variants, cli):
    result = cli("compare", SEED_GRAPH, "records/torch-graph-replay/h200-bf16.json", "--records", "records")
    assert result.code == 1 and result.err == []
    assert ("confounded: every pair of cases differs in two or more axis fields, so nothing is compared: "
            "device: NVIDIA GeForce RTX 4090 vs NVIDIA H200; numeric profile: fp16 vs bf16") in result.out
    assert "| " not in result.out  # no table drawn


def test_graph_replay_on_another_device_matches_every_token_length(variants, cli):
    result = cli("compare", SEED_GRAPH, "records/torch-graph-replay/h200.json", "--json", "--records", "records")
    report = json.loads(result.out)
    assert result.code == 0 and report["axis"] == "device"
    speedups = [r for r in report["rows"] if r["metric"] == "speedup"]
    assert len(speedups) == 8 and all(r["ratio"] == pytest.approx(0.6 / 0.7) for r in speedups)
    assert {r["verdict"]["status"] for r in report["rows"]} == {"no-range"}  # means without their values: no claim


def test_axis_option_and_cases_without_a_partner(variants, cli):
    # the H200 + b11200 record differs from the H200 one in the release only, and lacks a case
    result = cli("compare", "records/llm-cpu-offload/h200.json", "records/llm-cpu-offload/h200-b11200.json",
                 "--axis", "runtime_release", "--records", "records")
    assert result.code == 0
    assert "axis: runtime_release (runtime release): b11146 -> b11200" in result.out
    assert "without a partner (1):" in result.out
    assert "  A  offload-72b-20: no case of B was paired with it" in result.out
    # restricted to another axis, nothing pairs
    other = cli("compare", "records/llm-cpu-offload/h200.json", "records/llm-cpu-offload/h200-b11200.json",
                "--axis", "gpu", "--records", "records")
    assert other.code == 1 and "in an axis other than gpu: runtime_release: b11146 vs b11200" in other.out


def test_bad_input_is_one_clear_line(variants, cli):
    wrong_axis = cli("compare", SEED_LLM, "records/llm-cpu-offload/h200.json", "--axis", "model", "--records", "records")
    assert wrong_axis.code != 0 and len(wrong_axis.err) == 1
    assert "'model' is not an axis field of gsh-llm-core-article/1; axis fields: gpu, cpu," in wrong_axis.err[0]
    kinds = cli("compare", SEED_LLM, SEED_GRAPH, "--records", "records")
    assert kinds.code != 0 and "records of different kinds are never compared" in kinds.err[0]
    missing = cli("compare", SEED_LLM, "records/nope.json", "--records", "records")
    assert missing.code != 0 and "no record in" in missing.err[0] and "Traceback" not in "".join(missing.err)


def test_record_text_reaches_the_terminal_as_one_visible_line(records, cli):
    """A GPU named with ESC sequences, a right-to-left override and a newline was printed raw:
    it could colour the terminal, reverse the rest of the line and fake a line of output."""
    store = Store(records)
    gpu = "H200\x1b[31m red\u202e\nfake line"
    store.seal_bytes(encoded(llm_variant(gpu=gpu, decode_factor=1.5)), GSH, "llm-cpu-offload/odd.json")
    result = cli("compare", SEED_LLM, "records/llm-cpu-offload/odd.json", "--records", "records")
    assert result.code == 0, result.err
    [axis] = [line for line in result.out.splitlines() if line.startswith("axis: ")]
    assert axis.endswith("-> H200[U+001B][31m red[U+202E] fake line")
    assert "\x1b" not in result.out and "\u202e" not in result.out and not any(line == "fake line" for line in result.out.splitlines())
    missing = cli("show", "odd\x1b[2J\nfake", "--records", "records")
    assert missing.code == 1 and len(missing.err) == 1 and "odd[U+001B][2J fake" in missing.err[0]
