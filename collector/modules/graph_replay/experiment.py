"""The eager-versus-graph experiment: load the workload, measure each input kind on both paths,
compare the outputs, probe the token limit, and assemble a torch-graph-replay/1 record body.

Every flag in the record is derived from what ran here. On a machine without CUDA the eager
path is still timed and checked; the record says no graph was captured and why, and carries no
graph timing and no speedup.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ContextManager

from benchledger.records.digest import sha256_hex
from collector.modules.graph_replay.exactness import Comparison, Tally, compare, decisions, determinism_settings
from collector.modules.graph_replay.memory import MeasurementMemory, reset_peaks
from collector.modules.graph_replay.paths import (
    EagerPath, ExpandedPath, ForwardCounter, GraphPath, HostResult, OverLimitError,
)
from collector.modules.graph_replay.settings import PROFILES, SDPA_BACKENDS, GraphReplaySettings
from collector.modules.graph_replay.timing import (
    P95_MINIMUM_SAMPLES, Clock, CudaEventClock, PathTiming, PerfCounterClock, mean_speedup,
)
from collector.modules.graph_replay.workload import ScoringWorkload, inputs_sha256, load_workload, tensor_bytes, weights_sha256

if TYPE_CHECKING:
    import torch

SCHEMA = "torch-graph-replay/1"
# The values torch accepts for deterministic cuBLAS (torch.use_deterministic_algorithms docs);
# torch reads the variable once, at the first cuBLAS call, and raises there without it.
CUBLAS_DETERMINISTIC_CONFIGS = (":4096:8", ":16:8")
PHYSICAL_ROWS = 1  # every input is scored alone: one row per forward pass
TIMING_SCOPE = ("preencoded complete tokens through H2D, scoring, finite validation and D2H; "
                "no tokenization or HTTP")


class ExperimentError(Exception):
    """The experiment cannot run as configured (the message says why, in one line)."""


@dataclass
class InputKind:
    """One measurement's inputs: same-length token sequences, cycled over the repetitions."""

    kind: str  # frozen_short, synthetic_exact_text, frozen_longest
    inputs: list["torch.Tensor"]  # 1-D int64, all of `tokens` ids
    repetitions: int

    @property
    def tokens(self) -> int:
        return int(self.inputs[0].numel())


@dataclass
class Measurement:
    """What one measurement produced."""

    kind: InputKind
    eager: PathTiming
    graph: PathTiming | None
    versus: Tally  # eager against graph, one comparison per repetition
    replay_repeat: list[Comparison]  # graph replay against a second replay, per distinct input
    expanded: list[Comparison]  # timed path against the expanded path, per distinct input
    preparation_seconds: float
    capture_seconds: float | None
    memory: MeasurementMemory
    eager_scores: list["torch.Tensor"]  # host scores of every eager repetition

    def as_record(self) -> dict[str, Any]:
        """The seed's measurement shape, plus `replay_repeat_checks` and `p95_few_samples`."""
        return {
            "timing": {"eager": self.eager.as_record(),
                       "graph": self.graph.as_record() if self.graph else None},
            "mean_speedup": mean_speedup(self.eager, self.graph),
            "comparisons": self.versus.comparisons,
            "decision_mismatches": self.versus.decision_mismatches,
            "bitwise_mismatches": self.versus.bitwise_mismatches,
            "max_absolute_error": self.versus.max_absolute_error,
            "kind": self.kind.kind,
            "tokens": self.kind.tokens,
            "distinct_inputs": len(self.kind.inputs),
            "physical_rows": PHYSICAL_ROWS,
            "preparation_seconds": self.preparation_seconds,
            "capture_seconds": self.capture_seconds,
            **self.memory.capture_fields(),
            "expanded_path_checks": [c.as_record() for c in self.expanded],
            **self.memory.usage_fields(),
            "replay_repeat_checks": [c.as_record() for c in self.replay_repeat],
            "p95_few_samples": self.eager.p95_few_samples,
        }

    @property
    def exact(self) -> bool:
        """Graph output identical to eager, replay to replay, and timed path to expanded path."""
        return (self.versus.exact and all(c.identical and c.decision_equal for c in self.replay_repeat)
                and all(c.identical and c.decision_equal for c in self.expanded))


@dataclass
class Probe:
    """The over-limit probe: an input of token_limit + 1 tokens offered to the scoring path."""

    tokens: int
    model_forwards: int
    graph_replays: int
    prediction: int | None
    refusal: str | None

    def as_record(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "model_forwards": self.model_forwards,
                "graph_replays": self.graph_replays, "prediction": self.prediction,
                "refused": self.refusal is not None, "refusal": self.refusal}


