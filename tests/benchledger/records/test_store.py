"""The records store: sealing is all or nothing, verify finds every kind of damage, load_verified
refuses a damaged store, find resolves hashes and paths."""

import hashlib
import json
import os
import resource
import signal

import pytest

from benchledger.errors import ConsistencyError, InputError, LedgerError, SchemaError, SealError
from benchledger.records.ledger import GENESIS_SHA256, TEMP_NAME, new_entry
from benchledger.records.store import Store
from benchledger.records.validation_cache import ValidationCache, default_cache_dir
from tests.pools import force_process_pool
from tests.store_copies import shipped_copy, tree_digest

TGR = "torch-graph-replay/1"
TGR_PATH = "torch-graph-replay/2026-10-28.json"


@pytest.fixture
def store(tmp_path):
    return Store(shipped_copy(tmp_path))


def variant(store: Store, epoch: float) -> bytes:
    """A valid torch-graph-replay record with different bytes than the shipped one."""
    data = json.loads((store.root / TGR_PATH).read_bytes())
    data["finished_epoch"] = epoch
    return json.dumps(data).encode()


def test_shipped_store_verifies_and_loads(store):
    report = store.verify()
    assert report.ok and [r.status for r in report.records] == ["ok", "ok"]
    records = store.load_verified()
    assert [r.entry.path for r in records] == ["llm-cpu-offload/2026-09-27.json", TGR_PATH]
    assert records[1].raw == (store.root / TGR_PATH).read_bytes()
    assert records[1].data["device"] == "NVIDIA GeForce RTX 4090"
    assert store.head_sha256() == store.entries()[-1].entry_sha256


def test_seal_bytes_appends_a_chained_entry(store):
    head = store.head_sha256()
    raw = variant(store, 1.5)
    entry = store.seal_bytes(raw, TGR, "torch-graph-replay/new/one.json")
    assert (entry.position, entry.prev_sha256, entry.size_bytes) == (2, head, len(raw))
    assert (store.root / "torch-graph-replay/new/one.json").read_bytes() == raw
    assert store.head_sha256() == entry.entry_sha256
    assert store.verify().ok


def test_seal_into_a_new_store(tmp_path, store):
    fresh = Store(tmp_path / "fresh")
    fresh.root.mkdir()
    entry = fresh.seal(store.root / TGR_PATH, TGR)
    assert (entry.path, entry.prev_sha256) == ("2026-10-28.json", GENESIS_SHA256)
    assert fresh.verify().ok


@pytest.mark.parametrize("how, error, message", [
    ("same bytes", SealError, "x: these exact bytes are already sealed as torch-graph-replay/2026-10-28.json (ledger line 2); a record is sealed once"),
    ("sealed path", SealError, "x: {root}/torch-graph-replay/2026-10-28.json is already sealed (ledger line 2); sealed files are never overwritten"),
    ("existing file", SealError, "x: {root}/notes/a.json already exists with other content; sealed files are never overwritten"),
    ("outside", SealError, "x: target path '../escape.json' must stay inside the store (no '..', '.' or empty segments)"),
    ("unsafe path", SealError, "x: target path 'a/javascript:alert(1)[x].json' may contain only letters, digits, '-', '_', '.' and '/' (found '(', ')', ':', '[', ']')"),
    ("directory", SealError, "x: {root}/notes/dir.json is a folder; a record is sealed into a new file: choose another --as path"),
    ("unknown schema", InputError, "nope/1: unknown schema id; known: gsh-llm-core-article/1, llama-bench/1, torch-graph-replay/1"),
    ("not json", InputError, "x:1: not JSON: Expecting value (column 1)"),
    ("schema violation", SchemaError, "x: $: 'device' is a required property"),
    ("inconsistent", ConsistencyError, "x: $.measurements[0].mean_speedup: expected 3.9366984155 (timing.eager.mean_ms / timing.graph.mean_ms), found 9.0 [check tgr-mean-speedup]"),
])
def test_refused_seal_changes_nothing(store, how, error, message):
    (store.root / "notes").mkdir()
    (store.root / "notes/a.json").write_bytes(b"{}")
    raw, schema_id, target = variant(store, 2.5), TGR, "fresh/dir/new.json"
    data = json.loads(raw)
    if how == "same bytes":
        raw = (store.root / TGR_PATH).read_bytes()
    elif how == "sealed path":
        target = TGR_PATH
    elif how == "existing file":
        target = "notes/a.json"
    elif how == "outside":
        target = "../escape.json"
    elif how == "unsafe path":
        target = "a/javascript:alert(1)[x].json"
    elif how == "directory":
        (store.root / "notes/dir.json").mkdir()
        target = "notes/dir.json"
    elif how == "unknown schema":
        schema_id = "nope/1"
    elif how == "not json":
        raw = b"oops"
    elif how == "schema violation":
        del data["device"]
        raw = json.dumps(data).encode()
    elif how == "inconsistent":
        data["measurements"][0]["mean_speedup"] = 9.0
        raw = json.dumps(data).encode()
    before = tree_digest(store.root.parent)
    with pytest.raises(error) as caught:
        store.seal_bytes(raw, schema_id, target, shown="x")
    assert caught.value.lines()[0] == message.format(root=store.root.as_posix())
    assert tree_digest(store.root.parent) == before


