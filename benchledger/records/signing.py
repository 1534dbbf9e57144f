"""Signing the ledger's tree: `benchledger checkpoint` appends a signed checkpoint to
records/checkpoints/ under the seal lock, never rewriting one, and only for a tree consistent
with the last stored checkpoint (the checks are tlog's)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from benchledger.atomic import fsync_dir, write_new
from benchledger.errors import LedgerError, SealError, os_reason
from benchledger.records.checkpoint import Checkpoint, sign_checkpoint
from benchledger.records.keys import SignerKey
from benchledger.records.merkle import verify_consistency
from benchledger.records import lock
from benchledger.records.tlog import (CHECKPOINTS_DIR, VKEYS_NAME, StoredCheckpoint, check_store, keys_source, ledger_tree,
                                      store_checkpoints, store_keys)

if TYPE_CHECKING:
    from benchledger.records.store import Store


def append_checkpoint(store: "Store", signer: SignerKey, origin: str | None = None) -> tuple[StoredCheckpoint, bool]:
    """Sign the ledger's current tree with `signer` and store it as checkpoints/<size>;
    (checkpoint, True) when written, (the latest, False) when it already covers the ledger.

    Refuses (SealError/LedgerError) a broken ledger or log, a signer that is not a project key
    (the first checkpoint makes its key the project's), an origin other than the log's, and a
    tree that is not consistent with the last stored checkpoint. Never overwrites a file."""
    with lock.exclusive(store.root):
        entries = store.entries()
        if not entries:
            raise SealError(f"{store.ledger_path.as_posix()} is empty: there is nothing to checkpoint")
        problems = check_store(store, entries)
        if problems:
            raise LedgerError(problems, f"the stored checkpoints do not hold ({len(problems)} problem(s)); nothing was signed")
        checkpoints, _ = store_checkpoints(store)
        keys, _ = store_keys(store)
        vkeys_shown = store.shown(VKEYS_NAME)
        if keys and signer.verifier not in keys:
            raise SealError(f"{signer.verifier.text} is not one of the project's verifier keys ({keys_source(store)}); "
                            "add its line there to sign with it")
        last = checkpoints[-1].checkpoint if checkpoints else None
        origin = origin or (last.origin if last else signer.name)
        if last and origin != last.origin:
            raise SealError(f"this log's origin is {last.origin!r} ({checkpoints[-1].shown}); a checkpoint cannot change it")
        tree = ledger_tree(entries)
        if last and last.size == tree.size:
            return checkpoints[-1], False
        checkpoint = Checkpoint(origin, tree.size, tree.root())
        if last and not verify_consistency(last.size, tree.size, last.root, checkpoint.root, tree.consistency_proof(last.size)):
            raise SealError(f"the ledger is not consistent with {checkpoints[-1].shown}; nothing was signed")
        note = sign_checkpoint(checkpoint, signer)
        folder = store.root / CHECKPOINTS_DIR
        try:
            folder.mkdir(exist_ok=True)
        except OSError as err:
            raise SealError(f"cannot create {store.shown(CHECKPOINTS_DIR)}/: {os_reason(err)}; nothing was signed") from None
        if not keys:
            _write_new(store.root / VKEYS_NAME, f"{signer.verifier.text}\n".encode(), vkeys_shown)
        rel = f"{CHECKPOINTS_DIR}/{tree.size}"
        _write_new(store.root / rel, note.encoded, store.shown(rel))
        fsync_dir(folder)
        return StoredCheckpoint(store.shown(rel), note.encoded, checkpoint, note), True


def _write_new(path: Path, data: bytes, shown: str) -> None:
    """Write a new file atomically (temp, fsync, hard link); never over an existing one."""
    try:
        write_new(path, data)
    except FileExistsError:
        raise SealError(f"{shown} already exists; checkpoints are never rewritten") from None
    except OSError as err:
        raise SealError(f"cannot write {shown}: {os_reason(err)}") from None
