"""`benchledger collect --ray` on a real Ray cluster: a multi-node in-process cluster
(ray.cluster_utils.Cluster) with fake GPUs and host labels, CPU-only, inside a private network
and PID namespace (`unshare --net --pid --fork --mount-proc`, loopback only), so Ray binds
127.0.0.1 and every Ray process ends with the namespace. The cases are the built-in
phase_workload module's, a few seconds each."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

import pytest

from benchledger.records.store import Store

ray = pytest.importorskip("ray", reason="needs benchledger[ray] (make test installs it)")
REPO = Path(__file__).resolve().parents[3]
SCENARIOS = Path(__file__).with_name("cluster_scenarios.py")
pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None or shutil.which("ip") is None,
                                reason="needs root, unshare and ip for a private network namespace")


def plan_text(cases: dict[str, dict], **dispatch) -> str:
    lines = ['article_key = "ray-dispatch-test"', 'module = "phase_workload"', "[settings]",
             "contexts = [20]", "output_tokens = 16", "warmup_rounds = 0", "measured_rounds = 2",
             "baseline_seconds = 0.2", "host_sample_hz = 10.0", "gpu_sample_hz = 1.0",
             "[models.blob]", 'files = ["model.bin"]', 'name = "random bytes"']
    if dispatch:
        lines.append("[dispatch]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in dispatch.items()]
    for cid, spec in cases.items():
        lines += ["[[cases]]", f'id = "{cid}"', 'model = "blob"']
        if spec.get("options"):
            lines.append("options = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in spec["options"].items()) + " }")
        if spec.get("settings"):
            lines.append("settings = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in spec["settings"].items()) + " }")
        if spec.get("dispatch"):
            lines.append("dispatch = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in spec["dispatch"].items()) + " }")
    return "\n".join(lines) + "\n"


def in_namespace(scenario: str, tmp_path: Path, cases: dict[str, dict], **dispatch) -> dict:
    """Run a scenario of cluster_scenarios.py in a fresh network + PID namespace; its report."""
    (tmp_path / "model.bin").write_bytes(os.urandom(50_000))
    plan = tmp_path / "plan.toml"
    plan.write_text(plan_text(cases, **dispatch))
    (tmp_path / "records").mkdir()
    report = tmp_path / "report.json"
    # Ray's session files in a folder of this test's own, not the machine's /tmp/ray (a short
    # path: Ray's socket paths must fit in 107 bytes), removed once every Ray process has ended
    ray_tmp = Path(tempfile.mkdtemp(prefix="bl-ray-", dir="/tmp"))
    script = (f"ip link set lo up && RAY_TMPDIR={ray_tmp} BENCHLEDGER_WORKER_RUNS={tmp_path / 'worker-runs'} "
              f"exec {sys.executable} {SCENARIOS} {scenario} {plan} {tmp_path} {report}")
    try:
        done = subprocess.run(["unshare", "--net", "--pid", "--fork", "--mount-proc", "sh", "-c", script],
                              cwd=REPO, capture_output=True, text=True, timeout=300)
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert done.returncode == 0 and report.is_file(), done.stdout[-3000:] + done.stderr[-6000:]
    return json.loads(report.read_text())


def sealed_record(tmp_path: Path) -> dict:
    store = Store(tmp_path / "records")
    report = store.verify()
    assert report.ok, [str(p) for p in report.problems]
    entries = store.entries()
    assert len(entries) == 1
    return json.loads((tmp_path / "records" / entries[0].path).read_bytes())


def spans(case: dict) -> list[tuple[str, datetime, datetime]]:
    return [(a["host_label"], datetime.fromisoformat(a["started_at"]), datetime.fromisoformat(a["finished_at"]))
            for a in case["attempts"] if a["started_at"]]


def test_cases_spread_over_two_nodes_never_share_a_gpu_and_the_record_builds(tmp_path):
    cases = {"one": {}, "two": {}, "three": {}, "pinned": {"dispatch": {"host": "node-b"}},
             "too-slow": {"settings": {"baseline_seconds": 30.0}, "dispatch": {"timeout_s": 2}},
             "alone": {"dispatch": {"host_exclusive": True, "gpus": 0}}}
    report = in_namespace("spread", tmp_path, cases)
    assert report["collect"]["rc"] == 0, report["collect"]["stderr"]
    record = sealed_record(tmp_path)
    by_id = {c["id"]: c for c in record["cases"]}
    assert [by_id[c]["status"] for c in ("one", "two", "three", "pinned", "alone")] == ["completed"] * 5
    assert by_id["pinned"]["host"]["label"] == "node-b"
    assert {by_id[c]["host"]["label"] for c in by_id} == {"node-a", "node-b"}
    for cid, case in by_id.items():  # measured where it ran, through NVML where there is one
        assert case["host"]["hostname"] and case["host"]["kernel"]
        if cid != "alone":
            assert case["host"]["cuda_visible_devices"] == "0"
            assert case["host"]["gpu_check"].startswith(("no foreign process", "unavailable: "))
    assert by_id["alone"]["host"]["gpu_check"] == "no GPU requested" and by_id["alone"]["host"]["gpus"] == []
    slow = by_id["too-slow"]
    assert slow["status"] == "failed" and "timed out after 2 s" in slow["failure_reason"]
    assert [a["outcome"] for a in slow["attempts"]] == ["timeout"]
    # its worker returned nothing: the driver's few microseconds of sampling do not stand for it
    assert "telemetry" not in slow and "resources_by_phase" not in slow
    # one GPU per node: no two attempts on a node overlap in time
    for label in ("node-a", "node-b"):
        on_node = sorted(s for c in by_id.values() for s in spans(c) if s[0] == label)
        assert all(a[2] <= b[1] for a, b in zip(on_node, on_node[1:])), on_node
    # the host-exclusive case (no GPU, so only exclusivity keeps it apart) shared its node with no one
    label, start, end = spans(by_id["alone"])[0]
    others = [s for cid, c in by_id.items() if cid != "alone" for s in spans(c) if s[0] == label]
    assert others and all(e <= start or s >= end for _, s, e in others), (label, start, end, others)
    assert any("Cases ran through Ray on 2 hosts (node-a, node-b)" in x for x in record["limitations"])
    (tmp_path / "no-articles").mkdir()
    site = subprocess.run([sys.executable, "-m", "benchledger", "build", "--records", str(tmp_path / "records"), "--out", str(tmp_path / "site"),
                           "--cache", str(tmp_path / "cache"), "--articles", str(tmp_path / "no-articles")], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert site.returncode == 0, site.stderr
    page = next(p for p in (tmp_path / "site").rglob("*.html") if "ray-dispatch-test" in p.as_posix()).read_text()
    assert "node-b" in page and "Attempts" in page and "timeout" in page


def test_a_node_removed_mid_case_gives_a_failed_attempt_and_a_retry_elsewhere_or_host_unavailable(tmp_path):
    slow = {"settings": {"baseline_seconds": 6.0}}
    report = in_namespace("node_dies", tmp_path, {"roam": slow, "pinned": {**slow, "dispatch": {"host": "node-b"}}})
    assert report["collect"]["rc"] == 0, report["collect"]["stderr"]
    by_id = {c["id"]: c for c in sealed_record(tmp_path)["cases"]}
    roam = by_id["roam"]
    assert [a["outcome"] for a in roam["attempts"]] == ["system_failure", "completed"]
    assert "NodeDiedError" in roam["attempts"][0]["reason"]
    assert roam["attempts"][0]["host_label"] == report["first_hosts"]["roam"]
    assert roam["status"] == "completed" and roam["host"]["label"] not in report["removed"]
    pinned = by_id["pinned"]
    if report["first_hosts"]["pinned"] is not None:  # it was running on node-b when node-b went
        assert [a["outcome"] for a in pinned["attempts"]] == ["system_failure", "host_unavailable"]
        assert [a["attempt"] for a in pinned["attempts"]] == [1, 2]
    else:  # 'roam' held node-b's GPU: 'pinned' was still waiting for it when node-b went
        assert [a["outcome"] for a in pinned["attempts"]] == ["host_unavailable"] and pinned["attempts"][0]["started_at"] is None
    assert pinned["status"] == "failed" and pinned["failure_reason"].startswith("host unavailable")


def test_a_driver_killed_mid_plan_resumes_without_losing_or_duplicating_a_case(tmp_path):
    cases = {f"c{i}": {"settings": {"baseline_seconds": 1.5}} for i in range(4)}
    report = in_namespace("driver_killed", tmp_path, cases)
    assert report["killed"]["rc"] == -9
    assert report["again"]["rc"] == 0, report["again"]["stderr"]
    assert "kept from an earlier run" in report["again"]["stderr"]
    assert report["third"]["rc"] == 0 and report["third"]["stdout"].startswith("already sealed ")
    record = sealed_record(tmp_path)  # exactly one ledger entry: sealed once
    assert sorted(c["id"] for c in record["cases"]) == ["c0", "c1", "c2", "c3"]
    assert all(c["status"] == "completed" for c in record["cases"])
    lost = [c for c in record["cases"] if c["attempts"][0]["outcome"] == "driver_lost"]
    assert lost, "no case was in flight when the driver died"
    for c in lost:
        assert [a["outcome"] for a in c["attempts"]] == ["driver_lost", "completed"]
    journal = [json.loads(x) for x in next((tmp_path / "runs").glob("*/dispatch.jsonl")).read_text().splitlines()]
    keys = [(e["plan_sha256"], e["case"], e["attempt"]) for e in journal if e["event"] == "submitted"]
    assert len(keys) == len(set(keys))  # (plan, case, attempt) identifies one attempt
    completed = [e["case"] for e in journal if e["event"] == "completed"]
    assert sorted(completed) == ["c0", "c1", "c2", "c3"]  # each case measured to completion once
