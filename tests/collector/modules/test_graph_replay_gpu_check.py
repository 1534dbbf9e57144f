"""scripts/gpu_check_graph_replay.py on this CPU-only machine: it refuses to pretend (exit 2)
and, when told to run anyway, prints its per-length table and a result that is NOT ok; with
only torch importable (as a GPU machine's python may be) it says what is missing and runs
in-process instead of failing with a traceback."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from benchledger.records.schema import validate  # noqa: E402

pytestmark = [pytest.mark.torch,
              pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA present: run scripts/gpu-check.sh")]

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "gpu_check_graph_replay.py"


def _run(*args, env=None):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, env=env)


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


def _hiding(tmp_path, *modules):
    """An environment whose PYTHONPATH shadows `modules` with ones that fail to import, as on a
    GPU machine whose python has torch and little else."""
    hide = tmp_path / "hide"
    hide.mkdir()
    for name in modules:
        (hide / f"{name}.py").write_text(f"raise ModuleNotFoundError(\"No module named '{name}'\", name={name!r})\n")
    return {**os.environ, "PYTHONPATH": str(hide)}


def test_with_the_projects_dependencies_it_collects_into_a_verified_store_copy(tmp_path):
    done = _run("--allow-cpu", "--plan", str(ROOT / "examples" / "graph-replay-cpu.toml"),
                env={**os.environ, "TMPDIR": str(tmp_path)})  # the store copy goes under tmp_path
    assert done.returncode == 1, done.stderr
    assert "note: running --direct" not in done.stderr
    assert "all 3 record(s) hold" in done.stdout
    assert any(line.startswith("sealed torch-graph-replay-cpu/") and f" in {tmp_path}/gpu-check-graph-replay-" in line
               and line.endswith("/records") for line in done.stdout.splitlines()), done.stdout
    assert "over-limit probe: 1025 tokens, model_forwards 0, graph_replays 0" in done.stdout


def test_without_the_collectors_dependencies_it_says_what_is_missing_and_runs_direct(tmp_path):
    # numpy hidden too: torch does not depend on it, and the record's hashes must not either
    env = _hiding(tmp_path, "jsonschema", "jsonschema_rs", "numpy", "pynvml")
    done = _run("--allow-cpu", "--plan", str(ROOT / "examples" / "graph-replay-cpu.toml"), env=env)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "note: running --direct (no collector, no store): " in done.stderr
    # whichever hidden module the import order meets first, named with the distribution that has it
    hints = {"jsonschema": "jsonschema", "jsonschema_rs": "jsonschema-rs", "numpy": "numpy", "pynvml": "nvidia-ml-py"}
    collect_missing = re.search(r"cannot import (\w+) \(pip install ([\w-]+), or `pip install -e \.`", done.stderr)
    assert collect_missing and hints[collect_missing[1]] == collect_missing[2], done.stderr
    unvalidated = re.search(r"note: the record was not validated against its schema: No module named '(\w+)' "
                            r"\(pip install ([\w-]+), or", done.stderr)
    assert unvalidated and hints[unvalidated[1]] == unvalidated[2], done.stderr
    assert "over-limit probe: 1025 tokens, model_forwards 0, graph_replays 0" in done.stdout
    assert done.stdout.splitlines()[-1] == "RESULT NOT ok"


def test_a_case_that_cannot_run_is_reported_in_one_line(tmp_path):
    done = _run("--allow-cpu", "--direct", "--out", str(tmp_path / "record.json"))  # the CUDA plan
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "case failed: device = 'cuda' but torch " in done.stdout
    record = json.loads((tmp_path / "record.json").read_text())
    assert record["complete"] is False and record["measurements"] == []
    assert validate(record, "torch-graph-replay/1", "record.json") == []


def test_the_experiment_imports_without_psutil_and_hashes_without_numpy(tmp_path):
    code = ("import sys; import collector.modules.graph_replay.experiment; "
            "from collector.modules.graph_replay.workload import builtin_classifier, weights_sha256, inputs_sha256; "
            "w = builtin_classifier(token_limit=64, width=16, heads=2, layers=1, hidden=32, frozen_short_tokens=[8]); "
            "print(weights_sha256(w.model.half()), inputs_sha256(w.frozen_inputs), 'psutil' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env=_hiding(tmp_path, "psutil", "numpy"))
    assert done.returncode == 0, done.stderr
    from collector.modules.graph_replay.workload import builtin_classifier, inputs_sha256, weights_sha256

    w = builtin_classifier(token_limit=64, width=16, heads=2, layers=1, hidden=32, frozen_short_tokens=[8])
    assert done.stdout.split() == [weights_sha256(w.model.half()), inputs_sha256(w.frozen_inputs), "False"]
