"""Per-case dispatch overhead of `benchledger collect --ray` against a local run of the same
plan: N short phase_workload cases, collected once locally and once through a one-node Ray
cluster with one (fake) GPU, so both run the cases one after the other. The overhead per case
is (Ray wall time - local wall time) / N, and includes the driver connecting to the cluster, a
fresh worker process per case (max_calls=1), the where-it-ran and GPU checks and the journal.
Cluster start-up is not counted. The last line is `overhead_s_per_case=X` (goal: < 1).

Run as root: the cluster lives in a private network namespace (loopback only) and ends with it.

    .venv/bin/python bench/dispatch.py [--cases 6]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PLAN = """article_key = "dispatch-bench"
module = "phase_workload"
[settings]
contexts = [20]
output_tokens = 16
warmup_rounds = 0
measured_rounds = 2
baseline_seconds = 0.2
host_sample_hz = 10.0
gpu_sample_hz = 1.0
[models.blob]
files = ["model.bin"]
"""


def collect_seconds(plan: Path, work: Path, *extra: str) -> float:
    records = work / "records"
    records.mkdir(parents=True)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "benchledger", "collect", str(plan), "--records", str(records), "--runs", str(work / "runs"), *extra],
                          cwd=REPO, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if done.returncode != 0 or "sealed" not in done.stdout:
        sys.exit(f"collect failed:\n{done.stdout}\n{done.stderr[-3000:]}")
    return seconds


def turnover_seconds(journal: Path) -> list[float]:
    """Per case after the first: from the driver learning the previous case ended to it
    learning this one started (both on the driver's clock)."""
    events = [json.loads(line) for line in journal.read_text().splitlines()]
    ends = sorted(datetime.fromisoformat(e["at"]) for e in events if e["event"] == "completed")
    starts = sorted(datetime.fromisoformat(e["at"]) for e in events if e["event"] == "started")
    return [(start - end).total_seconds() for end, start in zip(ends, starts[1:])]


def inside(cases: int) -> None:
    """In the namespace: write the plan, run it locally, then through a fresh one-node cluster."""
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    from ray.cluster_utils import Cluster

    work = Path(tempfile.mkdtemp(prefix="dispatch-bench-"))
    try:
        (work / "model.bin").write_bytes(os.urandom(50_000))
        plan = work / "plan.toml"
        plan.write_text(PLAN + "".join(f'[[cases]]\nid = "c{i}"\nmodel = "blob"\n' for i in range(cases)))
        local_s = collect_seconds(plan, work / "local")
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
        cluster.add_node(num_cpus=2, num_gpus=1)
        cluster.wait_for_nodes()
        os.environ["BENCHLEDGER_WORKER_RUNS"] = str(work / "worker-runs")
        ray_s = collect_seconds(plan, work / "ray", "--ray", cluster.address)
        cluster.shutdown()
        gaps = turnover_seconds(next((work / "ray" / "runs").glob("*/dispatch.jsonl")))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"cases={cases} local_s={local_s:.2f} ray_s={ray_s:.2f} (one node, one GPU: cases run one at a time on both paths)")
    print(f"local_s_per_case={local_s / cases:.2f} ray_s_per_case={ray_s / cases:.2f}")
    print(f"turnover_s (driver saw case i-1 end -> case i start, a fresh worker each): median {statistics.median(gaps):.2f}, "
          f"max {max(gaps):.2f}; the rest of the overhead is the driver's import of ray, connecting and disconnecting")
    print(f"loadavg {open('/proc/loadavg').read().strip()}")
    print(f"overhead_s_per_case={(ray_s - local_s) / cases:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=6)
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        inside(args.cases)
        return
    if os.geteuid() != 0 or not shutil.which("unshare"):
        sys.exit("bench/dispatch.py needs root and unshare (it runs the cluster in a private network namespace)")
    script = f"ip link set lo up && exec {sys.executable} {Path(__file__).resolve()} --inside --cases {args.cases}"
    sys.exit(subprocess.run(["unshare", "--net", "--pid", "--fork", "--mount-proc", "sh", "-c", script], cwd=REPO).returncode)


if __name__ == "__main__":
    main()
