"""`benchledger seal`: every bad input gets one clear line and exit 1, and changes nothing."""

import json

import pytest

from tests.pools import force_process_pool
from tests.store_copies import tree_digest

TGR = "torch-graph-replay/1"


def test_seal_succeeds_and_verify_passes(records, valid, cli):
    result = cli("seal", "new.json", "--schema", TGR, "--as", "torch-graph-replay/2026-11-30.json")
    assert result.code == 0 and result.err == []
    assert result.out.startswith("sealed records/torch-graph-replay/2026-11-30.json  sha256 ")
    assert "ledger line 3, head " in result.out
    assert (records / "torch-graph-replay/2026-11-30.json").read_bytes() == valid.read_bytes()
    assert cli("verify").code == 0


def _write(tmp_path, content: bytes) -> str:
    (tmp_path / "in.json").write_bytes(content)
    return "in.json"


BAD = [
    ("not JSON", b'{"a": }', [], ["in.json:1: not JSON: Expecting value (column 7)"]),
    ("not UTF-8", b'{"device": "caf\xe9"}', [], ["in.json:1: not UTF-8: invalid byte 0xe9 at offset 15"]),
    ("duplicate keys", b'{"device": "a", "device": "b"}', [], ["in.json: $: duplicate key 'device' in one object"]),
    ("NaN", b'{"finished_epoch": NaN}', [], ["in.json:1: NaN is not a finite JSON number (NaN and infinities are not allowed; column 20)"]),
    ("Infinity", b'{"finished_epoch": Infinity}', [], ["in.json:1: Infinity is not a finite JSON number (NaN and infinities are not allowed; column 20)"]),
    ("trailing garbage", b'{}\n}', [], ["in.json:2: not JSON: trailing data after the JSON document (column 1)"]),
    ("over the size limit", b" " * (16 * 1024 * 1024 + 1), [], ["in.json: file is 16777217 bytes, over the 16777216-byte limit for a record"]),
    ("unknown schema id", b"{}", ["--schema", "torch-graph-replay/7"],
     ["torch-graph-replay/7: unknown schema id; known: gsh-llm-core-article/1, llama-bench/1, torch-graph-replay/1"]),
    ("missing file", None, [], ["absent.json: no such file"]),
]


@pytest.mark.parametrize("what, content, extra, lines", BAD, ids=[b[0] for b in BAD])
def test_bad_input_one_line_nothing_changes(records, cli, tmp_path, what, content, extra, lines):
    name = _write(tmp_path, content) if content is not None else "absent.json"
    before = tree_digest(records)
    args = ["seal", name, "--as", "x/new.json"] + (extra or ["--schema", TGR])
    result = cli(*args)
    assert result.code == 1
    assert result.err == [f"benchledger seal: error: {line}" for line in lines]
    assert result.out == ""
    assert tree_digest(records) == before


def test_schema_violations_are_all_listed(records, valid, cli):
    data = json.loads(valid.read_bytes())
    del data["device"]
    data["measurements"][2]["comparisons"] = -1
    data["original_artifact_hashes"]["FP16_weight"] = "not-a-hash"
    valid.write_text(json.dumps(data))
    before = tree_digest(records)
    result = cli("seal", "new.json", "--schema", TGR, "--as", "x/new.json")
    assert result.code == 1
    assert result.err == [
        "benchledger seal: error: new.json: $: 'device' is a required property",
        "benchledger seal: error: new.json: $.measurements[2].comparisons: -1 is less than the minimum of 0",
        "benchledger seal: error: new.json: $.original_artifact_hashes.FP16_weight: 'not-a-hash' does not match '^[0-9a-f]{64}$'",
        "benchledger seal: error: new.json: 3 violation(s) of schema torch-graph-replay/1; nothing was sealed",
    ]
    assert tree_digest(records) == before


@pytest.mark.parametrize("as_path, line", [
    (None, "new.json: these exact bytes are already sealed as x/first.json (ledger line 3); a record is sealed once"),
    ("../outside.json", "new.json: target path '../outside.json' must stay inside the store (no '..', '.' or empty segments)"),
    ("/tmp/abs.json", "new.json: target path '/tmp/abs.json' must be a relative path with '/' separators, inside the store"),
    ("ledger.jsonl", "new.json: target path 'ledger.jsonl' is the ledger itself"),
    ("ledger.jsonl/x.json", "new.json: target path 'ledger.jsonl/x.json' is inside ledger.jsonl/, the ledger"),
    ("checkpoints/x.json", "new.json: target path 'checkpoints/x.json' is inside checkpoints/, the folder of the ledger's signed checkpoints"),
    ("x/first.json", "new.json: these exact bytes are already sealed as x/first.json (ledger line 3); a record is sealed once"),
])
def test_refused_targets(records, valid, cli, as_path, line):
    assert cli("seal", "new.json", "--schema", TGR, "--as", "x/first.json").code == 0
    before = tree_digest(records)
    result = cli("seal", "new.json", "--schema", TGR, *(["--as", as_path] if as_path else ["--as", "x/second.json"]))
    assert (result.code, result.err) == (1, [f"benchledger seal: error: {line}"])
    assert tree_digest(records) == before


