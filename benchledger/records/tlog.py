"""The store's transparency log: signed checkpoints of the ledger's Merkle tree, kept in
`records/checkpoints/<tree size>` (appended, never rewritten), and the project's verifier keys
in `records/checkpoints/vkeys` (one `NAME+KEYID+BASE64` line each, `#` comments). The keys live
in the store until the project folder (benchledger.toml) gives them a home of their own.

The checks are separate steps, each named in its messages, so that `verify` (a store) and
`verify --site` (a published copy) run the same ones:

- signature: the checkpoint is a signed note signed by one of the verifier keys;
- root: its root is the root of the ledger's tree at its size (a line edited, removed or
  inserted before that size, even with the chain recomputed, changes the root);
- consistency: each checkpoint's tree is a prefix of the next one's (RFC 9162 2.1.4)."""

from __future__ import annotations

import base64
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from benchledger.errors import InputError, LedgerError, Problem
from benchledger.files import read_input
from benchledger.records.checkpoint import Checkpoint, SignedNote, read_checkpoint
from benchledger.records.digest import is_sha256
from benchledger.records.keys import VerifierKey
from benchledger.records.ledger import CHECKPOINTS_DIR, LedgerEntry, encode_entry, is_checkpoint_temp
from benchledger.records.merkle import MerkleTree, verify_consistency
from benchledger.records.numbers import is_integer

if TYPE_CHECKING:
    from benchledger.records.store import Store

VKEYS_NAME = f"{CHECKPOINTS_DIR}/vkeys"
_SIZE_NAME = re.compile(r"[1-9][0-9]{0,19}")
# Step names, as messages and the browser check name them.
SIGNATURE, ROOT, CONSISTENCY, ORIGIN, FORMAT = "signature", "root", "consistency", "origin", "format"


@dataclass(frozen=True)
class StoredCheckpoint:
    """A checkpoint file as read: where it is, its bytes, and what they say."""

    shown: str  # how messages name the file
    raw: bytes
    checkpoint: Checkpoint
    note: SignedNote


def ledger_tree(entries: Sequence[LedgerEntry]) -> MerkleTree:
    """The Merkle tree whose leaves are the ledger's lines (exact bytes, without newline)."""
    return MerkleTree.from_entries([encode_entry(e) for e in entries])


def b64(root: bytes) -> str:
    """A tree root (or any bytes) in standard base64, as checkpoints write it."""
    return base64.b64encode(root).decode()


# --- the steps ------------------------------------------------------------------------------

def check_signature(cp: StoredCheckpoint, keys: Sequence[VerifierKey], whose: str) -> list[Problem]:
    """Step `signature`: signed by at least one of `keys` (`whose` says whose keys they are)."""
    if any(cp.note.signed_by(key) for key in keys):
        return []
    names = ", ".join(cp.note.key_names()) or "nobody"
    wanted = ", ".join(k.text for k in keys) or "none"
    return [Problem(cp.shown, "", f"{SIGNATURE}: not signed by {whose} ({wanted}); its signature lines name {names}: "
                                  "the checkpoint was forged or re-signed with another key")]


def check_root(cp: StoredCheckpoint, tree: MerkleTree, ledger_shown: str) -> list[Problem]:
    """Step `root`: the checkpoint's root is the root of `tree` (the ledger's) at its size."""
    size = cp.checkpoint.size
    if size > tree.size:
        return [Problem(cp.shown, "", f"{ROOT}: signs a tree of {size} entries but {ledger_shown} has only {tree.size}: "
                                      "entries were removed from the ledger")]
    actual = tree.root(size)
    if actual != cp.checkpoint.root:
        return [Problem(cp.shown, "", f"{ROOT}: signs root {b64(cp.checkpoint.root)} but the first {size} entries of "
                                      f"{ledger_shown} hash to {b64(actual)}: the ledger's history was rewritten "
                                      "(an entry edited, removed or inserted, even with the chain recomputed)")]
    return []


def check_consistency(old: Checkpoint, new: Checkpoint, proof: Sequence[bytes], shown: str) -> list[Problem]:
    """Step `consistency`: `proof` shows `old`'s tree is a prefix of `new`'s (same origin)."""
    if old.origin != new.origin:
        return [Problem(shown, "", f"{ORIGIN}: origin {new.origin!r} differs from the earlier checkpoint's {old.origin!r}: another log")]
    if new.size < old.size:
        return [Problem(shown, "", f"{CONSISTENCY}: tree size {new.size} is smaller than an earlier checkpoint's {old.size}: "
                                   "the log was rolled back")]
    if not verify_consistency(old.size, new.size, old.root, new.root, proof):
        return [Problem(shown, "", f"{CONSISTENCY}: the tree of size {new.size} is not an extension of the earlier one of size "
                                   f"{old.size} (root {b64(old.root)}): history was rewritten")]
    return []