def test_a_failed_write_leaves_nothing_behind(store):
    """Files over RLIMIT_FSIZE fail with EFBIG: a real write failure, first of the record, then of the ledger."""
    for i in range(40):  # grow the ledger past the record's size
        store.seal_bytes(variant(store, 100.0 + i), TGR, f"bulk/{i}.json")
    ledger_size = store.ledger_path.stat().st_size
    record = variant(store, 7.0)
    assert len(record) < ledger_size
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    old_limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    try:
        # the reason is the failed call's own (EFBIG here, ENOSPC on a full disk), never "short write"
        for limit, what in ((len(record) - 1, "cannot write .*: File too large"), (ledger_size + 10, "cannot append .*: File too large")):
            before = tree_digest(store.root)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, old_limit[1]))
            try:
                with pytest.raises(SealError, match=what):
                    store.seal_bytes(record, TGR, "late/one.json")
            finally:
                resource.setrlimit(resource.RLIMIT_FSIZE, old_limit)
            assert tree_digest(store.root) == before
    finally:
        signal.signal(signal.SIGXFSZ, old_handler)
    assert store.verify().ok


def test_a_file_outside_the_store_is_never_adopted_through_a_symlinked_folder(store, tmp_path):
    """Issue 11 class 9: adoption reads the target only once its folder is known to be inside."""
    raw = variant(store, 3.25)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "me.json").write_bytes(raw)
    (store.root / "link").symlink_to(outside)
    before = tree_digest(store.root)
    with pytest.raises(SealError, match="leaves the store through a symbolic link"):
        store.seal_bytes(raw, TGR, "link/me.json")
    assert tree_digest(store.root) == before and len(store.entries()) == 2


@pytest.mark.parametrize("link_to_inside", [True, False])
def test_a_symlinked_folder_deeper_in_the_path_is_judged_by_where_it_leads(store, tmp_path, link_to_inside):
    """A link met below the store's root is resolved: into the store it is a folder like any
    other (the record is written where it leads), out of it nothing is written anywhere."""
    (store.root / "deep").mkdir()
    if link_to_inside:
        (store.root / "kept").mkdir()
        (store.root / "deep/link").symlink_to(store.root / "kept")
        entry = store.seal_bytes(variant(store, 4.25), TGR, "deep/link/new/me.json")
        assert (store.root / "kept/new/me.json").read_bytes() == variant(store, 4.25) and entry.position == 2
        return
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (store.root / "deep/link").symlink_to(outside)
    before = tree_digest(store.root)
    with pytest.raises(SealError, match="leaves the store through a symbolic link"):
        store.seal_bytes(variant(store, 4.25), TGR, "deep/link/new/me.json")
    assert tree_digest(store.root) == before and list(outside.iterdir()) == []


def test_a_folder_in_the_temp_files_place_stops_the_seal_and_a_link_there_is_removed_not_followed(store, tmp_path):
    (store.root / TEMP_NAME).mkdir()
    (store.root / TEMP_NAME / "keep.txt").write_text("mine")
    before = tree_digest(store.root)
    with pytest.raises(SealError, match=f"{TEMP_NAME} is a folder; sealing needs that name"):
        store.seal_bytes(variant(store, 5.25), TGR, "late/one.json")
    assert tree_digest(store.root) == before
    (store.root / TEMP_NAME / "keep.txt").unlink()
    (store.root / TEMP_NAME).rmdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (store.root / TEMP_NAME).symlink_to(elsewhere)  # a stale temp of any kind: only the link goes
    store.seal_bytes(variant(store, 5.25), TGR, "late/one.json")
    assert elsewhere.is_dir() and not os.path.lexists(store.root / TEMP_NAME) and store.verify().ok


