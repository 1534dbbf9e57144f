"""The ``llama_server`` measuring module: llama.cpp ``llama-server`` placement runs, written as
``gsh-llm-core-article/1`` records in the shape of the seed ``llm-cpu-offload`` article.

Per case: baseline (idle machine) -> load (server start until ``GET /health`` is 200) -> per
context length: ready (prompt made with the server's tokenizer, then ``ready_seconds`` idle) ->
warmup requests -> measured requests -> cleanup (server shutdown). Every request is one
``POST /completion`` of exactly ``output_tokens`` tokens (ignore_eos, temperature 0, the plan's
seed, no prompt cache), one at a time (one server slot).

Plan keys (``[settings]``, overridable per case in ``[cases.settings]``): ``binary`` (relative
to the plan, as model files are; else ``$LLAMA_SERVER``, else PATH), ``threads``, ``batch``, ``ubatch``, ``flash_attention``,
``load_mode`` (mmap|none), ``mlock``, ``kv_cache``, ``fit`` (on|off), ``lazy_mode``,
``total_context_tokens``, ``ready_seconds``, ``load_timeout_s``, ``request_timeout_s``,
``extra_args``. Case ``placement``: ``gpu_layers`` (an integer or "all"),
``cpu_expert_layers`` (an integer or "all"), ``tensor_overrides`` (``-ot`` patterns).

Figures (see ``Completion`` in requests.py for the exact definitions): ``response_seconds``
(send to last byte, client wall clock), ``server_decode_tokens_per_second`` ((predicted_n - 1) /
predicted_ms x 1000), ``synthetic_first_token_seconds`` (prompt_ms / 1000),
``aggregate_output_tokens_per_second`` (completed output tokens / union of the response windows).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

import psutil

from benchledger.errors import CollectError, Problem
from benchledger.records.numbers import is_integer, is_number
from collector.estimate import Estimate
from collector.modules.base import CaseFailed, MeasuringModule
from collector.modules.llama_server.requests import SYNTHETIC_TEXT, TOKENIZATION, Client, Completion, RequestError, synthetic_prompt, text_sha256
from collector.modules.llama_server.server import (
    HEALTH_TIMEOUT_S,
    INSPECT_TIMEOUT_S,
    LOAD_MODES,
    STOP_TIMEOUT_S,
    BinaryInfo,
    LlamaServer,
    LoadReport,
    ServerError,
    ServerSettings,
    command_line,
    find_binary,
    hygiene_flags,
    inspect_binary,
    log_tail,
    parse_load_log,
)
from collector.plan import PlanKey
from collector.provenance import sha256_file
from collector.statistics import summarize

SERVER_LOG = "llama-server.log"
PLACEMENT_MEANING = "Runtime buffer allocation is not measured resident process RAM."
PROTOCOL = "benchledger-llama-server/1"
LIMITATIONS = [
    "Synthetic token latency is not practical first-visible answer latency.",
    "Repeated rounds share one server process and are not independent installations.",
    "Server decode tokens/s is the server's own timing ((predicted_n - 1) / predicted_ms); response seconds add loopback HTTP.",
    "GPU board power is not whole-server AC power; energy is unavailable without bracketing samples.",
    "Sampled memory peaks may not coincide and do not establish minimum required system RAM.",
    "Runtime buffer sizes are the server's own allocation report, not measured resident memory.",
]


MAX_TIMEOUT_S = 86_400  # a day: the longest a plan may let the server load or one request take
# Defaults follow llama-server's own where it has one.
SETTINGS = {
    "binary": PlanKey(None, lambda v: isinstance(v, str) and v != "", "a path to a llama-server binary"),
    "threads": PlanKey(None, lambda v: is_integer(v) and v > 0, "a positive integer"),
    "batch": PlanKey(2048, lambda v: is_integer(v) and v > 0, "a positive integer"),
    "ubatch": PlanKey(512, lambda v: is_integer(v) and v > 0, "a positive integer"),
    "flash_attention": PlanKey(False, lambda v: isinstance(v, bool), "true or false"),
    "load_mode": PlanKey("mmap", lambda v: v in LOAD_MODES, f"one of {', '.join(LOAD_MODES)}"),
    "mlock": PlanKey(False, lambda v: isinstance(v, bool), "true or false"),
    "kv_cache": PlanKey("f16", lambda v: isinstance(v, str) and v.isalnum(), "a KV cache type such as 'f16' or 'q8_0'"),
    "fit": PlanKey("off", lambda v: v in ("on", "off"), "'on' or 'off'"),
    "lazy_mode": PlanKey("off", lambda v: v in ("on", "off", "auto"), "'on', 'off' or 'auto'"),
    "total_context_tokens": PlanKey(None, lambda v: is_integer(v) and v > 0, "a positive integer"),
    "ready_seconds": PlanKey(1.0, lambda v: is_number(v) and 0 <= v <= 3600, "a number of seconds in [0, 3600]"),
    # bounded, so the dry run's "at most" is a real bound (1e308 s was accepted)
    "load_timeout_s": PlanKey(300.0, lambda v: is_number(v) and 0 < v <= MAX_TIMEOUT_S, f"a number of seconds > 0 and <= {MAX_TIMEOUT_S}"),
    "request_timeout_s": PlanKey(600.0, lambda v: is_number(v) and 0 < v <= MAX_TIMEOUT_S, f"a number of seconds > 0 and <= {MAX_TIMEOUT_S}"),
    "extra_args": PlanKey((), lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of strings"),
}
PLACEMENT = {
    "gpu_layers": PlanKey(0, lambda v: (is_integer(v) and v >= 0) or v == "all", "an integer >= 0 or \"all\""),
    "cpu_expert_layers": PlanKey(0, lambda v: (is_integer(v) and v >= 0) or v == "all", "an integer >= 0 or \"all\""),
    "tensor_overrides": PlanKey((), lambda v: isinstance(v, list) and all(isinstance(x, str) and "=" in x for x in v), "a list of 'PATTERN=BUFFER' strings"),
}


@dataclass(frozen=True)
class CasePlan:
    """A case's module settings with defaults applied."""

    binary: str | None
    server: ServerSettings
    ready_seconds: float
    load_timeout_s: float
    request_timeout_s: float


