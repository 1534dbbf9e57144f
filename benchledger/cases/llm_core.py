"""The case table of `gsh-llm-core-article/1`: an LLM server (llama.cpp's llama-server) measured
in cases (a placement or setting each), each with points per context length.

A case is one completed entry of `/cases`; its points are its `groups` (one per context length,
matched on `context_tokens`)."""

from __future__ import annotations

from benchledger.cases.base import Better, CaseKind, Field, Metric, Role, Scope
from benchledger.records.checks import REQUEST_VALUES

# A case's phases in the order they happen (the keys of its resources_by_phase): the collector
# runs them so, and pages list them so.
PHASES = ("baseline", "load", "ready", "warmup", "responses", "cleanup")

I, A, C = Role.IDENTITY, Role.AXIS, Role.CONTEXT
R, E, P = Scope.RECORD, Scope.ENTRY, Scope.POINT


def _setting(name: str, role: Role, label: str, description: str = "") -> Field:
    return Field(name, role, (f"/settings/{name}",), label, description)


FIELDS = (
    # What is measured: the same model file, prompt and request shape, or it is another benchmark.
    # the model a case served: its entry of `models` (a record may serve several), see KIND.entry
    Field("model", I, ("/name",), "model", "The model's name.", E),
    Field("quantization", I, ("/quantization",), "quantisation", "The model file's quantisation.", E),
    Field("model_file", I, ("/files/0/sha256",), "model file",
          "SHA-256 of the model's first file: other bytes are another model, whatever its name says.", E),
    Field("model_revision", I, ("/revision",), "model revision",
          "The revision of the model repository the files come from: another revision is another file.", E),
    Field("protocol", I, ("/protocol",), "protocol", "The measuring protocol and its version.", R),
    Field("context_tokens", I, ("/context_tokens",), "context", "The context length of the requests (a point).", P),
    _setting("endpoint", I, "endpoint", "The server endpoint the requests go to."),
    _setting("output_tokens", I, "output tokens", "Tokens generated per request."),
    _setting("ignore_eos", I, "ignore EOS", "Whether generation runs to `output_tokens` regardless of end-of-sequence."),
    _setting("concurrency", I, "concurrency", "Requests in flight at once."),
    _setting("server_slots", I, "server slots", "Parallel slots of the server."),
    _setting("cache_prompt", I, "prompt cache", "A cached prompt prefix is not processed again: first-token times differ."),
    _setting("temperature", I, "temperature", "Sampling temperature."),
    _setting("total_context_tokens", I, "server context", "The server's context size (-c)."),
    _setting("synthetic_prompt_sha256", I, "prompt", "The SHA-256 of the synthetic prompt."),
    _setting("tokenization", I, "tokenisation", "How the prompt was tokenised and cut to length."),
    _setting("reasoning", I, "reasoning", "Reasoning mode of the requests."),
    _setting("context_shift", I, "context shift", "Whether the server may shift the context."),
    # What may differ, one at a time: the hardware, the runtime build, placements and settings.
    Field("gpu", A, ("/hardware/gpu",), "GPU", "The GPU model.", R),
    Field("cpu", A, ("/hardware/cpu",), "CPU", "The CPU model.", R),
    Field("runtime", A, ("/runtime/name",), "runtime", "The serving runtime.", R),
    Field("runtime_release", A, ("/runtime/release",), "runtime release",
          "The runtime's release tag; its commit and binary hash are shown beside it.", R, ordered=True),
    Field("nvidia_driver", A, ("/environment/nvidia_driver",), "NVIDIA driver", "The NVIDIA driver version.", R, ordered=True),
    Field("gpu_layers", A, ("/placement/gpu_layers", "/settings/placement/gpu_layers"), "GPU layers",
          "Layers placed on the GPU (as placed, else as requested)."),
    Field("cpu_expert_layers", A, ("/placement/requested_cpu_expert_layers", "/settings/placement/cpu_expert_layers"),
          "CPU expert layers", "Mixture-of-experts layers kept on the CPU."),
    _setting("threads", A, "threads", "CPU threads of the server."),
    _setting("batch", A, "batch", "Logical batch size (-b)."),
    _setting("ubatch", A, "ubatch", "Physical batch size (-ub)."),
    _setting("flash_attention", A, "flash attention", "Flash attention on or off."),
    _setting("kv_cache", A, "KV cache type", "The KV cache's data type."),
    _setting("load_mode", A, "load mode", "How the model file is loaded (mmap, read)."),
    _setting("mlock", A, "mlock", "Whether the model's memory is locked."),
    _setting("fit", A, "fit", "llama.cpp's automatic fitting of unset arguments to memory."),
    _setting("lazy_mode", A, "lazy mode", "Lazy loading mode."),
    _setting("cache_ram_bytes", A, "prompt cache RAM", "RAM allowed for the server's prompt cache."),
    # Shown beside the numbers, never required to agree.
    Field("runtime_commit", C, ("/runtime/commit",), "runtime commit", "The commit the runtime was built from.", R),
    Field("runtime_binary_sha256", C, ("/runtime/binary_sha256",), "runtime binary", "SHA-256 of the server binary (claimed).", R),
    Field("kernel", C, ("/environment/kernel",), "kernel", "The operating system kernel.", R),
    Field("os", C, ("/environment/os/name",), "OS", "The operating system.", R),
    Field("os_version", C, ("/environment/os/version_id",), "OS version", "The operating system's version.", R),
    Field("fan_profile", C, ("/hardware/fan_profile",), "fan profile", "The GPU's fan profile.", R),
    Field("gpu_vram_bytes", C, ("/hardware/gpu_vram_bytes",), "GPU memory", "The GPU's memory size.", R),
    Field("installed_ram_bytes", C, ("/hardware/installed_ram_bytes",), "RAM", "Installed system memory.", R),
    Field("logical_cpu_count", C, ("/hardware/logical_cpu_count",), "logical CPUs", "Logical CPUs of the host.", R),
    Field("tested_at", C, ("/tested_at",), "tested", "The test date.", R, ordered=True),
    _setting("measured_rounds", C, "measured rounds", "Measured rounds per context (the n of each summary)."),
    _setting("warmup_rounds", C, "warm-up rounds", "Unmeasured rounds before them."),
    _setting("seed", C, "sampling seed", "The sampling seed (no effect at temperature 0)."),
    _setting("network_scope", C, "network", "Where the requests travel (loopback)."),
)


