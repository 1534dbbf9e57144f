"""collector.session on real samplers (psutil, /proc, this machine's NVML or its absence) and
real child processes: what a module sees while a case runs, and what `assemble` gets."""

import hashlib
import json
import os
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from benchledger.errors import CollectError
from collector.plan_loader import load_plan
from collector.progress import Progress
from collector.provenance import collector_sha256
from collector.session import RAW_FILE, CaseSession, RunSession
from collector.telemetry import GpuInfo


@pytest.fixture
def plan(make_plan):
    return load_plan(make_plan(host_sample_hz=50.0))


def session(plan, tmp_path, case=0):
    import io

    s = CaseSession(plan, plan.cases[case], tmp_path / "run" / plan.cases[case].id, Progress(1, stream=io.StringIO()))
    s.start()
    return s


def test_phases_and_windows_are_recorded_with_their_outcome(plan, tmp_path):
    s = session(plan, tmp_path)
    s.track_process(os.getpid())
    with s.phase("baseline"):
        time.sleep(0.05)
    with s.phase("responses"):
        for r in range(3):
            with s.window("measured", group=20, round=r) as w:
                time.sleep(0.01)
                if r == 1:
                    w.fail()
        with pytest.raises(ZeroDivisionError):
            with s.window("measured", group=40, round=0):
                1 / 0
    assert [w.round for w in s.windows("measured", group=20)] == [0, 2]
    assert [w.round for w in s.windows("measured", group=20, completed=False)] == [1]
    assert len(s.windows("measured", completed=None)) == 4
    assert s.windows("measured", group=40) == []  # the body raised: not completed
    assert s.timeline.phase_names() == ["baseline", "responses"]
    for w in s.windows("measured", completed=None):
        assert w.interval.end >= w.interval.start
        assert w.cpu_before is not None and w.cpu_after is not None  # snapshots of the tracked process
        assert w.cpu_after.process_cpu_seconds >= w.cpu_before.process_cpu_seconds
    by_phase = s.resources_by_phase()
    assert sorted(by_phase) == ["baseline", "responses"]


def test_after_a_summary_nothing_more_can_be_declared(plan, tmp_path):
    s = session(plan, tmp_path)
    with s.phase("baseline"):
        time.sleep(0.02)
    summary = s.telemetry_summary()
    assert isinstance(summary, dict)
    with pytest.raises(RuntimeError, match="sampling is not running"):
        with s.phase("cleanup"):
            pass
    with pytest.raises(RuntimeError):
        with s.window("measured"):
            pass


def test_an_unknown_phase_is_refused(plan, tmp_path):
    s = session(plan, tmp_path)
    with pytest.raises(ValueError, match="unknown phase 'warm'"):
        with s.phase("warm"):
            pass
    s.stop()


def test_stop_keeps_the_raw_samples_and_timeline(plan, tmp_path):
    s = session(plan, tmp_path)
    s.track_process(os.getpid())
    with s.phase("load"):
        time.sleep(0.1)
    with s.phase("responses"):
        with s.window("measured", group=1, round=0):
            time.sleep(0.02)
    s.stop()
    s.stop()  # idempotent
    raw = json.loads((s.run_dir / RAW_FILE).read_text())
    assert [p["name"] for p in raw["phases"]] == ["load", "responses"]
    assert raw["windows"][0]["group"] == 1 and raw["windows"][0]["completed"] is True
    assert len(raw["host_samples"]) >= 4  # boundaries and window edges at least
    assert raw["gpu_info"]["available"] in (True, False)
    if not raw["gpu_info"]["available"]:
        assert raw["gpu_info"]["reason"]  # never a silent zero: the reason is kept


def test_a_child_left_running_is_killed_when_the_case_ends(plan, tmp_path):
    s = session(plan, tmp_path)
    child = s.popen([sys.executable, "-c", "import time; time.sleep(60)"])
    with s.phase("load"):
        pass
    s.stop()
    assert child.poll() is not None  # killed and reaped, not orphaned