def _value(table: dict[str, Any], keys: dict[str, PlanKey], key: str) -> Any:
    return table.get(key, keys[key].default)


def case_plan(case) -> CasePlan:
    """The typed settings of a (validated) case."""
    extra, placement, s = case.settings.extra, case.placement, case.settings
    total = _value(extra, SETTINGS, "total_context_tokens") or max(s.contexts) + 2 * s.output_tokens
    server = ServerSettings(
        context_tokens=total,
        batch=_value(extra, SETTINGS, "batch"),
        ubatch=_value(extra, SETTINGS, "ubatch"),
        threads=_value(extra, SETTINGS, "threads") or psutil.cpu_count(logical=False) or os.cpu_count() or 1,
        gpu_layers=_value(placement, PLACEMENT, "gpu_layers"),
        cpu_expert_layers=_value(placement, PLACEMENT, "cpu_expert_layers"),
        tensor_overrides=tuple(_value(placement, PLACEMENT, "tensor_overrides")),
        flash_attention=_value(extra, SETTINGS, "flash_attention"),
        load_mode=_value(extra, SETTINGS, "load_mode"),
        mlock=_value(extra, SETTINGS, "mlock"),
        lazy_mode=_value(extra, SETTINGS, "lazy_mode"),
        kv_cache=_value(extra, SETTINGS, "kv_cache"),
        fit=_value(extra, SETTINGS, "fit"),
        slots=1,
        extra_args=tuple(_value(extra, SETTINGS, "extra_args")),
    )
    binary = _value(extra, SETTINGS, "binary")
    return CasePlan(
        binary=case.plan_relative(binary) if binary is not None else None,
        server=server,
        ready_seconds=float(_value(extra, SETTINGS, "ready_seconds")),
        load_timeout_s=float(_value(extra, SETTINGS, "load_timeout_s")),
        request_timeout_s=float(_value(extra, SETTINGS, "request_timeout_s")),
    )


def runtime_block(info: BinaryInfo) -> dict[str, Any]:
    """The binary's provenance: name, release and commit (null when the build does not say),
    its `--version` text and sha256."""
    return {
        "binary_sha256": sha256_file(info.path).sha256,
        "commit": info.commit,
        "name": "llama.cpp",
        "release": info.release,
        "version_text": info.version_text,
    }


def placement_block(report: LoadReport, server: ServerSettings) -> dict[str, Any]:
    """The seed's `placement` from the load log. A build without a GPU backend prints no
    'offloaded X/Y layers' line: then nothing was offloaded (0) and total_layers is n_layer + 1,
    llama.cpp's count of offloadable layers (the repeating layers plus the output layer)."""
    gpu_layers = report.offloaded_layers
    total = report.total_layers
    if gpu_layers is None and report.model_layers is not None:
        gpu_layers, total = 0, report.model_layers + 1
    return {
        "buffers": [{"device": b.device, "reported_mib": b.reported_mib} for b in report.buffers],
        "gpu_layers": gpu_layers,
        "meaning": PLACEMENT_MEANING,
        "requested_cpu_expert_layers": server.cpu_expert_layers if is_integer(server.cpu_expert_layers) else total,
        "total_layers": total,
    }


