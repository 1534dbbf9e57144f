"""The ledger chain: canonical lines, and any edit, deletion, reordering or insertion is detected
(the chain breaks, or the head hash, which pins the history, changes)."""

import hashlib
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from benchledger.records.jsonread import read_json_text
from benchledger.records.ledger import (FIELDS, GENESIS_SHA256, canonical_fields, encode_ledger, encode_line, new_entry, read_ledger,
                                       store_path_problem)

FILE = "records/ledger.jsonl"


def build(n: int) -> bytes:
    entries, lines = [], []
    for i in range(n):
        sha = hashlib.sha256(str(i).encode()).hexdigest()
        entry, line = new_entry(entries, f"kind/{i}.json", sha, 100 + i, "torch-graph-replay/1", "2026-10-28T12:00:00Z")
        entries.append(entry)
        lines.append(line)
    return b"".join(line + b"\n" for line in lines)


def test_a_built_ledger_reads_back_with_its_chain():
    raw = build(3)
    read = read_ledger(raw, FILE)
    assert read.problems == []
    assert [e.position for e in read.entries] == [0, 1, 2]
    assert read.entries[0].prev_sha256 == GENESIS_SHA256
    assert read.entries[1].prev_sha256 == read.entries[0].entry_sha256
    assert read.head_sha256 == read.entries[2].entry_sha256 == hashlib.sha256(raw.splitlines()[2]).hexdigest()


def test_a_verified_ledger_re_encodes_to_its_exact_bytes():
    # The site serves the ledger re-encoded from the verified entries (not a second read).
    shipped = (Path(__file__).resolve().parents[3] / "records" / "ledger.jsonl").read_bytes()
    for raw in (build(0), build(5), shipped):
        read = read_ledger(raw, FILE)
        assert read.problems == []
        assert encode_ledger(read.entries) == raw


def test_empty_ledger_has_the_genesis_head():
    read = read_ledger(b"", FILE)
    assert (read.entries, read.problems, read.head_sha256) == ([], [], GENESIS_SHA256)


def test_line_format_is_canonical():
    line = encode_line(0, "a/b.json", "0" * 64, 5, "s/1", "2026-01-02T03:04:05Z", "f" * 64)
    assert line == (b'{"position":0,"path":"a/b.json","sha256":"' + b"0" * 64 + b'","size_bytes":5,"schema":"s/1",'
                    b'"sealed_at":"2026-01-02T03:04:05Z","prev_sha256":"' + b"f" * 64 + b'"}')


def messages(raw: bytes) -> list[str]:
    return [str(p) for p in read_ledger(raw, FILE).problems]


def test_named_problems():
    lines = build(3).splitlines(keepends=True)
    assert messages(b"".join(lines[:2]) + lines[2].rstrip(b"\n")) == [
        f"{FILE}:3: does not end with a newline: the last line was cut short or edited"]
    spaced = lines[0].replace(b'"position":0', b'"position": 0')
    assert messages(spaced + b"".join(lines[1:])) == [
        f"{FILE}:1: not in canonical form (key order, spacing or escaping changed): the line was edited",
        f"{FILE}:2: prev_sha256 {hashlib.sha256(lines[0].rstrip()).hexdigest()[:12]} does not match the hash of line 1 "
        f"({hashlib.sha256(spaced.rstrip()).hexdigest()[:12]}): a line before it was edited, removed, inserted or reordered"]
    assert messages(lines[0] + b"\n" + b"".join(lines[1:]))[0] == f"{FILE}:2: empty line"
    assert messages(lines[0] + b"{not json\n")[0] == f"{FILE}:2: not JSON: Expecting property name enclosed in double quotes (column 2)"
    assert messages(b'{"position":0}\n') == [f"{FILE}:1: fields missing path, sha256, size_bytes, schema, sealed_at, prev_sha256"]
    bad_path = encode_line(0, "../x.json", "0" * 64, 1, "s/1", "2026-01-02T03:04:05Z", GENESIS_SHA256) + b"\n"
    assert messages(bad_path) == [f"{FILE}:1: path '../x.json' must stay inside the store (no '..', '.' or empty segments)"]
    twice = new_entry([], "a.json", "1" * 64, 1, "s/1", "2026-01-02T03:04:05Z")
    again = new_entry([twice[0]], "a.json", "2" * 64, 1, "s/1", "2026-01-02T03:04:05Z")
    assert messages(twice[1] + b"\n" + again[1] + b"\n") == [f"{FILE}:2: path 'a.json' is already sealed on line 1"]


def test_store_paths():
    assert store_path_problem("llm-cpu-offload/2026-09-27.json") is None
    assert store_path_problem("/etc/x.json") == "must be a relative path with '/' separators, inside the store"
    assert store_path_problem("a/../../x.json") == "must stay inside the store (no '..', '.' or empty segments)"
    assert store_path_problem(".hidden/x.json") == "must not name a hidden file or folder"
    assert store_path_problem("x.txt") == "must end in .json"