def test_existing_path_is_never_overwritten(records, valid, cli):
    before = tree_digest(records)
    result = cli("seal", "new.json", "--schema", TGR, "--as", "torch-graph-replay/2026-10-28.json")
    assert result.err == ["benchledger seal: error: new.json: records/torch-graph-replay/2026-10-28.json is already sealed "
                          "(ledger line 2); sealed files are never overwritten"]
    (records / "other.json").write_text("{}")
    before = tree_digest(records)
    result = cli("seal", "new.json", "--schema", TGR, "--as", "other.json")
    assert result.err == ["benchledger seal: error: new.json: records/other.json already exists with other content; "
                          "sealed files are never overwritten"]
    assert tree_digest(records) == before


def _variants(records, tmp_path, epochs):
    data = json.loads((records / "torch-graph-replay/2026-10-28.json").read_bytes())
    names = []
    for epoch in epochs:
        data["finished_epoch"] = epoch
        (tmp_path / f"run-{epoch}.json").write_text(json.dumps(data, indent=1))
        names.append(f"run-{epoch}.json")
    return names


@pytest.fixture(params=["one process", "a process pool"])
def validating(request, monkeypatch):
    """Many files are validated in a pool of processes (from PARALLEL_MIN_RECORDS on, here 2)."""
    if request.param == "a process pool":
        force_process_pool(monkeypatch)
    return request.param


def test_seal_many_files_in_one_run_in_order(records, cli, tmp_path, validating):
    names = _variants(records, tmp_path, [1800000001, 1800000002, 1800000003])
    result = cli("seal", *names, "--schema", TGR)
    assert result.code == 0 and result.err == []
    assert [line.split()[1] for line in result.out.splitlines()[:3]] == [f"records/{n}" for n in names]
    assert "ledger line 5, head " in result.out
    assert cli("verify").code == 0


def test_seal_many_reports_every_problem_and_seals_none(records, cli, tmp_path, validating):
    names = _variants(records, tmp_path, [1800000001, 1800000002])
    (tmp_path / "bad.json").write_bytes(b'{"a": }')
    (tmp_path / "twin.json").write_bytes((tmp_path / names[0]).read_bytes())
    before = tree_digest(records)
    result = cli("seal", names[0], "bad.json", "missing.json", "--schema", TGR)
    assert result.code == 1 and result.err[0].endswith("missing.json: no such file")
    result = cli("seal", names[0], "bad.json", "twin.json", "records/torch-graph-replay/2026-10-28.json", names[1], "--schema", TGR)
    assert result.code == 1
    assert "bad.json:1: not JSON: Expecting value (column 7)" in result.err[0]
    assert "twin.json: has the same bytes as run-1800000001.json; a record is sealed once" in result.err[1]
    assert "these exact bytes are already sealed as torch-graph-replay/2026-10-28.json (ledger line 2)" in result.err[2]
    assert result.err[-1].endswith("3 problem(s) in 5 record(s); nothing was sealed")
    assert tree_digest(records) == before
    inconsistent = json.loads((tmp_path / names[1]).read_text())
    inconsistent["measurements"][0]["mean_speedup"] = 9.0
    (tmp_path / "inconsistent.json").write_text(json.dumps(inconsistent))
    result = cli("seal", names[0], "inconsistent.json", "--schema", TGR)
    assert result.code == 1 and len(result.err) == 1  # one problem: its own line
    assert "inconsistent.json: $.measurements[0].mean_speedup: expected " in result.err[0]
    assert tree_digest(records) == before


def test_as_names_one_file_only(records, cli, tmp_path):
    names = _variants(records, tmp_path, [1800000001, 1800000002])
    result = cli("seal", *names, "--schema", TGR, "--as", "x/one.json")
    assert result.code == 1 and "--as" in result.err[0] and "2 files were given" in result.err[0]