def test_a_child_dies_with_a_killed_collector(plan, tmp_path):
    # A collector process (a real one, running a CaseSession) starts a child, then is killed
    # with SIGKILL: PR_SET_PDEATHSIG takes the child with it.
    script = tmp_path / "killed_run.py"
    script.write_text(
        "import io, sys, time\n"
        "from collector.plan_loader import load_plan\n"
        "from collector.progress import Progress\n"
        "from collector.session import CaseSession\n"
        f"plan = load_plan({str(plan.path)!r})\n"
        f"s = CaseSession(plan, plan.cases[0], __import__('pathlib').Path({str(tmp_path / 'r')!r}), Progress(1, stream=io.StringIO()))\n"
        "s.start()\n"
        "child = s.popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[2])
    try:
        child_pid = int(proc.stdout.readline())
        os.kill(proc.pid, 9)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _alive(child_pid):
            time.sleep(0.05)
        assert not _alive(child_pid)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"  # a zombie is dead, only not yet reaped by init


def test_case_wall_seconds_follow_the_given_clock(plan, tmp_path):
    import io

    ticks = iter(range(100, 10_000))
    s = CaseSession(plan, plan.cases[0], tmp_path / "c", Progress(1, stream=io.StringIO()), clock=lambda: float(next(ticks)))
    s.start()
    with s.phase("baseline"):
        pass
    s.stop()
    wall = s.case_wall_seconds()
    assert wall > 0 and wall == int(wall)  # in ticks of the given clock
    assert s.case_wall_seconds() == wall  # stopped: the clock no longer runs for it


def run_session(plan, tmp_path, started="2026-09-26T22:30:00+00:00"):
    start = datetime.fromisoformat(started)
    return RunSession(plan, tmp_path / "run", start, start.replace(hour=23), GpuInfo(False, "no NVML here", 0, "nvml_unavailable"))


def test_tested_at_is_the_start_date_in_the_plans_time_zone(make_plan, tmp_path):
    path = make_plan()
    path.write_text('timezone = "Europe/Warsaw"\n' + path.read_text())
    rs = run_session(load_plan(path), tmp_path)
    assert rs.started_at.date().isoformat() == "2026-09-26"
    assert rs.tested_at == "2026-09-27"  # 00:30 in Warsaw (UTC+2 in September)
    assert run_session(load_plan(make_plan(name="utc.toml")), tmp_path).tested_at == "2026-09-26"


def test_sources_name_the_plan_and_the_collector(plan, tmp_path):
    rs = run_session(plan, tmp_path)
    src = rs.sources()
    assert src["plan_sha256"] == hashlib.sha256(plan.path.read_bytes()).hexdigest()
    assert src["plan_id"] == f"phase-workload-test-20260926t223000-{src['plan_sha256'][:8]}"
    assert src["runner_sha256"] == collector_sha256()
    assert src["started_at"] == "2026-09-26T22:30:00+00:00" and src["finished_at"] == "2026-09-26T23:30:00+00:00"


@pytest.mark.parametrize("statuses, expected", [
    (["completed", "completed"], "completed"), (["completed", "failed"], "partial"), (["failed", "failed"], "failed")])
def test_the_article_status_follows_its_cases(plan, tmp_path, statuses, expected):
    fields = run_session(plan, tmp_path).article_fields([{"status": s} for s in statuses])
    assert fields["status"] == expected
    assert fields["comparisons"] == [{"axis": "alloc_mib", "cases": ["small", "large"]}]
    assert fields["hardware"]["gpu_unavailable_reason"] == "no NVML here"
    assert fields["historical_results_pooled"] is False


def test_models_are_hashed_from_their_files(plan, tmp_path):
    (model,) = run_session(plan, tmp_path).models()
    data = (plan.path.parent / "model.bin").read_bytes()
    assert model["id"] == "blob" and model["name"] == "random bytes"
    assert model["files"] == [{"bytes": len(data), "name": "model.bin", "sha256": hashlib.sha256(data).hexdigest()}]


def test_a_model_file_gone_since_the_plan_was_checked_is_a_clear_error(plan, tmp_path):
    (plan.path.parent / "model.bin").unlink()
    with pytest.raises(CollectError, match=r"model\.bin: cannot read it for its sha256 .*run the plan again"):
        run_session(plan, tmp_path).models()
