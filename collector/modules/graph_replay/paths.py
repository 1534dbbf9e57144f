"""The scoring path, run two ways: eagerly, and as a captured CUDA graph replayed on static
buffers. Both take pre-encoded tokens in host memory and leave scores and a finite-values flag
in host buffers, so a clock around `run` times the same scope: host-to-device copy, scoring,
finite validation, device-to-host copy.

CUDA-graph rules followed here (PyTorch notes/cuda.rst "CUDA Graphs"): warm up on a side stream
before capture; capture reads a static input buffer and writes static outputs; no host sync,
dynamic shape or data-dependent control flow inside the capture; after each replay the static
outputs are copied out (cloned) before the next replay can overwrite them.
"""

from __future__ import annotations

import gc
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING

from collector.modules.graph_replay.memory import MemorySnapshot

if TYPE_CHECKING:
    import torch


class OverLimitError(Exception):
    """An input longer than the token limit; refused before any forward pass."""


@dataclass
class HostResult:
    """Host buffers one run writes: the scores and whether they were all finite."""

    scores: "torch.Tensor"  # (rows, classes) in the model's dtype
    finite: "torch.Tensor"  # 0-d bool

    @classmethod
    def allocate(cls, rows: int, classes: int, dtype: "torch.dtype", pin: bool) -> "HostResult":
        """Empty host buffers; pinned when the device is CUDA, so copies can be asynchronous."""
        import torch

        return cls(torch.empty((rows, classes), dtype=dtype, pin_memory=pin),
                   torch.empty((), dtype=torch.bool, pin_memory=pin))


class ForwardCounter:
    """Counts the model's Python-level forward calls (a graph replay makes none)."""

    def __init__(self, model: "torch.nn.Module"):
        self.calls = 0
        self._handle = model.register_forward_pre_hook(self._count)

    def _count(self, _module, _args) -> None:
        self.calls += 1

    def close(self) -> None:
        self._handle.remove()


class ScoringPath(ABC):
    """One way of running the whole scoring path."""

    name: str

    def __init__(self, model: "torch.nn.Module", device: "torch.device", token_limit: int):
        self.model = model
        self.device = device
        self.token_limit = token_limit

    def check_length(self, host_tokens: "torch.Tensor") -> None:
        """Refuse an input over the token limit before anything reaches the model."""
        if host_tokens.shape[-1] > self.token_limit:
            raise OverLimitError(f"{host_tokens.shape[-1]} tokens exceed the limit {self.token_limit}")

    @abstractmethod
    def run(self, host_tokens: "torch.Tensor", out: HostResult) -> None:
        """Enqueue the path for `host_tokens` (rows, tokens); results land in `out`."""


class EagerPath(ScoringPath):
    """Every kernel launched from Python, on tensors allocated per call."""

    name = "eager"

    def run(self, host_tokens: "torch.Tensor", out: HostResult) -> None:
        import torch

        self.check_length(host_tokens)
        with torch.no_grad():
            tokens = host_tokens.to(self.device, non_blocking=True)
            scores = self.model(tokens)
            finite = torch.isfinite(scores).all()
            out.scores.copy_(scores, non_blocking=True)
            out.finite.copy_(finite, non_blocking=True)


class ExpandedPath(ScoringPath):
    """The reference for the expanded-path checks: the same scoring done step by step, each
    step on a freshly allocated tensor and synchronised before the next, outside any timing."""

    name = "expanded"

    def run(self, host_tokens: "torch.Tensor", out: HostResult) -> None:
        import torch

        self.check_length(host_tokens)
        with torch.no_grad():
            tokens = host_tokens.clone().to(self.device)
            _synchronize(self.device)
            scores = self.model(tokens).clone()
            _synchronize(self.device)
            out.finite.copy_(torch.isfinite(scores).all().cpu())
            out.scores.copy_(scores.cpu())


class GraphPath(ScoringPath):
    """A CUDA graph captured for one exact input shape and replayed on static buffers."""

    name = "graph"

    def __init__(self, model: "torch.nn.Module", device: "torch.device", token_limit: int,
                 example_tokens: "torch.Tensor", warmup_repetitions: int):
        import torch

        super().__init__(model, device, token_limit)
        self.check_length(example_tokens)
        self.shape = tuple(example_tokens.shape)
        self.replays = 0
        self.static_tokens = torch.empty(self.shape, dtype=example_tokens.dtype, device=device)
        self.static_tokens.copy_(example_tokens)
        with torch.no_grad():
            # Warm-up on a side stream, so lazy initialisation (cuBLAS handles, autotuning) and
            # allocator growth happen outside the capture.
            side = torch.cuda.Stream(device)
            side.wait_stream(torch.cuda.current_stream(device))
            with torch.cuda.stream(side):
                for _ in range(max(1, warmup_repetitions)):
                    self._score()
            torch.cuda.current_stream(device).wait_stream(side)
            # torch.cuda.graph() empties the allocator cache on entry; doing it here first keeps
            # that release out of the before/after difference, which then is the capture's own.
            torch.cuda.synchronize(device)
            gc.collect()
            torch.cuda.empty_cache()
            self.before_capture = MemorySnapshot.take(device)
            self.graph = torch.cuda.CUDAGraph()
            started = time.perf_counter()
            with torch.cuda.graph(self.graph):
                self.static_scores, self.static_finite = self._score()
            torch.cuda.synchronize(device)
            self.capture_seconds = time.perf_counter() - started
            self.after_capture = MemorySnapshot.take(device)

    def _score(self):
        import torch

        scores = self.model(self.static_tokens)
        return scores, torch.isfinite(scores).all()

    def run(self, host_tokens: "torch.Tensor", out: HostResult) -> None:
        self.check_length(host_tokens)
        if tuple(host_tokens.shape) != self.shape:
            raise ValueError(f"graph captured for shape {self.shape}, got {tuple(host_tokens.shape)}")
        self.static_tokens.copy_(host_tokens, non_blocking=True)
        self.graph.replay()
        self.replays += 1
        # The copies to fresh host buffers are the clones: the next replay overwrites the statics.
        out.scores.copy_(self.static_scores, non_blocking=True)
        out.finite.copy_(self.static_finite, non_blocking=True)


def _synchronize(device: "torch.device") -> None:
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)
