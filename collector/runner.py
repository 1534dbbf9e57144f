"""Run a plan case by case and seal one record.

Everything a run produces lives in a run directory, `RUNS/<article_key>-<plan sha256[:16]>/`:
`results/<case>.json` (each finished case, written atomically), `logs/<case>/` (module logs),
`run.json` (first start time), `record*.json` (the assembled bytes) and `target*.json` (the store
path chosen for them). Killed at any moment (kill -9 included), a run leaves at most finished case
files and perhaps an assembled record; running the same plan again resumes: completed cases are
kept, failed and unfinished ones run (again), and an assembled record whose cases all completed
is sealed instead of re-assembled, so such a run is sealed once. `--fresh` runs every case again. The store only changes through `Store.seal_bytes`, which is atomic, so no
partial record is ever sealed."""

from __future__ import annotations

import fcntl
import json
import os
import traceback
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from benchledger.atomic import write_atomic
from benchledger.errors import CollectError, ConsistencyError, SchemaError, SealError, os_reason
from benchledger.files import stat_identity
from benchledger.records.digest import sha256_hex
from collector import record as record_io
from collector.estimate import Estimate, describe, total
from collector.modules.base import CaseFailed
from collector.modules.registry import get_module
from collector.plan import CaseSpec, Plan
from collector.progress import Progress
from collector.session import CaseSession, RunSession, utc_now
from collector.telemetry.gpu import GpuSampler


@dataclass(frozen=True)
class RunOutcome:
    run_dir: Path
    statuses: dict[str, str]  # case id -> completed / failed
    store_path: str  # where the record was sealed
    sha256: str
    already_sealed: bool  # the same run had been sealed before: nothing new