def _placement_problem(placed: dict[str, Any], server: ServerSettings) -> str | None:
    """Why the server's placement is not the requested one (None when it is)."""
    total, got = placed["total_layers"], placed["gpu_layers"]
    if total is None or got is None:
        return "the server log reports no layer placement (no 'load_tensors'/'n_layer' lines)"
    want = total if server.gpu_layers == "all" else min(server.gpu_layers, total)
    if got != want:
        return f"requested gpu_layers={server.gpu_layers} but the server placed {got}/{total} layers on the GPU"
    return None


class LlamaServerModule(MeasuringModule):
    name = "llama_server"
    schema = "gsh-llm-core-article/1"

    def validate_case(self, case) -> list[Problem]:
        problems = []
        for where, table, keys in (("settings", case.settings.extra, SETTINGS), ("placement", case.placement, PLACEMENT)):
            problems += case.key_problems(where, table, keys, "unknown key for llama_server")
        if case.options:
            problems.append(case.problem("options", "llama_server takes no [cases.options]; put settings in [cases.settings] or placement"))
        if not case.settings.contexts:
            problems.append(case.problem("settings.contexts", "expected at least one context length in tokens, e.g. [2048]"))
        if case.settings.output_tokens is None or case.settings.output_tokens < 2:
            problems.append(case.problem("settings.output_tokens", "expected an integer >= 2 (decode speed needs two tokens)"))
        if case.model is None:
            problems.append(case.problem("model", "expected the id of a [models.ID] table naming a GGUF file"))
        total = case.settings.extra.get("total_context_tokens")
        if is_integer(total) and case.settings.contexts and is_integer(case.settings.output_tokens) and total < max(case.settings.contexts) + case.settings.output_tokens:
            problems.append(case.problem("settings.total_context_tokens", f"expected at least the longest context plus output_tokens ({max(case.settings.contexts) + case.settings.output_tokens})"))
        return problems

    def estimate(self, case) -> Estimate:
        """At least the baseline and every context's ready wait (how long decoding takes depends on
        the machine, so there is no typical figure); at most every step to its time limit: the
        binary's two inspections (again for a failed case's record), the load, per context the
        tokenize request, the ready wait and every warmup and measured request, and the stop."""
        plan, s = case_plan(case), case.settings
        least = s.baseline_seconds + len(s.contexts) * plan.ready_seconds
        requests = len(s.contexts) * (1 + s.warmup_rounds + s.measured_rounds)
        most = (s.baseline_seconds + 4 * INSPECT_TIMEOUT_S + plan.load_timeout_s + HEALTH_TIMEOUT_S
                + len(s.contexts) * plan.ready_seconds + requests * plan.request_timeout_s + 2 * STOP_TIMEOUT_S)
        return Estimate(least, None, most)

    # -- one case --

    def case_settings(self, case, plan: CasePlan, info: BinaryInfo | None) -> dict[str, Any]:
        """The settings as run, in the seed's keys (plus the sampling settings)."""
        s, server = case.settings, plan.server
        hygiene = hygiene_flags(info) if info else {}
        out = {
            "batch": server.batch,
            "cache_prompt": False,
            "concurrency": 1,
            "contexts": list(s.contexts),
            "endpoint": "/completion",
            "fit": server.fit,
            "flash_attention": server.flash_attention,
            "ignore_eos": True,
            "kv_cache": server.kv_cache,
            "lazy_mode": server.lazy_mode,
            "load_mode": server.load_mode,
            "measured_rounds": s.measured_rounds,
            "mlock": server.mlock,
            "network_scope": "loopback",
            "output_tokens": s.output_tokens,
            "p95_minimum_requests": s.p95_minimum_requests,
            "placement": {"cpu_expert_layers": server.cpu_expert_layers, "gpu_layers": server.gpu_layers},
            "reasoning": "not_applicable_raw_completion",
            "seed": s.seed,
            "server_slots": server.slots,
            "synthetic_prompt_sha256": text_sha256(),
            "temperature": 0,
            "threads": server.threads,
            "tokenization": TOKENIZATION,
            "total_context_tokens": server.context_tokens,
            "ubatch": server.ubatch,
            "warmup_rounds": s.warmup_rounds,
            # how the collector sampled (not server settings)
            "baseline_seconds": s.baseline_seconds,
            "gpu_sample_hz": s.gpu_sample_hz,
            "host_sample_hz": s.host_sample_hz,
            "pss_mode": s.pss_mode,
            "ready_seconds": plan.ready_seconds,
        }
        if not isinstance(server.cpu_expert_layers, int):
            out["placement"]["cpu_expert_layers_all"] = True
            del out["placement"]["cpu_expert_layers"]
        if server.tensor_overrides:
            out["placement"]["tensor_overrides"] = list(server.tensor_overrides)
        if server.extra_args:
            out["extra_args"] = list(server.extra_args)
        # Only claimed when the flag was passed; builds without it are left unstated.
        if hygiene.get("--cache-ram"):
            out["cache_ram_bytes"] = 0
        if hygiene.get("--no-context-shift"):
            out["context_shift"] = False
        return out

    def run_case(self, case, session) -> dict[str, Any]:
        plan = case_plan(case)
        s = case.settings
        log = session.log_path(SERVER_LOG)
        server: LlamaServer | None = None
        client: Client | None = None
        info: BinaryInfo | None = None
        completions: dict[int, list[Completion]] = {}
        failures: dict[int, list[dict[str, Any]]] = {}
        warm_done: dict[int, int] = {}
        prompt_hashes: dict[int, str] = {}
        try:
            with session.phase("baseline"):
                time.sleep(s.baseline_seconds)
                info = inspect_binary(find_binary(plan.binary))
                command_line(info, case.model.files[0], plan.server, 0)  # refuse unsupported settings now
            with session.phase("load"):
                server = LlamaServer(info, case.model.files[0], plan.server, log, alias=case.id,
                                     load_timeout_s=plan.load_timeout_s)
                server.start(on_spawn=session.track_process)
            placement = placement_block(server.load_report, plan.server)
            problem = _placement_problem(placement, plan.server)
            if problem:
                raise CaseFailed(problem)
            client = Client(server.port, plan.request_timeout_s)
            base_tokens: list[int] | None = None
            total = len(s.contexts) * s.measured_rounds
            for ctx in s.contexts:
                with session.phase("ready"):
                    if base_tokens is None:
                        base_tokens = self._call(server, lambda: client.tokenize(SYNTHETIC_TEXT))
                    prompt = synthetic_prompt(base_tokens, ctx)
                    prompt_hashes[ctx] = prompt.tokens_sha256
                    time.sleep(plan.ready_seconds)
                with session.phase("warmup"):
                    warm_done[ctx] = 0
                    for r in range(s.warmup_rounds):
                        with session.window("warmup", group=ctx, round=r) as handle:
                            if self._request(server, client, prompt.tokens, case, ctx, handle, []) is not None:
                                warm_done[ctx] += 1
                with session.phase("responses"):
                    completions[ctx], failures[ctx] = [], []
                    for r in range(s.measured_rounds):
                        session.progress.round(len(session.windows("measured", completed=None)) + 1, total)
                        with session.window("measured", group=ctx, round=r) as handle:
                            done = self._request(server, client, prompt.tokens, case, ctx, handle, failures[ctx], r)
                        if done is not None:
                            completions[ctx].append(done)
                if not completions[ctx]:  # a context with no measurement has no statistics
                    raise CaseFailed(f"every measured request at context {ctx} failed "
                                     f"({len(failures[ctx])} of {s.measured_rounds}); the first: "
                                     f"{failures[ctx][0]['error']}")
            with session.phase("cleanup"):
                client.close()
                server.stop()
        except ServerError as err:
            raise CaseFailed(err.reason) from err
        finally:
            if client is not None:
                client.close()
            if server is not None:
                server.stop()

        groups = [self._group(session, ctx, s, completions[ctx], failures[ctx], warm_done[ctx], prompt_hashes[ctx]) for ctx in s.contexts]
        return {
            "case_wall_seconds": session.case_wall_seconds(),
            "completed_response_resources": session.resources(session.windows("measured")),
            "groups": groups,
            "id": case.id,
            "load_seconds": server.load_seconds,
            "model": case.model.id,
            "module": "llama-server",
            "placement": placement,
            "resources_by_phase": session.resources_by_phase(),
            "runtime": runtime_block(info),
            "server_args": server.argv[1:],
            "settings": self.case_settings(case, plan, info),
            "status": "completed",
            "telemetry": session.telemetry_summary(),
            # a wrapper binary forked the server: its load phase sampled the wrapper (said in limitations)
            **({"server_forked": True} if server.server_pid != server.pid else {}),
        }

    @staticmethod
    def _call(server: LlamaServer, request):
        """Run a request outside the measured ones (tokenize); any failure fails the case."""
        try:
            return request()
        except RequestError as err:
            raise ServerError(server.exit_reason() if not server.alive() else str(err), server.tail()) from err

    @staticmethod
    def _request(server, client, prompt, case, ctx, handle, failures, round_index=None) -> Completion | None:
        """One request inside a window: None (window marked failed, error listed) when the server
        answered wrongly; a dead server or a timeout ends the case."""
        s = case.settings
        try:
            done = client.complete(prompt, s.output_tokens, s.seed)
            wrong = []
            if done.prompt_n != ctx:
                wrong.append(f"prompt_n {done.prompt_n} != {ctx}")
            if done.predicted_n != s.output_tokens:
                wrong.append(f"predicted_n {done.predicted_n} != {s.output_tokens}")
            if wrong:
                raise RequestError("unexpected token counts: " + ", ".join(wrong))
            return done
        except RequestError as err:
            handle.fail()
            if not server.alive():
                raise ServerError(f"{server.exit_reason()} during context {ctx}", server.tail()) from err
            if err.timed_out:
                raise ServerError(f"request timed out at context {ctx}: {err}", server.tail()) from err
            failures.append({"error": str(err), "round": round_index})
            return None

    @staticmethod
    def _group(session, ctx, s, done: list[Completion], failures, warm_done, prompt_sha) -> dict[str, Any]:
        group = {
            **session.response_group(session.windows("measured", group=ctx), sum(c.predicted_n for c in done)),
            "completed_request_count": len(done),
            "context_tokens": ctx,
            "failed_request_count": len(failures),
            "measured_rounds": s.measured_rounds,
            "mode": "completion",
            "prompt_tokens_sha256": prompt_sha,
            "requests": [c.as_json() for c in done],
            "response_seconds": summarize([c.response_seconds for c in done]),
            "server_decode_tokens_per_second": summarize([c.decode_tokens_per_second for c in done]),
            "synthetic_first_token_seconds": summarize([c.first_token_seconds for c in done]),
            "warmup_completed_rounds": warm_done,
            "warmup_requests_per_round": 1,
        }
        if failures:
            group["failed_requests"] = failures
        return group

    def failed_case(self, case, reason, session) -> dict[str, Any]:
        """A failed case keeps its reason, the server log's tail, the settings, the placement
        when the server got that far, and the phases it went through."""
        plan = case_plan(case)
        log = session.log_path(SERVER_LOG)
        info = None
        if session.ran_here:  # else the binary at that path here need not be the one that ran
            try:
                info = inspect_binary(find_binary(plan.binary))
            except ServerError:
                pass
        out = {
            **super().failed_case(case, reason, session),
            "groups": [],
            "module": "llama-server",
            "server_log_tail": log_tail(log, 15),
            "settings": self.case_settings(case, plan, info),
        }
        if session.ran_here:
            out.update(case_wall_seconds=session.case_wall_seconds(), resources_by_phase=session.resources_by_phase())
        if info is not None:
            out["runtime"] = runtime_block(info)
        if log.is_file():
            report = parse_load_log(log.read_text("utf-8", "replace"))
            if report.model_layers is not None:
                # `placement` means "as requested" (the consistency checks hold it to that); a
                # server that placed layers otherwise is kept apart, and the reason says so.
                block = placement_block(report, plan.server)
                out["placement" if _placement_problem(block, plan.server) is None else "reported_placement"] = block
        return out

    # -- the record --

    def assemble(self, plan, case_results, session) -> dict[str, Any]:
        runtimes = [c["runtime"] for c in case_results if "runtime" in c]
        if not runtimes:
            reasons = "; ".join(f"{c['id']}: {c.get('failure_reason')}" for c in case_results)
            raise CollectError(f"no case ran a llama-server binary this collector could describe, so there is no record ({reasons}); "
                               "fix what the reasons name and run the plan again (failed cases are re-run)")
        limitations = list(LIMITATIONS)
        if len({r["binary_sha256"] for r in runtimes}) > 1:
            limitations.append("Cases ran different llama-server binaries; each case names its own in cases[].runtime.")
        forked = [c["id"] for c in case_results if c.get("server_forked")]
        if forked:
            limitations.append(f"In cases {', '.join(forked)} the binary started llama-server as a child process: process CPU, "
                               "RSS and PSS of the load phase are the binary's own; from readiness on they are the server's.")
        return {
            **session.article_fields(case_results),
            "cases": case_results,
            "limitations": limitations + list(plan.limitations),
            "models": session.models(),
            "protocol": PROTOCOL,
            "runtime": runtimes[0],
            "schema": self.schema,
        }
