"""The ledger: `records/ledger.jsonl`, one canonical JSON line per sealed record, append-only.

Each line holds position, path, sha256 and size of the record's exact bytes, schema id, sealing
time and `prev_sha256`, the SHA-256 of the previous line's exact bytes ("0"*64 for the first).
The SHA-256 of the last line, the head hash, therefore pins the whole history: editing, removing,
reordering or inserting any line either breaks the chain or changes the head."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import orjson

from benchledger.errors import InputError, Problem
from benchledger.files import read_input
from benchledger.records.digest import is_sha256, sha256_hex
from benchledger.records.jsonread import read_json_text
from benchledger.records.numbers import is_integer

LEDGER_NAME = "ledger.jsonl"
# what a command says when its store is not there (most often: run outside any project)
NO_STORE = ("no such records folder: run this inside a project (a folder holding benchledger.toml, or below it), "
            "pass --project DIR or --records DIR, or make a project with `benchledger init DIR`")
# about 3.4 million entries of about 300 bytes: far past any store, short of what /dev/zero gives
MAX_LEDGER_BYTES = 2**30
# The folder of the signed checkpoints of the ledger's Merkle tree (see tlog.py): no record lives there.
CHECKPOINTS_DIR = "checkpoints"
GENESIS_SHA256 = "0" * 64
# The stored fields, in their canonical order (entry_sha256 is computed, never stored).
FIELDS = ("position", "path", "sha256", "size_bytes", "schema", "sealed_at", "prev_sha256")

# The one temp file of a seal in progress, in the store root (same file system as every record,
# so it can be hard-linked into any folder of the store).
TEMP_NAME = ".seal.tmp"
# a folder at TEMP_NAME stops every seal: what seal, repair and verify say of it
TEMP_NAME_TAKEN = "is a folder; sealing needs that name for its temp file: move the folder away"
# Temp files the seal of earlier versions left beside their target: `.<name>.json.<pid>.tmp`.
_OLD_TEMP = re.compile(r"\.[^/]+\.json\.[0-9]+\.tmp")
# What a store path may contain: it lands in URLs, Markdown link targets and shell commands, so
# only characters that mean nothing in any of them.
_SAFE_PATH = re.compile(r"[A-Za-z0-9._/-]+")

_SEALED_AT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z")


@dataclass(frozen=True)
class LedgerEntry:
    """One line of the ledger."""

    position: int  # 0-based
    path: str  # posix path relative to the store root
    sha256: str  # of the record's exact bytes
    size_bytes: int
    schema: str
    sealed_at: str  # RFC 3339 UTC
    prev_sha256: str  # entry_sha256 of the previous entry (GENESIS_SHA256 for the first)
    entry_sha256: str  # sha256 of this entry's exact line bytes (without newline)


def encode_line(position: int, path: str, sha256: str, size_bytes: int, schema: str, sealed_at: str, prev_sha256: str) -> bytes:
    """The canonical bytes of a ledger line (no newline): fixed key order, no spaces, ASCII."""
    fields = dict(zip(FIELDS, (position, path, sha256, size_bytes, schema, sealed_at, prev_sha256)))
    return json.dumps(fields, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def encode_entry(e: LedgerEntry) -> bytes:
    """The canonical line bytes (no newline) of an entry: a verified entry's exact line."""
    return encode_line(e.position, e.path, e.sha256, e.size_bytes, e.schema, e.sealed_at, e.prev_sha256)


def encode_ledger(entries: list[LedgerEntry]) -> bytes:
    """The exact bytes of a ledger holding `entries`: lines are canonical, so a verified
    ledger re-encodes to the bytes it was read from."""
    return b"".join(encode_entry(e) + b"\n" for e in entries)


def new_entry(after: list[LedgerEntry], path: str, sha256: str, size_bytes: int, schema: str, sealed_at: str | None = None) -> tuple[LedgerEntry, bytes]:
    """The entry that appends a record after `after`, and its line bytes (no newline)."""
    return entry_after(after[-1] if after else None, len(after), path, sha256, size_bytes, schema, sealed_at)