def test_two_overlapping_seal_runs_at_once_leave_one_whole_and_the_other_sealing_nothing(records, tmp_path):
    """Run 1 seals 1..20, run 2 seals 21..40 and then 20: whichever locks the ledger second
    finds 20 sealed and seals none of its own. Run 2 used to seal its 20 others and then fail on
    20, saying only that, so its files looked unsealed and a rerun refused each one."""
    import os
    import subprocess
    import sys

    from benchledger.records.store import Store

    names = _variants(records, tmp_path, list(range(1800000001, 1800000041)))
    env = {**os.environ, "BENCHLEDGER_CACHE_DIR": str(tmp_path / "cache")}
    runs = [subprocess.Popen([sys.executable, "-m", "benchledger", "seal", *files, "--schema", TGR, "--records", str(records)],
                             cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for files in (names[:20], names[20:] + [names[19]])]
    (out1, err1), (out2, err2) = (run.communicate(timeout=300) for run in runs)
    codes = sorted(run.returncode for run in runs)
    assert codes == [0, 1], (err1, err2)
    failed_err, failed_out, failed_files = (err1, out1, names[:20]) if runs[0].returncode else (err2, out2, names[20:])
    [line] = failed_err.splitlines()  # the one problem, found before anything was sealed
    assert line.startswith(f"benchledger seal: error: {names[19]}: these exact bytes are already sealed as {names[19]} (ledger line 2")
    assert failed_out == ""
    sealed = {e.path for e in Store(records).entries()}
    assert not sealed & set(failed_files) - {names[19]}
    assert len(sealed) == 2 + (21 if runs[0].returncode else 20) and Store(records).verify().ok  # all of the winner's


def test_a_seal_run_killed_half_way_runs_again_as_typed_with_skip_sealed(records, tmp_path):
    """`seal FILE...` killed (SIGKILL) right after its first ledger append: the same command
    is then refused, naming the way on, and with --skip-sealed seals only the rest."""
    import os
    import subprocess
    import sys

    from benchledger.records.store import Store

    names = _variants(records, tmp_path, [1800000001, 1800000002, 1800000003])
    env = {**os.environ, "BENCHLEDGER_CACHE_DIR": str(tmp_path / "cache")}

    def seal(*extra, crash=None):
        command = [sys.executable, "-m", "benchledger", "seal", *names, "--schema", TGR, "--records", str(records), *extra]
        return subprocess.run(command, cwd=tmp_path, env={**env, **({"BENCHLEDGER_CRASH_AT": crash} if crash else {})},
                              capture_output=True, text=True, timeout=120)

    killed = seal(crash="appended")
    assert killed.returncode == -9
    assert [e.path for e in Store(records).entries()][2:] == [names[0]]
    before = tree_digest(records)
    again = seal()
    assert again.returncode == 1 and again.stdout == ""
    assert again.stderr.splitlines() == [
        f"benchledger seal: error: {names[0]}: these exact bytes are already sealed as {names[0]} (ledger line 3); "
        "if a run that sealed it was stopped half-way, add --skip-sealed to seal the rest"]
    assert tree_digest(records) == before
    resumed = seal("--skip-sealed")
    assert resumed.returncode == 0, resumed.stderr
    lines = resumed.stdout.splitlines()
    sha256 = Store(records).entries()[2].sha256
    assert lines[0] == f"already sealed {records.as_posix()}/{names[0]}  sha256 {sha256}  (ledger line 3; {names[0]} left out)"
    assert [line.split()[:2] for line in lines[1:3]] == [["sealed", f"{records.as_posix()}/{n}"] for n in names[1:]]
    assert lines[3].startswith("ledger line 5, head ")
    assert [e.path for e in Store(records).entries()][2:] == names and Store(records).verify().ok
    after = tree_digest(records)
    nothing = seal("--skip-sealed")
    assert nothing.returncode == 0 and nothing.stdout.splitlines()[-1] == "nothing new to seal: every file is sealed already"
    assert tree_digest(records) == after


def test_skip_sealed_leaves_out_only_the_same_bytes_at_the_same_path(records, cli, tmp_path):
    names = _variants(records, tmp_path, [1800000001, 1800000002])
    assert cli("seal", names[0], "--schema", TGR).code == 0
    before = tree_digest(records)
    # the same bytes under another name would be a second copy of one record: refused still
    (tmp_path / "renamed.json").write_bytes((tmp_path / names[0]).read_bytes())
    result = cli("seal", "renamed.json", names[1], "--schema", TGR, "--skip-sealed")
    assert result.code == 1
    assert result.err[0] == (f"benchledger seal: error: renamed.json: these exact bytes are already sealed as {names[0]} "
                             "(ledger line 3); a record is sealed once")
    # other bytes at a sealed path: never overwritten
    (tmp_path / "other" / names[0]).parent.mkdir()
    (tmp_path / "other" / names[0]).write_bytes((tmp_path / names[1]).read_bytes())
    result = cli("seal", f"other/{names[0]}", "--schema", TGR, "--skip-sealed")
    assert result.code == 1 and result.err[0].endswith(f"records/{names[0]} is already sealed (ledger line 3); sealed files are never overwritten")
    assert tree_digest(records) == before
    # one file, sealed already at its path: left out, exit 0
    result = cli("seal", names[0], "--schema", TGR, "--skip-sealed")
    assert (result.code, result.err) == (0, [])
    assert result.out.splitlines()[-1] == "nothing new to seal: every file is sealed already"
    assert tree_digest(records) == before
