"""The `graph_replay` measuring module: runs the eager-versus-graph experiment as the one case of
a plan and assembles a torch-graph-replay/1 record. torch is imported only when a case runs."""

from __future__ import annotations

import importlib.util
import os
import time
from typing import TYPE_CHECKING, Any

from benchledger.errors import Problem
from collector.estimate import Estimate
from collector.modules.base import CaseFailed, MeasuringModule
from collector.modules.graph_replay.experiment import SCHEMA, TIMING_SCOPE, Experiment, ExperimentError, installed_version
from collector.modules.graph_replay.settings import GraphReplaySettings, parse_settings

if TYPE_CHECKING:
    from collector.plan import CaseSpec, Plan
    from collector.session import CaseSession, RunSession

def case_settings(case: "CaseSpec") -> tuple[GraphReplaySettings, list[tuple[str, str]]]:
    """The case's experiment settings and problems (path below the case, message)."""
    core = {"measured_rounds": case.settings.measured_rounds,
            "warmup_rounds": case.settings.warmup_rounds, "seed": case.settings.seed}
    return parse_settings(case.settings.extra, core, case.options)


class GraphReplayModule(MeasuringModule):
    """PyTorch eager versus CUDA-graph replay of a scoring path (one case: one record)."""

    name = "graph_replay"
    schema = SCHEMA

    def validate_plan(self, plan: "Plan") -> list[Problem]:
        if len(plan.cases) != 1:
            return [plan.problem("$.cases", f"the graph_replay module makes one record from one case; "
                                 f"the plan has {len(plan.cases)} cases (write one plan per case)")]
        return []

    def validate_case(self, case: "CaseSpec") -> list[Problem]:
        settings, problems = case_settings(case)
        if importlib.util.find_spec("torch") is None:  # found now: a case that fails for it is sealed for good
            problems.append(("module", "the graph_replay module runs PyTorch, which is not installed here: "
                                       "pip install 'benchledger[torch]' (a CPU build runs the example plans without a GPU)"))
        if not any(where == "settings.workload" for where, _ in problems) and (missing := _unfindable(settings.workload)):
            # found now, not when the case runs: a failed case is sealed for good
            problems.append(("settings.workload", missing))
        return [case.problem(where, message) for where, message in problems]

    def estimate(self, case: "CaseSpec") -> Estimate:
        """Only the baseline wait is fixed: capture, replay and the repetitions take what the
        device takes, and no step has a time limit here (under `--ray`, [dispatch] timeout_s)."""
        return Estimate(case.settings.baseline_seconds, unbounded="the graph_replay experiment has no time limit "
                        "(run it with --ray and a [dispatch] timeout_s to bound it)")

    def run_case(self, case: "CaseSpec", session: "CaseSession") -> dict[str, Any]:
        settings, problems = case_settings(case)
        if problems:  # validate_case ran before; this guards direct callers
            raise CaseFailed("; ".join(f"{where}: {message}" for where, message in problems))
        session.track_process(os.getpid())  # the scoring runs in this process
        with session.phase("baseline"):
            time.sleep(case.settings.baseline_seconds)
        experiment = Experiment(settings, progress=session.progress.note,
                                phase=session.phase)
        try:
            body = experiment.run()
        except ExperimentError as err:
            raise CaseFailed(str(err)) from err
        with session.phase("cleanup"):
            _release_device_memory()
        return {"id": case.id, "status": "completed", "record": body}

    def failed_case(self, case: "CaseSpec", reason: str, session: "CaseSession") -> dict[str, Any]:
        return {"id": case.id, "status": "failed", "failure_reason": reason,
                "settings": case.settings.as_dict()}

    def assemble(self, plan: "Plan", case_results: list[dict[str, Any]], session: "RunSession") -> dict[str, Any]:
        (result,) = case_results
        record = dict(result["record"] if result["status"] == "completed" else failed_record(result))
        collection = session.sources()  # plan hash and id, collector hash, start and end times
        record["sources"] = record["sources"] + [f"plan:{plan.path.name}@sha256:{plan.sha256}",
                                                 f"collector@sha256:{collection['runner_sha256']}"]
        record["limitations"] = record["limitations"] + list(plan.limitations)
        record["tested_at"] = session.tested_at  # the store path's date
        record["hardware"] = session.hardware()
        record["environment"] = session.environment()
        record["collection"] = collection
        return record


def failed_record(result: dict[str, Any]) -> dict[str, Any]:
    """A record for a case that did not finish: incomplete, nothing measured, every flag false."""
    return {
        "schema": SCHEMA,
        "complete": False,
        "failure_reason": result["failure_reason"],
        "profile": result.get("settings", {}).get("profile", "fp32"),
        "device": "unknown: the case failed before measuring",
        "torch_version": installed_version("torch") or "not installed",
        "graph_capture_and_replay_executed": False,
        "exact_shape_only": True,
        "padded_buckets_tested": False,
        "CPU_fallback": False,
        "numeric_and_decision_exact_in_observed_sample": None,
        "full_quality_graph_qualified": False,
        "adopted_for_full_quality": False,
        "measurements": [],
        "overlimit": [],
        "timing_scope": TIMING_SCOPE,
        "sources": [],
        "finished_epoch": time.time(),
        "limitations": [f"The case failed and nothing was measured: {result['failure_reason']}"],
    }


def _release_device_memory() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def _unfindable(workload: str) -> str | None:
    """Why the module of `workload` ("package.module:factory") cannot be imported, or None.
    Looked up without running it (its parent packages are imported, as any import does)."""
    module = workload.partition(":")[0]
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError) as err:
        return f"cannot find module {module!r} ({err}); install it, or run collect where it is on the Python path"
    if found is None:
        return f"no module named {module!r}; install it, or run collect where it is on the Python path"
    return None
