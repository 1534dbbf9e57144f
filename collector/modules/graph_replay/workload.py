"""Scoring workloads: a model that maps one pre-encoded token sequence to class scores (whose
argmax is the decision), the frozen inputs it is measured on, and how synthetic exact-length
inputs are made.

A plan names a workload as an import path `package.module:factory`; the factory is called with
the plan's `workload_options` as keyword arguments and returns a `ScoringWorkload` (or a
`(torch.nn.Module, inputs)` pair, completed from the plan's `token_limit` and `vocab_size`).
`builtin_classifier` is a small transformer classifier built in code with fixed-seed weights:
nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import importlib
import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

if TYPE_CHECKING:  # torch is imported lazily: the collector must start without it
    import torch

BUILTIN_WORKLOAD = "collector.modules.graph_replay.workload:builtin_classifier"

# The built-in tokenizer is bytes: ids 0..255 are bytes, 256 is a classification marker.
_BYTE_VOCAB = 257
_WORDS = (
    "the scoring path copies pre encoded tokens to the device runs the model checks that every "
    "score is finite and copies the scores back a graph replays the same kernels without "
    "launching them one by one exact shapes only no padding buckets decision argmax"
).split()


@dataclass
class ScoringWorkload:
    """A scoring model and its inputs.

    `model(tokens)` takes int64 token ids shaped (rows, tokens) on the model's device and returns
    floating scores shaped (rows, classes); the decision is the argmax over classes. It must not
    synchronise with the host or branch on data (CUDA graphs capture it).
    """

    name: str
    model: "torch.nn.Module"
    frozen_inputs: list["torch.Tensor"]  # short inputs: 1-D int64 token ids, already encoded
    token_limit: int  # the longest sequence the scoring path accepts
    vocab_size: int
    frozen_longest: "torch.Tensor | None" = None  # the longest frozen input, measured on its own
    # tokens, seed -> 1-D int64 ids of exactly `tokens` ids; default: seeded ids over the vocabulary
    synthetic_input: Callable[[int, int], "torch.Tensor"] | None = None

    def problems(self) -> list[str]:
        """Everything wrong with this workload, as `where: what` strings (empty when usable)."""
        import torch

        found = []
        if not isinstance(self.model, torch.nn.Module):
            found.append(f"model: expected a torch.nn.Module, got {type(self.model).__name__}")
        if not isinstance(self.token_limit, int) or self.token_limit < 1:
            found.append(f"token_limit: expected a positive integer, got {self.token_limit!r}")
        if not isinstance(self.vocab_size, int) or self.vocab_size < 1:
            found.append(f"vocab_size: expected a positive integer, got {self.vocab_size!r}")
        named = [(f"frozen_inputs[{i}]", ids) for i, ids in enumerate(self.frozen_inputs)]
        if self.frozen_longest is not None:
            named.append(("frozen_longest", self.frozen_longest))
        for where, ids in named:
            if not isinstance(ids, torch.Tensor) or ids.dtype != torch.int64 or ids.dim() != 1:
                found.append(f"{where}: expected a 1-D int64 tensor of token ids")
            elif ids.numel() == 0:
                found.append(f"{where}: empty")
            elif int(ids.min()) < 0 or int(ids.max()) >= self.vocab_size:
                found.append(f"{where}: token ids outside 0..{self.vocab_size - 1}")
            elif isinstance(self.token_limit, int) and ids.numel() > self.token_limit:
                found.append(f"{where}: {ids.numel()} tokens exceed the token limit {self.token_limit}")
        return found

    def make_synthetic(self, tokens: int, seed: int) -> "torch.Tensor":
        """A synthetic input of exactly `tokens` ids (deterministic for a seed)."""
        import torch

        if self.synthetic_input is not None:
            ids = self.synthetic_input(tokens, seed)
        else:
            generator = torch.Generator().manual_seed(seed)
            ids = torch.randint(0, self.vocab_size, (tokens,), generator=generator, dtype=torch.int64)
        if ids.dim() != 1 or ids.numel() != tokens:
            raise ValueError(f"synthetic input for {tokens} tokens has shape {tuple(ids.shape)}")
        return ids


def load_workload(spec: str, options: dict[str, Any], token_limit: int | None = None,
                  vocab_size: int | None = None) -> ScoringWorkload:
    """Import `package.module:factory` and call it with `options`.

    Raises ValueError with a one-line reason when the path does not resolve or the factory's
    result is unusable.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"expected 'package.module:factory', got {spec!r}")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as err:
        raise ValueError(f"cannot import {spec!r}: {err}") from err
    result = factory(**options)
    if isinstance(result, tuple) and len(result) == 2:
        model, inputs = result  # all inputs are measured as frozen short inputs
        if token_limit is None or vocab_size is None:
            raise ValueError(f"{spec!r} returned (model, inputs): the plan must give token_limit "
                             "and vocab_size")
        result = ScoringWorkload(name=spec, model=model, frozen_inputs=list(inputs),
                                 token_limit=token_limit, vocab_size=vocab_size)
    if not isinstance(result, ScoringWorkload):
        raise ValueError(f"{spec!r} returned {type(result).__name__}, expected a ScoringWorkload "
                         "or a (torch.nn.Module, inputs) pair")
    problems = result.problems()
    if problems:
        raise ValueError(f"{spec!r}: " + "; ".join(problems))
    return result