@dataclass
class Runtime:
    """The device, dtype and clock one run uses, and why no graph is captured (if not)."""

    device: "torch.device"
    dtype: "torch.dtype"
    clock: Clock
    no_graph_reason: str | None

    @property
    def graphs(self) -> bool:
        return self.no_graph_reason is None


@dataclass
class Prepared:
    """One measurement's inputs and paths, ready to time."""

    host_inputs: list["torch.Tensor"]  # (rows, tokens) int64, pinned on CUDA
    classes: int  # scores per row
    runtime: Runtime
    eager: EagerPath
    graph: GraphPath | None = None
    memory: MeasurementMemory = field(default_factory=MeasurementMemory)
    preparation_seconds: float = 0.0

    def buffer(self) -> HostResult:
        """Fresh host buffers for one run's results."""
        return HostResult.allocate(PHYSICAL_ROWS, self.classes, self.runtime.dtype,
                                   self.runtime.device.type == "cuda")


def choose_runtime(settings: GraphReplaySettings) -> Runtime:
    """CUDA when asked for (or available under "auto"); otherwise the CPU, with the reason."""
    import torch

    dtype = getattr(torch, PROFILES[settings.profile])
    cuda = torch.cuda.is_available()
    if settings.device == "cuda" and not cuda:
        raise ExperimentError(f"device = 'cuda' but torch {torch.__version__} sees no CUDA device")
    if settings.device != "cpu" and cuda:
        device = torch.device("cuda", torch.cuda.current_device())
        return Runtime(device, dtype, CudaEventClock(device), None)
    if settings.device == "cpu":
        reason = "the plan asked for device = 'cpu'; CUDA graphs exist only on CUDA devices"
    elif torch.version.cuda is None:
        reason = f"torch {torch.__version__} is a CPU-only build; CUDA graphs need a CUDA device"
    else:
        reason = f"torch {torch.__version__} (CUDA {torch.version.cuda}) found no usable CUDA device"
    return Runtime(torch.device("cpu"), dtype, PerfCounterClock(), reason)


def cublas_workspace_problem(settings: GraphReplaySettings, device_type: str,
                             workspace_config: str | None) -> str | None:
    """Why deterministic algorithms cannot run on this device (None when they can or are off)."""
    if not settings.deterministic_algorithms or device_type != "cuda":
        return None
    if workspace_config in CUBLAS_DETERMINISTIC_CONFIGS:
        return None
    return (f"deterministic_algorithms = true on CUDA needs CUBLAS_WORKSPACE_CONFIG set to "
            f"{' or '.join(CUBLAS_DETERMINISTIC_CONFIGS)} before the run starts "
            f"(it is {workspace_config!r}); torch would raise at the first matrix multiply")


def input_kinds(workload: ScoringWorkload, settings: GraphReplaySettings) -> list[InputKind]:
    """Frozen short inputs grouped by exact length, synthetic exact-length inputs, the longest."""
    by_length: dict[int, list] = {}
    for ids in workload.frozen_inputs:
        by_length.setdefault(int(ids.numel()), []).append(ids)
    kinds = [InputKind("frozen_short", group, settings.short_repetitions) for group in by_length.values()]
    over = [n for n in settings.synthetic_tokens if n > workload.token_limit]
    if over:
        raise ExperimentError(f"synthetic_tokens {over} exceed the workload's token limit {workload.token_limit}")
    for n in settings.synthetic_tokens:
        ids = workload.make_synthetic(n, settings.seed + n)
        kinds.append(InputKind("synthetic_exact_text", [ids], settings.long_repetitions))
    if workload.frozen_longest is not None:
        kinds.append(InputKind("frozen_longest", [workload.frozen_longest], settings.long_repetitions))
    return kinds


@contextlib.contextmanager
def numerics(settings: GraphReplaySettings):
    """Apply the plan's numerics and thread settings for the run; restore the previous ones after."""
    import torch

    with contextlib.ExitStack() as stack:
        if settings.allow_tf32 is not None:
            previous = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
            torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = settings.allow_tf32
            stack.callback(_restore_tf32, previous)
        if settings.deterministic_algorithms is not None:
            previous_deterministic = torch.are_deterministic_algorithms_enabled()
            torch.use_deterministic_algorithms(settings.deterministic_algorithms)
            stack.callback(torch.use_deterministic_algorithms, previous_deterministic)
        if settings.threads is not None:
            stack.callback(torch.set_num_threads, torch.get_num_threads())
            torch.set_num_threads(settings.threads)
        if settings.sdpa_backend is not None:
            from torch.nn.attention import SDPBackend, sdpa_kernel

            stack.enter_context(sdpa_kernel([getattr(SDPBackend, SDPA_BACKENDS[settings.sdpa_backend])]))
        yield


