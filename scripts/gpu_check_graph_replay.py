"""GPU check of the graph_replay module: run it at the seed record's token lengths on a CUDA
machine and print, per measurement, eager ms, graph ms, speedup, mismatches and capture memory.

Default: the plan goes through `benchledger collect` into a temporary copy of the store (the
whole collector, NVML sampling included), the store is verified, and the table is printed from
the sealed record. `--direct` runs the experiment in-process without the collector or a store.
Nothing is installed or downloaded.

Beyond torch, the collect path needs the project's dependencies (jsonschema, jsonschema-rs,
psutil; nvidia-ml-py for GPU telemetry). A python without them (a GPU machine's python3 with
torch only) is told which module is missing and runs `--direct` instead, which needs nothing
beyond torch and the standard library; it validates the record only where jsonschema and
jsonschema-rs are importable, and says so otherwise. Python 3.10 (no tomllib) reads the plan
with tomli, or pip's vendored copy of it, and runs `--direct`.

Exit status: 0 when a graph was captured and replayed with zero bitwise and decision
mismatches, 1 otherwise, 2 when CUDA or the plan reader is not usable.

    python scripts/gpu_check_graph_replay.py [--plan examples/graph-replay-gpu.toml] [--direct]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

# What `benchledger collect` and `verify` import beyond torch (each pulls its own dependencies).
COLLECT_MODULES = ("collector.runner", "collector.session", "benchledger.cli.commands.collect",
                   "benchledger.cli.commands.verify", "benchledger.records.store")
# pip's name where it differs from the import name
DISTRIBUTIONS = {"jsonschema_rs": "jsonschema-rs", "rpds": "rpds-py", "attr": "attrs", "pynvml": "nvidia-ml-py"}


def install_hint(module: str) -> str:
    """How to get a missing module: its distribution, or all of the project's dependencies."""
    top = module.split(".")[0]
    return f"pip install {DISTRIBUTIONS.get(top, top)}, or `pip install -e .` in {ROOT}"


def toml_problem() -> str | None:
    """Python 3.10 has no tomllib (the plan reader): stand tomli, or pip's vendored tomli, in
    for it. Returns why neither is there (None when the plan can be read)."""
    if importlib.util.find_spec("tomllib") is not None:
        return None
    for name in ("tomli", "pip._vendor.tomli"):
        try:
            sys.modules["tomllib"] = importlib.import_module(name)
        except ImportError:
            continue
        print(f"note: Python {sys.version.split()[0]} has no tomllib; reading the plan with {name}",
              file=sys.stderr)
        return None
    return (f"Python {sys.version.split()[0]} has no tomllib and neither tomli nor pip's copy of it "
            "is importable: run with Python 3.11 or newer, or pip install tomli")


def collect_problem() -> str | None:
    """Why the collect path cannot run here (a module it cannot import), or None."""
    if sys.version_info < (3, 11):
        return f"the collector needs Python 3.11 or newer, this is {sys.version.split()[0]}"
    for name in COLLECT_MODULES:
        try:
            importlib.import_module(name)
        except ImportError as err:
            missing = err.name or name
            return f"{name} cannot import {missing} ({install_hint(missing)}): {err}"
    return None


def cuda_problem(allow_cpu: bool) -> str | None:
    """Why this machine cannot run the check (None when it can; a CPU will do if allowed)."""
    try:
        import torch
    except ImportError as err:
        return f"torch is not importable: {err}"
    if allow_cpu:
        return None
    if torch.version.cuda is None:
        return f"torch {torch.__version__} is a CPU-only build"
    if not torch.cuda.is_available():
        return f"torch {torch.__version__} (CUDA {torch.version.cuda}) sees no CUDA device"
    return None


def collect(plan: Path, keep: Path | None) -> dict:
    """Collect the plan into a temporary copy of records/, verify it, return the new record.
    A failed case's traceback (the run's error.log) is printed: the run directory is temporary."""
    from benchledger.cli.main import main
    from benchledger.records.store import Store

    base = Path(tempfile.mkdtemp(prefix="gpu-check-graph-replay-"))
    records = base / "records"
    shutil.copytree(ROOT / "records", records)
    before = len(Store(records).entries())
    if main(["collect", str(plan), "--records", str(records), "--runs", str(base / "runs")]) != 0:
        raise SystemExit(f"benchledger collect failed; run directory under {base}")
    if main(["verify", "--records", str(records)]) != 0:
        raise SystemExit(f"benchledger verify failed on {records}")
    entries = Store(records).entries()
    if len(entries) != before + 1:
        raise SystemExit("collect sealed no new record")
    raw = (records / entries[-1].path).read_bytes()
    if keep:
        keep.write_bytes(raw)
    print(f"sealed {entries[-1].path} sha256 {entries[-1].sha256} in {records}")
    for log in sorted((base / "runs").glob("**/error.log")):
        print(f"--- {log}\n{log.read_text()}", file=sys.stderr)
    return json.loads(raw)