def weights_sha256(model: "torch.nn.Module") -> str:
    """sha256 over the state_dict in sorted-name order: each name, dtype, shape and raw bytes."""
    digest = hashlib.sha256()
    state = model.state_dict()
    for name in sorted(state):
        tensor = state[name].detach().cpu().contiguous()
        digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}\n".encode())
        digest.update(tensor_bytes(tensor))
    return digest.hexdigest()


def inputs_sha256(inputs: list["torch.Tensor"]) -> str:
    """sha256 over token sequences in order: each length, then its int64 ids' bytes."""
    digest = hashlib.sha256()
    for ids in inputs:
        digest.update(f"{ids.numel()}\n".encode())
        digest.update(tensor_bytes(ids.detach().cpu().contiguous()))
    return digest.hexdigest()


def tensor_bytes(tensor: "torch.Tensor") -> bytes:
    """A CPU tensor's raw bytes in element order (any dtype, bfloat16 included).

    Read through the data pointer rather than `.numpy()`: torch does not depend on numpy, and a
    GPU machine's python may have torch without it ("Numpy is not available").
    """
    import ctypes

    flat = tensor.detach().contiguous()
    if flat.device.type != "cpu":
        raise ValueError(f"tensor_bytes needs a CPU tensor, got one on {flat.device}")
    size = flat.numel() * flat.element_size()
    return ctypes.string_at(flat.data_ptr(), size) if size else b""


# --- the built-in model -------------------------------------------------------------------


