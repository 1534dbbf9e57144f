"""Runs inside a private network and PID namespace (see test_ray_dispatch.py): starts a real
multi-node Ray cluster in this process (ray.cluster_utils.Cluster, fake GPUs, host labels as
custom resources), drives `benchledger collect --ray` against it as a subprocess, and writes
what happened to a JSON report. Every Ray process ends with the namespace.

    python cluster_scenarios.py SCENARIO PLAN WORKDIR REPORT"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

os.environ["RAY_USAGE_STATS_ENABLED"] = "0"

import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402


def start(labels: list[str]) -> tuple[Cluster, dict[str, object]]:
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    nodes = {label: cluster.add_node(num_cpus=2, num_gpus=1, resources={f"host:{label}": 1, "benchledger_host": 1}) for label in labels}
    cluster.wait_for_nodes()
    return cluster, nodes


def collect(plan: Path, work: Path, address: str) -> list[str]:
    return [sys.executable, "-m", "benchledger", "collect", str(plan), "--ray", address,
            "--records", str(work / "records"), "--runs", str(work / "runs")]


def journal(work: Path) -> list[dict]:
    found = list((work / "runs").glob("*/dispatch.jsonl")) if (work / "runs").exists() else []
    if not found:
        return []
    return [json.loads(line) for line in found[0].read_text().splitlines() if line.strip()]


def wait_for(predicate, timeout_s: float, proc: subprocess.Popen | None = None):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"collect ended early: {proc.communicate()}")
        time.sleep(0.1)
    raise TimeoutError("condition not reached")


def run(cmd: list[str]) -> dict:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    return {"rc": done.returncode, "stdout": done.stdout, "stderr": done.stderr}


def scenario_spread(plan: Path, work: Path) -> dict:
    """Every case of the plan on a two-node cluster (node-a, node-b, one GPU each)."""
    cluster, _ = start(["node-a", "node-b"])
    return {"collect": run(collect(plan, work, cluster.address))}


def scenario_node_dies(plan: Path, work: Path) -> dict:
    """Cases 'roam' (unpinned) and 'pinned' (host node-b) on three nodes: the node running
    'roam' is removed mid-case, and node-b too, so 'roam' retries elsewhere and 'pinned' finds
    its host gone (mid-case, or while it waited for node-b's GPU when 'roam' ran there)."""
    cluster, nodes = start(["node-a", "node-b", "node-c"])
    proc = subprocess.Popen(collect(plan, work, cluster.address), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started = lambda case: next((e["label"] for e in journal(work) if e["event"] == "started" and e["case"] == case), None)  # noqa: E731
    roam = wait_for(lambda: started("roam"), 120, proc)
    time.sleep(0.5)  # inside the measured phases
    cluster.remove_node(nodes[roam])
    removed = [roam]
    pinned = None
    if roam != "node-b":
        pinned = wait_for(lambda: started("pinned"), 120, proc)
        time.sleep(0.5)
        cluster.remove_node(nodes["node-b"])
        removed.append("node-b")
    out, err = proc.communicate(timeout=240)
    return {"collect": {"rc": proc.returncode, "stdout": out, "stderr": err}, "first_hosts": {"roam": roam, "pinned": pinned}, "removed": removed}


def scenario_driver_killed(plan: Path, work: Path) -> dict:
    """The driver is SIGKILLed after one case completed while others run, then started again
    (twice: the second finds the record sealed)."""
    cluster, _ = start(["node-a", "node-b"])
    proc = subprocess.Popen(collect(plan, work, cluster.address), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    events = lambda kind: [e for e in journal(work) if e["event"] == kind]  # noqa: E731
    wait_for(lambda: events("completed") and len(events("started")) > len(events("completed")) + len(events("failed")), 120, proc)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    killed = {"rc": proc.returncode, "journal": journal(work)}
    time.sleep(1.0)  # Ray notices the dead driver and ends its tasks
    again = run(collect(plan, work, cluster.address))
    third = run(collect(plan, work, cluster.address))
    return {"killed": killed, "again": again, "third": third}


def main() -> None:
    name, plan, work, report = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
    result = globals()[f"scenario_{name}"](plan, work)
    report.write_text(json.dumps(result))
    ray.shutdown()


if __name__ == "__main__":
    main()
