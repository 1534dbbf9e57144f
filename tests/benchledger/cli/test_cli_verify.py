"""`benchledger verify`: passes on the shipped store (golden output), and fails with one precise
line per cause on every kind of tampering, changing nothing."""

import base64
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchledger.records.merkle import root_of
from tests.benchledger.cli.conftest import append_unchecked
from tests.store_copies import tree_digest

# what a changed or lost record's message adds: the way back
RESTORE = "; restore the sealed bytes from a copy (a built site serves them under records/, with the same path)"

GOLDEN = Path(__file__).parent / "golden" / "verify-shipped.txt"
TGR = "records/torch-graph-replay/2026-10-28.json"
GSH = "records/llm-cpu-offload/2026-09-27.json"


def test_shipped_store_passes_golden(records, cli):
    result = cli("verify", "--records", "records")
    assert (result.code, result.err) == (0, [])
    assert result.out == GOLDEN.read_text()


def test_shipped_store_passes_through_the_installed_command(records):
    """The console script itself, as a user runs it (a fresh process, no cache)."""
    done = subprocess.run([str(Path(sys.executable).parent / "benchledger"), "verify", "--no-cache", "--records", str(records)],
                          capture_output=True, text=True, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == GOLDEN.read_text()


def test_json_report(records, cli):
    result = cli("verify", "--json", "--records", "records")
    report = json.loads(result.out)
    assert result.code == 0 and report["ok"] and report["entries"] == 2
    assert [(r["path"], r["status"]) for r in report["records"]] == [
        ("llm-cpu-offload/2026-09-27.json", "ok"), ("torch-graph-replay/2026-10-28.json", "ok")]


def _lines(records: Path) -> list[bytes]:
    return (records / "ledger.jsonl").read_bytes().splitlines(keepends=True)


def _h(line: bytes) -> str:
    return hashlib.sha256(line.rstrip(b"\n")).hexdigest()[:12]


def flip_byte(records):
    path = records / "torch-graph-replay/2026-10-28.json"
    raw = bytearray(path.read_bytes())
    raw[100] ^= 1
    path.write_bytes(bytes(raw))
    return [f"{TGR}: altered: sha256 is {hashlib.sha256(raw).hexdigest()[:12]} (10460 bytes) but ledger line 2 sealed 24492206c24d (10460 bytes){RESTORE}"]


SIGNED_ROOT = "3yCbdVFrfHoTts2bf8VNAHT/A8zDd7jje+HgIiZ0clk="  # records/checkpoints/2, the shipped checkpoint


def _rewritten(records) -> str:
    """The problem the shipped checkpoint reports once the ledger's two lines hash differently."""
    root = base64.b64encode(root_of([line.rstrip(b"\n") for line in _lines(records)[:2]])).decode()
    return (f"records/checkpoints/2: root: signs root {SIGNED_ROOT} but the first 2 entries of records/ledger.jsonl hash to {root}: "
            "the ledger's history was rewritten (an entry edited, removed or inserted, even with the chain recomputed)")


def delete_first_line(records):
    lines = _lines(records)
    (records / "ledger.jsonl").write_bytes(b"".join(lines[1:]))
    return ["records/ledger.jsonl:1: position is 1 but this is entry 0: a line was removed, inserted or reordered",
            f"records/ledger.jsonl:1: prev_sha256 {_h(lines[0])} does not match the genesis hash: a line before it was edited, removed, inserted or reordered",
            # the removed line was this file's: removing the file too would lose the record
            f"{GSH}: unsealed: not listed by the ledger, whose lines do not hold (see its problems); mend the ledger first "
            "(`benchledger repair` says how for a last line cut short), and do not remove this file",
            "records/checkpoints/2: root: signs a tree of 2 entries but records/ledger.jsonl has only 1: entries were removed from the ledger",
            "verification failed: 4 problem(s) in records"]


def reorder_lines(records):
    lines = _lines(records)
    (records / "ledger.jsonl").write_bytes(lines[1] + lines[0])
    return ["records/ledger.jsonl:1: position is 1 but this is entry 0: a line was removed, inserted or reordered",
            f"records/ledger.jsonl:1: prev_sha256 {_h(lines[0])} does not match the genesis hash: a line before it was edited, removed, inserted or reordered",
            "records/ledger.jsonl:2: position is 0 but this is entry 1: a line was removed, inserted or reordered",
            f"records/ledger.jsonl:2: prev_sha256 000000000000 does not match the hash of line 1 ({_h(lines[1])}): a line before it was edited, removed, inserted or reordered",
            _rewritten(records),
            "verification failed: 5 problem(s) in records"]


def edit_ledger_line(records):
    lines = _lines(records)
    edited = lines[0].replace(b'"sealed_at":"2026', b'"sealed_at":"2025')
    (records / "ledger.jsonl").write_bytes(edited + lines[1])
    return [f"records/ledger.jsonl:2: prev_sha256 {_h(lines[0])} does not match the hash of line 1 ({_h(edited)}): a line before it was edited, removed, inserted or reordered",
            _rewritten(records), "verification failed: 2 problem(s) in records"]


def forge_line(records):
    forged = {"position": 2, "path": "forged.json", "sha256": "a" * 64, "size_bytes": 2, "schema": "torch-graph-replay/1",
              "sealed_at": "2026-11-01T00:00:00Z", "prev_sha256": "b" * 64}
    with open(records / "ledger.jsonl", "ab") as out:
        out.write(json.dumps(forged, separators=(",", ":")).encode() + b"\n")
    return [f"records/ledger.jsonl:3: prev_sha256 bbbbbbbbbbbb does not match the hash of line 2 ({_h(_lines(records)[1])}): a line before it was edited, removed, inserted or reordered",
            f"records/forged.json: missing: sealed on ledger line 3 but the file is gone{RESTORE}",
            "verification failed: 2 problem(s) in records"]


def add_unsealed_file(records):
    (records / "llm-cpu-offload/2026-10-01.json").write_text("{}")
    return ["records/llm-cpu-offload/2026-10-01.json: unsealed: the ledger does not list this file; if it was sealed before "
            "(a published ledger, such as a built site's records/ledger.jsonl, lists it), restore the ledger from that copy; "
            "otherwise seal it with `benchledger seal` or move it out of the store"]


def remove_file(records):
    (records / "llm-cpu-offload/2026-09-27.json").unlink()
    return [f"{GSH}: missing: sealed on ledger line 1 but the file is gone{RESTORE}"]


def truncate_ledger(records):
    lines = _lines(records)
    (records / "ledger.jsonl").write_bytes(lines[0] + lines[1].rstrip(b"\n"))
    return ["records/ledger.jsonl:2: does not end with a newline: the last line was cut short or edited"]


def invalid_record_behind_seals_back(records):
    data = json.loads((records / "torch-graph-replay/2026-10-28.json").read_bytes())
    data["measurements"][0]["tokens"] = -5
    data["device"] = None
    append_unchecked(records, "torch-graph-replay/bad.json", json.dumps(data).encode(), "torch-graph-replay/1")
    return ["records/torch-graph-replay/bad.json: $.device: null is not of type 'string'",
            "records/torch-graph-replay/bad.json: $.measurements[0].tokens: -5 is less than the minimum of 1",
            "verification failed: 2 problem(s) in records"]


def inconsistent_record_behind_seals_back(records):
    data = json.loads((records / "torch-graph-replay/2026-10-28.json").read_bytes())
    data["measurements"][1]["mean_speedup"] = 5.0
    append_unchecked(records, "torch-graph-replay/odd.json", json.dumps(data).encode(), "torch-graph-replay/1")
    return ["records/torch-graph-replay/odd.json: $.measurements[1].mean_speedup: expected 4.05319608202 (timing.eager.mean_ms / timing.graph.mean_ms), found 5.0 [check tgr-mean-speedup]"]


def not_json_behind_seals_back(records):
    append_unchecked(records, "torch-graph-replay/nan.json", b'{"a": NaN}', "torch-graph-replay/1")
    return ["records/torch-graph-replay/nan.json:1: NaN is not a finite JSON number (NaN and infinities are not allowed; column 7)"]


def unknown_schema_behind_seals_back(records):
    append_unchecked(records, "x/y.json", b"{}", "made-up/9")
    return ["records/x/y.json: schema 'made-up/9': unknown schema id; known: gsh-llm-core-article/1, llama-bench/1, torch-graph-replay/1"]


TAMPERING = [flip_byte, delete_first_line, reorder_lines, edit_ledger_line, forge_line, add_unsealed_file, remove_file,
             truncate_ledger, invalid_record_behind_seals_back, inconsistent_record_behind_seals_back,
             not_json_behind_seals_back, unknown_schema_behind_seals_back]


@pytest.mark.parametrize("tamper", TAMPERING, ids=[t.__name__ for t in TAMPERING])
def test_tampering_is_named(records, cli, tamper):
    expected = tamper(records)
    before = tree_digest(records)
    result = cli("verify", "--records", "records")
    assert result.code == 1
    assert result.err == [f"benchledger verify: error: {line}" for line in expected]
    assert "Traceback" not in result.out
    assert tree_digest(records) == before
    # the table still lists every file, and --json agrees
    report = json.loads(cli("verify", "--json", "--records", "records").out)
    assert not report["ok"] and len(report["problems"]) == len([x for x in expected if not x.startswith("verification failed")])


def test_a_consistently_forged_entry_is_caught_by_a_pinned_head(records, cli):
    """A forger who appends a file and a correctly chained line only fails against the head
    hash published earlier (the site shows it): --expect-head pins it."""
    head = json.loads(cli("verify", "--json", "--records", "records").out)["head_sha256"]
    raw = (records / "torch-graph-replay/2026-10-28.json").read_bytes().replace(b'"profile": "fp16"', b'"profile": "bf16"')
    append_unchecked(records, "torch-graph-replay/forged.json", raw, "torch-graph-replay/1")
    assert cli("verify", "--records", "records").code == 0
    result = cli("verify", "--records", "records", "--expect-head", head)
    new_head = json.loads(cli("verify", "--json", "--records", "records").out)["head_sha256"]
    assert result.code == 1
    assert result.err == [f"benchledger verify: error: records/ledger.jsonl: head is {new_head} but {head} was expected: "
                          "entries were appended, removed or changed"]


def test_missing_store_is_one_line(cli, tmp_path):
    result = cli("verify", "--records", "nowhere")
    assert (result.code, result.err) == (1, ["benchledger verify: error: nowhere: no such records folder: run this inside a project (a folder "
                                             "holding benchledger.toml, or below it), pass --project DIR or --records DIR, or make a "
                                             "project with `benchledger init DIR`"])


@pytest.mark.parametrize("args, message", [
    (["--expect-head", "zz"], "--expect-head: expected the ledger head's 64 lowercase hex digits (as verify prints it), found 'zz'"),
    # accepted and ignored before: a key that was never checked read as a passed check
    (["--vkey", "abc"], "--vkey: --vkey goes only with --site (they check a site's signed log)"),
    (["--redraw-charts"], "--redraw-charts: --redraw-charts goes only with --site (it draws a site's charts again)"),
    (["--site", "site", "--no-cache"], "--no-cache: --no-cache goes only with a records store, not --site (a site is checked whole)"),
])
def test_arguments_that_cannot_mean_anything_are_named(records, cli, args, message):
    result = cli("verify", *args)
    assert result.code == 1 and result.err == [f"benchledger verify: error: {message}"]


def test_repair_names_a_sealed_file_it_cannot_mend(records, cli):
    """A record cut to 0 bytes: repair said 'nothing to repair' and exited 0."""
    (records / "torch-graph-replay" / "2026-10-28.json").write_bytes(b"")
    result = cli("repair")
    assert result.code == 1
    assert result.err == [f"benchledger repair: error: {TGR}: altered: 0 bytes but ledger line 2 sealed 10460 bytes{RESTORE}"]
    assert (records / "torch-graph-replay" / "2026-10-28.json").read_bytes() == b""  # left as it was


def test_repair_never_advises_cutting_a_whole_entry_that_lacks_only_its_newline(records, cli):
    """The last entry complete, only its newline gone: repair said "no complete entry" and gave
    the `truncate` that drops a sealed, signed entry."""
    ledger = records / "ledger.jsonl"
    whole = ledger.read_bytes()
    ledger.write_bytes(whole[:-1])
    result = cli("repair")
    assert result.code == 1 and result.err == [
        "benchledger repair: error: records/ledger.jsonl: its last entry is whole and continues the chain, but lacks its "
        "newline: add it with `printf '\\n' >> records/ledger.jsonl` (never cut the entry: it is sealed), then run "
        "`benchledger verify`"]
    assert ledger.read_bytes() == whole[:-1]
    ledger.write_bytes(whole[:-1] + b"\n")  # as told
    assert cli("verify").code == 0
    ledger.write_bytes(whole[:-5])  # an entry cut short: that one may be cut off
    assert "`truncate -s " in "\n".join(cli("repair").err)


@pytest.mark.parametrize("edit", ["crlf", "duplicated", "swapped", "empty line"])
def test_repair_names_a_ledger_broken_in_a_way_no_interrupted_seal_leaves(records, cli, edit):
    """Repair said "nothing to repair" (exit 0) for these while verify and seal failed."""
    ledger = records / "ledger.jsonl"
    lines = ledger.read_bytes().splitlines(keepends=True)
    broken = {"crlf": b"".join(line.replace(b"\n", b"\r\n") for line in lines),
              "duplicated": b"".join(lines + lines[-1:]),
              "swapped": b"".join(lines[::-1]),
              "empty line": b"".join(lines[:1] + [b"\n"] + lines[1:])}[edit]
    ledger.write_bytes(broken)
    result = cli("repair")
    assert result.code == 1 and result.err[0].startswith("benchledger repair: error: records/ledger.jsonl:")
    assert result.err[-1].endswith("repair never edits the ledger: restore it from where the store came from (git, a backup, "
                                   "a built site's records/ledger.jsonl)")
    assert ledger.read_bytes() == broken


def test_a_ledger_with_windows_line_endings_is_one_finding_that_says_so(records, cli):
    """A CR LF ledger (git's autocrlf) gave two findings per line, none naming the endings."""
    ledger = records / "ledger.jsonl"
    ledger.write_bytes(ledger.read_bytes().replace(b"\n", b"\r\n"))
    result = cli("verify")
    found = [line for line in result.err if "ledger.jsonl" in line]
    assert result.code == 1 and len(found) == 1, result.err
    assert "has Windows line endings (CR LF)" in found[0] and "sed -i 's/\\r$//' FILE" in found[0]


def test_repair_removes_what_an_interrupted_checkpoint_left_and_verify_names_it(records, cli):
    """A checkpoint killed between its temp file and its link: verify called the temp file "not a
    checkpoint: remove it", every later checkpoint and build was refused, and repair said
    "nothing to repair"."""
    temp = records / "checkpoints" / ".3.17311-140466578185088-0.tmp"
    temp.write_bytes(b"half a note")
    verified = cli("verify")
    assert verified.code == 1 and any(
        "checkpoints/.3.17311-140466578185088-0.tmp" in line and "interrupted: run `benchledger repair`" in line
        for line in verified.err), verified.err
    result = cli("repair")
    assert result.code == 0 and result.out == (
        "removed records/checkpoints/.3.17311-140466578185088-0.tmp (a temp file of an interrupted checkpoint; it held nothing sealed)\n")
    assert not temp.exists() and cli("verify").code == 0
