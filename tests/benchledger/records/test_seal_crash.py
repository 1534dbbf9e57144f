"""Crash windows of `seal` (issue 11, class 4): a seal killed with SIGKILL at any durable step
leaves a store that the next command (the same seal again, or `benchledger repair`) brings back
to one that verifies, with nothing lost and nothing sealed twice.

Two ways of killing: real fault injection with strace (SIGKILL on entry to the N-th fsync, for
every fsync a seal makes) and the sealing module's own crash hook (after each durable step)."""

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from benchledger.records.ledger import TEMP_NAME
from benchledger.records.sealing import CRASH_POINTS
from benchledger.records.store import Store
from tests.store_copies import shipped_copy, tree_digest

REPO = Path(__file__).resolve().parents[3]
TGR = "torch-graph-replay/1"
TARGET = "torch-graph-replay/variant.json"
STRACE = shutil.which("strace")


def variant(root: Path) -> bytes:
    data = json.loads((root / "torch-graph-replay/2026-10-28.json").read_bytes())
    data["finished_epoch"] = 1234.5
    return json.dumps(data).encode()


def seal_cmd(source: Path, records: Path) -> list[str]:
    return [sys.executable, "-m", "benchledger", "seal", str(source), "--schema", TGR, "--as", TARGET, "--records", str(records)]


def env(**extra) -> dict:
    return {**os.environ, "BENCHLEDGER_CACHE_DIR": "", **extra}


def recover_and_check(records: Path, source: Path, before: dict[str, str], sealed_by_crash: bool) -> None:
    """The next seal of the same file recovers; afterwards the store verifies, the shipped
    records are untouched and the record is sealed exactly once, at its path."""
    again = subprocess.run(seal_cmd(source, records), cwd=REPO, capture_output=True, text=True, env=env(), timeout=60)
    if sealed_by_crash:
        assert again.returncode == 1 and "already sealed" in again.stderr, again.stderr
    else:
        assert again.returncode == 0, again.stderr
        assert "Traceback" not in again.stderr
    report = Store(records).verify()
    assert report.ok, [str(p) for p in report.problems]
    entries = Store(records).entries()
    assert [e.path for e in entries].count(TARGET) == 1 and not any(e.path.endswith("-2.json") for e in entries)
    assert (records / TARGET).read_bytes() == source.read_bytes()
    after = tree_digest(records)
    assert {k: v for k, v in after.items() if k in before and k != "ledger.jsonl"} == {k: v for k, v in before.items() if k != "ledger.jsonl"}
    assert not (records / TEMP_NAME).exists()


def fsync_count(tmp_path: Path) -> int:
    """How many fsyncs one seal makes (traced, not assumed)."""
    records = shipped_copy(tmp_path / "count")
    source = tmp_path / "count" / "variant.json"
    source.write_bytes(variant(records))
    log = tmp_path / "count" / "strace.log"
    subprocess.run([STRACE, "-f", "-qq", "-o", str(log), "-e", "trace=fsync", *seal_cmd(source, records)],
                   cwd=REPO, check=True, capture_output=True, env=env())
    return sum(1 for line in log.read_text().splitlines() if "fsync(" in line and "resumed" not in line)


@pytest.mark.skipif(STRACE is None, reason="strace is not installed (`make test` installs it)")
def test_seal_killed_at_every_fsync_is_recovered_by_the_next_seal(tmp_path):
    count = fsync_count(tmp_path)
    assert count >= 3  # temp file, its folder, the ledger
    for n in range(1, count + 1):
        base = tmp_path / f"kill-{n}"
        records = shipped_copy(base)
        source = base / "variant.json"
        source.write_bytes(variant(records))
        before = tree_digest(records)
        killed = subprocess.run([STRACE, "-f", "-qq", "-o", "/dev/null", "-e", "trace=fsync",
                                 "-e", f"inject=fsync:signal=KILL:when={n}", *seal_cmd(source, records)],
                                cwd=REPO, capture_output=True, text=True, env=env())
        assert killed.returncode in (-signal.SIGKILL, 128 + signal.SIGKILL), (n, killed.returncode, killed.stderr)
        # killed on entry to the last fsync (the ledger's), the line is written already
        sealed = TARGET in {e.path for e in Store(records).read().entries}
        recover_and_check(records, source, before, sealed)


@pytest.mark.parametrize("point", CRASH_POINTS)
def test_seal_killed_after_each_step_is_recovered(tmp_path, point):
    records = shipped_copy(tmp_path)
    source = tmp_path / "variant.json"
    source.write_bytes(variant(records))
    before = tree_digest(records)
    killed = subprocess.run(seal_cmd(source, records), cwd=REPO, capture_output=True, text=True, env=env(BENCHLEDGER_CRASH_AT=point))
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    report = Store(records).verify()
    if point in ("temp-written", "linked"):
        # what verify says of the leftovers can be followed: repair, or seal again
        temp_rows = [r for r in report.records if r.path == TEMP_NAME]
        assert temp_rows and temp_rows[0].status == "stale-temp" and "repair" in temp_rows[0].problems[0].message
    recover_and_check(records, source, before, sealed_by_crash=point == "appended")


