"""A small built-in measuring module that needs no model server: it drives a Python child
process through every phase (baseline, load, ready, warmup, responses, cleanup) with real work
(it allocates memory, burns CPU, reads the model file and writes to disk) and writes a
`gsh-llm-core-article/1` record. It exists to exercise the collector core end to end and to show
module authors a complete, small module.

Plan keys: settings.contexts are milliseconds of CPU work per request ("work units"),
settings.output_tokens the notional tokens each request produces. Case options: `alloc_mib`
(memory the child allocates while loading, default 16), `write_bytes` (written and fsynced per
request, default 65536), `ready_seconds` (default 0.2), `fail_phase` (the child dies in this
phase: a failed case, for tests)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from typing import Any

from benchledger.errors import Problem
from benchledger.records.numbers import is_integer, is_number
from collector.estimate import Estimate
from collector.modules.base import CaseFailed, MeasuringModule
from collector.phases import PHASES
from collector.plan import PlanKey
from collector.statistics import summarize

OPTIONS = {
    "alloc_mib": PlanKey(16, lambda v: is_integer(v) and 0 <= v <= 4096, "an integer 0..4096"),
    "write_bytes": PlanKey(65536, lambda v: is_integer(v) and 0 <= v <= 1 << 26, "an integer 0..67108864"),
    "ready_seconds": PlanKey(0.2, lambda v: is_number(v) and 0 <= v <= 60, "a number of seconds 0..60"),
    "fail_phase": PlanKey(None, lambda v: v in PHASES, f"one of {', '.join(PHASES)}"),
}
PLACEMENT_MEANING = "Runtime buffer allocation is not measured resident process RAM."
LIMITATIONS = [
    "A synthetic CPU workload measured by the collector's own test module, not a model server.",
    "GPU board power is not whole-server AC power; energy is unavailable without bracketing samples.",
    "Sampled memory peaks may not coincide and do not establish minimum required system RAM.",
]


class Child:
    """The workload child process, spoken to one command per line."""

    def __init__(self, session, log):
        self.proc = session.popen(
            [sys.executable, "-u", "-m", "collector.modules.phase_workload"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            cwd=session.run_dir,
            text=True,
        )

    def ask(self, command: str) -> str:
        try:
            self.proc.stdin.write(command + "\n")
            self.proc.stdin.flush()
            reply = self.proc.stdout.readline()
        except (BrokenPipeError, OSError):
            reply = ""
        if not reply.startswith("ok"):
            code = self.proc.poll()
            raise CaseFailed(f"workload child stopped during {command.split()[0]!r} (exit status {code})")
        return reply[2:].strip()

    def close(self) -> int | None:
        if self.proc.poll() is None:
            try:
                self.ask("exit")
            except CaseFailed:
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


class PhaseWorkloadModule(MeasuringModule):
    name = "phase_workload"
    schema = "gsh-llm-core-article/1"

    def validate_case(self, case) -> list[Problem]:
        problems = case.key_problems("options", case.options, OPTIONS, "unknown option")
        # it records gpu_layers 0 and none of another module's keys: one written in the plan would
        # be silently left out of the run and its record
        problems += [case.problem(f"settings.{key}", "not a phase_workload setting (it takes only the core settings; "
                                  f"its own keys are [cases.options]: {', '.join(OPTIONS)})") for key in sorted(case.settings.extra)]
        if case.placement:
            problems.append(case.problem("placement", "phase_workload runs on the CPU only and takes no placement; remove it"))
        if not case.settings.contexts:
            problems.append(case.problem("settings.contexts", "expected at least one work size (milliseconds of CPU per request)"))
        if case.settings.output_tokens is None:
            problems.append(case.problem("settings.output_tokens", "expected a positive integer"))
        if case.model is None:
            problems.append(case.problem("model", "expected a model id (its first file is read while loading)"))
        return problems

    def estimate(self, case) -> Estimate:
        """The plan fixes everything but the child's start: the baseline and ready waits and
        each request's CPU work (a context's value in milliseconds, warmup and measured rounds
        alike), so that is both the least and the typical figure. The child has no time limit."""
        s = case.settings
        work_s = sum(s.contexts) / 1000 * (s.warmup_rounds + s.measured_rounds)
        fixed = s.baseline_seconds + self._option(case, "ready_seconds") + work_s
        return Estimate(fixed, fixed, None, "the workload child has no time limit")

    def _option(self, case, key):
        return case.options.get(key, OPTIONS[key].default)

    def _case_settings(self, case) -> dict[str, Any]:
        # the case's options are what its plan compares along (`axis = "alloc_mib"`): recorded,
        # or the article reads "alloc_mib None" for every case
        options = {key: self._option(case, key) for key in ("alloc_mib", "write_bytes")}
        return {**case.settings.as_dict(), **options, "concurrency": 1, "endpoint": "stdin-pipe", "placement": {"gpu_layers": 0}}

    def run_case(self, case, session) -> dict[str, Any]:
        s = case.settings
        fail = self._option(case, "fail_phase")
        child = None

        def maybe_die(phase: str) -> None:
            if fail == phase:
                child.ask("die")

        with (session.log_path("child.log")).open("w") as log:
            try:
                with session.phase("baseline"):
                    time.sleep(s.baseline_seconds)
                with session.phase("load"):
                    child = Child(session, log)
                    session.track_process(child.proc.pid)
                    child.ask(f"alloc {self._option(case, 'alloc_mib')}")
                    child.ask(f"read {json.dumps(str(case.model.files[0]))}")  # any name, spaces and newlines too
                    maybe_die("load")
                with session.phase("ready"):
                    time.sleep(self._option(case, "ready_seconds"))
                    maybe_die("ready")
                decode: dict[int, list[float]] = {}
                warm_done: dict[int, int] = {}
                total = len(s.contexts) * s.measured_rounds
                for ctx in s.contexts:
                    with session.phase("warmup"):
                        warm_done[ctx] = 0
                        for r in range(s.warmup_rounds):
                            with session.window("warmup", group=ctx, round=r):
                                child.ask(f"burn {ctx / 1000}")
                            warm_done[ctx] += 1
                        maybe_die("warmup")
                    with session.phase("responses"):
                        decode[ctx] = []
                        for r in range(s.measured_rounds):
                            session.progress.round(len(session.windows("measured")) + 1, total)
                            with session.window("measured", group=ctx, round=r):
                                spent = float(child.ask(f"burn {ctx / 1000}"))
                                child.ask(f"write {self._option(case, 'write_bytes')}")
                            decode[ctx].append(s.output_tokens / spent if spent > 0 else 0.0)
                        maybe_die("responses")
                with session.phase("cleanup"):
                    maybe_die("cleanup")
                    child.close()
            finally:
                if child is not None:
                    child.close()

        groups = []
        for ctx in s.contexts:
            done = session.windows("measured", group=ctx)
            failed = session.windows("measured", group=ctx, completed=False)
            groups.append(
                {
                    **session.response_group(done, s.output_tokens * len(done)),
                    "completed_request_count": len(done),
                    "context_tokens": ctx,
                    "failed_request_count": len(failed),
                    "measured_rounds": s.measured_rounds,
                    "mode": "synthetic-cpu-burn",
                    "response_seconds": summarize([w.interval.seconds for w in done]),
                    "server_decode_tokens_per_second": summarize(decode[ctx]),
                    "warmup_completed_rounds": warm_done[ctx],
                    "warmup_requests_per_round": 1,
                }
            )
        return {
            "case_wall_seconds": session.case_wall_seconds(),
            "completed_response_resources": session.resources(session.windows("measured")),
            "groups": groups,
            "id": case.id,
            "model": case.model.id,
            "module": "phase-workload",
            "placement": {"buffers": [], "gpu_layers": 0, "meaning": PLACEMENT_MEANING, "total_layers": 0},
            "resources_by_phase": session.resources_by_phase(),
            "settings": self._case_settings(case),
            "status": "completed",
            "telemetry": session.telemetry_summary(),
        }

    def failed_case(self, case, reason, session) -> dict[str, Any]:
        return {
            **super().failed_case(case, reason, session),
            "groups": [],
            "model": case.model.id,
            "module": "phase-workload",
            **({"resources_by_phase": session.resources_by_phase()} if session.ran_here else {}),
            "settings": self._case_settings(case),
        }

    def assemble(self, plan, case_results, session) -> dict[str, Any]:
        return {
            **session.article_fields(case_results),
            "cases": case_results,
            "limitations": LIMITATIONS + list(plan.limitations),
            "models": session.models(),
            "protocol": "benchledger-phase-workload/1",
            "runtime": {"binary_sha256": session.file_sha256(sys.executable).sha256, "name": "python", "release": platform.python_version()},
            "schema": self.schema,
        }


def child_main() -> None:
    """The workload child: one command per stdin line, "ok [value]" per reply (a file name as
    JSON: stripping the line cut a name's trailing spaces, and a newline in one split it)."""
    held: list[bytearray] = []
    for line in sys.stdin:
        cmd, _, arg = line.rstrip("\n").partition(" ")
        reply = ""
        if cmd == "alloc":
            block = bytearray(int(arg) << 20)
            for i in range(0, len(block), 4096):  # touch every page so it is resident
                block[i] = 1
            held.append(block)
        elif cmd == "burn":
            start = time.process_time()
            while time.process_time() - start < float(arg):
                sum(range(1000))
            reply = repr(time.process_time() - start)
        elif cmd == "read":
            with open(json.loads(arg), "rb") as f:
                reply = str(len(f.read()))
        elif cmd == "write":
            with open("workload.out", "wb") as f:
                f.write(os.urandom(int(arg)))
                f.flush()
                os.fsync(f.fileno())
        elif cmd == "die":
            os._exit(3)
        elif cmd == "exit":
            print("ok", flush=True)
            return
        print(f"ok {reply}".strip(), flush=True)


if __name__ == "__main__":
    child_main()
