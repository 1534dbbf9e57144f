"""Done-when test of the collector core: a real workload subprocess (the built-in phase_workload
module) driven through every phase on this CPU-only machine; every statistic, counter delta,
CPU figure and energy figure in the sealed record is recomputed here, independently and by brute
force, from the raw samples the run kept (logs/<case>/telemetry.json)."""

import json
import math
import statistics

import pytest
from fake_pynvml import FakeNvml

from benchledger.records.schema import undescribed_keys
from benchledger.records.store import Store
from collector.phases import PHASES
from collector.plan_loader import load_plan
from collector.progress import Progress
from collector.runner import Runner


def run(plan_path, tmp_path, nvml=None):
    import io

    (tmp_path / "records").mkdir(exist_ok=True)
    runner = Runner(load_plan(plan_path), tmp_path / "records", tmp_path / "runs", progress=Progress(2, stream=io.StringIO()), nvml=nvml)
    outcome = runner.run()
    raw = (tmp_path / "records" / outcome.store_path).read_bytes()
    return runner, outcome, json.loads(raw)


def stat(values):
    if not values:
        return None
    return {"maximum": max(values), "mean": sum(values) / len(values), "median": statistics.median(values), "minimum": min(values), "sample_count": len(values)}


def assert_stat(got, values):
    want = stat(values)
    if want is None:
        assert got is None
        return
    assert got["sample_count"] == want["sample_count"]
    for k in ("maximum", "minimum", "median"):
        assert got[k] == want[k], k
    assert got["mean"] == pytest.approx(want["mean"], rel=1e-12)


def inside(samples, intervals):
    return [s for s in samples if any(a <= s["t"] <= b for a, b in intervals)]


def union_len(intervals):
    total, end = 0.0, -math.inf
    for a, b in sorted(intervals):
        if b > end:
            total += b - max(a, end)
            end = b
    return total


def energy(gpu, intervals):
    """Brute-force trapezoid: evaluate the linear interpolant at every sample and boundary."""
    pts = [(s["t"], s["board_watts"]) for s in gpu]

    def w(t):
        for (t0, w0), (t1, w1) in zip(pts, pts[1:]):
            if t0 <= t <= t1:
                return w0 if t1 == t0 else w0 + (w1 - w0) * (t - t0) / (t1 - t0)
        return None

    merged = []
    for a, b in sorted(intervals):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    joules = 0.0
    for a, b in merged:
        if w(a) is None or w(b) is None:
            return None
        cuts = [a] + [t for t, _ in pts if a < t < b] + [b]
        joules += sum((y - x) * (w(x) + w(y)) / 2 for x, y in zip(cuts, cuts[1:]))
    return joules


def check_resources(block, raw, intervals):
    host = inside(raw["host_samples"], intervals)
    gpu = inside(raw["gpu_samples"], intervals)
    procs = [s["process"] for s in host if s["process"]]
    assert block["host_sample_count"] == len(host)
    assert block["gpu_sample_count"] == len(gpu)
    assert block["process_sample_count"] == len(procs)
    assert block["response_union_seconds"] == pytest.approx(union_len(intervals), abs=1e-12)
    m = block["metrics"]
    assert_stat(m["host_mem_available_bytes"], [s["mem_available_bytes"] for s in host])
    assert_stat(m["cgroup_memory_current_bytes"], [s["cgroup_memory_current_bytes"] for s in host if s["cgroup_memory_current_bytes"] is not None])
    assert_stat(m["process_rss_bytes"], [p["rss_bytes"] for p in procs])
    pss = [p["pss_bytes"] for p in procs if p["pss_bytes"] is not None]
    if "boundary_pss_bytes" in block:  # pss_mode "boundaries": PSS read only at phase boundaries
        assert m["process_pss_bytes"] is None
        assert_stat(block["boundary_pss_bytes"], pss)
    else:
        assert len(pss) == len(procs)
        assert_stat(m["process_pss_bytes"], pss)
    assert_stat(m["gpu_board_watts"], [s["board_watts"] for s in gpu])
    assert_stat(m["gpu_sm_clock_mhz"], [s["sm_clock_mhz"] for s in gpu])
    # counter deltas: first and last process sample inside each declared interval
    observed, seconds, totals = 0, 0.0, {}
    for a, b in intervals:
        ps = [s for s in raw["host_samples"] if a <= s["t"] <= b and s["process"]]
        if len(ps) >= 2:
            observed += 1
            seconds += ps[-1]["t"] - ps[0]["t"]
            for k in ("major_faults", "read_syscall_bytes", "storage_read_bytes", "storage_write_bytes"):
                totals[k] = totals.get(k, 0) + ps[-1]["process"][k] - ps[0]["process"][k]
    d = block["sampled_counter_deltas"]
    assert d["requested_intervals"] == len(intervals) and d["observed_intervals"] == observed
    assert d["observed_endpoint_seconds"] == pytest.approx(seconds, abs=1e-12)
    assert d["deltas"] == (totals or None)
    e = block["gpu_energy"]
    if not raw["gpu_info"]["available"]:
        assert e == {"available": False, "joules": None, "reason": raw["gpu_info"]["reason_code"]}
    else:
        want = energy(raw["gpu_samples"], intervals)
        assert e["available"] is (want is not None)
        if want is not None:
            assert e["joules"] == pytest.approx(want, rel=1e-9)
            assert e["watt_hours"] == pytest.approx(want / 3600, rel=1e-9)
            assert e["time_weighted_mean_watts"] == pytest.approx(want / union_len(intervals), rel=1e-9)
    return host, procs


