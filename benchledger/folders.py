"""Where one folder lies relative to another, symlinks resolved: the one question behind every
refusal to write where a build or a cache would damage what it sits in or holds (the records
store, the project, the articles, the cache)."""

from __future__ import annotations

from pathlib import Path

IS, LIES_INSIDE, CONTAINS = "is", "lies inside", "contains"


def relation(folder: Path, other: Path) -> str | None:
    """How `folder` lies relative to `other` once both are resolved: IS, LIES_INSIDE, CONTAINS,
    or None when they are apart. Words chosen to read in a message: f"{folder} {relation} {other}"."""
    folder, other = Path(folder).resolve(), Path(other).resolve()
    if folder == other:
        return IS
    if folder.is_relative_to(other):
        return LIES_INSIDE
    if other.is_relative_to(folder):
        return CONTAINS
    return None


def within(path: Path, folder: Path) -> bool:
    """Whether `path` is `folder` or lies inside it, symlinks resolved."""
    return relation(path, folder) in (IS, LIES_INSIDE)
