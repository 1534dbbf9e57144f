"""Sealing's view of the ledger: many seals by one Store and by fresh Stores (trusting the head
file) give the same chain as a full walk; an edit behind the head file's back, or a second sealer,
is noticed; duplicates are refused on every path."""

import json

import pytest

from benchledger.errors import LedgerError, SealError
from benchledger.records.ledger import read_ledger
from benchledger.records.ledger_index import HEAD_FILE, LedgerIndex
from benchledger.records.store import Store
from benchledger.records.validation_cache import ValidationCache
from tests.store_copies import shipped_copy

TGR = "torch-graph-replay/1"
TGR_PATH = "torch-graph-replay/2026-10-28.json"


def variant(root, epoch: float) -> bytes:
    data = json.loads((root / TGR_PATH).read_bytes())
    data["finished_epoch"] = epoch
    return json.dumps(data).encode()


@pytest.fixture
def root(tmp_path):
    return shipped_copy(tmp_path)


def _non_canonical_first_line(ledger) -> None:
    lines = ledger.read_bytes().split(b"\n")
    lines[0] = lines[0].replace(b'"size_bytes":', b'"size_bytes": ', 1)[:-1] + lines[0][-1:]  # same length, not canonical
    ledger.write_bytes(b"\n".join(lines))


def cache_of(root):
    return ValidationCache(root.parent / "cache")


def test_one_store_and_fresh_stores_build_the_same_intact_chain(root):
    store = Store(root, cache_of(root))
    for i in range(3):
        store.seal_bytes(variant(root, 10 + i), TGR, f"a/{i}.json")
    head_file = root.parent / "cache" / HEAD_FILE
    assert json.loads(head_file.read_bytes())["entries"] == 5
    for i in range(3):  # a new process each time: trusts the head file, walks nothing
        Store(root, cache_of(root)).seal_bytes(variant(root, 20 + i), TGR, f"b/{i}.json")
    read = read_ledger((root / "ledger.jsonl").read_bytes(), "ledger")
    assert read.problems == [] and len(read.entries) == 8
    assert [e.position for e in read.entries] == list(range(8))
    assert Store(root, cache_of(root)).verify().ok
    index = LedgerIndex.load(root / "ledger.jsonl", root.parent / "cache")
    assert index.head_sha256 == read.head_sha256 and index.count == 8
    # answered by searching the ledger's bytes (a fresh index's first two questions) and by
    # the tables an index asked more often builds: the same answers
    questions = [("position_of", "b/2.json", 7), ("sealed_as", read.entries[3].sha256, (3, "a/1.json")),
                 ("position_of", "b/9.json", None), ("sealed_as", "0" * 64, None),
                 ("sealed_as", read.entries[3].prev_sha256, None)]  # a hash only as a chain link is no record's
    asked_often = LedgerIndex.load(root / "ledger.jsonl", root.parent / "cache")
    for _ in range(3):
        for method, arg, answer in questions:
            assert getattr(LedgerIndex.load(root / "ledger.jsonl", root.parent / "cache"), method)(arg) == answer
            assert getattr(asked_often, method)(arg) == answer
    assert asked_often._hashes is not None


def test_duplicates_are_refused_with_their_ledger_line_from_the_head_file_path(root):
    Store(root, cache_of(root)).seal_bytes(variant(root, 1.5), TGR, "a/one.json")
    fresh = Store(root, cache_of(root))
    with pytest.raises(SealError, match=r"already sealed as a/one.json \(ledger line 3\)"):
        fresh.seal_bytes(variant(root, 1.5), TGR, "a/other.json")
    with pytest.raises(SealError, match=r"a/one.json is already sealed \(ledger line 3\)"):
        Store(root, cache_of(root)).seal_bytes(variant(root, 2.5), TGR, "a/one.json")


def test_an_edit_behind_the_head_files_back_is_found_by_the_next_seal(root):
    Store(root, cache_of(root)).seal_bytes(variant(root, 1.5), TGR, "a/one.json")
    _non_canonical_first_line(root / "ledger.jsonl")
    with pytest.raises(LedgerError, match="is broken") as caught:
        Store(root, cache_of(root)).seal_bytes(variant(root, 2.5), TGR, "a/two.json")
    assert any("canonical" in p.message for p in caught.value.problems)


def test_a_second_sealer_is_noticed_and_the_chain_does_not_fork(root):
    first, second = Store(root, cache_of(root)), Store(root, cache_of(root))
    first.seal_bytes(variant(root, 1.5), TGR, "a/one.json")
    second.seal_bytes(variant(root, 2.5), TGR, "a/two.json")  # first's index is now stale
    entry = first.seal_bytes(variant(root, 3.5), TGR, "a/three.json")
    read = read_ledger((root / "ledger.jsonl").read_bytes(), "ledger")
    assert read.problems == [] and entry.position == 4 and entry.prev_sha256 == read.entries[3].entry_sha256
    with pytest.raises(SealError, match="ledger line 4"):
        first.seal_bytes(variant(root, 2.5), TGR, "a/again.json")


def test_without_a_cache_folder_every_fresh_store_walks_the_chain(root):
    Store(root, ValidationCache(None)).seal_bytes(variant(root, 1.5), TGR, "a/one.json")
    assert not (root.parent / "cache").exists()
    entry = Store(root, ValidationCache(None)).seal_bytes(variant(root, 2.5), TGR, "a/two.json")
    assert entry.position == 3


@pytest.mark.parametrize("torn", [b"", b'{"entries": 3, "head_sha', b"\x00" * 40])
def test_a_head_file_torn_by_a_crash_vouches_for_nothing(root, torn):
    """The head file is rewritten in place: what a crash in the middle leaves makes the next
    seal walk the chain (and find an edit), never trust it."""
    Store(root, cache_of(root)).seal_bytes(variant(root, 1.5), TGR, "a/one.json")
    head_file = root.parent / "cache" / HEAD_FILE
    head_file.write_bytes(torn)
    assert Store(root, cache_of(root)).seal_bytes(variant(root, 2.5), TGR, "a/two.json").position == 3
    assert json.loads(head_file.read_bytes())["entries"] == 4
    head_file.write_bytes(torn)
    _non_canonical_first_line(root / "ledger.jsonl")
    with pytest.raises(LedgerError, match="is broken"):
        Store(root, cache_of(root)).seal_bytes(variant(root, 3.5), TGR, "a/three.json")


def test_the_head_file_is_never_written_through_a_symbolic_link(root, tmp_path):
    Store(root, cache_of(root)).seal_bytes(variant(root, 1.5), TGR, "a/one.json")
    head_file = root.parent / "cache" / HEAD_FILE
    mine = tmp_path / "mine.txt"
    mine.write_bytes(b"the user's own file\n")
    head_file.unlink()
    head_file.symlink_to(mine)
    assert Store(root, cache_of(root)).seal_bytes(variant(root, 2.5), TGR, "a/two.json").position == 3
    assert mine.read_bytes() == b"the user's own file\n" and head_file.is_symlink()