class Runner:
    """Runs `plan` (or the selected cases) into `runs_dir` and seals into `records_dir`. `nvml`
    is passed to the GPU sampler (tests give a pynvml test double; None imports pynvml)."""

    def __init__(self, plan: Plan, records_dir: Path, runs_dir: Path, case_ids: list[str] | None = None, progress: Progress | None = None, nvml: Any = None):
        self.plan = plan
        self.records_dir = Path(records_dir)
        unknown = [c for c in case_ids or [] if c not in {x.id for x in plan.cases}]
        if unknown:
            raise CollectError(f"{plan.path}: no case with id {', '.join(map(repr, unknown))}; cases: {', '.join(c.id for c in plan.cases)}")
        self.cases = [c for c in plan.cases if not case_ids or c.id in case_ids]
        self.partial = len(self.cases) != len(plan.cases)
        self.run_dir = Path(runs_dir) / f"{plan.article_key}-{plan.sha256[:16]}"
        self.progress = progress or Progress(len(self.cases))
        self.nvml = nvml
        suffix = "" if not self.partial else "-" + "+".join(c.id for c in self.cases)
        self.record_file = self.run_dir / f"record{suffix}.json"
        self.target_file = self.run_dir / f"target{suffix}.json"

    def result_file(self, case: CaseSpec) -> Path:
        return self.run_dir / "results" / f"{case.id}.json"

    def inputs_file(self, case: CaseSpec) -> Path:
        """Where the identity of the model files a case was measured on is kept (`model_files`)."""
        return self.run_dir / "inputs" / f"{case.id}.json"

    def changed_inputs(self, case: CaseSpec) -> str | None:
        """Which of the case's model files changed since its kept result was measured (another
        file at the path, other bytes), or None: a resume kept such a case while the record named
        the new file's SHA-256 for it. A result kept from before these files were written is taken
        as it is."""
        kept = self.inputs_file(case)
        if not kept.is_file():
            return None
        then = json.loads(kept.read_bytes())
        now = model_files(case)
        return next((path for path, identity in then.items() if now.get(path) != identity), None)

    def finished(self) -> dict[str, dict[str, Any]]:
        """Results of the selected cases that already finished, completed or failed (from an
        earlier run of the same plan)."""
        out = {}
        for case in self.cases:
            f = self.result_file(case)
            if f.is_file():
                out[case.id] = json.loads(f.read_bytes())
        return out

    # Cases run one after another here; a Ray driver runs them side by side where there is room.
    parallel = False

    def estimate(self, case: CaseSpec) -> Estimate:
        """How long `case` should take when this runner runs it (its module's estimate)."""
        return get_module(case.module).estimate(case)

    def forget(self) -> None:
        """--fresh: drop finished results and assembled records of the selection."""
        for case in self.cases:
            self.result_file(case).unlink(missing_ok=True)
            self.inputs_file(case).unlink(missing_ok=True)
        self.record_file.unlink(missing_ok=True)
        self.target_file.unlink(missing_ok=True)

    def run(self, fresh: bool = False) -> RunOutcome:
        """Run the pending cases, assemble and seal; with `fresh` (--fresh), `forget` first,
        once this run holds the run folder's lock: a refused --fresh (another collect is running
        this plan) deleted that collect's finished results."""
        if not self.records_dir.is_dir():  # checked before hours of measuring, not after
            raise CollectError(f"{self.records_dir}: no such records folder (create it, or pass --records)")
        self._ledger_entries()  # a broken ledger too: reported now, not after the measuring
        try:
            self.run_dir.mkdir(parents=True, exist_ok=True)
            lock = (self.run_dir / "lock").open("w")
        except OSError as err:
            raise CollectError(f"{self.run_dir}: cannot create the run directory ({os_reason(err)}); pass --runs a writable folder") from None
        with lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise CollectError(f"{self.run_dir}: another `benchledger collect` is running this plan; nothing was changed") from None
            if fresh:
                self.forget()
            return self._run_locked()

    def _started_at(self) -> datetime:
        meta = self.run_dir / "run.json"
        if meta.is_file():
            return datetime.fromisoformat(json.loads(meta.read_bytes())["started_at"])
        started = utc_now()
        write_atomic(meta, json.dumps({"plan_sha256": self.plan.sha256, "started_at": started.isoformat()}).encode())
        return started

    def _run_locked(self) -> RunOutcome:
        started_at = self._started_at()
        done = self.finished()
        # completed cases are kept; failed ones run again (the cause may have been fixed: a
        # missing binary, a busy GPU), so an assembly that holds them is stale
        retry = {case_id for case_id, result in done.items() if result.get("status") != "completed"}
        changed = {c.id: path for c in self.cases if c.id in done and c.id not in retry and (path := self.changed_inputs(c))}
        retry |= set(changed)
        if retry:
            self.record_file.unlink(missing_ok=True)
            self.target_file.unlink(missing_ok=True)
        if not self.record_file.is_file():
            pending = []
            for case in self.cases:
                if case.id in done and case.id not in retry:
                    self.progress.case_kept(case.id, done[case.id]["status"])
                else:
                    if case.id in changed:
                        self.progress.note(f"case {case.id}: model file {changed[case.id]} changed since it was measured; "
                                           "running it again")
                    elif case.id in retry:
                        self.progress.note(f"case {case.id}: failed in an earlier run; running it again")
                    pending.append(case)
            done.update(self.run_cases(pending))
            self.progress.finish()
            results = [done[c.id] for c in self.cases]
            module = get_module(self.plan.module)
            session = RunSession(self.plan_view(), self.run_dir, started_at, utc_now(), self._gpu_info())
            data = module.assemble(session.plan, results, session)
            record_io.validate(data, module.schema, str(self.record_file))  # before writing anything
            raw = record_io.encode(data)
            write_atomic(self.record_file, raw)
        else:  # assembled by an earlier run that ended before sealing
            raw = self.record_file.read_bytes()
        # from the case results, not the record: not every kind of record lists its cases
        statuses = {c.id: done[c.id].get("status", "?") for c in self.cases if c.id in done}
        return self._seal(raw, statuses)

    def _ledger_entries(self) -> list:
        """The store's ledger entries ([] before the first seal); raises for a broken ledger."""
        from benchledger.records.store import Store

        return Store(self.records_dir).entries() if (self.records_dir / "ledger.jsonl").exists() else []

    def _seal(self, raw: bytes, statuses: dict[str, str]) -> RunOutcome:
        sha = sha256_hex(raw)
        attempts = 0
        while True:
            attempts += 1
            entries = self._ledger_entries()
            for e in entries:
                if e.sha256 == sha:
                    return RunOutcome(self.run_dir, statuses, e.path, sha, already_sealed=True)
            target = json.loads(self.target_file.read_bytes())["path"] if self.target_file.is_file() else None
            taken = {e.path for e in entries}
            if target is None or target in taken or not record_io.path_free_for(self.records_dir, target, raw):
                data = json.loads(raw)
                target = record_io.store_path(self.records_dir, self.plan.article_key, data.get("tested_at", "undated"), taken, raw)
                write_atomic(self.target_file, json.dumps({"path": target}).encode())
            try:
                entry = record_io.seal(self.records_dir, raw, get_module(self.plan.module).schema, target)
            except (SchemaError, ConsistencyError):
                # the assembly is wrong, not the measurements: drop it and keep the case results, so
                # the next `collect` re-assembles (after a module fix) without measuring again
                self.record_file.unlink(missing_ok=True)
                self.target_file.unlink(missing_ok=True)
                raise
            except SealError:
                # another collect into this store took the path between the look and the seal (the
                # path is chosen outside the store's lock): look again and take the next free one
                if attempts < SEAL_ATTEMPTS and target in {e.path for e in self._ledger_entries()}:
                    continue
                raise
            return RunOutcome(self.run_dir, statuses, entry.path, entry.sha256, already_sealed=False)

    def plan_view(self) -> Plan:
        """The plan as the record sees it: only the selected cases, and only the comparisons
        whose cases all ran."""
        if not self.partial:
            return self.plan
        ids = {c.id for c in self.cases}
        return replace(self.plan, cases=tuple(self.cases), comparisons=tuple(c for c in self.plan.comparisons if set(c.cases) <= ids))

    def _gpu_info(self):
        probe = GpuSampler(1.0, self.plan.settings.gpu_index, self.plan.settings.gpu_power_method, nvml=self.nvml)
        info = probe.open()
        probe.stop()
        return info

    def run_cases(self, cases: list[CaseSpec]) -> dict[str, dict[str, Any]]:
        """Run these cases (none finished yet) and return their results by case id, each stored
        before it is returned. Here one after the other on this machine; `collect --ray`
        (collector.dispatch.ray_runner) spreads them over a cluster."""
        return {case.id: self.run_case(case) for case in cases}

    def run_case(self, case: CaseSpec) -> dict[str, Any]:
        """Run one case; a failure is recorded (status failed + reason), never raised. The
        result is stored atomically before returning."""
        self.progress.case(case.id)
        result = execute_case(self.plan, case, self.run_dir / "logs" / case.id, self.progress, self.nvml)
        self.store_result(case, result)
        return result

    def store_result(self, case: CaseSpec, result: dict[str, Any]) -> None:
        """Keep a finished case's result (atomically) and report it."""
        # the model files' identity first: a result is never kept without it (a crash between
        # leaves no result, and the case runs again)
        write_atomic(self.inputs_file(case), json.dumps(model_files(case), sort_keys=True).encode())
        write_atomic(self.result_file(case), record_io.encode(result))
        reason = result.get("failure_reason")
        self.progress.case_done(result.get("status", "?") + (f": {reason}" if reason else ""), case.id)


