"""The case table of `llama-bench/1`: llama.cpp's llama-bench results, imported.

A case is one test row of `/tests` (one configuration and one test: ppN, tgN, pN+tgM at a
depth); it is one point. The fields follow llama.cpp's `compare-llama-bench.py`, which keys a
comparison on about 25 row properties and compares along the one that differs: what is
computed (model, test tokens and depth) is identity; the build, the hardware, the backends and
every setting are axes; the model's path, the commit and the test time are context. The build
is compared along its number (ordered); its commit is shown beside it, since two builds differ in
both. The metrics carry their per-repetition samples, so a difference can be called from them."""

from __future__ import annotations

from benchledger.cases.base import Better, CaseKind, Field, Metric, Role

I, A, C = Role.IDENTITY, Role.AXIS, Role.CONTEXT


def _row(name: str, role: Role, label: str, description: str, ordered: bool = False) -> Field:
    return Field(name, role, (f"/{name}",), label, description, ordered=ordered)


FIELDS = (
    # What is computed: the same model and the same test, or it is another benchmark.
    _row("model_type", I, "model", "llama.cpp's description of the model (architecture, size, weight type)."),
    _row("model_size", I, "model size", "Size of the model's tensors in bytes."),
    _row("model_n_params", I, "parameters", "Parameters in the model."),
    _row("n_prompt", I, "prompt tokens", "Prompt tokens per repetition (0 in a generation test)."),
    _row("n_gen", I, "generated tokens", "Generated tokens per repetition (0 in a prompt-processing test)."),
    _row("n_depth", I, "depth", "Tokens in the KV cache before each repetition."),
    _row("embeddings", I, "embeddings", "Whether embeddings were computed instead of logits."),
    # What may differ, one at a time: the build, the hardware and backends, every setting.
    _row("build_number", A, "llama.cpp build", "llama.cpp's build number; the commit is shown beside it.", ordered=True),
    _row("cpu_info", A, "CPU", "The CPU devices llama-bench saw."),
    _row("gpu_info", A, "GPU", "The GPU devices llama-bench saw."),
    _row("backends", A, "backends", "The ggml backends besides the CPU."),
    _row("n_gpu_layers", A, "GPU layers", "Layers requested on the GPU (-ngl)."),
    _row("n_cpu_moe", A, "CPU MoE layers", "Layers whose experts stay on the CPU (-ncmoe)."),
    _row("split_mode", A, "split mode", "How the model is split across GPUs (-sm)."),
    _row("main_gpu", A, "main GPU", "The main GPU (-mg)."),
    _row("tensor_split", A, "tensor split", "The share of the model per GPU (-ts)."),
    _row("tensor_buft_overrides", A, "tensor overrides", "Tensor buffer-type overrides (-ot)."),
    _row("devices", A, "devices", "The devices used (-dev)."),
    _row("n_batch", A, "batch", "Logical batch size (-b)."),
    _row("n_ubatch", A, "ubatch", "Physical batch size (-ub)."),
    _row("n_threads", A, "threads", "CPU threads (-t)."),
    _row("cpu_mask", A, "CPU mask", "CPU affinity mask (-C)."),
    _row("cpu_strict", A, "strict CPU placement", "Strict pinning to the mask (--cpu-strict)."),
    _row("poll", A, "poll", "Busy-poll level (--poll)."),
    _row("type_k", A, "K cache type", "The KV cache's key type (-ctk)."),
    _row("type_v", A, "V cache type", "The KV cache's value type (-ctv)."),
    _row("no_kv_offload", A, "KV cache off the GPU", "-nkvo."),
    _row("flash_attn", A, "flash attention", "Flash attention (-fa: -1 auto, 0 off, 1 on)."),
    _row("load_mode", A, "load mode", "How weights were loaded (-lm)."),
    _row("use_mmap", A, "mmap", "Memory-mapped weights (older builds, -mmp)."),
    _row("lazy_mode", A, "lazy mode", "Lazy weight loading (-lzm)."),
    _row("repack", A, "repack", "Weights repacked for the CPU (--repack)."),
    _row("no_op_offload", A, "no op offload", "Host tensor operations kept off the GPU (-nopo)."),
    _row("no_host", A, "no host buffers", "--no-host."),
    _row("fit_target", A, "fit target", "Memory margin for fitting the model (-fitt, MiB)."),
    _row("fit_min_ctx", A, "fit minimum context", "Minimum context when fitting (-fitc)."),
    # Shown beside the numbers, never required to agree.
    _row("build_commit", C, "commit", "The commit llama-bench was built from."),
    _row("model_filename", C, "model file", "The model file's path as given to llama-bench (not hashed)."),
    _row("test_time", C, "tested", "When the test started (llama-bench's clock).", ordered=True),
)

METRICS = (
    Metric("tokens_per_s", "speed (mean of repetitions)", "tokens/s", Better.HIGHER, value="/avg_ts",
           statistic="mean", samples="/samples_ts"),
    Metric("repetition_ns", "time per repetition (mean)", "ns", Better.LOWER, value="/avg_ns",
           statistic="mean", samples="/samples_ns"),
)

KIND = CaseKind(
    schema="llama-bench/1",
    title="llama-bench (imported)",
    fields=FIELDS,
    metrics=METRICS,
    cases_at="/tests",
    headline=("tokens_per_s",),
    subject=("model_type",),
    columns=("model_type", "n_prompt", "n_gen", "n_depth", "build_number", "gpu_info", "cpu_info", "backends",
             "n_gpu_layers", "n_threads", "flash_attn", "type_k", "test_time"),
)