def test_verify_names_a_folder_in_the_temp_files_place(store):
    """An empty folder at TEMP_NAME stopped every seal while verify said all held (exit 0)."""
    (store.root / TEMP_NAME).mkdir()
    report = store.verify()
    assert not report.ok
    assert [(r.path, r.status, [p.message for p in r.problems]) for r in report.records if r.path == TEMP_NAME] == [
        (TEMP_NAME, "unsealed", ["is a folder; sealing needs that name for its temp file: move the folder away"])]
    (store.root / TEMP_NAME).rmdir()
    assert store.verify().ok


def test_adopting_a_file_that_already_holds_the_bytes(store):
    raw = variant(store, 3.5)
    (store.root / "adopt").mkdir()
    (store.root / "adopt/me.json").write_bytes(raw)
    assert [r.status for r in store.verify().records][-1] == "unsealed"
    store.seal_bytes(raw, TGR, "adopt/me.json")
    assert store.verify().ok


def test_verify_reports_every_kind_of_damage_at_once(store):
    (store.root / TGR_PATH).write_bytes((store.root / TGR_PATH).read_bytes().replace(b"4090", b"4080"))
    (store.root / "llm-cpu-offload/2026-09-27.json").unlink()
    (store.root / "stray.json").write_text("{}")
    report = store.verify()
    assert not report.ok
    assert [(r.path, r.status) for r in report.records] == [
        ("llm-cpu-offload/2026-09-27.json", "missing"), (TGR_PATH, "altered"), ("stray.json", "unsealed")]
    with pytest.raises(LedgerError) as caught:
        store.load_verified()
    assert len(caught.value.problems) == 3


def test_failures_are_never_cached(store, tmp_path):
    """A record that fails its checks fails again on every verify: only passes are cached."""
    data = json.loads(variant(store, 4.5))
    data["measurements"][0]["mean_speedup"] = 9.0
    raw = json.dumps(data).encode()
    # write the record and a valid-looking ledger line by hand (seal would refuse it)
    entry, line = new_entry(store.entries(), "bad/one.json", hashlib.sha256(raw).hexdigest(), len(raw), TGR)
    (store.root / "bad").mkdir()
    (store.root / "bad/one.json").write_bytes(raw)
    with open(store.ledger_path, "ab") as out:
        out.write(line + b"\n")
    cache = ValidationCache(tmp_path / "cache")
    for _ in range(2):
        rows = Store(store.root, cache).verify().records
        assert rows[-1].status == "inconsistent"
    assert not cache.passed(entry.sha256, TGR)
    assert cache.passed(store.entries()[1].sha256, TGR)


def test_a_cold_verify_remembers_each_pass_once_for_the_next(store, tmp_path):
    """The passes of a cold verify are written together (`remember_all`), a line each; a fresh
    cache reads them all back, and remembering them again in a loaded cache adds nothing."""
    store.seal_bytes(variant(store, 5.5), TGR, "more/five.json")
    cache = ValidationCache(tmp_path / "cache")
    report = Store(store.root, cache).verify()
    assert report.ok
    lines = (tmp_path / "cache" / "validation-passes.txt").read_text().splitlines()
    entries = store.entries()
    assert len(lines) == len(entries) == 3
    fresh = ValidationCache(tmp_path / "cache")
    assert all(fresh.passed(e.sha256, e.schema) for e in entries)
    fresh.remember_all((e.sha256, e.schema) for e in entries)
    assert (tmp_path / "cache" / "validation-passes.txt").read_text().splitlines() == lines
    ValidationCache(tmp_path / "cache").remember_all([])  # nothing to write: no empty append either
    assert (tmp_path / "cache" / "validation-passes.txt").read_text().splitlines() == lines