def utc_timestamp() -> str:
    """Now in UTC to the second, as a ledger entry's sealed_at and an imported record write it:
    2026-12-01T09:30:00Z."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def entry_after(last: LedgerEntry | None, count: int, path: str, sha256: str, size_bytes: int, schema: str,
                sealed_at: str | None = None) -> tuple[LedgerEntry, bytes]:
    """The entry that appends a record to a ledger of `count` entries ending with `last`, and its
    line bytes (no newline): what sealing needs, without the whole list of entries."""
    sealed_at = sealed_at or utc_timestamp()
    prev = last.entry_sha256 if last is not None else GENESIS_SHA256
    line = encode_line(count, path, sha256, size_bytes, schema, sealed_at, prev)
    return LedgerEntry(count, path, sha256, size_bytes, schema, sealed_at, prev, sha256_hex(line)), line


_STORE_OWN = {LEDGER_NAME: "the ledger", CHECKPOINTS_DIR: "the folder of the ledger's signed checkpoints"}


def store_own_name(name: str) -> str | None:
    """What the store keeps at `name` in its root (its ledger, its checkpoints folder), or None:
    no record folder can be named so (a plan's article_key, a record path's first folder)."""
    return _STORE_OWN.get(name)


def store_path_problem(path: str) -> str | None:
    """Why `path` cannot name a record in the store, or None when it can."""
    if not path:
        return "is empty"
    if "\\" in path or path.startswith("/") or re.match(r"[A-Za-z]:", path):
        return "must be a relative path with '/' separators, inside the store"
    parts = path.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return "must stay inside the store (no '..', '.' or empty segments)"
    if any(p.startswith(".") for p in parts):
        return "must not name a hidden file or folder"
    if path == LEDGER_NAME:
        return "is the ledger itself"
    own = _STORE_OWN.get(parts[0])  # inline: every ledger line read passes here
    if own:
        return f"is inside {parts[0]}/, {own}"
    if not path.endswith(".json"):
        return "must end in .json"
    if not _SAFE_PATH.fullmatch(path):
        bad = sorted({c for c in path if not _SAFE_PATH.fullmatch(c)})
        return f"may contain only letters, digits, '-', '_', '.' and '/' (found {', '.join(repr(c) for c in bad)})"
    return None


def is_seal_temp(rel: str) -> bool:
    """Whether the store path `rel` is a temp file an interrupted seal left behind."""
    return rel == TEMP_NAME or bool(_OLD_TEMP.fullmatch(rel.rsplit("/", 1)[-1]))


# atomic.write_new's temp name for a checkpoint or the vkeys file: ".<name>.<pid>-<thread>-<n>.tmp"
_CHECKPOINT_TEMP = re.compile(rf"{CHECKPOINTS_DIR}/\.([1-9][0-9]*|vkeys)\.[0-9]+-[0-9]+-[0-9]+\.tmp")


def is_checkpoint_temp(rel: str) -> bool:
    """Whether the store path `rel` is the temp file of a checkpoint being written, or left by
    one that was interrupted (`repair` removes it under the seal lock)."""
    return bool(_CHECKPOINT_TEMP.fullmatch(rel))


@dataclass(frozen=True)
class LedgerRead:
    """The ledger as read: its well-formed entries, every problem found, and the head hash."""

    entries: list[LedgerEntry]
    entry_lines: list[int]  # the 1-based line each entry was read from
    problems: list[Problem]
    head_sha256: str
    # line number (1-based) -> problems of that line; lets the store attach them to a record's row
    line_problems: dict[int, list[Problem]]


def read_ledger_file(path: Path) -> bytes:
    """The ledger's bytes (b"" when there is none); InputError when it is a folder, a device
    or a FIFO (which would block every command) or past MAX_LEDGER_BYTES."""
    try:
        return read_input(path, path.as_posix(), MAX_LEDGER_BYTES, "a ledger")
    except InputError:
        if not os.path.lexists(path):
            return b""
        raise


def read_ledger(raw: bytes, file: str) -> LedgerRead:
    """Parse and walk the chain of a ledger's bytes; never raises for what the bytes contain."""
    entries: list[LedgerEntry] = []
    entry_lines: list[int] = []
    problems: list[Problem] = []
    line_problems: dict[int, list[Problem]] = {}
    prev = GENESIS_SHA256
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    elif raw:
        problems.append(Problem(file, "", "does not end with a newline: the last line was cut short or edited", len(lines)))
    if lines and all(line.endswith(b"\r") for line in lines):
        # one finding, not two per line: the entries under the endings are read as they are
        problems.append(Problem(file, "", "has Windows line endings (CR LF) where a ledger's lines end in LF alone: git's "
                                          "core.autocrlf or an editor converted them; restore them (`sed -i 's/\\r$//' FILE`) "
                                          "and keep git from converting the file again (`ledger.jsonl -text` in .gitattributes)", 1))
        lines = [line[:-1] for line in lines]
    seen_paths: dict[str, int] = {}
    seen_hashes: dict[str, int] = {}
    for index, line in enumerate(lines):
        number = index + 1
        found: list[Problem] = []

        def report(message: str) -> None:
            found.append(Problem(file, "", message, number))

        entry = _parse_line(line, index, prev, file, number, report)
        if entry is not None:
            if entry.path in seen_paths:
                report(f"path {entry.path!r} is already sealed on line {seen_paths[entry.path]}")
            if entry.sha256 in seen_hashes:
                report(f"sha256 {entry.sha256[:12]} is already sealed on line {seen_hashes[entry.sha256]}")
            seen_paths.setdefault(entry.path, number)
            seen_hashes.setdefault(entry.sha256, number)
            entries.append(entry)
            entry_lines.append(number)
        prev = entry.entry_sha256 if entry is not None else sha256_hex(line)
        if found:
            line_problems[number] = found
            problems.extend(found)
    return LedgerRead(entries, entry_lines, problems, prev, line_problems)