def direct(plan: Path, keep: Path | None) -> dict:
    """Run the plan's one case in-process (no collector, no store); validate the body where the
    schema validators are installed. A case that cannot run gives an incomplete record."""
    from collector.modules.graph_replay.experiment import Experiment, ExperimentError
    from collector.modules.graph_replay.module import case_settings, failed_record
    from collector.plan_loader import load_plan

    (case,) = load_plan(plan).cases
    settings, problems = case_settings(case)
    if problems:
        raise SystemExit("; ".join(f"{where}: {message}" for where, message in problems))
    try:
        record = Experiment(settings, progress=lambda message: print(message, file=sys.stderr)).run()
    except ExperimentError as err:
        record = failed_record({"failure_reason": str(err), "settings": {"profile": settings.profile}})
    try:
        from benchledger.records.schema import validate
    except ImportError as err:
        print(f"note: the record was not validated against its schema: {err} "
              f"({install_hint(err.name or 'jsonschema')})", file=sys.stderr)
    else:
        for problem in validate(record, "torch-graph-replay/1", "direct run"):
            print(f"schema: {problem}", file=sys.stderr)
    if keep:
        keep.write_text(json.dumps(record, indent=1))
    return record


def versions() -> str:
    """torch, CUDA, cuDNN and the device, as one line."""
    import torch

    line = f"torch {torch.__version__}, CUDA {torch.version.cuda}"
    if torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability()
        line += (f", cuDNN {torch.backends.cudnn.version()}, "
                 f"{torch.cuda.get_device_name()} (sm_{major}{minor})")
    return line


def mib(value: int | None) -> str:
    return "-" if value is None else f"{value / 2**20:.1f}"


def number(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def table(record: dict) -> str:
    """One row per measurement, fixed-width."""
    header = ("kind", "tokens", "n", "eager_ms", "graph_ms", "speedup", "bitwise_mm", "decision_mm",
              "max_abs_err", "replay_ok", "expanded_ok", "capture_s", "cap_alloc_MiB", "cap_resv_MiB")
    rows = [header]
    for m in record["measurements"]:
        graph = m["timing"]["graph"]
        replay = m.get("replay_repeat_checks", [])
        expanded = m["expanded_path_checks"]
        rows.append((
            m["kind"], str(m["tokens"]), str(m["timing"]["eager"]["repetitions"]),
            number(m["timing"]["eager"]["mean_ms"]), number(graph["mean_ms"] if graph else None),
            number(m["mean_speedup"], 2), f"{m['bitwise_mismatches']}/{m['comparisons']}",
            f"{m['decision_mismatches']}/{m['comparisons']}", number(m["max_absolute_error"], 6),
            f"{sum(c['identical'] for c in replay)}/{len(replay)}",
            f"{sum(c['identical'] for c in expanded)}/{len(expanded)}",
            number(m["capture_seconds"]), mib(m["capture_allocated_increase_bytes"]),
            mib(m["capture_reserved_increase_bytes"]),
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(row, widths)) for row in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", type=Path, default=ROOT / "examples" / "graph-replay-gpu.toml")
    parser.add_argument("--direct", action="store_true", help="run in-process, without the collector and store")
    parser.add_argument("--out", type=Path, help="also write the record here")
    parser.add_argument("--allow-cpu", action="store_true",
                        help="run even without CUDA (to try this script; the result is then NOT ok)")
    args = parser.parse_args()
    problem = cuda_problem(args.allow_cpu) or toml_problem()
    if problem:
        print(f"gpu-check graph_replay: cannot run: {problem}", file=sys.stderr)
        return 2
    print(f"python {sys.version.split()[0]}, {versions()}")
    run = direct
    if not args.direct:
        unavailable = collect_problem()
        if unavailable:
            print(f"note: running --direct (no collector, no store): {unavailable}", file=sys.stderr)
        else:
            run = collect
    started = time.monotonic()
    record = run(args.plan, args.out)
    seconds = time.monotonic() - started
    print(f"device {record['device']}, torch {record['torch_version']}, profile {record['profile']}, "
          f"complete {record['complete']}, {seconds:.1f} s")
    print(f"determinism {json.dumps(record.get('determinism'))}")
    if not record["complete"]:
        print(f"case failed: {record.get('failure_reason')}")
        return 1
    print(table(record))
    for probe in record["overlimit"]:
        print(f"over-limit probe: {probe['tokens']} tokens, model_forwards {probe['model_forwards']}, "
              f"graph_replays {probe['graph_replays']}, prediction {probe['prediction']}")
    flags = ("graph_capture_and_replay_executed", "numeric_and_decision_exact_in_observed_sample",
             "exact_shape_only", "padded_buckets_tested", "CPU_fallback", "full_quality_graph_qualified")
    print("flags " + ", ".join(f"{flag}={record[flag]}" for flag in flags))
    ok = (record["graph_capture_and_replay_executed"]
          and record["numeric_and_decision_exact_in_observed_sample"] is True
          and all(p["model_forwards"] == 0 for p in record["overlimit"]))
    print("RESULT " + ("ok: graphs replayed, zero mismatches, probe refused" if ok else "NOT ok"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
