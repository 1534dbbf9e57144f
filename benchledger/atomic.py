"""Atomic file writing, the one way every part of benchledger replaces a file: readers see the
old file or the whole new one, never a part. A temporary file in the same folder, renamed over
the target; `durable` also fsyncs the file and its folder, for what must survive a crash (run
results, sealed records); caches and generated pages, which can be made again, skip that cost.

A file that must never replace another (a signed checkpoint) is linked into place instead
(`write_new`); sealing, which also undoes what it made on failure, links in its own steps
(`records.sealing`) and shares `fsync_dir` from here."""

from __future__ import annotations

import errno
import itertools
import os
import threading
from pathlib import Path

_serial = itertools.count()  # temp names unique per process, thread and call


def temp_path(path: Path) -> Path:
    """A fresh hidden temporary name beside `path` (same folder, so a rename is atomic)."""
    return path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}-{next(_serial)}.tmp")


def write_if_changed(path: Path, data: bytes) -> bool:
    """Make the file at `path` hold `data` (atomically, not durably), unless it holds those bytes
    already: a rebuild leaves unchanged files, their mtimes and the stats caches trust, alone.
    Returns whether it wrote."""
    path = Path(path)
    if path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data:
        return False
    write_atomic(path, data, durable=False)
    return True


def write_atomic(path: Path, data: bytes, *, durable: bool = True, mode: int = 0o666) -> None:
    """Replace `path` with `data` atomically, creating missing parent folders. With `durable`
    the bytes and the new name are on disk when this returns. `mode` (less the umask) is the new
    file's."""
    path = Path(path)
    tmp = temp_path(path)
    # O_EXCL: never write through a name someone else made. Plain os calls: a seal rewrites its
    # head file through here every time.
    fd = open_making_folders(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        try:
            write_all(fd, data, path)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        fsync_dir(path.parent)


def write_all(fd: int, data: bytes, path: Path | str | None = None) -> None:
    """Write all of `data` to the descriptor `fd`: a short write is retried, and one that writes
    nothing (a full disk) raises ENOSPC, naming `path` when given."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if not written:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), None if path is None else os.fspath(path))
        view = view[written:]


def open_making_folders(path: Path, flags: int, mode: int = 0o666) -> int:
    """`os.open(path, flags, mode)` (close-on-exec; by default a new file gets mode 0o666 less
    the umask, as a plain open() gives: it may be published), creating the missing parent
    folders when the first try finds none: a folder is looked at only when it is missing."""
    try:
        return os.open(path, flags | os.O_CLOEXEC, mode)
    except FileNotFoundError:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, flags | os.O_CLOEXEC, mode)


def write_new(path: Path, data: bytes, *, mode: int = 0o666) -> None:
    """Create `path` holding `data`, durably and atomically, never over an existing file: a
    temporary file (`mode` less the umask), fsync, then a hard link to the name
    (FileExistsError when it exists; the temporary file never stays). The caller fsyncs the
    folder once for all it created."""
    path = Path(path)
    tmp = temp_path(path)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
        try:
            write_all(fd, data, path)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.link(tmp, path)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


def fsync_dir(folder: Path) -> None:
    """Make a new or removed directory entry durable."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