def check_log(checkpoints: Sequence[StoredCheckpoint], tree: MerkleTree, keys: Sequence[VerifierKey],
              ledger_shown: str, whose: str, signatures: bool = True) -> list[Problem]:
    """Every step for every checkpoint (in size order) against the ledger's `tree`: signature
    (unless `signatures` is False: the caller reported why no key can check them), root, and
    consistency of each with the one before (proved from `tree`)."""
    problems: list[Problem] = []
    for i, cp in enumerate(checkpoints):
        if signatures:
            problems += check_signature(cp, keys, whose)
        problems += check_root(cp, tree, ledger_shown)
        if i:
            old, new = checkpoints[i - 1].checkpoint, cp.checkpoint
            proof = tree.consistency_proof(old.size, new.size) if old.size <= new.size <= tree.size else []
            problems += check_consistency(old, new, proof, cp.shown)
    return problems


# --- the store's checkpoints folder --------------------------------------------------------

def read_keys(text: str, shown: str) -> tuple[list[VerifierKey], list[Problem]]:
    """Verifier keys, one a line (`#` comments and blank lines skipped), and the bad lines."""
    keys, problems = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            keys.append(VerifierKey.parse(line, shown))
        except InputError as err:
            problems += [Problem(p.file, p.path, f"{FORMAT}: {p.message}", number) for p in err.problems]
    return keys, problems


def keys_source(store: "Store") -> str:
    """Where the store's verifier keys are listed, as messages name it."""
    project = _owning_project(store)
    if project is not None and project.verifier_keys:
        config = project.config_file
        try:  # named as the user would type it, from the working folder
            config = config.relative_to(Path.cwd().resolve())
        except ValueError:
            pass
        return f"{config.as_posix()} [log] verifier_keys"
    return store.shown(VKEYS_NAME)


def _owning_project(store: "Store"):
    """The project whose records folder this store is (the nearest benchledger.toml above it
    naming it), or None."""
    from benchledger.project import PROJECT_FILE, load_project

    root = store.root.resolve()
    for folder in root.parents:
        if (folder / PROJECT_FILE).is_file():
            project = load_project(folder)
            return project if project.records_dir == root else None
    return None


def store_keys(store: "Store") -> tuple[list[VerifierKey], list[Problem]]:
    """The project's verifier keys and any problem reading them: benchledger.toml's `[log]
    verifier_keys` when the store's project lists some, else records/checkpoints/vkeys."""
    try:
        project = _owning_project(store)
    except InputError as err:  # a broken benchledger.toml: its problems, no keys
        return [], err.problems
    if project is not None and project.verifier_keys:
        return [VerifierKey.parse(k, "benchledger.toml") for k in project.verifier_keys], []
    path = store.root / VKEYS_NAME
    if not os.path.lexists(path):
        return [], []
    shown = store.shown(VKEYS_NAME)
    try:
        return read_keys(read_input(path, shown, what="a key list", follow_symlinks=False).decode("utf-8", errors="replace"), shown)
    except InputError as err:
        return [], err.problems


def largest_checkpoint_size(store: "Store") -> int:
    """The largest tree size a stored checkpoint is named by (0 without one), from the names
    alone: what a seal compares its ledger with before it appends (`verify` checks the rest)."""
    try:
        names = os.listdir(store.root / CHECKPOINTS_DIR)
    except OSError:
        return 0
    return max((int(name) for name in names if _SIZE_NAME.fullmatch(name)), default=0)


def store_checkpoints(store: "Store") -> tuple[list[StoredCheckpoint], list[Problem]]:
    """The stored checkpoints in size order, and the files of the folder that are not one."""
    folder = store.root / CHECKPOINTS_DIR
    if not os.path.lexists(folder):
        return [], []
    if folder.is_symlink() or not folder.is_dir():
        return [], [Problem(store.shown(CHECKPOINTS_DIR), "", f"{FORMAT}: is not a folder (a file or a symbolic link); "
                                                           f"{CHECKPOINTS_DIR}/ holds the ledger's signed checkpoints: move it out of the store")]
    found, problems = [], []
    for name in sorted(os.listdir(folder)):
        rel = f"{CHECKPOINTS_DIR}/{name}"
        shown = store.shown(rel)
        if rel == VKEYS_NAME:
            continue
        if is_checkpoint_temp(rel):
            problems.append(Problem(shown, "", f"{FORMAT}: the temp file of a checkpoint being signed, or left by one that was "
                                               "interrupted: run `benchledger repair`, which removes it once no checkpoint is being signed"))
            continue
        if not _SIZE_NAME.fullmatch(name):
            problems.append(Problem(shown, "", f"{FORMAT}: not a checkpoint: {CHECKPOINTS_DIR}/ holds only checkpoints named by "
                                               "their tree size and the vkeys file; remove it"))
            continue
        try:
            raw = read_input(folder / name, shown, what="a checkpoint", follow_symlinks=False)
            checkpoint, note = read_checkpoint(raw, shown)
        except InputError as err:
            problems += [Problem(p.file, p.path, f"{FORMAT}: {p.message}", p.line) for p in err.problems]
            continue
        if checkpoint.size != int(name):
            problems.append(Problem(shown, "", f"{FORMAT}: signs tree size {checkpoint.size} but is stored as size {name}"))
            continue
        found.append(StoredCheckpoint(shown, raw, checkpoint, note))
    found.sort(key=lambda cp: cp.checkpoint.size)
    return found, problems


