"""`benchledger merge OTHER`: records the other store has and this one lacks are sealed here by
hash; a path holding other bytes is reported and never overwritten; a broken other store
merges nothing; the result verifies."""

import json
import shutil

from benchledger.records.store import Store
from tests.store_copies import tree_digest

TGR = "torch-graph-replay/1"


def new_record(records, finished_epoch: float) -> bytes:
    data = json.loads((records / "torch-graph-replay/2026-10-28.json").read_bytes())
    data["finished_epoch"] = finished_epoch
    return json.dumps(data, indent=1).encode()


def other_store(records, tmp_path, name="other"):
    """A copy of the shipped store, collected further on another machine."""
    other = tmp_path / name
    shutil.copytree(records, other, ignore=shutil.ignore_patterns(".cache"))
    Store(other).seal_bytes(new_record(records, 1800000000.5), TGR, "torch-graph-replay/2026-11-30.json")
    Store(other).seal_bytes(new_record(records, 1800000001.5), TGR, "torch-graph-replay/2026-12-01.json")
    return other


def test_merge_appends_what_this_store_lacks_and_twice_is_a_no_op(records, tmp_path, cli):
    other = other_store(records, tmp_path)
    result = cli("merge", "other")
    assert result.code == 0, result.err
    assert result.out.splitlines()[:2] == [f"merged records/torch-graph-replay/2026-11-30.json  sha256 {Store(other).entries()[2].sha256}",
                                           f"merged records/torch-graph-replay/2026-12-01.json  sha256 {Store(other).entries()[3].sha256}"]
    assert "2 record(s) merged, 2 already held, 0 in conflict" in result.out
    for path in ("torch-graph-replay/2026-11-30.json", "torch-graph-replay/2026-12-01.json"):
        assert (records / path).read_bytes() == (other / path).read_bytes()
    assert Store(records).verify().ok and len(Store(records).entries()) == 4
    before = tree_digest(records)
    again = cli("merge", "other")
    assert again.code == 0 and "0 record(s) merged, 4 already held" in again.out
    assert tree_digest(records) == before


def test_a_path_sealed_here_with_other_bytes_is_reported_and_the_rest_merged(records, tmp_path, cli):
    other = other_store(records, tmp_path)
    mine = Store(records).seal_bytes(new_record(records, 1700000000.5), TGR, "torch-graph-replay/2026-11-30.json")
    result = cli("merge", "other")
    assert result.code == 1
    assert result.err[0] == (f"benchledger merge: error: records/torch-graph-replay/2026-11-30.json: sealed here with sha256 {mine.sha256}; "
                             f"the other store's record {Store(other).entries()[2].sha256} was not merged (sealed files are never overwritten)")
    assert (records / "torch-graph-replay/2026-11-30.json").read_bytes() == new_record(records, 1700000000.5)
    assert (records / "torch-graph-replay/2026-12-01.json").read_bytes() == (other / "torch-graph-replay/2026-12-01.json").read_bytes()
    assert Store(records).verify().ok


def test_a_folder_at_a_records_path_is_a_conflict_not_a_traceback(records, tmp_path, cli):
    """An empty folder where the other store has a record verifies (it holds no file), and merge
    ended in IsADirectoryError."""
    other_store(records, tmp_path)
    (records / "torch-graph-replay/2026-11-30.json").mkdir()
    result = cli("merge", "other")
    assert result.code == 1 and result.err[0].startswith(
        "benchledger merge: error: records/torch-graph-replay/2026-11-30.json: exists here and is not a plain file (a folder or a link); "
        "the other store's record ")
    assert (records / "torch-graph-replay/2026-11-30.json").is_dir() and (records / "torch-graph-replay/2026-12-01.json").is_file()
    assert Store(records).verify().ok


def test_an_other_store_that_does_not_verify_merges_nothing(records, tmp_path, cli):
    other = other_store(records, tmp_path)
    path = other / "torch-graph-replay/2026-12-01.json"
    path.write_bytes(path.read_bytes().replace(b"1800000001.5", b"1800000009.5"))
    before = tree_digest(records)
    result = cli("merge", "other")
    assert result.code == 1
    assert any("other/torch-graph-replay/2026-12-01.json" in line for line in result.err)
    assert result.err[-2] == "benchledger merge: error: other: the other store does not verify (1 problem(s)); run `benchledger verify --records other`"
    assert result.err[-1] == "benchledger merge: error: other: nothing was merged"
    assert tree_digest(records) == before
    assert cli("merge", "records").err == ["benchledger merge: error: records: is the store being merged into; pass another store"]