def test_repair_removes_stale_temp_files_and_keeps_everything_else(tmp_path):
    records = shipped_copy(tmp_path)
    source = tmp_path / "variant.json"
    source.write_bytes(variant(records))
    subprocess.run(seal_cmd(source, records), cwd=REPO, capture_output=True, env=env(BENCHLEDGER_CRASH_AT="linked"))
    old_style = records / "torch-graph-replay" / ".2026-10-28.json.4242.tmp"  # what earlier versions left
    old_style.write_bytes(b"{}")
    assert {r.status for r in Store(records).verify().records} >= {"stale-temp", "unsealed"}
    out = subprocess.run([sys.executable, "-m", "benchledger", "repair", "--records", str(records)],
                         cwd=REPO, capture_output=True, text=True, env=env())
    assert out.returncode == 0, out.stderr
    assert f"removed {records.as_posix()}/{TEMP_NAME}" in out.stdout and ".2026-10-28.json.4242.tmp" in out.stdout
    assert f"--as {TARGET}" in out.stdout  # how to adopt the linked file
    # and the way back where the ledger, not the seal, lost the line: sealing again would change its head
    assert "if it was sealed before and the ledger lost its line, restore the ledger from a copy" in out.stdout
    assert not old_style.exists() and not (records / TEMP_NAME).exists() and (records / TARGET).exists()
    assert [r.status for r in Store(records).verify().records] == ["ok", "ok", "unsealed"]


def test_collect_resume_adopts_a_linked_but_unappended_record(tmp_path):
    """The collector picks its store path: a file there holding exactly its bytes is its own
    seal that crashed before the ledger line, so it is adopted, not sealed again under -2."""
    from collector import record as record_io

    records = shipped_copy(tmp_path)
    raw = variant(records)
    (records / TARGET).write_bytes(raw)  # the state a seal killed after linking leaves
    assert record_io.path_free_for(records, TARGET, raw)
    assert not record_io.path_free_for(records, TARGET, raw + b" ")
    assert record_io.store_path(records, "torch-graph-replay", "variant", set(), raw) == TARGET
    assert record_io.store_path(records, "torch-graph-replay", "variant", set(), raw + b" ") == "torch-graph-replay/variant-2.json"
    entry = record_io.seal(records, raw, TGR, TARGET)
    assert entry.path == TARGET and Store(records).verify().ok


def test_a_last_ledger_line_cut_short_is_named_with_the_way_back(tmp_path):
    """A seal cut short while appending its line: repair exited 0 and told the user to seal the
    file again (which failed on the broken ledger), and verify said to seal or remove the file,
    which would lose the record."""
    records = shipped_copy(tmp_path)
    source = tmp_path / "variant.json"
    source.write_bytes(variant(records))
    assert subprocess.run(seal_cmd(source, records), cwd=REPO, capture_output=True, env=env()).returncode == 0
    ledger = records / "ledger.jsonl"
    whole = ledger.read_bytes()
    keep = whole.rstrip(b"\n").rfind(b"\n") + 1
    ledger.write_bytes(whole[:-40])
    [row] = [r for r in Store(records).verify().records if r.path == TARGET]
    assert row.status == "unsealed" and "mend the ledger first" in row.problems[0].message and "do not remove" in row.problems[0].message
    out = subprocess.run([sys.executable, "-m", "benchledger", "repair", "--records", str(records)],
                         cwd=REPO, capture_output=True, text=True, env=env())
    assert out.returncode == 1 and out.stdout == ""
    assert f"`truncate -s {keep} {ledger.as_posix()}`" in out.stderr and "restore the ledger from a copy" in out.stderr
    os.truncate(ledger, keep)  # what the message says to do
    again = subprocess.run([sys.executable, "-m", "benchledger", "repair", "--records", str(records)],
                           cwd=REPO, capture_output=True, text=True, env=env())
    assert again.returncode == 0 and f"--as {TARGET}" in again.stdout
    recover_and_check(records, source, tree_digest(shipped_copy(tmp_path / "fresh")), sealed_by_crash=False)


def test_verify_waits_for_a_seal_in_flight_instead_of_calling_its_files_stale(tmp_path):
    """A verify that looked while a seal was half-way (temp file written, record linked, ledger
    line not yet appended) reported the live seal's temp file as stale and its record as
    unsealed. Here this process holds the store's lock as a seal does, with both files placed:
    a real `verify` waits, and once the seal's line is in, finds everything sealed."""
    from benchledger.records import lock
    from benchledger.records.digest import sha256_hex
    from benchledger.records.sealing import _seal_locked

    records = shipped_copy(tmp_path)
    data = json.loads((records / "torch-graph-replay/2026-10-28.json").read_bytes())
    data["finished_epoch"] = 1800000000.5
    raw = json.dumps(data, indent=1).encode()
    with lock.exclusive(records):
        (records / TEMP_NAME).write_bytes(raw)
        verify = subprocess.Popen([sys.executable, "-m", "benchledger", "verify", "--no-cache", "--records", str(records)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            with pytest.raises(subprocess.TimeoutExpired):
                verify.wait(timeout=3)  # it waits on the lock: it has not judged the half-done seal
            # the seal finishes, under the lock it holds: the bytes go into place and into the ledger
            _seal_locked(Store(records), raw, "torch-graph-replay/1", "torch-graph-replay/in-flight.json", "in-flight", sha256_hex(raw))
        except BaseException:
            if verify.poll() is None:
                os.killpg(verify.pid, signal.SIGKILL)
            raise
    out, err = verify.communicate(timeout=120)
    assert verify.returncode == 0, err
    assert "stale" not in out and "unsealed" not in out and "all 3 record(s) hold" in out