def _mutations(lines: list[bytes]):
    """Strategies for every kind of tampering with a ledger of `lines` (each without newline)."""
    n = len(lines)
    forged_line = encode_line(n, "forged/x.json", "f" * 64, 1, "torch-graph-replay/1", "2026-10-28T12:00:00Z", "e" * 64)
    index = st.integers(0, n - 1)
    return st.one_of(
        st.tuples(st.just("flip"), index, st.integers(0, 10_000), st.integers(1, 255)),
        st.tuples(st.just("delete"), index),
        st.tuples(st.just("swap"), index, index).filter(lambda t: lines[t[1]] != lines[t[2]]),
        st.tuples(st.just("insert"), st.integers(0, n), st.sampled_from([forged_line, lines[0]])),
        st.tuples(st.just("duplicate"), index),
    )


def _apply(lines: list[bytes], mutation) -> list[bytes]:
    out = list(lines)
    kind = mutation[0]
    if kind == "flip":
        _, i, offset, xor = mutation
        line = bytearray(out[i])
        line[offset % len(line)] ^= xor
        out[i] = bytes(line)
    elif kind == "delete":
        del out[mutation[1]]
    elif kind == "swap":
        _, i, j = mutation
        out[i], out[j] = out[j], out[i]
    elif kind == "insert":
        out.insert(mutation[1], mutation[2])
    elif kind == "duplicate":
        out.insert(mutation[1], out[mutation[1]])
    return out


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(st.just(n), _mutations(build(n).splitlines()))))
def test_any_tampering_breaks_the_chain_or_moves_the_head(case):
    n, mutation = case
    original = build(n)
    lines = original.splitlines()
    tampered = b"".join(line + b"\n" for line in _apply(lines, mutation))
    if tampered == original:  # e.g. a flip that produced the same byte cannot happen (xor >= 1)
        raise AssertionError("mutation did not change the ledger")
    read = read_ledger(tampered, FILE)
    assert read.problems or read.head_sha256 != read_ledger(original, FILE).head_sha256
    # deleting or altering anything but the tail is caught by the chain itself
    if mutation[0] in ("swap", "duplicate") or (mutation[0] in ("flip", "delete") and mutation[1] < n - 1):
        assert read.problems


_LINE = encode_line(3, "kind/x.json", "ab" * 32, 7, "torch-graph-replay/1", "2026-10-28T12:00:00Z", "cd" * 32)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(_LINE)), st.integers(0, 2), st.binary(min_size=1, max_size=3)), max_size=3),
       st.sampled_from([_LINE, _LINE.replace(b"kind/x.json", b"k\\u00e9.json"), _LINE.replace(b":3,", b":3.0,"),
                        _LINE.replace(b'"size_bytes":7', b'"size_bytes":7,"size_bytes":8'), _LINE.replace(b"torch", b"t\x7forch")]))
def test_the_quick_reading_of_a_line_accepts_only_canonical_well_typed_lines_as_the_strict_reader_reads_them(edits, line):
    """`canonical_fields` (orjson) lets a line through only when the strict reader gives the same
    fields, all seven in order and well typed, and the line is exactly their canonical encoding."""
    for offset, how, data in edits:  # replace, insert or delete bytes at one place
        offset = min(offset, len(line))
        line = line[:offset] + (data if how else b"") + line[offset + (len(data) if how != 1 else 0):]
    quick = canonical_fields(line)
    if quick is None:
        return
    strict = read_json_text(line.decode("utf-8"), FILE)
    assert list(strict.items()) == list(quick.items())
    assert tuple(quick) == FIELDS and encode_line(*quick.values()) == line


def test_a_line_with_escapes_or_a_delete_byte_is_left_to_the_strict_reader():
    assert canonical_fields(_LINE) == dict(zip(FIELDS, (3, "kind/x.json", "ab" * 32, 7, "torch-graph-replay/1", "2026-10-28T12:00:00Z", "cd" * 32)))
    for edited in (_LINE.replace(b"torch", b"t\x7forch"), _LINE.replace(b"torch", b"\\u0074orch"), _LINE.replace(b"torch", "t\u00f6rch".encode())):
        assert canonical_fields(edited) is None
    assert messages(_LINE.replace(b"torch", b"\\u0074orch").replace(b'"position":3', b'"position":0') + b"\n") == [
        f"{FILE}:1: not in canonical form (key order, spacing or escaping changed): the line was edited",
        f"{FILE}:1: prev_sha256 cdcdcdcdcdcd does not match the genesis hash: a line before it was edited, removed, inserted or reordered"]
