"""The site folder `build` writes into: MkDocs empties it before every build, so `build`
refuses one that holds anything it did not make. A folder is ours when it carries `MARKER`,
which `build` writes into every site it makes (hidden, so MkDocs' clean-up leaves it)."""

from __future__ import annotations

from pathlib import Path

from benchledger.errors import BuildError

MARKER = ".benchledger-site"
MARKER_TEXT = b"This folder is a site built by `benchledger build`; each build replaces everything in it.\n"


def check_cache_dir(cache: Path, protected: dict[str, Path | None]) -> None:
    """Raise BuildError when the cache folder is or lies inside any of `protected` (what ->
    folder): the articles folder would read the build's own files as articles."""
    cache = cache.resolve()
    for what, folder in protected.items():
        if folder is not None and cache.is_relative_to(folder.resolve()):
            relation = "is" if cache == folder.resolve() else "lies inside"
            raise BuildError(f"the cache folder {cache.as_posix()} {relation} {what} ({folder.resolve().as_posix()}); the build "
                             "writes there: choose another cache folder (--cache DIR or BENCHLEDGER_CACHE_DIR)")


def check_out_dir(out: Path, protected: dict[str, Path | None]) -> None:
    """Raise BuildError unless `out` may be emptied and rebuilt: it must not be, contain or lie
    inside any of `protected` (what -> folder: the records store, the project, the cache...),
    and an existing folder must be empty or carry the marker of an earlier build."""
    out = out.resolve()
    shown = out.as_posix()
    for what, folder in protected.items():
        if folder is None:
            continue
        folder = folder.resolve()
        if folder == out or folder.is_relative_to(out):
            relation = "is" if folder == out else "contains"
            raise BuildError(f"--out {shown} {relation} {what} ({folder.as_posix()}); building there would delete it: choose another folder, e.g. site/")
        if what == "the records store" and out.is_relative_to(folder):
            raise BuildError(f"--out {shown} lies inside {what} ({folder.as_posix()}); its files would become unsealed files of the store: choose a folder outside it")
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
    """Make `out` (and its parents) and put the marker in it, before MkDocs writes there."""
    out.mkdir(parents=True, exist_ok=True)
    marker = out / MARKER
    if not marker.is_file() or marker.read_bytes() != MARKER_TEXT:
        marker.write_bytes(MARKER_TEXT)