def _build_classifier_class():
    import torch
    from torch import nn
    from torch.nn import functional as F

    class Block(nn.Module):
        def __init__(self, width: int, heads: int, hidden: int):
            super().__init__()
            self.heads = heads
            self.norm1 = nn.LayerNorm(width)
            self.qkv = nn.Linear(width, 3 * width)
            self.proj = nn.Linear(width, width)
            self.norm2 = nn.LayerNorm(width)
            self.up = nn.Linear(width, hidden)
            self.down = nn.Linear(hidden, width)

        def forward(self, x):
            rows, tokens, width = x.shape
            q, k, v = self.qkv(self.norm1(x)).split(width, dim=-1)
            shape = (rows, tokens, self.heads, width // self.heads)
            q, k, v = (t.reshape(shape).transpose(1, 2) for t in (q, k, v))
            attended = F.scaled_dot_product_attention(q, k, v)
            x = x + self.proj(attended.transpose(1, 2).reshape(rows, tokens, width))
            return x + self.down(F.gelu(self.up(self.norm2(x))))

    class TinyTransformerClassifier(nn.Module):
        """Embedding + sinusoidal positions, pre-norm encoder blocks, mean pooling, linear head."""

        def __init__(self, vocab_size: int, width: int, heads: int, layers: int, hidden: int,
                     classes: int, max_tokens: int):
            super().__init__()
            self.embed = nn.Embedding(vocab_size, width)
            self.blocks = nn.ModuleList(Block(width, heads, hidden) for _ in range(layers))
            self.norm = nn.LayerNorm(width)
            self.head = nn.Linear(width, classes)
            # Positions are computed, not learned: not part of the weights (persistent=False).
            position = torch.arange(max_tokens, dtype=torch.float64).unsqueeze(1)
            rate = torch.exp(torch.arange(0, width, 2, dtype=torch.float64) * (-math.log(10000.0) / width))
            table = torch.zeros(max_tokens, width, dtype=torch.float64)
            table[:, 0::2] = torch.sin(position * rate)
            table[:, 1::2] = torch.cos(position * rate)
            self.register_buffer("positions", table.float(), persistent=False)

        def forward(self, tokens):
            x = self.embed(tokens) + self.positions[: tokens.shape[1]]
            for block in self.blocks:
                x = block(x)
            return self.head(self.norm(x).mean(dim=1))

    return TinyTransformerClassifier


def _initialise(model: "torch.nn.Module", seed: int) -> None:
    """Fixed-seed weights from a private generator (the global RNG is left alone)."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, param in sorted(model.named_parameters()):
            if name.endswith("bias"):
                param.zero_()
            elif ".norm" in name or name.startswith("norm"):
                param.fill_(1.0)
            else:
                param.normal_(0.0, 0.02 if param.dim() > 1 else 1.0, generator=generator)


def builtin_text(tokens: int, seed: int) -> str:
    """Deterministic ASCII text of exactly `tokens` characters (one byte token each)."""
    rng = random.Random(seed)
    text = rng.choice(_WORDS)
    while len(text) < tokens:
        text += " " + rng.choice(_WORDS)
    return text[:tokens]


def encode_bytes(text: str) -> "torch.Tensor":
    """The built-in tokenizer: one id per UTF-8 byte."""
    import torch

    return torch.tensor(list(text.encode("utf-8")), dtype=torch.int64)


def builtin_classifier(*, token_limit: int = 2048, width: int = 64, heads: int = 4,
                       layers: int = 2, hidden: int = 128, classes: int = 4, seed: int = 0,
                       frozen_short_tokens: Sequence[int] = (64, 60, 56), frozen_per_length: int = 3,
                       frozen_longest_tokens: int | None = None) -> ScoringWorkload:
    """The built-in workload: a small transformer classifier over byte tokens.

    Frozen inputs are deterministic texts: `frozen_per_length` distinct ones for each length in
    `frozen_short_tokens`, plus one of `frozen_longest_tokens` (when given). Weights come from
    `seed`; nothing is downloaded.
    """
    if width % heads or width % 2:
        raise ValueError(f"width {width} must be even and divisible by heads {heads}")
    lengths = list(frozen_short_tokens) + ([frozen_longest_tokens] if frozen_longest_tokens else [])
    too_long = [n for n in lengths if not 0 < n <= token_limit]
    if too_long:
        raise ValueError(f"frozen input lengths {too_long} outside 1..token_limit {token_limit}")
    model = _build_classifier_class()(_BYTE_VOCAB, width, heads, layers, hidden, classes, token_limit)
    _initialise(model, seed)
    model.eval()
    frozen = [encode_bytes(builtin_text(n, seed * 1000 + 17 * n + i))
              for n in frozen_short_tokens for i in range(frozen_per_length)]
    longest = encode_bytes(builtin_text(frozen_longest_tokens, seed * 1000 + 1)) if frozen_longest_tokens else None
    return ScoringWorkload(
        name="builtin-tiny-transformer-classifier",
        model=model,
        frozen_inputs=frozen,
        frozen_longest=longest,
        token_limit=token_limit,
        vocab_size=_BYTE_VOCAB,
        synthetic_input=lambda tokens, s: encode_bytes(builtin_text(tokens, s)),
    )
