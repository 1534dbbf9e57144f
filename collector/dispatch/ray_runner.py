"""The Ray driver: `benchledger collect PLAN --ray ADDRESS`.

`RayRunner` is a `Runner` whose `run_cases` submits one Ray task per case instead of running
them here; everything else (plan checks, resume from the run folder, assembly, sealing) is the
local runner's, so the driver stays the only writer of run folder, store and ledger.

Each task gets what its [dispatch] asks for (a whole GPU by default) and a fresh worker process
(`max_calls=1`). Ray's own retries are off (`max_retries=0`): benchledger retries only system
failures (worker died, node died, object lost, out of memory) up to the plan's
`system_retries`, as new numbered attempts journaled in `dispatch.jsonl` and kept in the
record's `attempts`; a pinned case is retried only on its host ("host unavailable" when it is
gone). A case running past its `timeout_s` is cancelled (force) and recorded as timed out. A
driver killed mid-plan resumes: completed cases are kept, attempts that were in flight are
journaled as lost with their driver (Ray ends a dead driver's tasks) and run again."""

from __future__ import annotations

import logging
import os
import socket
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from benchledger.errors import CollectError, os_reason
from collector import provenance
from collector.dispatch.host import host_name
from collector.dispatch.journal import Journal, utc_iso
from collector.dispatch.resources import Needs, case_needs, unmet
from collector.dispatch.worker import decode_part, run_attempt
from collector.estimate import Estimate
from collector.plan import CaseSpec, Plan
from collector.runner import Runner, execute_case

JOURNAL_NAME = "dispatch.jsonl"
POLL_S = 0.25  # how often the driver looks at timeouts and at nodes that went away
FEASIBILITY_EVERY_S = 2.0
# Ray's exceptions that mean the system failed the attempt, not the case (retried)
SYSTEM_FAILURES = ("WorkerCrashedError", "NodeDiedError", "ObjectLostError", "OutOfMemoryError", "OwnerDiedError", "ObjectReconstructionFailedError")


REACH_TIMEOUT_S = 5.0  # Ray itself tries an address it cannot reach for about a minute


def unreachable(address: str, timeout_s: float = REACH_TIMEOUT_S) -> str | None:
    """Why nothing answers at a `host:port` (or `ray://host:port`) address, in the system's
    words ("Connection refused"); None when a TCP connection opens, or for "auto"."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return None
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s):
            return None
    except socket.timeout:
        return f"no answer within {timeout_s:g} s"
    except OSError as err:
        return os_reason(err)


def _auto_address() -> str | None:
    """The host:port "auto" stands for, as Ray resolves it ($RAY_ADDRESS, the cluster `ray start`
    last made, any local GCS), so that it is checked as a named address is: Ray tried one it
    detected but could not reach for minutes. None where Ray finds none (its own error then says
    so) or this Ray has no such helper (a private one: the check is then left to Ray)."""
    try:
        from ray._private.services import canonicalize_bootstrap_address

        return canonicalize_bootstrap_address("auto")
    except Exception:  # noqa: BLE001 - any failure here leaves "auto" to ray.init, as before
        return None


def connect(address: str):
    """Connect to a running Ray cluster (never start one); returns the `ray` module."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage reporting from the driver
    try:
        import ray
    except ImportError:
        raise CollectError("--ray needs Ray on this machine: pip install 'benchledger[ray]' (and on every node of the cluster)") from None
    found = _auto_address() if address == "auto" else address
    why = unreachable(found) if found is not None else None
    if why is not None:
        raise CollectError(f"--ray {address}: cannot connect to a Ray cluster"
                           + (f" at {found}, as found by Ray" if found != address else "")
                           + f" ({why}); start one with `ray start --head` (see README) or pass its address")
    try:
        ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False, configure_logging=True)
    except (ConnectionError, RuntimeError, ValueError) as err:
        raise CollectError(f"--ray {address}: cannot connect to a Ray cluster ({err}); start one with `ray start --head` (see README) or pass its address") from None
    return ray


@dataclass
class InFlight:
    """One submitted attempt the driver is waiting on."""

    case: CaseSpec
    number: int
    needs: Needs
    gen: Any  # the task's ObjectRefGenerator
    started_mono: float | None = None
    host: dict[str, Any] = field(default_factory=dict)


def _first_sentence(err: BaseException) -> str:
    """`NodeDiedError: Task failed because the node it was running on is dead or unavailable.`:
    the exception's name and first sentence (Ray appends paragraphs of advice)."""
    text = str(err).strip().splitlines()[0] if str(err).strip() else ""
    cut = text.find(". ")
    return f"{type(err).__name__}: {text[: cut + 1] if cut >= 0 else text}".rstrip(": ")