def test_default_cache_folder_is_beside_the_resolved_records_or_the_environments(store, tmp_path, monkeypatch):
    """verify and build share one cache folder: through a symlinked records folder it is the
    target's sibling, and BENCHLEDGER_CACHE_DIR moves it for both."""
    monkeypatch.delenv("BENCHLEDGER_CACHE_DIR", raising=False)
    link = tmp_path / "elsewhere" / "records"
    link.parent.mkdir()
    link.symlink_to(store.root)
    Store(link).verify()
    passes = store.root.parent / ".cache" / "benchledger" / "validation-passes.txt"
    assert default_cache_dir(link) == passes.parent
    assert len(passes.read_text().splitlines()) == 2
    assert not (link.parent / ".cache").exists()
    monkeypatch.setenv("BENCHLEDGER_CACHE_DIR", str(tmp_path / "env-cache"))
    Store(link).verify()
    assert default_cache_dir(link) == tmp_path / "env-cache"
    assert len((tmp_path / "env-cache" / "validation-passes.txt").read_text().splitlines()) == 2


def test_find_by_prefix_path_and_typed_path(store, monkeypatch):
    tgr = store.entries()[1]
    assert store.find(tgr.sha256[:12]) == tgr
    assert store.find(tgr.sha256[:12].upper()) == tgr  # as a tool printing upper case shows it
    assert store.find(TGR_PATH) == tgr
    monkeypatch.chdir(store.root.parent)
    assert store.find(f"records/{TGR_PATH}") == tgr
    with pytest.raises(InputError, match="no record in .* has this path or sha256"):
        store.find("ffffffffffff")


def test_parallel_validation_finds_the_same(store, tmp_path, monkeypatch):
    """Many uncached records are validated in worker processes; statuses and messages are the same."""
    for i in range(3):
        store.seal_bytes(variant(store, 10.0 + i), TGR, f"many/{i}.json")
    data = json.loads(variant(store, 20.0))
    data["measurements"][0]["mean_speedup"] = 9.0
    raw = json.dumps(data).encode()
    _, line = new_entry(store.entries(), "many/bad.json", hashlib.sha256(raw).hexdigest(), len(raw), TGR)
    (store.root / "many/bad.json").write_bytes(raw)
    with open(store.ledger_path, "ab") as out:
        out.write(line + b"\n")
    # the store's other files and its checkpoints: the same rows and problems too
    (store.root / "many/unlisted.json").write_bytes(raw)
    (store.root / "checkpoints/0000009.json").write_text("{}")  # and a broken checkpoint
    serial = Store(store.root, ValidationCache(None)).verify()
    force_process_pool(monkeypatch)
    parallel = Store(store.root, ValidationCache(None)).verify()
    assert parallel.records == serial.records
    assert [r.status for r in parallel.records] == ["ok"] * 5 + ["inconsistent", "unsealed"]
    assert parallel.log_problems == serial.log_problems != []


def test_a_lost_ledger_is_named_and_no_new_chain_starts(store):
    """With ledger.jsonl gone (a bad copy, a checkout), a seal started a new chain at line 1 and
    left every earlier record unsealed without a word."""
    (store.root / "ledger.jsonl").unlink()
    before = tree_digest(store.root)
    with pytest.raises(LedgerError) as err:
        Store(store.root).seal_bytes(variant(store, 1.0), TGR, "torch-graph-replay/new.json")
    assert "ledger.jsonl: missing, while the store holds files (" in err.value.lines()[0]
    assert tree_digest(store.root) == before
    report = Store(store.root).verify()
    assert not report.ok and any("ledger.jsonl: missing" in str(p) for p in report.problems)
    # and no file is called something to seal again or remove, which would lose the history
    unsealed = [str(p) for r in report.records if r.status == "unsealed" for p in r.problems]
    assert unsealed and all("restore the ledger first, and do not seal or remove this file" in m for m in unsealed)


def test_a_cached_pass_loads_the_values_a_cold_verify_loads(store, tmp_path):
    """Loading through the validation cache skips the checks, not the strict reading: an integer
    past 64 bits (here 10**30 where the schema admits any number) stays the int the strict reader
    gives, where orjson alone would give a float."""
    data = json.loads(variant(store, 1.5))
    data["finished_epoch"] = 10**30
    store.seal_bytes(json.dumps(data).encode(), TGR, "wide/epoch.json")
    cold = {r.entry.path: r.data for r in Store(store.root, ValidationCache(None)).load_verified()}
    cache = ValidationCache(tmp_path / "cache")
    Store(store.root, cache).verify()
    assert cache.passed(store.entries()[-1].sha256, TGR)
    warm = {r.entry.path: r.data for r in Store(store.root, cache).load_verified()}
    assert warm == cold == {path: json.loads((store.root / path).read_bytes()) for path in cold}
    assert type(warm["wide/epoch.json"]["finished_epoch"]) is int