def _per_token(joules: float, tokens: float) -> float | None:
    return joules / tokens if tokens else None


def _per_request(statistic: str) -> dict:
    """A group statistic's raw values: one per entry of the group's `requests` (the formula the
    consistency checks hold the statistic to)."""
    formula, value_of = REQUEST_VALUES[statistic]
    return dict(samples="/requests", sample=lambda r: value_of(r) if isinstance(r, dict) else None, sample_formula=formula)


METRICS = (
    Metric("decode_tokens_per_s", "server decode (median)", "tokens/s", Better.HIGHER,
           value="/server_decode_tokens_per_second/median", statistic="median",
           count="/server_decode_tokens_per_second/sample_count",
           minimum="/server_decode_tokens_per_second/minimum", maximum="/server_decode_tokens_per_second/maximum",
           **_per_request("server_decode_tokens_per_second")),
    Metric("first_token_s", "synthetic first token (median)", "s", Better.LOWER,
           value="/synthetic_first_token_seconds/median", statistic="median",
           count="/synthetic_first_token_seconds/sample_count",
           minimum="/synthetic_first_token_seconds/minimum", maximum="/synthetic_first_token_seconds/maximum",
           **_per_request("synthetic_first_token_seconds")),
    Metric("aggregate_tokens_per_s", "aggregate output throughput", "tokens/s", Better.HIGHER,
           value="/aggregate_output_tokens_per_second"),
    Metric("gpu_energy_j_per_token", "GPU board energy per output token", "J/token", Better.LOWER,
           available="/resources/gpu_energy/available",
           formula="joules / completed_output_tokens",
           inputs=(("joules", "/resources/gpu_energy/joules"), ("completed_output_tokens", "/completed_output_tokens")),
           derive=_per_token),
    Metric("response_s", "response time (median)", "s", Better.LOWER,
           value="/response_seconds/median", statistic="median", count="/response_seconds/sample_count",
           minimum="/response_seconds/minimum", maximum="/response_seconds/maximum", **_per_request("response_seconds")),
)

KIND = CaseKind(
    schema="gsh-llm-core-article/1",
    title="LLM server",
    fields=FIELDS,
    metrics=METRICS,
    cases_at="/cases",
    include=(("/status", "completed"),),
    case_label="/id",
    points_at="/groups",
    entry=("/models", "id", "/model"),
    headline=("decode_tokens_per_s", "first_token_s", "aggregate_tokens_per_s", "gpu_energy_j_per_token"),
    subject=("model", "quantization"),
    columns=("model", "quantization", "gpu", "cpu", "runtime_release", "gpu_layers", "kv_cache", "threads",
             "context_tokens", "tested_at"),
    case_limits=("/telemetry", "/settings"),
)