def _parse_line(line: bytes, index: int, prev: str, file: str, number: int, report) -> LedgerEntry | None:
    """One line -> LedgerEntry (None when malformed); chain and canonical-form problems reported."""
    fields = canonical_fields(line)
    if fields is None:
        fields = _strict_fields(line, file, report)
        if fields is None:
            return None
    if fields["position"] != index:
        report(f"position is {fields['position']} but this is entry {index}: a line was removed, inserted or reordered")
    if fields["prev_sha256"] != prev:
        what = "the genesis hash" if index == 0 else f"the hash of line {number - 1} ({prev[:12]})"
        report(f"prev_sha256 {fields['prev_sha256'][:12]} does not match {what}: a line before it was edited, removed, inserted or reordered")
    return LedgerEntry(entry_sha256=sha256_hex(line), **fields)


def canonical_fields(line: bytes) -> dict | None:
    """The fields of a well-typed line in canonical form, read by orjson; None for any other
    line, which the strict reader then reads to name what is wrong (a ledger of 10,000 lines is
    read in 0.11 s, where the strict reader alone took 0.26). A line without a backslash or a
    DEL byte has no escape that `json.dumps(ensure_ascii=True)` writes differently from orjson,
    so orjson's re-encoding equal to the line proves it canonical, and then, with exactly the
    seven fields in order, that it held no duplicate key: it is what the strict reader gives."""
    if not line.isascii() or b"\\" in line or b"\x7f" in line:
        return None
    try:
        fields = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if type(fields) is not dict or tuple(fields) != FIELDS or _type_problems(fields) or orjson.dumps(fields) != line:
        return None
    return fields


def _strict_fields(line: bytes, file: str, report) -> dict | None:
    """The fields of a line the quick reading refused, read strictly; every problem reported
    (None when the line is not a well-typed entry)."""
    if not line.strip():
        report("empty line")
        return None
    try:
        fields = read_json_text(line.decode("utf-8"), file)
    except UnicodeDecodeError:
        report("not UTF-8")
        return None
    except InputError as err:
        report(err.problems[0].message)
        return None
    if not isinstance(fields, dict):
        report("not a JSON object")
        return None
    missing = [k for k in FIELDS if k not in fields]
    extra = [k for k in fields if k not in FIELDS]
    if missing or extra:
        report("fields " + "; ".join(
            part for part in (missing and f"missing {', '.join(missing)}", extra and f"unexpected {', '.join(extra)}") if part))
        return None
    bad = _type_problems(fields)
    if bad:
        for message in bad:
            report(message)
        return None
    if encode_line(*(fields[k] for k in FIELDS)) != line:
        report("not in canonical form (key order, spacing or escaping changed): the line was edited")
    return fields


def _type_problems(fields: dict) -> list[str]:
    out = []
    for key in ("position", "size_bytes"):
        value = fields[key]
        if not is_integer(value) or value < 0:
            out.append(f"{key} must be a non-negative integer, found {value!r}")
    for key in ("sha256", "prev_sha256"):
        if not is_sha256(fields[key]):
            out.append(f"{key} must be 64 lowercase hex digits, found {fields[key]!r}")
    if not isinstance(fields["schema"], str) or not fields["schema"]:
        out.append(f"schema must be a schema id, found {fields['schema']!r}")
    if not isinstance(fields["sealed_at"], str) or not _SEALED_AT.fullmatch(fields["sealed_at"]):
        out.append(f"sealed_at must be an RFC 3339 UTC time like 2026-01-02T03:04:05Z, found {fields['sealed_at']!r}")
    path = fields["path"]
    reason = store_path_problem(path) if isinstance(path, str) else "is not a string"
    if reason:
        out.append(f"path {path!r} {reason}")
    return out