def test_a_project_folder_is_merged_from_its_store(records, tmp_path, cli):
    """`merge ../p2` names a project, not its store: its records are merged (as if `../p2/records`
    was given), where its site and articles were once read as 164 unsealed files."""
    project = tmp_path / "p2"
    project.mkdir()
    other_store(records, project, name="kept")
    (project / "benchledger.toml").write_text('[paths]\nrecords = "kept"\n')
    (project / "site").mkdir()
    (project / "site" / "index.html").write_text("<p>a built site</p>")
    result = cli("merge", "p2")
    assert result.code == 0, result.err
    assert "2 record(s) merged, 2 already held, 0 in conflict" in result.out


def test_an_other_store_that_is_no_store_is_named_as_such(records, tmp_path, cli):
    """A missing folder got advice about --records (the wrong store), a ledger file "no such
    records folder", and an empty folder "0 merged" with exit 0."""
    (tmp_path / "empty").mkdir()
    before = tree_digest(records)
    for arg, said in (("nosuch", "nosuch: does not exist: name the other records store, or the project folder holding it"),
                      ("records/ledger.jsonl", "records/ledger.jsonl: is a file: name the other records store, or the project "
                                               "folder holding it (give the folder that holds it, records)"),
                      ("empty", "empty: holds no ledger.jsonl, no benchledger.toml and no records/ledger.jsonl: not a records "
                                "store or a project; name the other store")):
        result = cli("merge", arg)
        assert (result.code, result.out, result.err) == (1, "", [f"benchledger merge: error: {said}"])
    assert tree_digest(records) == before


def test_a_merge_killed_part_way_is_finished_by_running_it_again(records, tmp_path, cli):
    """Killed after linking its first record, before that record's ledger line: the next merge
    refused, as its own leftovers (the temp file, the linked file) failed the target's verify."""
    import os
    import subprocess
    import sys

    other_store(records, tmp_path)
    killed = subprocess.run([sys.executable, "-m", "benchledger", "merge", "other", "--records", "records"], cwd=tmp_path,
                            env={**os.environ, "BENCHLEDGER_CRASH_AT": "linked"}, capture_output=True, text=True)
    assert killed.returncode == -9 and (records / "torch-graph-replay/2026-11-30.json").is_file()
    assert len(Store(records).entries()) == 2
    result = cli("merge", "other")
    assert result.code == 0, result.err
    assert "2 record(s) merged, 2 already held, 0 in conflict" in result.out
    assert Store(records).verify().ok and len(Store(records).entries()) == 4


def test_a_record_sealed_by_another_sealer_while_merging_is_held_or_a_conflict_and_the_rest_merged(records, tmp_path):
    """Another `seal` took the merge's next record (the same bytes, or other bytes at its path)
    between the merge's look at the ledger and its seal: the merge stopped there with only the
    seal's error, leaving the records after it unmerged."""
    from benchledger.records.merge import merge

    other = other_store(records, tmp_path)
    first, second = Store(other).entries()[2:]

    class Raced(Store):
        """The target store, with another sealer's seal landing just before this one's."""

        def seal_bytes(self, raw, schema_id, as_path, shown=None):
            if as_path == first.path:  # the same bytes, sealed elsewhere first
                Store(self.root).seal_bytes(raw, schema_id, "elsewhere/same.json")
            if as_path == second.path:  # other bytes at this path
                Store(self.root).seal_bytes(new_record(records, 1700000000.5), TGR, as_path)
            return super().seal_bytes(raw, schema_id, as_path, shown=shown)

    report = merge(Raced(records), Store(other))
    assert [e.sha256 for e in report.held][-1] == first.sha256 and report.added == []
    assert len(report.conflicts) == 1 and report.conflicts[0].message.startswith("sealed here with sha256 ")
    assert Store(records).verify().ok

