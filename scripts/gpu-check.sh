#!/usr/bin/env bash
# GPU checks for a machine with an NVIDIA GPU and torch built with CUDA. Installs nothing and
# downloads nothing; finishes in under 5 minutes (each check has its own time limit).
#
#   scripts/gpu-check.sh [PYTHON]          # default: .venv/bin/python, else python3
#
# graph_replay: runs examples/graph-replay-gpu.toml (the seed record's token lengths) through
# `benchledger collect` into a temporary copy of records/, verifies it, and prints eager ms,
# graph ms, speedup, bitwise mismatches and capture memory per token length. A python with
# torch but without the project's other dependencies runs it in-process (--direct) instead.
# Pass extra arguments to the helper with GRAPH_REPLAY_ARGS, e.g. GRAPH_REPLAY_ARGS=--direct.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${1:-}
if [[ -z $py ]]; then
  if [[ -x .venv/bin/python ]]; then py=.venv/bin/python; else py=python3; fi
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || echo "nvidia-smi not found" >&2
# The helper prints python, torch, CUDA and cuDNN versions itself, and says what is missing
# (torch, or the collector's dependencies: it then runs in-process with --direct) without a
# traceback.
# shellcheck disable=SC2086  # GRAPH_REPLAY_ARGS is a word list
timeout 280 "$py" scripts/gpu_check_graph_replay.py ${GRAPH_REPLAY_ARGS:-}
