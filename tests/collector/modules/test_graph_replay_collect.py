"""End to end on this CPU-only machine: `benchledger collect examples/graph-replay-cpu.toml` runs
the built-in model into a fresh store; the record validates, verifies, is honest about the
missing CUDA graph, refuses the over-limit probe without a forward pass, and the site renders it.
"""

import contextlib
import io
import json
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")

from benchledger.cli.main import main  # noqa: E402
from benchledger.records.schema import undescribed_keys, validate  # noqa: E402
from benchledger.records.store import Store  # noqa: E402

pytestmark = pytest.mark.torch

ROOT = Path(__file__).resolve().parents[3]
PLAN = ROOT / "examples" / "graph-replay-cpu.toml"
SEED = ROOT / "records" / "torch-graph-replay" / "2026-10-28.json"
COLLECT_LIMIT_S = 120


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    """One collection of the CPU example into a copy of the shipped store (the site's authored
    articles cite the seeds): (store dir, the new entry, its record, seconds)."""
    base = tmp_path_factory.mktemp("graph-replay")
    records = base / "records"
    shutil.copytree(ROOT / "records", records)
    before = len(Store(records).entries())
    started = time.monotonic()
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert main(["collect", str(PLAN), "--records", str(records), "--runs", str(base / "runs")]) == 0
    seconds = time.monotonic() - started
    # the summary counts the case though this kind of record has no cases list
    assert "(1 completed, 0 failed); run directory " in out.getvalue()
    entries = Store(records).entries()
    assert len(entries) == before + 1
    entry = entries[-1]
    return records, entry, json.loads((records / entry.path).read_bytes()), seconds


def test_collects_in_under_two_minutes_and_seals_one_valid_record(collected, capsys):
    records, entry, record, seconds = collected
    assert seconds < COLLECT_LIMIT_S, f"collect took {seconds:.1f} s"
    assert entry.schema == "torch-graph-replay/1" and record["schema"] == "torch-graph-replay/1"
    assert entry.path.startswith("torch-graph-replay-cpu/")
    assert validate(record, "torch-graph-replay/1", entry.path) == []
    assert main(["verify", "--records", str(records)]) == 0
    assert f"all {len(Store(records).entries())} record(s) hold" in capsys.readouterr().out



def test_every_key_the_collector_writes_is_described_for_the_glossary(collected):
    _, _, record, _ = collected
    assert undescribed_keys(record, "torch-graph-replay/1") == []


def test_has_the_seed_record_shape(collected):
    _, _, record, _ = collected
    seed = json.loads(SEED.read_bytes())
    assert set(seed) <= set(record)
    assert set(seed["measurements"][0]) <= set(record["measurements"][0])
    assert set(seed["overlimit"][0]) <= set(record["overlimit"][0])
    # the seed's summaries, and beside them every repetition's time (summaries follow from it)
    assert set(record["measurements"][0]["timing"]["eager"]) == set(seed["measurements"][0]["timing"]["eager"]) | {"samples_ms"}
    kinds = [(m["kind"], m["tokens"], m["distinct_inputs"]) for m in record["measurements"]]
    assert kinds == [("frozen_short", 64, 3), ("frozen_short", 60, 3), ("frozen_short", 56, 3),
                     ("synthetic_exact_text", 128, 1), ("synthetic_exact_text", 256, 1),
                     ("synthetic_exact_text", 512, 1), ("synthetic_exact_text", 1024, 1),
                     ("frozen_longest", 900, 1)]


