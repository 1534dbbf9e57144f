"""The case table of `torch-graph-replay/1`: eager vs CUDA-graph scoring at several token lengths.

The record is one case; its points are its `measurements`, matched on token length and kind.
The numeric profile (fp16, bf16) is an axis, not identity: it is a setting one compares along
("what does bf16 change on this GPU?"); a pair that differs in device *and* profile is
confounded."""

from __future__ import annotations

from benchledger.cases.base import Better, CaseKind, Field, Metric, Role, Scope

I, A, C = Role.IDENTITY, Role.AXIS, Role.CONTEXT
P = Scope.POINT

FIELDS = (
    # the model scored: other weights are another benchmark, whatever else agrees
    Field("model_weights", I, ("/original_artifact_hashes/FP16_weight", "/original_artifact_hashes/source_weight"),
          "model weights", "SHA-256 of the scored weights (the FP16 weights, else the source weights)."),
    Field("timing_scope", I, ("/timing_scope",), "timing scope", "What one timed call includes."),
    Field("physical_rows", I, ("/physical_rows",), "rows", "Rows scored per call."),
    Field("exact_shape_only", I, ("/exact_shape_only",), "exact shapes only", "Whether graphs were captured per exact input shape."),
    Field("padded_buckets_tested", I, ("/padded_buckets_tested",), "padded buckets", "Whether padded shape buckets were measured."),
    Field("cpu_fallback", I, ("/CPU_fallback",), "CPU fallback", "Whether part of the work ran on the CPU."),
    Field("tokens", I, ("/tokens",), "tokens", "The input length in tokens (a point).", P),
    Field("length_kind", I, ("/kind",), "length kind", "The kind of input length (a point).", P),
    Field("device", A, ("/device",), "device", "The GPU (or CPU) the scoring ran on."),
    Field("profile", A, ("/profile",), "numeric profile", "The numeric profile (fp16, bf16)."),
    Field("torch_version", A, ("/torch_version",), "torch", "The PyTorch version (with its CUDA build).", ordered=True),
    Field("transformers_version", A, ("/transformers_version",), "transformers", "The transformers version.", ordered=True),
    Field("finished_epoch", C, ("/finished_epoch",), "finished", "When the run finished (Unix time).", ordered=True),
    Field("complete", C, ("/complete",), "complete", "Whether the record says its run is complete."),
)

METRICS = (
    Metric("eager_ms", "eager mean", "ms", Better.LOWER, value="/timing/eager/mean_ms", statistic="mean",
           count="/timing/eager/repetitions", samples="/timing/eager/samples_ms"),
    Metric("graph_ms", "graph replay mean", "ms", Better.LOWER, value="/timing/graph/mean_ms", statistic="mean",
           count="/timing/graph/repetitions", samples="/timing/graph/samples_ms"),
    Metric("speedup", "speedup (eager mean / graph mean)", "×", Better.HIGHER, value="/mean_speedup"),
    Metric("eager_median_ms", "eager median", "ms", Better.LOWER, value="/timing/eager/median_ms", statistic="median",
           count="/timing/eager/repetitions", samples="/timing/eager/samples_ms"),
    Metric("graph_median_ms", "graph replay median", "ms", Better.LOWER, value="/timing/graph/median_ms", statistic="median",
           count="/timing/graph/repetitions", samples="/timing/graph/samples_ms"),
)

KIND = CaseKind(
    schema="torch-graph-replay/1",
    title="CUDA-graph replay",
    fields=FIELDS,
    metrics=METRICS,
    points_at="/measurements",
    headline=("eager_ms", "graph_ms", "speedup"),
    subject=(),
    columns=("device", "profile", "torch_version", "length_kind", "tokens"),
)
