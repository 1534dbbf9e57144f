"""Shared by every test: the suite runs the same on a laptop and under CI. Every CI service
sets CI=true, which makes `build` and `verify` skip their caches; the tests that are about
caches would then test something else, so CI is taken out of each test's environment (its
subprocesses' too). Tests of the CI behaviour set it themselves; tests that stand for a
publishing build pass --no-cache, as the published workflow does."""

import pytest


@pytest.fixture(autouse=True, scope="session")
def _not_under_ci():
    # session-wide, so module fixtures that build or start servers see it gone as well
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("CI", raising=False)
        yield
