"""A tiny random-weight llama-architecture GGUF model, written in code (nothing downloaded).

It exists so that tests and the example plan can drive a real ``llama-server`` on any CPU in
seconds: the weights are random (the output text is nonsense), but the model loads, tokenizes
with a byte-fallback SentencePiece-style ("llama") vocabulary and generates deterministically
at temperature 0. Assert token counts and timings with it, never text.

Command line (needs the `tiny-model` extra: `pip install 'benchledger[tiny-model]'`, which
the test extra includes)::

    python -m collector.modules.llama_server.tiny_model OUT.gguf [--seed N]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

# Printable pieces beside the byte tokens, so that ordinary text does not tokenize entirely
# into bytes. "\u2581" is SentencePiece's word-boundary marker.
_PIECES = ("\u2581", "\u2581the", "\u2581a", "\u2581of", "\u2581and", "\u2581to", "\u2581in", "e", "t", "a", "o", "n", "s")


@dataclass(frozen=True)
class TinyModelShape:
    """Hyper-parameters of the tiny model (defaults give a ~3 MB F32 file)."""

    embedding: int = 128
    layers: int = 4
    heads: int = 4
    kv_heads: int = 4
    feed_forward: int = 256
    context: int = 2048

    @property
    def vocab(self) -> int:
        return 3 + 256 + len(_PIECES)


def _writer_libraries():
    """gguf and numpy, which only the `tiny-model` (and `test`) extras install."""
    try:
        import gguf
        import numpy
    except ImportError as err:
        raise ImportError(f"writing the tiny model needs gguf and numpy ({err.name} is not installed): "
                          "pip install 'benchledger[tiny-model]'") from None
    return gguf, numpy


def _vocabulary() -> tuple[list[bytes], list[float], list[int]]:
    gguf, _ = _writer_libraries()

    tokens: list[bytes] = [b"<unk>", b"<s>", b"</s>"]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
    for byte in range(256):
        tokens.append(f"<0x{byte:02X}>".encode())
        types.append(gguf.TokenType.BYTE)
    for piece in _PIECES:
        tokens.append(piece.encode())
        types.append(gguf.TokenType.NORMAL)
    # SentencePiece scores: longer pieces score higher so they win over byte fallback.
    scores = [0.0] * 259 + [float(len(p)) for p in _PIECES]
    return tokens, scores, [int(t) for t in types]


def write_tiny_model(path: Path, seed: int = 0, shape: TinyModelShape = TinyModelShape()) -> Path:
    """Write the tiny model to ``path`` (deterministic for a given seed and shape); return it."""
    gguf, np = _writer_libraries()
    rng = np.random.default_rng(seed)

    def weight(*dims: int) -> "np.ndarray":
        # numpy shape is the reverse of ggml's ne: (rows, cols) = (out, in).
        return (rng.standard_normal(dims) * 0.02).astype(np.float32)

    def ones(n: int) -> "np.ndarray":
        return np.ones(n, dtype=np.float32)

    e, ff, vocab = shape.embedding, shape.feed_forward, shape.vocab
    head_dim = e // shape.heads
    kv = head_dim * shape.kv_heads
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name(f"benchledger-tiny-llama-seed{seed}")
    writer.add_context_length(shape.context)
    writer.add_embedding_length(e)
    writer.add_block_count(shape.layers)
    writer.add_feed_forward_length(ff)
    writer.add_head_count(shape.heads)
    writer.add_head_count_kv(shape.kv_heads)
    writer.add_rope_dimension_count(head_dim)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    tokens, scores, types = _vocabulary()
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)

    writer.add_tensor("token_embd.weight", weight(vocab, e))
    for i in range(shape.layers):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", ones(e))
        writer.add_tensor(f"blk.{i}.attn_q.weight", weight(e, e))
        writer.add_tensor(f"blk.{i}.attn_k.weight", weight(kv, e))
        writer.add_tensor(f"blk.{i}.attn_v.weight", weight(kv, e))
        writer.add_tensor(f"blk.{i}.attn_output.weight", weight(e, e))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", ones(e))
        writer.add_tensor(f"blk.{i}.ffn_gate.weight", weight(ff, e))
        writer.add_tensor(f"blk.{i}.ffn_up.weight", weight(ff, e))
        writer.add_tensor(f"blk.{i}.ffn_down.weight", weight(e, ff))
    writer.add_tensor("output_norm.weight", ones(e))
    writer.add_tensor("output.weight", weight(vocab, e))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: write the tiny model to the given path."""
    parser = argparse.ArgumentParser(
        prog="python -m collector.modules.llama_server.tiny_model",
        description="Write a tiny random-weight llama GGUF model (~3 MB) for trying llama-server.",
    )
    parser.add_argument("out", type=Path, help="output .gguf path")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the weights (default 0)")
    args = parser.parse_args(argv)
    path = write_tiny_model(args.out, seed=args.seed)
    print(f"{path} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
