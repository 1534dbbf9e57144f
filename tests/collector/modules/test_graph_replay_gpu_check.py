"""scripts/gpu_check_graph_replay.py on this CPU-only machine: it refuses to pretend (exit 2)
and, when told to run anyway, prints its per-length table and a result that is NOT ok."""

import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

pytestmark = [pytest.mark.torch,
              pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA present: run scripts/gpu-check.sh")]

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "gpu_check_graph_replay.py"


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_without_cuda_it_says_why_and_exits_2():
    done = _run()
    assert done.returncode == 2
    assert "cannot run: torch" in done.stderr and "CPU-only build" in done.stderr


def test_allowed_on_cpu_it_prints_the_table_and_is_not_ok():
    done = _run("--allow-cpu", "--direct", "--plan", str(ROOT / "examples" / "graph-replay-cpu.toml"))
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    header = next(line.split() for line in lines if line.lstrip().startswith("kind"))
    assert header[:6] == ["kind", "tokens", "n", "eager_ms", "graph_ms", "speedup"]
    rows = [line.split() for line in lines if line.split()[:1] in (["frozen_short"], ["synthetic_exact_text"], ["frozen_longest"])]
    assert [row[1] for row in rows] == ["64", "60", "56", "128", "256", "512", "1024", "900"]
    assert all(row[4] == "-" and row[5] == "-" for row in rows)  # no graph time, no speedup
    assert "over-limit probe: 1025 tokens, model_forwards 0, graph_replays 0" in done.stdout
    assert lines[-1] == "RESULT NOT ok"
