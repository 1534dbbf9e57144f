"""The store's lock: an flock on the store folder itself. Writers (a seal, a checkpoint, a
repair) hold it exclusively, so two cannot fork the chain; readers that must see the ledger,
the folder and the checkpoints as one state (`verify`) hold it shared while they look, so a
seal in flight is never taken for a stale temp file, an unsealed record or a removed entry."""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from benchledger.errors import InputError
from benchledger.records.ledger import NO_STORE


@contextmanager
def exclusive(root: Path) -> Iterator[None]:
    """Hold the store's lock alone (waiting for the others)."""
    with _flock(root, fcntl.LOCK_EX):
        yield


@contextmanager
def shared(root: Path) -> Iterator[None]:
    """Hold the store's lock beside other readers, while no writer holds it. Never inside
    `exclusive` in one process: flock would wait on itself."""
    with _flock(root, fcntl.LOCK_SH):
        yield


@contextmanager
def _flock(root: Path, how: int) -> Iterator[None]:
    if not root.is_dir():
        raise InputError(root.as_posix(), "", NO_STORE)
    fd = os.open(root, os.O_RDONLY)  # a folder opens read-only in a store the user cannot write too
    try:
        fcntl.flock(fd, how)
        yield
    finally:
        os.close(fd)
