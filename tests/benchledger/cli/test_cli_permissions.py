"""A store the user may read but not write (another user's): every command that would write says
so in one line naming the file, and leaves the store as it was. Run as another user through
`setpriv` when the tests run as root (whom file modes do not stop)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.store_copies import shipped_copy, tree_digest

ROOT = Path(__file__).resolve().parents[3]
AS_OTHER = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
pytestmark = pytest.mark.skipif(os.geteuid() == 0 and shutil.which("setpriv") is None, reason="needs setpriv to drop root")


@pytest.fixture
def project():
    """A store and a new record in a folder every user may read and no other user may write."""
    folder = Path(tempfile.mkdtemp(prefix="bl-perm-"))
    try:
        records = shipped_copy(folder)
        shutil.rmtree(records / "checkpoints")
        data = json.loads((records / "torch-graph-replay/2026-10-28.json").read_bytes())
        data["finished_epoch"] = 1800000000.5
        (folder / "new.json").write_text(json.dumps(data, indent=1))
        for path in [folder, *folder.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        yield folder
    finally:
        for path in [folder, *folder.rglob("*")]:
            if path.is_dir():
                path.chmod(0o755)
        shutil.rmtree(folder)


def run(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*AS_OTHER, sys.executable, "-m", "benchledger", *args, "--records", "records"], cwd=folder,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_a_store_the_user_may_not_write_gives_one_line_and_keeps_the_store(project):
    records = project / "records"
    (records / ".seal.tmp").write_bytes(b"left by a seal")
    (records / ".seal.tmp").chmod(0o644)
    before = tree_digest(records)
    for args in (["repair"], ["seal", "new.json", "--schema", "torch-graph-replay/1"]):
        result = run(project, *args)
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
        assert result.stderr.splitlines() == [
            f"benchledger {args[0]}: error: cannot remove records/.seal.tmp, a temp file an interrupted seal or checkpoint left: "
            "Permission denied; run `benchledger repair` as a user who may write the store"]
    assert tree_digest(records) == before
    (records / ".seal.tmp").unlink()
    records.chmod(0o777)  # the folder writable, the ledger not: the placed record is taken back
    before = tree_digest(records)
    result = run(project, "seal", "new.json", "--schema", "torch-graph-replay/1")
    assert result.returncode == 1 and result.stderr.splitlines() == [
        "benchledger seal: error: cannot append to records/ledger.jsonl: Permission denied; nothing was sealed"]
    assert tree_digest(records) == before
    records.chmod(0o755)
    key = ROOT / "keys" / "DEMONSTRATION-KEY-NOT-SECRET.key"
    result = run(project, "checkpoint", "--key", str(key))
    assert result.returncode == 1 and result.stderr.splitlines() == [
        "benchledger checkpoint: error: cannot create records/checkpoints/: Permission denied; nothing was signed"]
    assert not (records / "checkpoints").exists() and stat.S_IMODE(records.stat().st_mode) == 0o755


def test_a_ledger_that_is_a_symbolic_link_is_never_appended_through(tmp_path):
    """A ledger.jsonl linking to a file outside the store was followed and appended to."""
    from benchledger.cli.main import main

    records = shipped_copy(tmp_path)
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_bytes((records / "ledger.jsonl").read_bytes())
    (records / "ledger.jsonl").unlink()
    (records / "ledger.jsonl").symlink_to(outside)
    data = json.loads((records / "torch-graph-replay/2026-10-28.json").read_bytes())
    data["finished_epoch"] = 1800000000.5
    (tmp_path / "new.json").write_text(json.dumps(data, indent=1))
    before = outside.read_bytes()
    assert main(["seal", str(tmp_path / "new.json"), "--schema", "torch-graph-replay/1", "--records", str(records)]) == 1
    assert outside.read_bytes() == before and not (records / "new.json").exists()