def _restore_tf32(previous: tuple[bool, bool]) -> None:
    import torch

    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = previous


PhaseFactory = Callable[[str], ContextManager[None]]


def no_phases(_name: str) -> ContextManager[None]:
    """Phase declarations for runs outside a collector session: nothing to declare."""
    return contextlib.nullcontext()


class Experiment:
    """One run of the experiment for one case's settings."""

    def __init__(self, settings: GraphReplaySettings, progress: Callable[[str], None] | None = None,
                 phase: PhaseFactory = no_phases):
        self.settings = settings
        self.progress = progress or (lambda message: None)
        self.phase = phase  # the collector's `CaseSession.phase`, declaring load/warmup/responses
        self.graph_replays = 0  # every replay of every captured graph in this run

    def run(self) -> dict[str, Any]:
        """Run everything and return the record body (without plan-level provenance)."""
        import torch

        settings = self.settings
        runtime = choose_runtime(settings)
        problem = cublas_workspace_problem(settings, runtime.device.type, os.environ.get("CUBLAS_WORKSPACE_CONFIG"))
        if problem:
            raise ExperimentError(problem)
        with self.phase("load"):
            try:
                workload = load_workload(settings.workload, settings.workload_options,
                                         settings.token_limit, settings.vocab_size)
            except (ValueError, TypeError) as err:
                raise ExperimentError(f"workload: {err}") from err
            source_weight = weights_sha256(workload.model)
            model = workload.model.to(device=runtime.device, dtype=runtime.dtype).eval()
            kinds = input_kinds(workload, settings)
            with torch.no_grad():  # scores per row, from a one-token forward pass
                classes = int(model(torch.zeros((PHYSICAL_ROWS, 1), dtype=torch.int64, device=runtime.device)).shape[-1])
        counter = ForwardCounter(model)
        try:
            with numerics(settings), torch.no_grad():
                determinism = determinism_settings()
                measurements = [self._measure(model, workload, kind, runtime, classes) for kind in kinds]
                with self.phase("responses"):
                    probe = self._probe(model, workload, runtime, counter, classes)
        finally:
            counter.close()
        return self._record(workload, runtime, model, source_weight, kinds, measurements, probe, determinism)

    # --- one measurement -------------------------------------------------------------------

    def _measure(self, model, workload: ScoringWorkload, kind: InputKind, runtime: Runtime,
                 classes: int) -> Measurement:
        self.progress(f"{kind.kind} {kind.tokens} tokens: {kind.repetitions} repetitions")
        with self.phase("warmup"):
            prepared = self._prepare(model, workload, kind, runtime, classes)
        with self.phase("responses"):
            return self._time_and_check(prepared, workload, kind, runtime)

    def _prepare(self, model, workload: ScoringWorkload, kind: InputKind, runtime: Runtime,
                 classes: int) -> Prepared:
        """Pinned inputs, eager warm-up, then graph warm-up, capture and warm replays: nothing
        here is timed."""
        import torch

        cuda = runtime.device.type == "cuda"
        started = time.perf_counter()
        if cuda:
            reset_peaks(runtime.device)
        host_inputs = [ids.reshape(PHYSICAL_ROWS, -1).contiguous() for ids in kind.inputs]
        if cuda:
            host_inputs = [ids.pin_memory() for ids in host_inputs]
        eager = EagerPath(model, runtime.device, workload.token_limit)
        prepared = Prepared(host_inputs, classes, runtime, eager)
        warm = prepared.buffer()
        for _ in range(self.settings.warmup_repetitions):
            eager.run(host_inputs[0], warm)
        if cuda:
            torch.cuda.synchronize(runtime.device)
        prepared.preparation_seconds = time.perf_counter() - started
        if runtime.graphs:
            prepared.graph = GraphPath(model, runtime.device, workload.token_limit, host_inputs[0],
                                       self.settings.warmup_repetitions)
            prepared.memory.before_capture = prepared.graph.before_capture
            prepared.memory.after_capture = prepared.graph.after_capture
            # A captured graph's first launch also uploads it to the device: replay it untimed as
            # often as the eager path ran untimed, so neither path's first timing pays a set-up.
            for _ in range(self.settings.warmup_repetitions):
                prepared.graph.run(host_inputs[0], warm)
            torch.cuda.synchronize(runtime.device)
        return prepared

    def _time_and_check(self, prepared: Prepared, workload: ScoringWorkload, kind: InputKind,
                        runtime: Runtime) -> Measurement:
        """Time both paths repetition by repetition, then the replay and expanded-path checks."""
        import torch

        host_inputs, eager, graph = prepared.host_inputs, prepared.eager, prepared.graph
        eager_out = [prepared.buffer() for _ in range(kind.repetitions)]
        graph_out = [prepared.buffer() for _ in range(kind.repetitions)] if graph else []
        eager_ms, graph_ms, versus = [], [], Tally()
        for rep in range(kind.repetitions):
            tokens = host_inputs[rep % len(host_inputs)]
            eager_ms.append(runtime.clock.time_ms(lambda: eager.run(tokens, eager_out[rep])))
            _require_finite(eager_out[rep], eager.name, kind)
            if graph:
                graph_ms.append(runtime.clock.time_ms(lambda: graph.run(tokens, graph_out[rep])))
                _require_finite(graph_out[rep], graph.name, kind)
                versus.add(compare(eager_out[rep].scores, graph_out[rep].scores))

        # The first repetition that used each distinct input is what the checks compare against.
        first_out = (graph_out or eager_out)[: len(host_inputs)]
        replay_repeat = []
        if graph:
            for tokens, out in zip(host_inputs, first_out):
                again = prepared.buffer()
                graph.run(tokens, again)
                torch.cuda.synchronize(runtime.device)
                replay_repeat.append(compare(out.scores, again.scores))
        expanded = []
        reference = ExpandedPath(eager.model, runtime.device, workload.token_limit)
        for tokens, out in zip(host_inputs, first_out):
            checked = prepared.buffer()
            reference.run(tokens, checked)
            _require_finite(checked, reference.name, kind)
            expanded.append(compare(out.scores, checked.scores))
        if graph:
            self.graph_replays += graph.replays
        if runtime.device.type == "cuda":
            prepared.memory.finish(runtime.device)
        return Measurement(
            kind=kind,
            eager=PathTiming(tuple(eager_ms)),
            graph=PathTiming(tuple(graph_ms)) if graph else None,
            versus=versus,
            replay_repeat=replay_repeat,
            expanded=expanded,
            preparation_seconds=prepared.preparation_seconds,
            capture_seconds=graph.capture_seconds if graph else None,
            memory=prepared.memory,
            eager_scores=[out.scores for out in eager_out],
        )

    def _probe(self, model, workload: ScoringWorkload, runtime: Runtime, counter: ForwardCounter,
               classes: int) -> Probe:
        """Offer token_limit + 1 tokens to the eager path and, with CUDA, to graph capture;
        count the forward passes and graph replays that followed."""
        tokens = workload.token_limit + 1
        host = workload.make_synthetic(tokens, self.settings.seed).reshape(PHYSICAL_ROWS, -1)
        self.progress(f"over-limit probe: {tokens} tokens")
        forwards, replays = counter.calls, self.graph_replays
        out = HostResult.allocate(PHYSICAL_ROWS, classes, runtime.dtype, pin=False)
        refusals = []
        try:
            EagerPath(model, runtime.device, workload.token_limit).run(host, out)
        except OverLimitError as err:
            refusals.append(f"eager: {err}")
        if runtime.graphs:
            try:
                graph = GraphPath(model, runtime.device, workload.token_limit, host, 0)
                graph.run(host, out)
                self.graph_replays += graph.replays
            except OverLimitError as err:
                refusals.append(f"graph capture: {err}")
        refused = len(refusals) == (2 if runtime.graphs else 1)
        # Not refused: record what the model did with it (the flags will not hide it).
        prediction = None if refused else int(decisions(out.scores)[0])
        return Probe(tokens, counter.calls - forwards, self.graph_replays - replays, prediction,
                     "; ".join(refusals) if refused else None)

    # --- the record ------------------------------------------------------------------------

    def _record(self, workload: ScoringWorkload, runtime: Runtime, model, source_weight: str,
                kinds: list[InputKind], measurements: list[Measurement], probe: Probe,
                determinism: dict[str, Any]) -> dict[str, Any]:
        import torch

        executed = any(m.graph is not None and m.graph.samples_ms for m in measurements)
        exact = all(m.exact for m in measurements) if executed else None
        padded_buckets_tested = False  # graphs are captured per exact input shape only
        profile = self.settings.profile.upper()
        scores = hashlib.sha256(b"".join(tensor_bytes(s.contiguous()) for m in measurements for s in m.eager_scores))
        few = [f"{m.kind.kind} {m.kind.tokens}" for m in measurements if m.eager.p95_few_samples]
        limitations = []
        if runtime.no_graph_reason:
            limitations.append(f"No CUDA graph was captured or replayed: {runtime.no_graph_reason}. "
                               "Only the eager path was timed; there is no graph timing and no speedup.")
        if few:
            limitations.append(f"p95_ms rests on fewer than {P95_MINIMUM_SAMPLES} repetitions "
                               f"(interpolated order statistic) for: {', '.join(few)}.")
        limitations.append("Graphs are captured for exact input shapes only; padded shape buckets "
                           "were not tested, so no graph path is qualified for full-quality use.")
        if executed:
            limitations.append("Bitwise equality holds for the observed inputs and repetitions only, "
                               "on this device, software versions and numerics settings.")
        return {
            "schema": SCHEMA,
            "complete": True,
            "profile": self.settings.profile,
            "device": device_name(runtime.device),
            "torch_version": str(torch.__version__),
            "transformers_version": installed_version("transformers"),
            "graph_capture_and_replay_executed": executed,
            "exact_shape_only": True,  # every input runs at its own length, never padded
            "padded_buckets_tested": padded_buckets_tested,
            "CPU_fallback": runtime.device.type == "cpu",
            "physical_rows": PHYSICAL_ROWS,
            # decisions are the native argmax of the scores on every path; no policy is applied
            "policy_and_native_argmax_unchanged": True,
            "numeric_and_decision_exact_in_observed_sample": exact,
            "full_quality_graph_qualified": bool(executed and exact and padded_buckets_tested),
            # the module measures; adopting a path for production is never its decision
            "adopted_for_full_quality": False,
            "measurements": [m.as_record() for m in measurements],
            "overlimit": [probe.as_record()],
            "timing_scope": TIMING_SCOPE,
            "original_artifact_hashes": {
                f"{profile}_weight": weights_sha256(model),
                "source_weight": source_weight,
                f"{profile}_scores": scores.hexdigest(),
                "inputs": inputs_sha256([ids for k in kinds for ids in k.inputs]),
            },
            "sources": sources(self.settings.workload, str(torch.__version__)),
            "training_updates": 0,
            "commands_executed": 0,
            "external_model_API_calls": 0,
            "private_inputs_or_predictions_published": False,
            "finished_epoch": time.time(),
            "workload": workload.name,
            "graph_not_captured_reason": runtime.no_graph_reason,
            "timing_clock": runtime.clock.name,
            "warmup_repetitions": self.settings.warmup_repetitions,
            "determinism": determinism,
            "limitations": limitations,
        }


