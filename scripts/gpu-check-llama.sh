#!/usr/bin/env bash
# llama_server on a machine with an NVIDIA GPU and a CUDA build of llama-server. Installs nothing
# and downloads nothing.
#
#   LLAMA_SERVER=/path/to/cuda/llama-server scripts/gpu-check-llama.sh [PYTHON]
#
# Environment:
#   LLAMA_SERVER      the CUDA llama-server binary (required)
#   LLAMA_MODEL       a GGUF model (default: the tiny random-weight model, written locally)
#   LLAMA_GPU_LAYERS  the two placements, -ngl values (default: "all 0")
#   LLAMA_CONTEXTS    context lengths (default: "512 2048"); LLAMA_OUTPUT_TOKENS (default 64)
#   LLAMA_GPU_CHECK_CPU=1  rehearse on a CPU-only machine: GPU checks are reported, not enforced
#
# Runs one plan with the two placements through `benchledger collect` into a temporary store,
# verifies the record, prints the seed's headline numbers per case and context as a table, and
# checks what a GPU run must show: a CUDA device in the binary, both cases completed, CUDA
# buffers and offloaded layers as requested, GPU samples and GPU energy over the responses.
# Exit status 0 only when every check holds; each failed check prints one "CHECK FAILED" line.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${1:-}
if [[ -z $py ]]; then
  if [[ -x .venv/bin/python ]]; then py=.venv/bin/python; else py=python3; fi
fi
: "${LLAMA_SERVER:?set LLAMA_SERVER to a CUDA build of llama-server}"
[[ -x $LLAMA_SERVER ]] || { echo "LLAMA_SERVER is not an executable file: $LLAMA_SERVER" >&2; exit 2; }
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || echo "nvidia-smi not found" >&2
"$LLAMA_SERVER" --version 2>&1 | head -2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GPU_CHECK_WORK=$work
timeout 600 "$py" - <<'EOF'
import json
import os
import subprocess
import sys
from pathlib import Path

from benchledger.cli import main as benchledger

work = Path(os.environ["GPU_CHECK_WORK"])
binary = os.environ["LLAMA_SERVER"]
rehearsal = os.environ.get("LLAMA_GPU_CHECK_CPU") == "1"
layers = os.environ.get("LLAMA_GPU_LAYERS", "all 0").split()
contexts = [int(c) for c in os.environ.get("LLAMA_CONTEXTS", "512 2048").split()]
output = int(os.environ.get("LLAMA_OUTPUT_TOKENS", "64"))
failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
        print(f"CHECK FAILED{' (rehearsal: not enforced)' if rehearsal else ''}: {message}")


if len(layers) != 2 or len(set(layers)) != 2:
    sys.exit(f"LLAMA_GPU_LAYERS must name two different placements, got {layers}")
devices = subprocess.run([binary, "--list-devices"], capture_output=True, text=True, timeout=60)
check("CUDA" in devices.stdout + devices.stderr, f"{binary} --list-devices shows no CUDA device")

model = os.environ.get("LLAMA_MODEL")
if model is None:
    from collector.modules.llama_server.tiny_model import write_tiny_model
    model = str(write_tiny_model(work / "tiny.gguf"))
cases = "".join(
    f'[[cases]]\nid = "ngl-{n}"\nmodel = "m"\nplacement = {{ gpu_layers = {json.dumps(n if n == "all" else int(n))} }}\n\n'
    for n in layers
)
plan = work / "gpu-check-llama.toml"
plan.write_text(f"""article_key = "gpu-check-llama"
module = "llama_server"
[settings]
contexts = {contexts}
output_tokens = {output}
warmup_rounds = 1
measured_rounds = 3
seed = 1
baseline_seconds = 1.0
ready_seconds = 0.5
binary = "{binary}"
flash_attention = true
[models.m]
files = ["{Path(model).resolve()}"]
name = "{Path(model).name}"
{cases}[[comparisons]]
axis = "gpu_layers"
cases = {json.dumps([f"ngl-{n}" for n in layers])}
""")
records = work / "records"
records.mkdir()
code = benchledger(["collect", str(plan), "--records", str(records), "--runs", str(work / "runs")])
if code != 0:
    sys.exit(f"benchledger collect failed with exit status {code}")
check(benchledger(["verify", "--records", str(records)]) == 0, "benchledger verify rejects the record")
entry = json.loads((records / "ledger.jsonl").read_text().splitlines()[-1])
record = json.loads((records / entry["path"]).read_bytes())

print(f"\n{record['hardware'].get('gpu')} | {record['runtime'].get('release')} {record['runtime'].get('commit')} | model {Path(model).name}")
head = f"{'case':<10} {'gpu layers':>10} {'context':>8} {'decode tok/s':>13} {'first token s':>14} {'aggregate tok/s':>16} {'GPU J/token':>12} {'GPU W':>7}  buffers (MiB)"
print(head)
print("-" * len(head))
for case in record["cases"]:
    if case["status"] != "completed":
        check(False, f"case {case['id']} {case['status']}: {case.get('failure_reason')}")
        continue
    placement = case["placement"]
    buffers = ", ".join(f"{b['device']} {b['reported_mib']:.0f}" for b in placement["buffers"])
    for g in case["groups"]:
        energy = g["resources"]["gpu_energy"]
        per_token = energy["joules"] / g["completed_output_tokens"] if energy["available"] else None
        watts = energy.get("time_weighted_mean_watts")
        print(f"{case['id']:<10} {placement['gpu_layers']:>4}/{placement['total_layers']:<5} {g['context_tokens']:>8} "
              f"{g['server_decode_tokens_per_second']['median']:>13.2f} {g['synthetic_first_token_seconds']['median']:>14.3f} "
              f"{g['aggregate_output_tokens_per_second']:>16.2f} {per_token if per_token is None else round(per_token, 3)!s:>12} "
              f"{watts if watts is None else round(watts)!s:>7}  {buffers}")
        check(energy["available"], f"case {case['id']} context {g['context_tokens']}: GPU energy unavailable ({energy['reason']})")
    requested = case["settings"]["placement"]["gpu_layers"]
    if requested == "all" or requested > 0:
        check(any(b["device"].startswith("CUDA") for b in placement["buffers"]), f"case {case['id']}: no CUDA model buffer")
        check(placement["gpu_layers"] > 0, f"case {case['id']}: no layer offloaded to the GPU")
    check(case["telemetry"]["gpu_samples"] > 0, f"case {case['id']}: no GPU telemetry samples ({case['telemetry']['gpu']['reason']})")
    check(case["telemetry"]["thermal_slowdown_observed_samples"] == 0,
          f"case {case['id']}: thermal slowdown in {case['telemetry']['thermal_slowdown_observed_samples']} GPU samples")
print(f"\nrecord sha256 {entry['sha256']} ({entry['path']}); {len(failures)} check(s) failed")
sys.exit(1 if failures and not rehearsal else 0)
EOF
