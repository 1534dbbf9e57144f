"""Crash safety: `benchledger collect` killed with SIGKILL mid-run leaves the store exactly as it
was (and valid), and running it again resumes: finished cases are kept, the rest run, one
record is sealed."""

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

from benchledger.records.store import Store

REPO = Path(__file__).resolve().parents[2]
SEED = REPO / "records" / "llm-cpu-offload" / "2026-09-27.json"


def collect(plan, tmp_path, *extra):
    return [sys.executable, "-m", "benchledger", "collect", str(plan), "--records", str(tmp_path / "records"), "--runs", str(tmp_path / "runs"), *extra]


def snapshot(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


def test_kill_9_mid_run_then_resume(make_plan, tmp_path):
    records = tmp_path / "records"
    records.mkdir()
    Store(records).seal(SEED, "gsh-llm-core-article/1", "llm-cpu-offload/2026-09-27.json")
    before = snapshot(records)
    plan = make_plan(cases={"first": {"alloc_mib": 8}, "second": {"alloc_mib": 8}, "third": {"alloc_mib": 8}}, contexts=[50, 60], measured_rounds=6)

    proc = subprocess.Popen(collect(plan, tmp_path), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    results = next((tmp_path / "runs").glob("*"), None)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait until the first case is stored, then kill in the second
        results = next((tmp_path / "runs").glob("*/results/first.json"), None) if (tmp_path / "runs").exists() else None
        if results is not None:
            break
        time.sleep(0.05)
    assert results is not None, proc.communicate()[0].decode()
    time.sleep(0.4)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL

    assert snapshot(records) == before  # nothing sealed, nothing touched
    time.sleep(0.2)
    orphans = [p for p in psutil.process_iter(["cwd"]) if (p.info["cwd"] or "").startswith(str(tmp_path))]
    assert orphans == []  # the workload child died with the collector (PR_SET_PDEATHSIG)
    assert Store(records).verify().ok
    run_dir = results.parent.parent
    assert not (run_dir / "results" / "third.json").exists() and not (run_dir / "record.json").exists()
    # the killed workload child is orphaned, not the record: no temporary files left as results
    assert sorted(p.name for p in (run_dir / "results").iterdir() if not p.name.startswith(".")) in (["first.json"], ["first.json", "second.json"])

    again = subprocess.run(collect(plan, tmp_path), cwd=REPO, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert "case first: completed (kept from an earlier run)" in again.stderr
    assert "sealed phase-workload-test/" in again.stdout
    report = Store(records).verify()
    assert report.ok and report.entry_count == 2
    after = snapshot(records)
    assert {k: v for k, v in after.items() if k in before and k != "ledger.jsonl"} == {k: v for k, v in before.items() if k != "ledger.jsonl"}

    # a third run finds the same record sealed and changes nothing
    third = subprocess.run(collect(plan, tmp_path), cwd=REPO, capture_output=True, text=True, timeout=60)
    assert third.returncode == 0 and third.stdout.startswith("already sealed ")
    assert snapshot(records) == after


def test_an_assembly_the_store_refuses_is_reassembled_next_time_without_measuring(make_plan, tmp_path):
    """A record that fails the store's checks is not kept as the run's record; the case results
    are, so a fixed module re-assembles them without measuring again."""
    import io
    import json as jsonlib

    import pytest

    from benchledger.errors import ConsistencyError
    from collector.modules.registry import get_module
    from collector.plan_loader import load_plan
    from collector.progress import Progress
    from collector.runner import Runner

    (tmp_path / "records").mkdir()
    plan = load_plan(make_plan(cases={"one": {"alloc_mib": 8}}))
    module = get_module("phase_workload")
    honest = module.assemble

    def broken(plan, results, session):  # a module bug: a derived figure that does not follow
        data = honest(plan, results, session)
        data["cases"][0]["groups"][0]["aggregate_output_tokens_per_second"] *= 2
        return data

    module.assemble = broken
    try:
        runner = Runner(plan, tmp_path / "records", tmp_path / "runs", progress=Progress(1, stream=io.StringIO()))
        with pytest.raises(ConsistencyError):
            runner.run()
    finally:
        module.assemble = honest
    assert not runner.record_file.exists() and runner.result_file(plan.cases[0]).exists()
    kept = runner.result_file(plan.cases[0]).read_bytes()
    outcome = Runner(plan, tmp_path / "records", tmp_path / "runs", progress=Progress(1, stream=io.StringIO())).run()
    sealed = jsonlib.loads((tmp_path / "records" / outcome.store_path).read_bytes())
    assert sealed["cases"][0] == jsonlib.loads(kept)  # the same measurements, not a new run


PARENT = r"""
import subprocess, sys, time
from collector.session import _die_with_parent
child = subprocess.Popen(["sleep", "60"], preexec_fn=_die_with_parent if sys.argv[1] == "on" else None)
print(child.pid, flush=True)
time.sleep(60)
"""


def test_session_children_die_with_a_killed_collector():
    def orphan_after_kill(mode):
        parent = subprocess.Popen([sys.executable, "-c", PARENT, mode], cwd=REPO, stdout=subprocess.PIPE, text=True)
        child = psutil.Process(int(parent.stdout.readline()))
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        try:
            child.wait(timeout=2)
            return False
        except psutil.TimeoutExpired:
            child.kill()
            return True

    assert orphan_after_kill("off")  # the control: a plain child outlives its killed parent
    assert not orphan_after_kill("on")  # a session child does not


def test_collect_killed_between_link_and_ledger_line_adopts_its_file_on_resume(make_plan, tmp_path):
    """Issue 11 class 4: a seal killed after its record file is linked into the store and before
    the ledger line is written leaves an unsealed file; the resumed collect adopts that file (the
    same bytes at the same path) instead of sealing a second copy under `-2`."""
    records = tmp_path / "records"
    records.mkdir()
    plan = make_plan(cases={"one": {"alloc_mib": 8}})
    killed = subprocess.run(collect(plan, tmp_path), cwd=REPO, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "BENCHLEDGER_CRASH_AT": "linked"})
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    linked = [p.relative_to(records).as_posix() for p in records.rglob("*.json")]
    assert len(linked) == 1 and not Store(records).verify().ok  # an unsealed file and a stale temp
    again = subprocess.run(collect(plan, tmp_path), cwd=REPO, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert f"sealed {linked[0]}" in again.stdout or f"sealed records/{linked[0]}" in again.stdout or linked[0] in again.stdout
    report = Store(records).verify()
    assert report.ok, [str(p) for p in report.problems]
    assert [e.path for e in Store(records).entries()] == linked


def test_a_fresh_run_refused_while_another_collect_runs_the_plan_changes_nothing(make_plan, tmp_path):
    """`collect --fresh` deleted the finished results of the collect already running the plan,
    and only then found its lock taken and said so."""
    import fcntl

    (tmp_path / "records").mkdir()
    plan = make_plan(cases={"first": {"alloc_mib": 8}}, contexts=[50], measured_rounds=2)
    first = subprocess.run(collect(plan, tmp_path), cwd=REPO, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    [run_dir] = (tmp_path / "runs").iterdir()
    before = snapshot(run_dir)
    assert "results/first.json" in before
    with open(run_dir / "lock", "w") as held:  # as the running collect holds it
        fcntl.flock(held, fcntl.LOCK_EX)
        refused = subprocess.run(collect(plan, tmp_path, "--fresh"), cwd=REPO, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1 and "another `benchledger collect` is running this plan; nothing was changed" in refused.stderr
    assert snapshot(run_dir) == before


def test_a_resume_runs_again_a_kept_case_whose_model_file_changed(make_plan, tmp_path):
    """A run stopped after its first case, the model file replaced, the run resumed: the first
    case was kept, measured on the old file, while the record named only the new file's SHA-256."""
    import json

    (tmp_path / "records").mkdir()
    plan = make_plan(cases={"first": {"alloc_mib": 8}, "second": {"alloc_mib": 8}}, contexts=[50], measured_rounds=2)
    done = subprocess.run(collect(plan, tmp_path), cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    [run_dir] = (tmp_path / "runs").iterdir()
    first_result = (run_dir / "results" / "first.json").read_bytes()
    # the state a run stopped after its first case leaves: that case's result, nothing assembled
    for leftover in ("record.json", "target.json", "results/second.json", "inputs/second.json"):
        (run_dir / leftover).unlink(missing_ok=True)
    for sealed in sorted((tmp_path / "records").rglob("*.json")):  # and nothing sealed
        sealed.unlink()
    (tmp_path / "records" / "ledger.jsonl").unlink()
    (tmp_path / "model.bin").write_bytes(os.urandom(100_000))  # another file at the model's path
    resumed = subprocess.run(collect(plan, tmp_path), cwd=REPO, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert f"case first: model file {tmp_path / 'model.bin'} changed since it was measured; running it again" in resumed.stderr
    assert "kept from an earlier run" not in resumed.stderr
    assert (run_dir / "results" / "first.json").read_bytes() != first_result
    [entry] = Store(tmp_path / "records").entries()
    record = json.loads((tmp_path / "records" / entry.path).read_bytes())
    assert record["models"][0]["files"][0]["sha256"] == hashlib.sha256((tmp_path / "model.bin").read_bytes()).hexdigest()


def test_two_collects_sealing_into_one_store_at_once_both_seal(make_plan, tmp_path):
    """Two plans of one article key, sealing on the same day: each chose the same free store path
    outside the store's lock, and the second to seal failed with "already sealed". Here the test
    holds the store's lock until both have chosen, as a slow seal would."""
    from benchledger.records import lock

    records = tmp_path / "records"
    records.mkdir()
    plans = [make_plan(name=f"{n}.toml", cases={n: {"alloc_mib": 8}}, contexts=[50], measured_rounds=2) for n in ("one", "two")]
    procs = []
    with lock.exclusive(records):
        procs = [subprocess.Popen(collect(plan, tmp_path), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  start_new_session=True) for plan in plans]
        try:
            deadline = time.monotonic() + 90
            while len(list((tmp_path / "runs").glob("*/target.json"))) < 2 and time.monotonic() < deadline:
                assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
                time.sleep(0.05)
            targets = {json_path.read_text() for json_path in (tmp_path / "runs").glob("*/target.json")}
            assert len(targets) == 1  # both chose the same path, and wait to seal it
            time.sleep(0.3)
        except BaseException:
            for p in procs:
                if p.poll() is None:
                    os.killpg(p.pid, signal.SIGKILL)
            raise
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], results
    first, second = sorted((e.path for e in Store(records).entries()), key=len)
    assert second == first.removesuffix(".json") + "-2.json"  # the next free path, taken by the one that came second
    assert Store(records).verify().ok
