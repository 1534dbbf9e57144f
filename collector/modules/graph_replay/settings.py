"""The graph-replay module's plan settings, validated all at once before anything runs.

Module keys go in `[settings]` (or a case's `[cases.settings]`), next to the core keys it also
reads (`warmup_rounds`, `measured_rounds`, `seed`); the workload factory's keyword arguments go
in `[cases.options]`:

```toml
[settings]
workload = "collector.modules.graph_replay.workload:builtin_classifier"   # package.module:factory
device = "auto"                  # "auto" (CUDA when available), "cuda" or "cpu"
profile = "fp32"                 # weights and scores dtype: "fp32", "fp16" or "bf16"
short_repetitions = 30           # repetitions per frozen short input length
measured_rounds = 5              # repetitions per synthetic and longest input
warmup_rounds = 3                # untimed runs of each path before timing (and before capture)
synthetic_tokens = [1024, 4096]  # exact lengths of the synthetic inputs
seed = 0                         # seed of the synthetic inputs
# optional numerics settings, applied for the run and recorded (absent: left as they are)
allow_tf32 = false
deterministic_algorithms = false
sdpa_backend = "math"            # "math", "flash", "efficient" or "cudnn"
threads = 1                      # torch intra-op CPU threads (absent: torch's default)
# only for factories that return a (model, inputs) pair:
token_limit = 512
vocab_size = 32000
```
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from benchledger.records.numbers import is_integer
from collector.modules.graph_replay.workload import BUILTIN_WORKLOAD
from collector.plan import MAX_LIST, MAX_ROUNDS, MAX_TOKENS

DEVICES = ("auto", "cuda", "cpu")
PROFILES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}
SDPA_BACKENDS = {"math": "MATH", "flash": "FLASH_ATTENTION", "efficient": "EFFICIENT_ATTENTION",
                 "cudnn": "CUDNN_ATTENTION"}
_IMPORT_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*\Z")  # \Z: "$" also matches before a final newline


@dataclass(frozen=True)
class GraphReplaySettings:
    """One case's settings for the graph-replay experiment."""

    workload: str = BUILTIN_WORKLOAD
    workload_options: dict[str, Any] = field(default_factory=dict)
    device: str = "auto"
    profile: str = "fp32"
    short_repetitions: int = 30
    long_repetitions: int = 5
    warmup_repetitions: int = 3
    synthetic_tokens: tuple[int, ...] = ()
    seed: int = 0
    allow_tf32: bool | None = None
    deterministic_algorithms: bool | None = None
    sdpa_backend: str | None = None
    threads: int | None = None
    token_limit: int | None = None
    vocab_size: int | None = None


def _positive_int(value: Any) -> bool:
    return is_integer(value) and value > 0


# key -> (check, expectation)
_CHECKS = {
    "workload": (lambda v: isinstance(v, str) and bool(_IMPORT_PATH.match(v)),
                 "an import path 'package.module:factory'"),
    "device": (lambda v: v in DEVICES, "one of " + ", ".join(DEVICES)),
    # a name first: `v in` a dict hashes v, and a list or table from the plan raised TypeError
    "profile": (lambda v: isinstance(v, str) and v in PROFILES, "one of " + ", ".join(PROFILES)),
    # bounded like the core's rounds and token counts: 2^63-1 repetitions would run for ever
    "short_repetitions": (lambda v: _positive_int(v) and v <= MAX_ROUNDS, f"a positive integer <= {MAX_ROUNDS}"),
    "synthetic_tokens": (lambda v: isinstance(v, list) and len(v) <= MAX_LIST and all(_positive_int(x) and x <= MAX_TOKENS for x in v),
                         f"a list of at most {MAX_LIST} positive token counts <= {MAX_TOKENS}"),
    "allow_tf32": (lambda v: isinstance(v, bool), "true or false"),
    "deterministic_algorithms": (lambda v: isinstance(v, bool), "true or false"),
    "sdpa_backend": (lambda v: isinstance(v, str) and v in SDPA_BACKENDS, "one of " + ", ".join(SDPA_BACKENDS)),
    "threads": (lambda v: _positive_int(v) and v <= 4096, "a positive number of threads <= 4096"),
    "token_limit": (lambda v: _positive_int(v) and v <= MAX_TOKENS, f"a positive integer <= {MAX_TOKENS}"),
    "vocab_size": (lambda v: _positive_int(v) and v <= 2**31 - 1, "a positive integer <= 2147483647"),
}


def parse_settings(extra: dict[str, Any], core: dict[str, Any],
                   options: dict[str, Any]) -> tuple[GraphReplaySettings, list[tuple[str, str]]]:
    """Settings from a case's module keys (`extra`), core keys and options table.

    Returns the settings (defaults where a key is bad) and every problem as (path below the
    case, message), e.g. ("settings.profile", "expected one of fp32, fp16, bf16, got 'fp8'").
    """
    problems: list[tuple[str, str]] = []
    values: dict[str, Any] = {}
    for key, value in extra.items():
        if key not in _CHECKS:
            problems.append((f"settings.{key}", "unknown setting for the graph_replay module; "
                             f"expected one of {', '.join(sorted(_CHECKS))} or a core setting"))
            continue
        check, expected = _CHECKS[key]
        if check(value):
            values[key] = tuple(value) if key == "synthetic_tokens" else value
        else:
            problems.append((f"settings.{key}", f"expected {expected}, got {value!r}"))
    settings = GraphReplaySettings(
        workload_options=dict(options),
        long_repetitions=core["measured_rounds"],
        warmup_repetitions=core["warmup_rounds"],
        seed=core["seed"],
        **values,
    )
    return settings, problems
