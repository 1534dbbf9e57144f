"""What one Ray task runs on its node: one attempt of one case.

`run_attempt` is a generator task: it first yields where it runs (so the driver journals the
start and times the case from there, not from submission), then the case's result part as
bytes with their SHA-256, which the driver checks before using them. The case runs through the
same `execute_case` as a local run, with its GPU sampler on the GPU Ray gave the task; before
measuring, NVML is asked whether a foreign process uses that GPU (the case then fails with
that reason), and a worker whose collector differs from the driver's refuses to measure."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

from benchledger.records.digest import sha256_hex
from collector import record as record_io
from collector.dispatch.host import host_facts
from collector.dispatch.journal import utc_iso
from collector.dispatch.resources import node_label
from collector.plan import CaseSpec, Plan
from collector.progress import Progress


def worker_log_dir(plan: Plan, case: CaseSpec, attempt: int) -> Path:
    """The attempt's logs on the node that runs it ($BENCHLEDGER_WORKER_RUNS, else the temp
    folder): the driver's run folder may not exist on that machine."""
    root = Path(os.environ.get("BENCHLEDGER_WORKER_RUNS") or Path(tempfile.gettempdir()) / "benchledger-ray")
    return root / f"{plan.article_key}-{plan.sha256[:16]}" / case.id / f"attempt-{attempt}"


def _where(ray: Any) -> tuple[list[int], str | None, str]:
    """Ray's GPU ids for this task, this node's host label and its node id."""
    ctx = ray.get_runtime_context()
    node_id = ctx.get_node_id()
    label = next((node_label(n.get("Resources", {})) for n in ray.nodes() if n.get("NodeID") == node_id), None)
    return [int(g) for g in ray.get_gpu_ids()], label, node_id


def run_attempt(plan: Plan, case: CaseSpec, attempt: int, driver_collector_sha256: str) -> Iterator[dict[str, Any]]:
    """The body of the Ray task (see the module docstring): yields the start, then the part."""
    import ray

    from collector.runner import execute_case

    gpu_ids, label, node_id = _where(ray)
    facts, foreign = host_facts(gpu_ids, label, node_id, {os.getpid()})
    started = utc_iso()
    yield {"host": facts, "started_at": started}
    refuse = None
    if foreign:
        listed = ", ".join(f"pid {p['pid']} ({p['kind']}, GPU {p['uuid'] or p['nvml_index']})" for p in foreign)
        refuse = f"a foreign process uses the GPU given to this case: {listed}; nothing was measured"
    elif facts["collector_sha256"] != driver_collector_sha256:
        refuse = (f"the collector on host {facts['hostname']} ({facts['collector_sha256'][:16]}) differs from the driver's "
                  f"({driver_collector_sha256[:16]}); install the same benchledger on every node")
    if gpu_ids:  # sample the GPU Ray gave this task (Ray's ids index NVML's GPUs; see README)
        case = replace(case, settings=replace(case.settings, gpu_index=gpu_ids[0]))
    log_dir = worker_log_dir(plan, case, attempt)
    log_dir.mkdir(parents=True, exist_ok=True)
    with (log_dir / "progress.log").open("w") as stream:
        result = execute_case(plan, case, log_dir, Progress(1, stream=stream, tty=False), refuse=refuse)
    result["host"] = {**facts, "log_dir": str(log_dir)}
    part = record_io.encode(result)
    yield {"finished_at": utc_iso(), "part": part, "sha256": sha256_hex(part)}


def decode_part(reply: dict[str, Any]) -> dict[str, Any] | None:
    """The result in a worker's final reply, or None when its bytes do not hash to the SHA-256
    the worker sent with them (the driver then treats the attempt as a system failure)."""
    part = reply.get("part")
    if not isinstance(part, bytes) or sha256_hex(part) != reply.get("sha256"):
        return None
    return json.loads(part)
