"""Measuring modules: the one axis of variation of the collector. A module knows how to run one
kind of experiment (llama-server placements, PyTorch graph replay, ...) and what its record looks
like; the core does everything else (plan parsing, sampling, phases, statistics, energy,
provenance, resumable runs, atomic writing, schema validation, sealing).

How a module uses the core
--------------------------
1. Register it in `collector/modules/registry.py` (`MODULES`: name -> "package.module:Class"),
   imported lazily, so importing the registry never imports torch.
2. `validate_case(case)` checks the module-specific parts of one `CaseSpec` before anything runs
   (`case.placement`, `case.options`, `case.settings.extra`, `case.model`) and returns every
   problem as `case.problem("options.port", "expected an integer 1..65535")`. Optional
   `validate_plan(plan)` checks plan-wide things. Never raise for bad input here.
3. `run_case(case, session)` runs one case with a `collector.session.CaseSession`, already
   sampling the host (and the GPU through NVML, or recording why not):

       with session.phase("baseline"):
           time.sleep(case.settings.baseline_seconds)
       with session.phase("load"):
           # session.popen: Popen whose child dies with the collector (even on kill -9)
           proc = session.popen([...], stdout=session.log_path("server.log").open("wb"))
           session.track_process(proc.pid)        # RSS/PSS/CPU/faults/IO of that process
       for ctx in case.settings.contexts:
           with session.phase("warmup"):
               with session.window("warmup", group=ctx): ...
           with session.phase("responses"):
               for r in range(case.settings.measured_rounds):
                   session.progress.round(r + 1, case.settings.measured_rounds)
                   with session.window("measured", group=ctx, round=r) as w:
                       if not send_request(): w.fail()
       with session.phase("cleanup"):
           stop_server()
       # after the last phase (these stop the samplers):
       measured = session.windows("measured", group=ctx)
       group = session.response_group(measured, output_tokens)  # resources, CPU, union, tokens/s
       case_json["resources_by_phase"] = session.resources_by_phase()
       case_json["completed_response_resources"] = session.resources(session.windows("measured"))
       case_json["telemetry"] = session.telemetry_summary()
       case_json["case_wall_seconds"] = session.case_wall_seconds()

   It returns the case's JSON object with `"status": "completed"`. To fail a case, raise
   `CaseFailed(reason)`; any other exception fails it too (reason "Type: message", traceback in
   the case's run directory). The runner then calls `failed_case(case, reason, session)`, whose
   JSON is kept with `"status": "failed"` and `"failure_reason"`; the other cases still run.
   KeyboardInterrupt is not a failure: the case is left unfinished and re-runs on resume.
   Clean up your own processes in `finally:` (a try/finally around the phases).
4. Optional `estimate(case)` says how long a case should take from its plan alone (the
   `collect --dry-run` estimate: fixed waits, a typical figure when the plan fixes the work,
   the sum of its time limits when every step has one; `collector.estimate`).
5. Each finished case's JSON is stored atomically in the run directory; an interrupted
   `benchledger collect` resumes from there. When every case has a result, the runner calls
   `assemble(plan, case_results, run_session)` with the case JSON in plan order and a
   `collector.session.RunSession` (times, tested_at, hardware(), environment(), models(),
   sources(), file_sha256(), and article_fields(case_results): the article-level fields of a
   gsh-llm-core-article record). It returns the whole record; the core validates it against
   `schema`, writes it once and seals it in the store.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar

from benchledger.errors import Problem
from collector.estimate import Estimate

if TYPE_CHECKING:  # only for annotations; keeps this module import-light
    from collector.plan import CaseSpec, Plan
    from collector.session import CaseSession, RunSession


class CaseFailed(Exception):
    """Raised by run_case to end a case as failed with a reason that goes into the record."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class MeasuringModule(ABC):
    """One kind of measurement. Subclasses set `name` (the registry key) and `schema` (the id of
    the record schema their assemble() produces, e.g. "gsh-llm-core-article/1")."""

    name: ClassVar[str]
    schema: ClassVar[str]

    def validate_plan(self, plan: "Plan") -> list[Problem]:
        """Plan-wide problems (default: none)."""
        return []

    @abstractmethod
    def validate_case(self, case: "CaseSpec") -> list[Problem]:
        """Every problem with the module-specific parts of this case (empty list: fine)."""

    @abstractmethod
    def run_case(self, case: "CaseSpec", session: "CaseSession") -> dict[str, Any]:
        """Run one case through its phases; return its JSON with "status": "completed"."""

    def estimate(self, case: "CaseSpec") -> Estimate:
        """How long this (validated) case should take, from its plan alone, for `collect
        --dry-run` (collector.estimate). The default knows the baseline wait and no time limit;
        override it with what your plan keys imply (ready waits, rounds, timeouts)."""
        return Estimate(case.settings.baseline_seconds, unbounded=f"the {self.name} module sets no time limit on its steps")

    def failed_case(self, case: "CaseSpec", reason: str, session: "CaseSession") -> dict[str, Any]:
        """The JSON kept for a failed case. The default keeps identity, status, reason and
        the telemetry summary; override to add what your schema needs."""
        return {
            "failure_reason": reason,
            "id": case.id,
            "model": case.model.id if case.model else None,
            "module": case.module,
            "status": "failed",
            **({"telemetry": session.telemetry_summary()} if session.ran_here else {}),
        }

    @abstractmethod
    def assemble(self, plan: "Plan", case_results: list[dict[str, Any]], session: "RunSession") -> dict[str, Any]:
        """The whole record from the case JSON (plan order, failed ones included)."""
