"""Shared by every test: the suite runs the same on a laptop and under CI. Every CI service
sets CI=true, which makes `build` and `verify` skip their caches; the tests that are about
caches would then test something else, so CI is taken out of each test's environment (its
subprocesses' too). Tests of the CI behaviour set it themselves; tests that stand for a
publishing build pass --no-cache, as the published workflow does."""

import fcntl
import tempfile
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def _not_under_ci():
    # session-wide, so module fixtures that build or start servers see it gone as well
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("CI", raising=False)
        yield


# `make test` runs the suite on every CPU (pytest-xdist, `-n logical --dist loadfile`): a file's
# tests run in order on one worker, so its module fixtures are made once. Files that would
# disturb each other take their group's lock for as long as they run, so no two run at once:
# those that start a Ray cluster or look for one, and those that find a running llama-server
# by its command line. (xdist's own groups, `--dist loadgroup`, put nothing together under
# pytest 9: measured, its example's three tests of one group ran on two workers.)
SHARED_GROUPS = {
    "ray": ("collector/dispatch/test_ray_connect.py", "collector/dispatch/test_ray_dispatch.py",
            "collector/dispatch/test_ray_runner.py"),
    "llama-server": ("collector/modules/test_llama_collect.py", "collector/modules/test_llama_gpu_check.py",
                     "collector/modules/test_llama_resume.py", "collector/modules/test_llama_server.py"),
}
_GROUP_OF_FILE = {file: group for group, files in SHARED_GROUPS.items() for file in files}
# The files that took longest (34-106 s each on 2 CPUs, 12-07), handed out first: xdist gives
# out files in the order the suite lists them (`--no-loadscope-reorder`; by default it starts
# with the files that hold the most tests), so none of them is left to run alone at the end.
LONGEST_FIRST = ("site_gen/test_audit.py", "site_gen/test_series_pages.py", "collector/dispatch/test_ray_dispatch.py",
                 "site_gen/test_dirty_build.py", "test_wheel.py", "test_bench.py", "site_gen/test_browser.py",
                 "site_gen/test_comparisons.py", "site_gen/test_build.py", "benchledger/cli/test_cli_serve.py",
                 "site_gen/test_audit_series.py")
_TESTS = Path(__file__).resolve().parent


def _in_tests(path: Path) -> str:
    """`path` relative to tests/, as SHARED_GROUPS and LONGEST_FIRST name files ("" outside it)."""
    try:
        return path.resolve().relative_to(_TESTS).as_posix()
    except ValueError:
        return ""


def pytest_collection_modifyitems(config, items):
    gone = [file for file in (*_GROUP_OF_FILE, *LONGEST_FIRST) if not (_TESTS / file).is_file()]
    if gone:  # renamed: a group would let it run beside the others again, and it would lose its turn
        raise pytest.UsageError(f"tests/conftest.py: SHARED_GROUPS or LONGEST_FIRST names files that are gone: {', '.join(gone)}")
    rank = {file: i for i, file in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(_in_tests(item.path), len(rank)))  # stable: the rest keep their order


@pytest.fixture(autouse=True, scope="module")
def _one_file_of_a_group_at_a_time(request):
    """The lock of the file's group (if any), taken before its other module fixtures start
    anything, and held until its last test has run."""
    group = _GROUP_OF_FILE.get(_in_tests(request.path))
    if group is None:
        yield
        return
    with open(Path(tempfile.gettempdir()) / f"benchledger-tests-{group}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