def check_case(case, raw, logical_cpus):
    phases = {}
    for p in raw["phases"]:
        phases.setdefault(p["name"], []).append((p["start"], p["end"]))
    assert set(case["resources_by_phase"]) == set(phases) == set(PHASES)
    for name, ivs in phases.items():
        check_resources(case["resources_by_phase"][name], raw, ivs)
    # the baseline runs before the child exists: host samples but no process samples
    base = case["resources_by_phase"]["baseline"]
    assert base["host_sample_count"] >= 2 and base["process_sample_count"] == 0 and base["metrics"]["process_rss_bytes"] is None
    measured = [w for w in raw["windows"] if w["kind"] == "measured" and w["completed"]]
    ivs = [(w["interval"]["start"], w["interval"]["end"]) for w in measured]
    check_resources(case["completed_response_resources"], raw, ivs)
    for g in case["groups"]:
        ws = [w for w in measured if w["group"] == g["context_tokens"]]
        gi = [(w["interval"]["start"], w["interval"]["end"]) for w in ws]
        check_resources(g["resources"], raw, gi)
        assert_stat(g["response_seconds"], [b - a for a, b in gi])
        assert g["completed_request_count"] == len(ws) == 3
        assert g["response_window_union_seconds"] == pytest.approx(union_len(gi), abs=1e-12)
        assert g["aggregate_output_tokens_per_second"] == pytest.approx(g["completed_output_tokens"] / union_len(gi))
        c = g["cpu_snapshot_intervals"]
        secs = sum(w["cpu_after"]["t"] - w["cpu_before"]["t"] for w in ws)
        cpu = sum(w["cpu_after"]["process_cpu_seconds"] - w["cpu_before"]["process_cpu_seconds"] for w in ws)
        assert c["interval_count"] == 3
        assert c["interval_seconds"] == pytest.approx(secs, abs=1e-12) and c["process_cpu_seconds"] == pytest.approx(cpu, abs=1e-12)
        assert c["one_logical_cpu_percent"] == pytest.approx(cpu / secs * 100)
        assert c["host_capacity_percent"] == pytest.approx(cpu / secs * 100 / logical_cpus)
        assert c["process_cpu_seconds"] > 0  # the child burns CPU in every window (10 ms ticks)
    t = case["telemetry"]
    times = [s["t"] for s in raw["host_samples"]]
    assert t["host_samples"] == len(times) and t["gpu_samples"] == len(raw["gpu_samples"])
    assert t["maximum_host_gap_seconds"] == pytest.approx(max(b - a for a, b in zip(times, times[1:])), abs=1e-12)


