"""Exactness of one scoring path against another: bitwise equality of the output bytes, maximum
absolute error, and decision (argmax) equality; plus the settings that change numerics.

Bitwise equality compares an integer bit view, not values: `torch.equal` says NaN != NaN and
-0.0 == +0.0, which would hide a changed sign and invent a difference between identical NaNs.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

_BIT_VIEWS = {1: "uint8", 2: "int16", 4: "int32", 8: "int64"}


@dataclass(frozen=True)
class Comparison:
    """One output compared with another."""

    identical: bool  # same shape, same dtype, same bytes
    # largest |a - b| over elements, in the outputs' unit; 0.0 for equal values (signed zeros,
    # NaN vs NaN, equal infinities); None when some element differs by a non-finite amount
    # (NaN against a number, an infinity against anything else) or the shapes differ
    max_absolute_error: float | None
    decision_equal: bool  # argmax over the last dimension equal for every row

    def as_record(self) -> dict[str, Any]:
        """The seed's `expanded_path_checks` item shape."""
        return {"max_absolute_error": self.max_absolute_error, "identical": self.identical,
                "decision_equal": self.decision_equal}


def bit_view(tensor: "torch.Tensor") -> "torch.Tensor":
    """The tensor's bytes as a flat integer tensor of the same element size."""
    import torch

    flat = tensor.detach().contiguous().reshape(-1)
    if flat.dtype == torch.bool:
        return flat.view(torch.uint8)
    return flat.view(getattr(torch, _BIT_VIEWS[flat.element_size()]))


def decisions(scores: "torch.Tensor") -> "torch.Tensor":
    """The decision per row: argmax over the last dimension."""
    return scores.argmax(dim=-1)


def compare(a: "torch.Tensor", b: "torch.Tensor") -> Comparison:
    """Compare two score tensors bit for bit, by value and by decision."""
    import torch

    if a.shape != b.shape:
        return Comparison(False, None, False)
    identical = a.dtype == b.dtype and torch.equal(bit_view(a), bit_view(b))
    x, y = a.detach().double(), b.detach().double()
    both_nan = torch.isnan(x) & torch.isnan(y)
    same_inf = torch.isinf(x) & (x == y)
    settled = both_nan | same_inf  # differences of 0 that subtraction would make NaN
    difference = torch.where(settled, torch.zeros_like(x), (x - y).abs())
    worst = float(difference.max()) if difference.numel() else 0.0
    max_error = worst if math.isfinite(worst) else None
    decision_equal = bool(torch.equal(decisions(a), decisions(b))) if a.numel() else True
    return Comparison(identical, max_error, decision_equal)


@dataclass
class Tally:
    """Counts over many comparisons of one pair of paths (the seed's per-measurement fields)."""

    comparisons: int = 0
    bitwise_mismatches: int = 0
    decision_mismatches: int = 0
    largest_finite_error: float = 0.0
    error_unbounded: bool = False  # some comparison had no finite maximum error

    def add(self, comparison: Comparison) -> None:
        """Count one comparison."""
        self.comparisons += 1
        self.bitwise_mismatches += not comparison.identical
        self.decision_mismatches += not comparison.decision_equal
        if comparison.max_absolute_error is None:
            self.error_unbounded = True
        else:
            self.largest_finite_error = max(self.largest_finite_error, comparison.max_absolute_error)

    @property
    def max_absolute_error(self) -> float | None:
        """Largest error over all comparisons; None without comparisons or when unbounded."""
        if not self.comparisons or self.error_unbounded:
            return None
        return self.largest_finite_error

    @property
    def exact(self) -> bool:
        """At least one comparison, and every one identical with equal decisions."""
        return self.comparisons > 0 and not self.bitwise_mismatches and not self.decision_mismatches


def _flag(holder: Any, name: str) -> bool | None:
    """A boolean switch as it is now; None where this torch has no such switch."""
    value = getattr(holder, name, None)
    return None if value is None else bool(value)


def determinism_settings() -> dict[str, Any]:
    """The process-wide settings that change numerics (and the CPU thread count), as they are now."""
    import torch

    cuda = torch.backends.cuda

    def sdpa(name: str) -> bool | None:  # None where this torch has no such backend switch
        enabled = getattr(cuda, f"{name}_sdp_enabled", None)
        return bool(enabled()) if enabled else None

    return {
        "cuda_matmul_allow_tf32": bool(cuda.matmul.allow_tf32),
        # On by default: fp16/bf16 matrix multiplies may reduce in reduced precision (split-K).
        "cuda_matmul_allow_fp16_reduced_precision_reduction":
            _flag(cuda.matmul, "allow_fp16_reduced_precision_reduction"),
        "cuda_matmul_allow_bf16_reduced_precision_reduction":
            _flag(cuda.matmul, "allow_bf16_reduced_precision_reduction"),
        "cudnn_allow_tf32": bool(torch.backends.cudnn.allow_tf32),
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "deterministic_algorithms": bool(torch.are_deterministic_algorithms_enabled()),
        "cudnn_deterministic": bool(torch.backends.cudnn.deterministic),
        "cudnn_benchmark": bool(torch.backends.cudnn.benchmark),
        "sdpa_flash_enabled": sdpa("flash"),
        "sdpa_mem_efficient_enabled": sdpa("mem_efficient"),
        "sdpa_math_enabled": sdpa("math"),
        "sdpa_cudnn_enabled": sdpa("cudnn"),
        "CUBLAS_WORKSPACE_CONFIG": os.environ.get("CUBLAS_WORKSPACE_CONFIG"),
        "torch_threads": torch.get_num_threads(),
    }