def check_store(store: "Store", entries: Sequence[LedgerEntry]) -> list[Problem]:
    """Every stored checkpoint checked against the ledger `entries` and the project's keys."""
    checkpoints, problems = store_checkpoints(store)
    keys, key_problems = store_keys(store)
    problems += key_problems
    source = keys_source(store) if not key_problems else store.shown(VKEYS_NAME)
    if checkpoints and not keys and not key_problems:
        problems.append(Problem(source, "", f"{SIGNATURE}: missing: the checkpoints cannot be checked without "
                                            "the project's verifier keys"))
    if not checkpoints:  # nothing to check against the ledger's tree: it is not built (0.1 s at 10,000 lines)
        return problems
    # with no key (missing or unreadable, said above) no signature can be checked: "forged" would mislead
    return problems + check_log(checkpoints, ledger_tree(entries), keys, store.ledger_path.as_posix(), f"a key in {source}",
                                signatures=bool(keys))


# --- proofs as published: ledger/inclusion/<sha256>.json, ledger/consistency/<m>-<n>.json ---

def inclusion_document(tree: MerkleTree, entries: Sequence[LedgerEntry], index: int, size: int) -> dict:
    """{"leaf_index", "tree_size", "line", "hashes"}: entry `index`'s line proved into the tree of `size`."""
    return {"leaf_index": index, "tree_size": size, "line": encode_entry(entries[index]).decode("ascii"),
            "hashes": [h.hex() for h in tree.inclusion_proof(index, size)]}


def consistency_document(tree: MerkleTree, old_size: int, new_size: int) -> dict:
    """{"from_size", "to_size", "hashes"}: the tree of `old_size` proved a prefix of `new_size`'s."""
    return {"from_size": old_size, "to_size": new_size, "hashes": [h.hex() for h in tree.consistency_proof(old_size, new_size)]}


def _hashes(value, shown: str) -> list[bytes]:
    if not isinstance(value, list) or not all(is_sha256(h) for h in value):
        raise InputError(shown, "$.hashes", f"{FORMAT}: must be a list of 64-hex-digit SHA-256 hashes")
    return [bytes.fromhex(h) for h in value]


def _count(doc: dict, key: str, shown: str) -> int:
    value = doc.get(key)
    if not is_integer(value) or value < 0:
        raise InputError(shown, f"$.{key}", f"{FORMAT}: must be a non-negative integer")
    return value


def read_inclusion(doc, shown: str) -> tuple[int, int, bytes, list[bytes]]:
    """A parsed inclusion document -> (leaf index, tree size, line bytes, hashes)."""
    if not isinstance(doc, dict):
        raise InputError(shown, "", f"{FORMAT}: an inclusion proof is a JSON object")
    line = doc.get("line")
    if not isinstance(line, str) or not line.isascii():
        raise InputError(shown, "$.line", f"{FORMAT}: must be the ledger line (ASCII text)")
    return _count(doc, "leaf_index", shown), _count(doc, "tree_size", shown), line.encode("ascii"), _hashes(doc.get("hashes"), shown)


def read_consistency(doc, shown: str) -> tuple[int, int, list[bytes]]:
    """A parsed consistency document -> (from size, to size, hashes)."""
    if not isinstance(doc, dict):
        raise InputError(shown, "", f"{FORMAT}: a consistency proof is a JSON object")
    return _count(doc, "from_size", shown), _count(doc, "to_size", shown), _hashes(doc.get("hashes"), shown)


# --- what a site publishes ------------------------------------------------------------------

DEMONSTRATION_MARK = "DEMONSTRATION-KEY"  # a key whose name says this is shown as a demonstration key


def is_demonstration_key(key: VerifierKey) -> bool:
    """Whether `key` is labelled as a demonstration key (its private key is public)."""
    return DEMONSTRATION_MARK in key.name


@dataclass(frozen=True)
class PublishedLog:
    """The checked log a build publishes: every stored checkpoint, the latest last, and the
    project key that signed the latest."""

    checkpoints: tuple[StoredCheckpoint, ...]
    key: VerifierKey

    @property
    def latest(self) -> StoredCheckpoint:
        return self.checkpoints[-1]

    @property
    def demonstration(self) -> bool:
        return is_demonstration_key(self.key)


def published_log(store: "Store", entries: Sequence[LedgerEntry]) -> PublishedLog | None:
    """The store's log, checked against `entries` (LedgerError listing every problem), or None
    when the store has no checkpoint yet."""
    problems = check_store(store, entries)
    if problems:
        raise LedgerError(problems, f"the stored checkpoints do not hold ({len(problems)} problem(s)); nothing was built")
    checkpoints, _ = store_checkpoints(store)
    if not checkpoints:
        return None
    keys, _ = store_keys(store)
    key = next(k for k in keys if checkpoints[-1].note.signed_by(k))
    return PublishedLog(tuple(checkpoints), key)
