"""End to end with a real llama-server on this CPU: `benchledger collect` runs three placements
of the tiny model, a case whose binary does not exist, one whose longer context the model
refuses, and cases whose server is killed or stopped mid-run; the sealed record validates, verifies, keeps the seed's case shape, says which cases
failed and why, and the site renders it with its comparison charts."""

import json
import os
import shutil
import signal
import threading
import time
from pathlib import Path

import psutil
import pytest

from benchledger.cli.main import main
from benchledger.records.schema import undescribed_keys, validate
from benchledger.records.store import Store

pytestmark = pytest.mark.llama

ROOT = Path(__file__).resolve().parents[3]
SEED = ROOT / "records" / "llm-cpu-offload" / "2026-09-27.json"
VICTIM = "killed-mid-run"
HUNG = "hung-mid-run"
PLAN = """\
article_key = "llm-tiny-e2e"
module = "llama_server"

[settings]
contexts = [64, 128]
output_tokens = 16
warmup_rounds = 1
measured_rounds = 3
seed = 7
baseline_seconds = 0.2
ready_seconds = 0.1
host_sample_hz = 20.0
threads = 1
batch = 512
ubatch = 512

[models.tiny]
files = ["{model}"]
name = "tiny random llama"

[[cases]]
id = "threads-1"
model = "tiny"

[[cases]]
id = "threads-2"
model = "tiny"
settings = {{ threads = 2 }}

[[cases]]
id = "ubatch-32"
model = "tiny"
settings = {{ ubatch = 32, batch = 32 }}

[[cases]]
id = "wrapped"
model = "tiny"
settings = {{ binary = "{wrapper}" }}

[[cases]]
id = "missing-binary"
model = "tiny"
settings = {{ binary = "/nonexistent/llama-server" }}

[[cases]]
id = "past-the-model-context"
model = "tiny"
settings = {{ contexts = [64, 4096] }}

[[cases]]
id = "gpu-all"
model = "tiny"
placement = {{ gpu_layers = "all" }}

[[cases]]
id = "{victim}"
model = "tiny"
settings = {{ measured_rounds = 2000 }}

[[cases]]
id = "{hung}"
model = "tiny"
settings = {{ measured_rounds = 2000, request_timeout_s = 1.0 }}

[[comparisons]]
axis = "threads"
cases = ["threads-1", "threads-2"]

[[comparisons]]
axis = "ubatch"
cases = ["ubatch-32", "threads-1"]
"""


def signal_mid_run(runs: Path, stop: threading.Event, case_id: str, signum: int) -> list[int]:
    """Watch for the case's server; once its log shows measured requests, send it `signum`."""
    signalled: list[int] = []

    def watch():
        while not stop.is_set():
            for proc in psutil.process_iter(["cmdline"]):
                cmd = proc.info["cmdline"] or []
                if "--alias" in cmd and case_id in cmd:
                    logs = list(runs.glob(f"*/logs/{case_id}/llama-server.log"))
                    if logs and logs[0].read_text(errors="replace").count("print_timing: id") >= 3 * 5:
                        os.kill(proc.pid, signum)
                        signalled.append(proc.pid)
                        return
            time.sleep(0.01)

    threading.Thread(target=watch, daemon=True).start()
    return signalled


@pytest.fixture(scope="module")
def collected(tmp_path_factory, llama_server_binary, tiny_model):
    base = tmp_path_factory.mktemp("llama-e2e")
    records = base / "records"
    shutil.copytree(ROOT / "records", records)  # the site's authored articles cite the seeds
    plan = base / "plan.toml"
    # a `binary` that is a shell script running llama-server as its child, not exec'ing it
    wrapper = base / "llama-server-wrapper"
    wrapper.write_text(f'#!/bin/sh\n"{llama_server_binary}" "$@"\necho wrapper done\n')
    wrapper.chmod(0o755)
    # named relative to the plan, as model files are, while the collect runs from another folder
    assert Path.cwd() != base
    plan.write_text(PLAN.format(model=tiny_model, victim=VICTIM, hung=HUNG, wrapper=wrapper.name))
    before = len(Store(records).entries())
    stop = threading.Event()
    killed = signal_mid_run(base / "runs", stop, VICTIM, signal.SIGKILL)
    stopped = signal_mid_run(base / "runs", stop, HUNG, signal.SIGSTOP)
    os.environ["LLAMA_SERVER"] = str(llama_server_binary)
    started = time.monotonic()
    try:
        assert main(["collect", str(plan), "--records", str(records), "--runs", str(base / "runs")]) == 0
    finally:
        stop.set()
        del os.environ["LLAMA_SERVER"]
    seconds = time.monotonic() - started
    entries = Store(records).entries()
    assert len(entries) == before + 1
    entry = entries[-1]
    assert stopped, "the watcher never saw the hung case's server"
    return records, entry, json.loads((records / entry.path).read_bytes()), seconds, killed