def _require_finite(out: HostResult, path: str, kind: InputKind) -> None:
    if not bool(out.finite):
        raise ExperimentError(f"{path} path produced non-finite scores for {kind.kind} {kind.tokens} tokens")


def installed_version(distribution: str) -> str | None:
    """The installed distribution's version, or None (nothing is imported)."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def device_name(device: "torch.device") -> str:
    """The GPU's name, or "CPU: " and the CPU's model name."""
    import torch

    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    # imported here: collector.provenance needs psutil, which a GPU check's python may lack
    from collector.provenance import cpu_model

    return "CPU: " + cpu_model()


def sources(workload: str, torch_version: str) -> list[str]:
    """The documentation followed, and the code that ran (files named with their sha256)."""
    docs = ".".join(torch_version.split("+")[0].split(".")[:2])
    found = [f"https://docs.pytorch.org/docs/{docs}/notes/cuda.html#cuda-graphs",
             f"https://docs.pytorch.org/docs/{docs}/generated/torch.cuda.CUDAGraph.html"]
    here = Path(__file__).parent
    digest = hashlib.sha256()
    for path in sorted(here.glob("*.py")):
        digest.update(path.name.encode() + b"\n" + path.read_bytes())
    found.append(f"local:benchledger/collector/modules/graph_replay@sha256:{digest.hexdigest()}")
    module_name = workload.partition(":")[0]
    if not module_name.startswith("collector.modules.graph_replay"):
        import importlib.util

        spec = importlib.util.find_spec(module_name)
        if spec and spec.origin and Path(spec.origin).is_file():
            file_hash = sha256_hex(Path(spec.origin).read_bytes())
            found.append(f"python:{workload}@sha256:{file_hash}")
        else:
            found.append(f"python:{workload}")
    return found
