"""scripts/gpu-check-llama.sh on this CPU-only machine: its rehearsal (LLAMA_GPU_CHECK_CPU=1)
with the real CPU llama-server and the tiny model, and the one line it prints, exit 2, when the
binary, the model or the project's python is missing. The GPU run itself needs a CUDA build."""

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "gpu-check-llama.sh"


def run(tmp_path, *args, **env):
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LLAMA_", "CUDA_VISIBLE"))}
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=300, cwd=tmp_path, env={**base, **env})


def test_cpu_rehearsal_collects_verifies_and_prints_the_table(tmp_path, llama_server_binary):
    proc = run(tmp_path, sys.executable, LLAMA_GPU_CHECK_CPU="1", LLAMA_SERVER=str(llama_server_binary), LLAMA_OUTPUT_TOKENS="16")
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "all 1 record(s) hold" in out
    rows = [line.split() for line in out.splitlines() if line.startswith("ngl-0 ")]
    assert [(r[1], r[2]) for r in rows] == [("0/5", "512"), ("0/5", "1024")]  # the tiny model's contexts fit its 2048 tokens
    assert all(float(r[3]) > 0 and r[6] == "n/a" for r in rows)  # decode tok/s measured; no GPU energy on this CPU
    assert "CHECK FAILED (rehearsal: not enforced): case ngl-all failed: requested gpu_layers=all but the server placed 0/5" in out
    assert "CHECK FAILED (rehearsal: not enforced): case ngl-0: no GPU telemetry samples (NVML init failed: " in out
    assert "Traceback" not in out + proc.stderr


def test_missing_binary_model_or_python_is_one_line_and_exit_2(tmp_path, llama_server_binary):
    no_deps = tmp_path / "python-without-site"
    no_deps.write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n')
    no_deps.chmod(0o755)
    cases = [
        (run(tmp_path, sys.executable), "gpu-check-llama: set LLAMA_SERVER to a CUDA build of llama-server"),
        (run(tmp_path, sys.executable, LLAMA_SERVER=str(tmp_path)), f"gpu-check-llama: LLAMA_SERVER is not an executable file: {tmp_path}"),
        (run(tmp_path, sys.executable, LLAMA_SERVER=str(llama_server_binary), LLAMA_MODEL="none.gguf"), "gpu-check-llama: LLAMA_MODEL is not a file: none.gguf"),
        (run(tmp_path, str(no_deps), LLAMA_SERVER=str(llama_server_binary)), f"gpu-check-llama: {no_deps} cannot run the collector (ModuleNotFoundError: "),
    ]
    for proc, line in cases:
        assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1 and proc.stderr.startswith(line), proc.stderr
