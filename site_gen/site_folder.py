"""The site folder `build` writes into: MkDocs empties it before every build, so `build`
refuses one that holds anything it did not make. A folder is ours when it carries `MARKER`,
which `build` writes into every site it makes (hidden, so MkDocs' clean-up leaves it)."""

from __future__ import annotations

from pathlib import Path

from benchledger.errors import BuildError
from benchledger.folders import CONTAINS, IS, LIES_INSIDE, relation

MARKER = ".benchledger-site"
MARKER_TEXT = b"This folder is a site built by `benchledger build`; each build replaces everything in it.\n"


def check_cache_dir(cache: Path, protected: dict[str, Path | None]) -> None:
    """Raise BuildError when the cache folder is or lies inside any of `protected` (what ->
    folder): the articles folder would read the build's own files as articles."""
    for what, folder in protected.items():
        where = relation(cache, folder) if folder is not None else None
        if where in (IS, LIES_INSIDE):
            raise BuildError(f"the cache folder {cache.resolve().as_posix()} {where} {what} ({folder.resolve().as_posix()}); the build "
                             "writes there: choose another cache folder (--cache DIR or BENCHLEDGER_CACHE_DIR)")


def check_out_dir(out: Path, protected: dict[str, Path | None]) -> None:
    """Raise BuildError unless `out` may be emptied and rebuilt: it must not be, contain or lie
    inside any of `protected` (what -> folder: the records store, the project, the cache...),
    and an existing folder must be empty or carry the marker of an earlier build."""
    out = out.resolve()
    shown = out.as_posix()
    for what, folder in protected.items():
        where = relation(out, folder) if folder is not None else None
        if where in (IS, CONTAINS):
            raise BuildError(f"--out {shown} {where} {what} ({folder.resolve().as_posix()}); building there would delete it: choose another folder, e.g. site/")
        if where == LIES_INSIDE and what == "the records store":
            raise BuildError(f"--out {shown} lies inside {what} ({folder.resolve().as_posix()}); its files would become unsealed files of the store: choose a folder outside it")
    if not out.exists() and not out.is_symlink():
        return
    if not out.is_dir():
        raise BuildError(f"--out {shown} exists and is not a folder: choose a new or empty folder")
    if (out / MARKER).is_file():
        return
    if any(out.iterdir()):
        raise BuildError(f"--out {shown} is not empty and was not made by `benchledger build` (no {MARKER} in it); "
                         "a build empties its folder, so choose a new or empty folder")


def mark(out: Path) -> None:
    """Make `out` (and its parents) and put the marker in it, before MkDocs writes there. The
    folder and the marker take the modes this build's umask gives: MkDocs empties the folder but
    keeps it, so a site once built under umask 077 stayed unreadable to a web server's user
    through every later build."""
    out.mkdir(parents=True, exist_ok=True)
    marker = out / MARKER
    if not marker.is_file() or marker.read_bytes() != MARKER_TEXT:
        marker.write_bytes(MARKER_TEXT)
    umask = _umask()
    for path, mode in ((out, 0o777), (marker, 0o666)) if umask is not None else ():
        if path.stat().st_mode & 0o7777 != mode & ~umask:  # only then: a chmod changes the ctime a warm build compares
            path.chmod(mode & ~umask)


def _umask() -> int | None:
    """This process's umask, read without setting it (os.umask sets it, for every thread at
    once); None where /proc does not say."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return None
    line = next((ln for ln in status.splitlines() if ln.startswith("Umask:")), None)
    return int(line.split()[1], 8) if line else None
