"""Reading the files a user hands benchledger (records, imports, plans, keys, articles,
checkpoints, benchledger.toml): regular files only, never more than a limit. A path naming
/dev/zero grew a process until the kernel killed it, and a FIFO blocked every command that
read one; both are refused here, with the file named."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from benchledger.errors import InputError

MAX_INPUT_BYTES = 256 * 2**20  # a plan, key, article or configuration file is far smaller


def read_input(path: Path, shown: str | None = None, max_bytes: int = MAX_INPUT_BYTES, what: str = "a file") -> bytes:
    """The bytes of the regular file at `path` (symbolic links followed); InputError naming
    `shown` (default: the path) when it is missing, a folder, a device, FIFO or socket, larger
    than `max_bytes` or unreadable. `what` names the file in messages ("a record", "a plan")."""
    shown = shown or str(path)
    try:
        # non-blocking: opening a FIFO for reading waits for a writer otherwise
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise InputError(shown, "", "no such file") from None
    except IsADirectoryError:
        raise InputError(shown, "", f"is a folder, not {what}") from None
    except OSError as err:
        raise InputError(shown, "", f"cannot read: {err.strerror or err}") from None
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
        raise InputError(shown, "", f"cannot read: {err.strerror or err}") from None
    finally:
        os.close(fd)
    if len(raw) > max_bytes:
        raise InputError(shown, "", f"file is over the {max_bytes}-byte limit for {what}")
    return raw