def test_real_workload_through_every_phase_without_gpu(make_plan, tmp_path):
    runner, outcome, record = run(make_plan(), tmp_path)
    assert Store(tmp_path / "records").verify().ok
    assert record["status"] == "completed" and outcome.statuses == {"small": "completed", "large": "completed"}
    # the options the plan compares along are recorded (the article read "alloc_mib None" before)
    assert [c["settings"]["alloc_mib"] for c in record["cases"]] == [8, 32]
    assert record["hardware"]["gpu"] is None and "NVML" in record["hardware"]["gpu_unavailable_reason"] or record["hardware"]["gpu"]
    for case in record["cases"]:
        raw = json.loads((runner.run_dir / "logs" / case["id"] / "telemetry.json").read_bytes())
        check_case(case, raw, record["hardware"]["logical_cpu_count"])
        if not raw["gpu_info"]["available"]:  # this CPU-only machine: unavailable, with the reason
            assert case["telemetry"]["gpu"]["reason"] and case["telemetry"]["gpu_samples"] == 0
            assert case["completed_response_resources"]["metrics"]["gpu_board_watts"] is None
    small, large = (c["resources_by_phase"]["responses"]["metrics"]["process_rss_bytes"]["minimum"] for c in record["cases"])
    assert large - small >= 20 << 20  # 32 MiB vs 8 MiB allocated during load
    assert record["cases"][0]["resources_by_phase"]["load"]["boundary_pss_bytes"]["sample_count"] == 2
    load = record["cases"][0]["resources_by_phase"]["load"]["sampled_counter_deltas"]
    assert load["deltas"]["read_syscall_bytes"] >= 100_000  # the child read the model file while loading
    assert record["models"][0]["files"][0]["bytes"] == 100_000
    assert undescribed_keys(record, record["schema"]) == []  # the glossary explains every field


def test_energy_and_gpu_statistics_through_the_nvml_test_double(make_plan, tmp_path):
    watts = [float(100_000 + 7_000 * (i % 13)) for i in range(400)]
    nvml = FakeNvml(power_mw=watts, sm_clock=[1500, 1600, 1700], reasons=[0, 0x40, 0], energy_mj=[1000 * i for i in range(1, 2000)])
    runner, _, record = run(make_plan(cases={"one": {"alloc_mib": 8}}, gpu_sample_hz=25.0, pss_mode="every_sample"), tmp_path, nvml=nvml)
    case = record["cases"][0]
    raw = json.loads((runner.run_dir / "logs" / "one" / "telemetry.json").read_bytes())
    assert raw["gpu_info"]["available"] and len(raw["gpu_samples"]) > 20
    check_case(case, raw, record["hardware"]["logical_cpu_count"])
    e = case["resources_by_phase"]["responses"]["gpu_energy"]
    assert e["available"] is True and e["joules"] > 0 and e["trapezoid_pieces"] >= 2
    assert e["power_method"] == "nvmlDeviceGetPowerUsage"
    assert e["energy_counter"]["method"] == "nvmlDeviceGetTotalEnergyConsumption" and e["energy_counter"]["joules"] > 0
    assert case["telemetry"]["thermal_slowdown_states"]["hardware"]["active"] >= 1
    assert record["hardware"]["gpu"] == "Fake RTX 9000" and record["environment"]["nvidia_driver"] == "999.99"
    assert case["resources_by_phase"]["load"]["metrics"]["process_pss_bytes"]["sample_count"] >= 2
    assert undescribed_keys(record, record["schema"]) == []  # the GPU fields too


def test_a_failed_case_keeps_its_reason_and_the_others_complete(make_plan, tmp_path):
    plan = make_plan(cases={"ok-1": {"alloc_mib": 8}, "dies": {"alloc_mib": 8, "fail_phase": "responses"}, "ok-2": {"alloc_mib": 8}})
    runner, outcome, record = run(plan, tmp_path)
    assert outcome.statuses == {"ok-1": "completed", "dies": "failed", "ok-2": "completed"}
    assert record["status"] == "partial"
    dies = record["cases"][1]
    assert dies["status"] == "failed" and "workload child stopped during 'die'" in dies["failure_reason"]
    assert "responses" in dies["resources_by_phase"]  # what was measured before the failure is kept
    assert undescribed_keys(record, record["schema"]) == []
    assert Store(tmp_path / "records").verify().ok