def test_flags_say_no_graph_ran_and_no_speedup_is_claimed(collected):
    _, _, record, _ = collected
    assert record["graph_capture_and_replay_executed"] is False
    assert record["CPU_fallback"] is True
    assert record["numeric_and_decision_exact_in_observed_sample"] is None
    assert record["full_quality_graph_qualified"] is False and record["adopted_for_full_quality"] is False
    assert "cpu" in record["graph_not_captured_reason"].lower()
    assert any("No CUDA graph was captured" in line for line in record["limitations"])
    for m in record["measurements"]:
        assert m["timing"]["graph"] is None and m["mean_speedup"] is None
        assert m["capture_seconds"] is None and m["capture_reserved_increase_bytes"] is None
        assert m["peak_allocated_bytes"] is None  # no device memory: null, never zero
        assert (m["comparisons"], m["bitwise_mismatches"], m["max_absolute_error"]) == (0, 0, None)
        assert m["timing"]["eager"]["repetitions"] == (30 if m["kind"] == "frozen_short" else 5)
        assert m["timing"]["eager"]["mean_ms"] > 0
        samples = m["timing"]["eager"]["samples_ms"]
        assert len(samples) == m["timing"]["eager"]["repetitions"] and min(samples) > 0
        assert m["timing"]["eager"]["mean_ms"] == pytest.approx(sum(samples) / len(samples), rel=1e-12)
        # the eager path is still checked against the step-by-step expanded path
        assert len(m["expanded_path_checks"]) == m["distinct_inputs"]
        assert all(c["identical"] and c["decision_equal"] for c in m["expanded_path_checks"])


def test_over_limit_probe_is_refused_before_any_forward_pass(collected):
    _, _, record, _ = collected
    assert record["overlimit"] == [{"tokens": 1025, "model_forwards": 0, "graph_replays": 0,
                                    "prediction": None, "refused": True,
                                    "refusal": "eager: 1025 tokens exceed the limit 1024"}]


def test_provenance_names_versions_hashes_and_sources(collected):
    _, _, record, _ = collected
    assert record["torch_version"].startswith("2.") and record["device"].startswith("CPU: ")
    hashes = record["original_artifact_hashes"]
    assert set(hashes) == {"FP32_weight", "source_weight", "FP32_scores", "inputs"}
    assert hashes["FP32_weight"] == hashes["source_weight"]  # built in fp32: no cast
    plan_sha = record["collection"]["plan_sha256"]
    assert f"plan:graph-replay-cpu.toml@sha256:{plan_sha}" in record["sources"]
    assert any(s.startswith("https://docs.pytorch.org/") for s in record["sources"])


def test_site_renders_the_record(collected, tmp_path):
    from site_gen.build import build_site

    records, entry, _, _ = collected
    result = build_site(records, tmp_path / "site", cache_dir=tmp_path / "cache")
    pages = [p for p in result.docs_dir.rglob("*.md") if entry.sha256[:12] in p.read_text()]
    assert pages, "no page shows the record's sha256"
    # what an auditor runs next must pass too: a CPU run has no graph timing, and a page that
    # traced "n/a" to /timing/graph/mean_ms (absent) failed it 34 times
    from site_gen.audit import verify_site

    assert [str(p) for p in verify_site(tmp_path / "site")] == []
    article = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "No CUDA graph was captured in this run" in article and "graph replay takes n/a" not in article


def test_the_gpu_plan_without_cuda_seals_an_incomplete_record_saying_why(tmp_path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: the GPU plan would really run")
    records = tmp_path / "records"
    records.mkdir()
    plan = ROOT / "examples" / "graph-replay-gpu.toml"
    # every case failed: the record is sealed, and collect says so with a non-zero exit
    assert main(["collect", str(plan), "--records", str(records), "--runs", str(tmp_path / "runs")]) == 1
    (entry,) = Store(records).entries()
    captured = capsys.readouterr()
    assert f"sealed {entry.path} sha256 {entry.sha256} (0 completed, 1 failed (builtin-fp16)); run directory " in captured.out
    assert "every case failed (builtin-fp16)" in captured.err
    record = json.loads((records / entry.path).read_bytes())
    assert validate(record, "torch-graph-replay/1", entry.path) == []
    assert record["complete"] is False and record["measurements"] == []
    assert record["graph_capture_and_replay_executed"] is False
    assert "sees no CUDA device" in record["failure_reason"]
    assert undescribed_keys(record, "torch-graph-replay/1") == []
    assert main(["verify", "--records", str(records)]) == 0