class RayRunner(Runner):
    """A Runner that dispatches the cases to the Ray cluster at `address` ("auto" or host:port)."""

    def __init__(self, plan: Plan, records_dir: Path, runs_dir: Path, address: str, case_ids: list[str] | None = None, progress=None):
        super().__init__(plan, records_dir, runs_dir, case_ids, progress)
        self.address = address
        self.journal = Journal(self.run_dir / JOURNAL_NAME, plan.sha256)

    parallel = True

    def estimate(self, case: CaseSpec) -> Estimate:
        """The module's estimate, bounded by the dispatch timeout: each attempt is cancelled
        `timeout_s` after it starts, and a system failure may start `system_retries` more."""
        limit = case.dispatch.timeout_s
        return super().estimate(case).capped(None if limit is None else limit * (1 + case.dispatch.system_retries))

    def forget(self) -> None:
        """--fresh: also leave the earlier attempts out of the next record (the journal keeps them)."""
        super().forget()
        for case in self.cases:
            self.journal.append(case.id, 0, "forgotten")

    def plan_view(self) -> Plan:
        """The local view, plus a limitation saying where the cases ran when the record's
        machine blocks (hardware, environment: the driver's) do not describe them."""
        view = super().plan_view()
        names = set()
        hosts = False  # whether the cases' results carry a host block (a graph-replay record has none)
        for result in self.finished().values():
            if isinstance(result.get("host"), dict):
                names.add(host_name(result["host"]))
                hosts = True
            for attempt in result.get("attempts") or []:  # a failed attempt ran somewhere too
                if attempt.get("started_at"):
                    names.add(str(attempt.get("host_label") or attempt.get("hostname")))
        if not names:
            return view
        names = sorted(names)
        note = (f"Cases ran through Ray on {len(names)} host{'s' if len(names) != 1 else ''} ({', '.join(names)}); "
                "the record's hardware and environment blocks describe the driver's machine, "
                + ("each case's host block the machine it ran on" if hosts else
                   "and this kind of record holds no block for the machine a case ran on (its CPU, memory and GPU are not recorded)")
                + ("; cases on different hosts differ in hardware as well as in their settings." if len(names) > 1 else "."))
        return replace(view, limitations=view.limitations + (note,))

    # -- dispatching --

    def run_cases(self, cases: list[CaseSpec]) -> dict[str, dict[str, Any]]:
        if not cases:
            return {}
        ray = connect(self.address)
        try:
            return self._dispatch(ray, cases)
        except (ConnectionError, ray.exceptions.RaySystemError) as err:  # the head went away, not a case
            raise CollectError(f"--ray {self.address}: lost the Ray cluster ({_first_sentence(err)}); finished cases are kept in "
                               f"{self.run_dir}: run the same command again to resume") from None
        finally:
            ray.shutdown()

    def _dispatch(self, ray, cases: list[CaseSpec]) -> dict[str, dict[str, Any]]:
        import ray.exceptions as rex

        system = tuple(getattr(rex, name) for name in SYSTEM_FAILURES if hasattr(rex, name))
        remote = ray.remote(max_calls=1, max_retries=0, retry_exceptions=False)(run_attempt)
        collector_sha = provenance.collector_sha256()
        any_exclusive = any(c.dispatch.host_exclusive for c in self.plan.cases)
        results: dict[str, dict[str, Any]] = {}
        for case in cases:  # a driver killed earlier: its attempts ended with it
            for lost in self.journal.in_flight(case.id):
                self.journal.append(case.id, lost.number, "driver_lost", reason=lost.lost_with_driver())
                self.progress.note(f"case {case.id}: attempt {lost.number} was in flight when the driver stopped; running it again")
        queue = list(cases)
        flying: dict[Any, InFlight] = {}
        last_check = time.monotonic()

        def finish(a: InFlight | None, case: CaseSpec, number: int, outcome: str, reason: str | None,
                   result: dict[str, Any] | None = None, case_reason: str | None = None, finished_at: str | None = None) -> None:
            """The case's last attempt `number` ended with `outcome`: keep the case's result (a
            failed one made here when the worker returned none), then journal the outcome."""
            if result is None:
                log_dir = self.run_dir / "logs" / case.id / f"attempt-{number}"
                result = execute_case(self.plan, case, log_dir, self.progress, refuse=case_reason or reason, ran_here=False)
            finished_at = finished_at or utc_iso()  # the worker's clock when it sent a result, like started_at
            attempts = [x.as_record() for x in self.journal.attempts(case.id)]
            for x in attempts:
                if x["attempt"] == number and x["outcome"] is None:
                    x.update(outcome=outcome, reason=reason, finished_at=finished_at)
            result["attempts"] = attempts
            if a is not None and a.host and "host" not in result:
                result["host"] = a.host  # where the case ran when its worker returned nothing
            self.store_result(case, result)
            self.journal.append(case.id, number, outcome, finished_at=finished_at, **({"reason": reason} if reason else {}))
            results[case.id] = result

        def system_failure(a: InFlight, reason: str) -> None:
            used = 1 + sum(1 for x in self.journal.attempts(a.case.id) if x.outcome == "system_failure")
            if used > a.case.dispatch.system_retries:
                finish(a, a.case, a.number, "system_failure", reason,
                       case_reason=f"a system failure ended every attempt ({used}; plan allows {a.case.dispatch.system_retries} retries); last: {reason}")
                return
            self.journal.append(a.case.id, a.number, "system_failure", reason=reason)
            self.progress.note(f"case {a.case.id}: attempt {a.number} ended by a system failure ({reason}); trying again")
            queue.append(a.case)

        while queue or flying:
            nodes = ray.nodes() if queue else []
            for case in queue:
                needs = case_needs(case, any_exclusive)
                number = self.journal.next_attempt(case.id)
                why = unmet(needs, nodes, case.dispatch.host)
                self.journal.append(case.id, number, "submitted", needs=needs.as_dict())
                if why is not None:
                    finish(None, case, number, "host_unavailable" if why.startswith("host unavailable") else "failed", why)
                    continue
                gen = remote.options(**needs.options(), name=f"benchledger:{case.id}:{number}").remote(self.plan, case, number, collector_sha)
                flying[gen] = InFlight(case, number, needs, gen)
                self.progress.note(f"case {case.id}: attempt {number} submitted ({needs.text()})")
            queue.clear()
            ready, _ = ray.wait(list(flying), num_returns=1, timeout=POLL_S) if flying else ([], [])
            for gen in ready:
                a = flying[gen]
                try:
                    reply = ray.get(next(gen))
                except StopIteration:
                    del flying[gen]
                    finish(a, a.case, a.number, "failed", "the worker ended without a result")
                    continue
                except system as err:
                    del flying[gen]
                    system_failure(a, _first_sentence(err))
                    continue
                except rex.TaskCancelledError:
                    del flying[gen]  # cancelled by the driver: its outcome is already journaled
                    continue
                except rex.RayError as err:  # the task itself raised (an import error, a bug): not retried
                    del flying[gen]
                    finish(a, a.case, a.number, "failed", f"{type(err).__name__}: {str(err).splitlines()[-1] if str(err) else ''}")
                    continue
                if a.started_mono is None:  # first reply: the task started on a node
                    a.started_mono = time.monotonic()
                    host = reply["host"]
                    a.host = host
                    self.journal.append(a.case.id, a.number, "started", started_at=reply["started_at"],
                                        hostname=host.get("hostname"), label=host.get("label"), ray_node_id=host.get("ray_node_id"))
                    self.progress.note(f"case {a.case.id}: attempt {a.number} running on {host_name(host)} (GPU check: {host['gpu_check']})")
                    continue
                del flying[gen]
                result = decode_part(reply)
                if result is None:
                    system_failure(a, "the result's bytes did not match the SHA-256 the worker sent with them")
                    continue
                finish(a, a.case, a.number, "completed" if result.get("status") == "completed" else "failed", result.get("failure_reason"), result,
                       finished_at=reply.get("finished_at"))
            now = time.monotonic()
            for gen, a in list(flying.items()):
                limit = a.case.dispatch.timeout_s
                if a.started_mono is not None and limit is not None and now - a.started_mono > limit:
                    ray.cancel(gen, force=True)
                    del flying[gen]
                    finish(a, a.case, a.number, "timeout", f"timed out after {limit:g} s; the task was cancelled (force)")
            if now - last_check >= FEASIBILITY_EVERY_S:  # a queued task whose only node went away would wait forever
                last_check = now
                nodes = ray.nodes()
                for gen, a in list(flying.items()):
                    why = unmet(a.needs, nodes, a.case.dispatch.host) if a.started_mono is None else None
                    if why is not None:
                        ray.cancel(gen, force=True)
                        del flying[gen]
                        finish(a, a.case, a.number, "host_unavailable" if why.startswith("host unavailable") else "failed", why)
        return results
