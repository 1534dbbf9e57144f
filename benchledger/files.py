"""Reading the files a user hands benchledger (records, imports, plans, keys, articles,
checkpoints, benchledger.toml): regular files only, never more than a limit. A path naming
/dev/zero grew a process until the kernel killed it, and a FIFO blocked every command that
read one; both are refused here, with the file named."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from benchledger.errors import InputError, os_reason

MAX_INPUT_BYTES = 256 * 2**20  # a plan, key, article or configuration file is far smaller


def stat_identity(st: os.stat_result) -> list[int]:
    """A file's identity as the file system gives it, without reading it: size, modification and
    change times, inode and device. Rewriting, replacing or touching the file changes it; setting
    its mtime back (`touch -r`) does not hide an edit, as no tool sets a ctime."""
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]


def read_input(path: Path, shown: str | None = None, max_bytes: int = MAX_INPUT_BYTES, what: str = "a file",
               follow_symlinks: bool = True) -> bytes:
    """The bytes of the regular file at `path`; InputError naming `shown` (default: the path)
    when it is missing, a folder, a device, FIFO or socket, larger than `max_bytes` or
    unreadable. `what` names the file in messages ("a record", "a plan"). A file the store
    keeps itself is read with `follow_symlinks=False`: a link there is refused, not followed."""
    shown = shown or str(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC  # non-blocking: a FIFO waits for a writer otherwise
    if not follow_symlinks:
        flags |= os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise InputError(shown, "", "no such file") from None
    except IsADirectoryError:
        raise InputError(shown, "", f"is a folder, not {what}") from None
    except OSError as err:
        if err.errno == errno.ELOOP and not follow_symlinks and os.path.islink(path):
            raise InputError(shown, "", f"is a symbolic link, not {what}; the store keeps plain files only") from None
        raise InputError(shown, "", f"cannot read: {os_reason(err)}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(shown, "", f"is a folder, not {what}")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(shown, "", f"is not a regular file (a device, pipe or socket), not {what}")
        if info.st_size > max_bytes:
            raise InputError(shown, "", f"file is {info.st_size} bytes, over the {max_bytes}-byte limit for {what}")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as f:
            raw = f.read(max_bytes + 1)  # a file growing meanwhile is cut at the limit
    except OSError as err:
        raise InputError(shown, "", f"cannot read: {os_reason(err)}") from None
    finally:
        os.close(fd)
    if len(raw) > max_bytes:
        raise InputError(shown, "", f"file is over the {max_bytes}-byte limit for {what}")
    return raw