SEAL_ATTEMPTS = 5  # paths taken by other collects sealing into the same store at the same time


def model_files(case: CaseSpec) -> dict[str, list[int] | None]:
    """The `stat_identity` of each of the case's model files (None for a file that is gone): what
    a resume compares, without reading gigabytes again."""
    out: dict[str, list[int] | None] = {}
    for path in case.model.files if case.model is not None else ():
        try:
            out[str(path)] = stat_identity(os.stat(path))
        except OSError:
            out[str(path)] = None
    return out


def execute_case(plan: Plan, case: CaseSpec, log_dir: Path, progress: Progress, nvml: Any = None,
                 refuse: str | None = None, ran_here: bool = True) -> dict[str, Any]:
    """Run one case through its module with telemetry sampling and return its result; a failure
    (raised by the module, or `refuse`: a reason found before measuring) becomes a failed
    result with its reason, never an exception. KeyboardInterrupt passes through. `ran_here`
    False: the case ran on another machine and only its failure is known here
    (`CaseSession.ran_here`)."""
    module = get_module(case.module)
    session = CaseSession(plan, case, log_dir, progress, nvml=nvml, ran_here=ran_here)
    reason = refuse
    session.start()
    try:
        if refuse is None:
            result = module.run_case(case, session)
    except CaseFailed as err:
        reason = err.reason or "failed without a reason"
    except Exception as err:  # a module bug or an unexpected condition: the case fails, the run goes on
        reason = f"{type(err).__name__}: {err}"
        session.log_path("error.log").write_text(traceback.format_exc())
    finally:  # KeyboardInterrupt passes through: the case stays unfinished and re-runs on resume
        session.stop()
    if reason is not None:
        result = module.failed_case(case, reason, session)
        result["status"] = "failed"
        result["failure_reason"] = reason
    return result


def dry_run_lines(plan: Plan, runner: Runner) -> list[str]:
    """What `collect --dry-run` prints: each selected case, its settings, what is kept, how long
    each case that would run should take (collector.estimate), and the whole run's estimate."""
    done = runner.finished()
    lines = [f"plan {plan.path} (sha256 {plan.sha256[:16]}): article {plan.article_key}, module {plan.module}"]
    to_run: list[tuple[str, Estimate]] = []
    for c in runner.cases:
        s = c.settings
        status = done.get(c.id, {}).get("status")
        state = "completed, kept" if status == "completed" else "failed earlier, would run again" if status else "would run"
        lines.append(
            f"  case {c.id}: {state}; module {c.module}, model {c.model.id if c.model else '-'}, placement {json.dumps(c.placement, sort_keys=True)}, "
            f"contexts {list(s.contexts)}, warmup {s.warmup_rounds}, measured {s.measured_rounds}, sampling host {s.host_sample_hz:g} Hz gpu {s.gpu_sample_hz:g} Hz"
        )
        if status != "completed":
            to_run.append((c.id, runner.estimate(c)))
            lines.append(f"    estimate: {describe(to_run[-1][1])}")
    for cmp in runner.plan_view().comparisons:
        lines.append(f"  comparison {cmp.axis}: {', '.join(cmp.cases)}")
    how = "side by side where the cluster has room" if runner.parallel else "one after another"
    lines.append(f"estimated duration of the {len(to_run)} case(s) that would run, {how}: "
                 f"{describe(total(to_run, parallel=runner.parallel)) if to_run else 'nothing to run'}")
    lines.append(f"run directory {runner.run_dir}; records {runner.records_dir}")
    return lines


def default_runs_dir(project_root: Path | None = None) -> Path:
    """$BENCHLEDGER_RUNS when set, else runs/ in the project (the working folder without one)."""
    env = os.environ.get("BENCHLEDGER_RUNS")
    if env:
        return Path(env)
    return Path(project_root) / "runs" if project_root is not None else Path("runs")
