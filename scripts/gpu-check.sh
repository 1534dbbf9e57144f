#!/usr/bin/env bash
# GPU checks for a machine with an NVIDIA GPU and torch built with CUDA. Installs nothing and
# downloads nothing; finishes in under 5 minutes (each check has its own time limit).
#
#   scripts/gpu-check.sh [PYTHON]          # default: .venv/bin/python, else python3
#
# graph_replay: runs examples/graph-replay-gpu.toml (the seed record's token lengths) through
# `benchledger collect` into a temporary copy of records/, verifies it, and prints eager ms,
# graph ms, speedup, bitwise mismatches and capture memory per token length.
# Pass extra arguments to the helper with GRAPH_REPLAY_ARGS, e.g. GRAPH_REPLAY_ARGS=--direct.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${1:-}
if [[ -z $py ]]; then
  if [[ -x .venv/bin/python ]]; then py=.venv/bin/python; else py=python3; fi
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || echo "nvidia-smi not found" >&2
"$py" - <<'EOF'
import torch
print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, available {torch.cuda.is_available()}")
EOF
# shellcheck disable=SC2086  # GRAPH_REPLAY_ARGS is a word list
timeout 280 "$py" scripts/gpu_check_graph_replay.py ${GRAPH_REPLAY_ARGS:-}
