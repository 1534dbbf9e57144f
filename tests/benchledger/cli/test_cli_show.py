"""`benchledger show`: a record's ledger entry and the upstream hashes it claims."""

import json
import os
import subprocess
import sys
from pathlib import Path

from benchledger.records.verification import RESTORE


def test_show_by_prefix_lists_entry_and_claims(records, cli):
    result = cli("show", "24492206c24d")
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines[:3] == ["position      1", "path          torch-graph-replay/2026-10-28.json",
                         "sha256        24492206c24d2b9ed84f821d36e701636564c8365cc09ba52fb35703b9c4e2fe"]
    assert "file          records/torch-graph-replay/2026-10-28.json: bytes match the ledger" in lines
    assert "claimed upstream hashes (4; as the record states them, not verified here):" in lines
    assert "  85edb1a863c403de14592a2b8d5d828763416c08514be11d3b61b6d85781bbc5  /original_artifact_hashes/FP16_weight" in lines


def test_show_by_path_as_json(records, cli):
    result = cli("show", "records/llm-cpu-offload/2026-09-27.json", "--json")
    shown = json.loads(result.out)
    assert shown["entry"]["position"] == 0 and shown["bytes_match"]
    assert {"pointer": "/runtime/binary_sha256", "sha256": "376626f953efd7bbf16dee112747196d2b1de26717bcd1d37e203340dc5c043c"} in shown["claimed_hashes"]


def test_show_unknown_and_altered(records, cli):
    result = cli("show", "0123456789ab")
    assert (result.code, result.err) == (1, ["benchledger show: error: 0123456789ab: no record in records/ledger.jsonl has this path or sha256 (prefixes need >= 12 hex digits)"])
    empty = cli("show", " ")  # named nothing: ": no record ..."
    assert (empty.code, empty.err) == (1, ["benchledger show: error: HASH-OR-PATH: empty: give a record's sha256 (or a unique prefix "
                                           "of >= 12 hex digits) or its path"])
    path = records / "torch-graph-replay/2026-10-28.json"
    path.write_bytes(path.read_bytes() + b" ")
    for json_flag in ([], ["--json"]):  # the entry on stdout, and (it said so only there) why it failed on stderr
        result = cli("show", "torch-graph-replay/2026-10-28.json", *json_flag)
        assert result.code == 1 and ("bytes ALTERED (sha256 now " in result.out or '"bytes_match": false' in result.out)
        assert len(result.err) == 1 and result.err[0].startswith(
            "benchledger show: error: records/torch-graph-replay/2026-10-28.json: altered: sha256 is ")
        assert result.err[0].endswith(" (10461 bytes) but ledger line 2 sealed 24492206c24d (10460 bytes)" + RESTORE)


def test_a_closed_pipe_is_not_a_traceback(records):
    """`benchledger show X | true`: the reader is gone before anything is written; no traceback."""
    command = f"'{Path(sys.executable).parent / 'benchledger'}' show 24492206c24d --records '{records}' | true"
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=False)
    assert done.stderr == ""


def test_a_sealed_path_or_ledger_that_is_no_plain_file_is_named_not_read(records, cli):
    """A FIFO blocked `show` for ever and a link to /dev/zero filled memory: each is named."""
    path = records / "torch-graph-replay/2026-10-28.json"
    path.unlink()
    path.symlink_to("/dev/zero")
    result = cli("show", "24492206c24d")
    assert (result.code, result.err) == (1, ["benchledger show: error: records/torch-graph-replay/2026-10-28.json: is a symbolic "
                                             "link, not a sealed record; the store keeps plain files only"])
    path.unlink()
    os.mkfifo(path)
    result = cli("compare", "24492206c24d", "ebcfc483a547")
    assert (result.code, result.err) == (1, ["benchledger compare: error: records/torch-graph-replay/2026-10-28.json: is not a "
                                             "regular file (a device, pipe or socket), not a sealed record"])
    ledger = records / "ledger.jsonl"
    ledger.unlink()
    os.mkfifo(ledger)
    result = cli("verify")
    assert (result.code, result.err) == (1, ["benchledger verify: error: records/ledger.jsonl: is not a regular file (a device, "
                                             "pipe or socket), not a ledger"])