def cases(record):
    return {c["id"]: c for c in record["cases"]}


def test_record_validates_and_verifies(collected, capsys):
    records, entry, record, seconds, _ = collected
    assert seconds < 60, f"collect took {seconds:.1f} s"
    assert entry.schema == record["schema"] == "gsh-llm-core-article/1"
    assert validate(record, "gsh-llm-core-article/1", entry.path) == []
    assert main(["verify", "--records", str(records)]) == 0
    assert "consistency rules of their kinds hold" in capsys.readouterr().out
    assert record["status"] == "partial"



def test_every_key_the_collector_writes_is_described_for_the_glossary(collected):
    _, _, record, _, _ = collected
    assert undescribed_keys(record, "gsh-llm-core-article/1") == []


def test_placements_complete_in_the_seed_shape(collected):
    _, _, record, _, _ = collected
    seed = json.loads(SEED.read_bytes())
    seed_case, seed_group = seed["cases"][0], seed["cases"][0]["groups"][0]
    for cid in ("threads-1", "threads-2", "ubatch-32"):
        case = cases(record)[cid]
        assert case["status"] == "completed"
        for key in ("placement", "settings", "groups", "resources_by_phase", "completed_response_resources", "telemetry", "status", "case_wall_seconds"):
            assert key in case, key
        assert set(seed_case["settings"]) - {"cache_ram_bytes", "context_shift"} <= set(case["settings"])
        assert set(seed_case["placement"]) <= set(case["placement"])
        assert set(case["resources_by_phase"]) == {"baseline", "load", "ready", "warmup", "responses", "cleanup"}
        assert [g["context_tokens"] for g in case["groups"]] == [64, 128]
        for group in case["groups"]:
            assert set(seed_group) <= set(group)
            assert group["completed_request_count"] == 3 and group["failed_request_count"] == 0
            assert group["completed_output_tokens"] == 3 * 16
            for stat in ("response_seconds", "server_decode_tokens_per_second", "synthetic_first_token_seconds"):
                assert group[stat]["sample_count"] == 3 and group[stat]["minimum"] > 0
            assert group["response_seconds"]["median"] > group["synthetic_first_token_seconds"]["median"]
            assert group["aggregate_output_tokens_per_second"] == pytest.approx(48 / group["response_window_union_seconds"])
            assert group["cpu_snapshot_intervals"]["interval_count"] == 3
            requests = group["requests"]
            assert sorted((r["predicted_n"] - 1) / r["predicted_ms"] * 1000 for r in requests)[1] == group["server_decode_tokens_per_second"]["median"]
            assert sorted(r["prompt_ms"] / 1000 for r in requests)[1] == group["synthetic_first_token_seconds"]["median"]
            assert {(r["prompt_n"], r["predicted_n"]) for r in requests} == {(group["context_tokens"], 16)}
            assert group["warmup_completed_rounds"] == 1
        placement = case["placement"]
        assert placement["gpu_layers"] == 0 and placement["total_layers"] == 5
        assert placement["buffers"][0]["device"] == "CPU_Mapped"
        assert case["runtime"]["binary_sha256"] == record["runtime"]["binary_sha256"]
        assert (record["runtime"]["name"], len(record["runtime"]["binary_sha256"])) == ("llama.cpp", 64)
    assert cases(record)["threads-2"]["settings"]["threads"] == 2
    assert cases(record)["ubatch-32"]["settings"]["ubatch"] == 32
    assert "-ub" in cases(record)["ubatch-32"]["server_args"]


def test_model_provenance(collected, tiny_model):
    _, _, record, _, _ = collected
    from collector.provenance import sha256_file

    (model,) = record["models"]
    digest = sha256_file(tiny_model)
    assert model["files"] == [{"bytes": digest.size_bytes, "name": "tiny.gguf", "sha256": digest.sha256}]


def test_a_wrapper_binarys_server_is_what_the_responses_sampled(collected):
    """A wrapper script that forks llama-server: the record's process CPU and memory were the
    shell's (0.0 % CPU, 1.7 MB) while the server ran the requests; now they are the server's,
    and the limitations say the load phase sampled the wrapper."""
    _, _, record, _, _ = collected
    wrapped, direct = cases(record)["wrapped"], cases(record)["threads-1"]
    assert wrapped["status"] == "completed" and wrapped.get("server_forked") is True and "server_forked" not in direct

    def rss(case):
        return case["completed_response_resources"]["metrics"]["process_rss_bytes"]["maximum"]

    assert rss(wrapped) > 0.5 * rss(direct) and rss(wrapped) > 8 * 2**20
    assert any("In cases wrapped the binary started llama-server as a child process" in lim for lim in record["limitations"])


