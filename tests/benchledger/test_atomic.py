"""benchledger.atomic: a replaced file is the old one or the whole new one, never a part, and
nothing is left behind."""

import os
import threading

import pytest

from benchledger.atomic import write_atomic


def test_creates_parents_and_replaces_leaving_no_temp_file(tmp_path):
    target = tmp_path / "a" / "b" / "file.json"
    write_atomic(target, b"one")
    write_atomic(target, b"two", durable=False)
    assert target.read_bytes() == b"two"
    assert sorted(p.name for p in target.parent.iterdir()) == ["file.json"]


def test_the_mode_is_what_a_plain_write_gives(tmp_path):
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "f", b"x")
    finally:
        os.umask(old)
    assert (tmp_path / "f").stat().st_mode & 0o777 == 0o644  # published files stay readable


def test_a_failed_replace_keeps_the_old_state_and_removes_the_temp_file(tmp_path):
    target = tmp_path / "dir"
    target.mkdir()
    (target / "inside").write_bytes(b"kept")
    with pytest.raises(OSError):
        write_atomic(target, b"new")  # a folder cannot be replaced by a file
    assert (target / "inside").read_bytes() == b"kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir"]


def test_concurrent_writers_leave_one_whole_file(tmp_path):
    target = tmp_path / "shared.bin"
    payloads = [bytes([i]) * 200_000 for i in range(8)]
    threads = [threading.Thread(target=write_atomic, args=(target, p), kwargs={"durable": False}) for p in payloads]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert target.read_bytes() in payloads
    assert [p.name for p in tmp_path.iterdir()] == ["shared.bin"]


def test_write_new_creates_once_and_never_replaces(tmp_path):
    from benchledger.atomic import write_new

    target = tmp_path / "checkpoint"
    write_new(target, b"first")
    with pytest.raises(FileExistsError):
        write_new(target, b"second")
    assert target.read_bytes() == b"first"
    assert [p.name for p in tmp_path.iterdir()] == ["checkpoint"]  # no temporary file stays