def test_failed_cases_say_why_and_the_others_still_ran(collected):
    _, _, record, _, killed = collected
    missing = cases(record)["missing-binary"]
    assert missing["status"] == "failed" and missing["groups"] == []
    assert "/nonexistent/llama-server" in missing["failure_reason"]
    victim = cases(record)[VICTIM]
    assert killed, "the watcher never saw the victim's server"
    assert victim["status"] == "failed"
    assert "killed by signal SIGKILL" in victim["failure_reason"]
    assert "slot" in victim["server_log_tail"]  # the server log tail, kept in the record
    assert victim["placement"]["total_layers"] == 5
    assert not psutil.pid_exists(killed[0]) or psutil.Process(killed[0]).status() == psutil.STATUS_ZOMBIE


def test_a_context_where_every_request_fails_fails_its_case(collected):
    """The tiny model's slots hold 2048 tokens: every request at 4096 is refused, so that context
    has no statistics; the case fails with the server's reason instead of the record failing
    its schema and sealing nothing."""
    _, _, record, _, _ = collected
    case = cases(record)["past-the-model-context"]
    assert case["status"] == "failed" and case["groups"] == []
    assert case["failure_reason"].startswith("every measured request at context 4096 failed (3 of 3); the first: "
                                             "POST /completion: HTTP 400: ")
    assert "exceeds the available context size" in case["failure_reason"]


def test_a_server_that_stops_answering_fails_its_case_by_timeout(collected):
    _, _, record, _, _ = collected
    hung = cases(record)[HUNG]
    assert hung["status"] == "failed"
    assert hung["failure_reason"].startswith("request timed out at context 64: POST /completion: no answer within 1 s")


def test_a_placement_the_server_did_not_make_fails_the_case(collected):
    """gpu_layers = "all" on a build without a GPU backend: the server runs everything on the
    CPU, so the case fails saying so, and what the server did report is kept apart."""
    _, _, record, _, _ = collected
    case = cases(record)["gpu-all"]
    if case["status"] == "completed":  # a GPU build: the layers really went to the GPU
        assert case["placement"]["gpu_layers"] == case["placement"]["total_layers"]
        return
    assert case["failure_reason"] == "requested gpu_layers=all but the server placed 0/5 layers on the GPU"
    assert "placement" not in case and case["reported_placement"]["gpu_layers"] == 0


def test_site_renders_the_record_with_its_comparison_charts(collected, tmp_path):
    from site_gen.build import build_site

    records, entry, _, _, _ = collected
    result = build_site(records, tmp_path / "site", cache_dir=tmp_path / "cache")
    pages = [p for p in result.docs_dir.rglob("*.md") if entry.sha256[:12] in p.read_text() and "Results along threads" in p.read_text()]
    assert pages, "no article page shows the record with its comparison"
    text = pages[0].read_text()
    assert "threads-decode" in text and "ubatch-decode" in text
    for failed in ("missing\\-binary", "killed\\-mid\\-run"):
        section = text.split(f"## Case {failed}")[1].split("## ")[0]
        assert "status: failed" in section


def test_the_example_plan_is_valid_with_the_documented_model(tmp_path):
    from collector.modules.llama_server.tiny_model import write_tiny_model
    from collector.plan_loader import load_plan

    plan = tmp_path / "llama-tiny.toml"
    shutil.copy(ROOT / "examples" / "llama-tiny.toml", plan)
    write_tiny_model(tmp_path / "models" / "tiny.gguf")
    loaded = load_plan(plan)
    assert [c.id for c in loaded.cases] == ["threads-1", "threads-2", "ubatch-32"]
    assert {c.module for c in loaded.cases} == {"llama_server"}


def test_plan_problems_are_listed_at_once(tmp_path, tiny_model):
    from benchledger.errors import PlanError
    from collector.plan_loader import load_plan

    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN.format(model=tiny_model, victim=VICTIM, hung=HUNG, wrapper="/bin/true").replace("threads = 1", 'threads = "many"\nflash = true')
                    .replace("output_tokens = 16", "output_tokens = 1"))
    with pytest.raises(PlanError) as err:
        load_plan(plan)
    lines = "\n".join(err.value.lines())
    # plan-wide values, reported once where they are written, not once per case
    assert "$.settings.threads: expected a positive integer, got 'many'" in lines
    assert "$.settings.flash: unknown key for llama_server" in lines
    assert "$.settings.output_tokens: expected an integer >= 2" in lines
    assert "$.cases[" not in lines
