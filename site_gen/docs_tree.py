"""The generated docs tree (the cache's mkdocs/ folder: mkdocs.yml, docs/): what MkDocs builds
from, written so that a build with nothing changed touches nothing, and owned by the build
alone.

Beside it, a manifest (MAC-sealed, like the cache's other state) records the size, mtime and
SHA-256 of every file but the Markdown, as written or found byte-identical. A page from the
render cache names its assets by their hashes (`page.StoredAsset`): when the tree holds those
bytes already (`holds`: the manifest says so and the file's stat agrees), they are neither read
from the cache nor compared here. At 1,000 articles that is 4,500 SVGs, 64 MB, which every warm
build read, hashed and compared again."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path
from typing import Iterable

from benchledger.atomic import write_atomic, write_if_changed
from benchledger.records import cache_mac
from benchledger.records.digest import sha256_hex
from site_gen.page import Asset, StoredAsset

MANIFEST_NAME = "mkdocs-docs-manifest.json"  # in the build's cache folder, beside the mkdocs/ tree


class DocsTree:
    """The tree at `root`; `manifest` is the file its manifest is kept in (None: none kept,
    every file is compared by its bytes)."""

    def __init__(self, root: Path, manifest: Path | None = None):
        self.root = root
        self.manifest = manifest
        self._known = _load(manifest) if manifest is not None else {}

    def holds(self, rel: str, sha256: str) -> bool:
        """Whether the file at root-relative `rel` holds the bytes that hash to `sha256`, by the
        manifest and a stat (nothing is read)."""
        entry = self._known.get(rel)
        if entry is None or entry[2] != sha256:
            return False
        try:
            st = (self.root / rel).lstat()
        except OSError:
            return False
        return stat.S_ISREG(st.st_mode) and [st.st_size, st.st_mtime_ns] == entry[:2]

    def write(self, files: dict[str, Asset], changed: set[str] | None = None, later: Iterable[str] = ()) -> int:
        """Make the tree hold exactly `files`: write a file only when its bytes changed, and
        delete files no page produces any more. The root-relative paths in `later` are left as
        they are, for `add` to write once their bytes are made. Returns files written;
        `changed`, when given, gets the root-relative path of every file written or deleted."""
        root = self.root
        _own_tree(root)
        known = {rel: self._known[rel] for rel in later if rel in self._known}
        written = sum(self._put(rel, data, known, changed) for rel, data in sorted(files.items()))
        wanted = {root / rel for rel in [*files, *later]}
        if root.exists():
            for path in sorted(root.rglob("*"), reverse=True):
                if path.is_file() and path not in wanted:
                    path.unlink()
                    if changed is not None:
                        changed.add(path.relative_to(root).as_posix())
                elif path.is_dir() and not any(path.iterdir()):
                    path.rmdir()
        self._known = known
        self._save()
        return written

    def add(self, files: dict[str, bytes]) -> list[str]:
        """Write `files` (those `write` left for later) where their bytes changed; returns the
        root-relative paths written."""
        written = [rel for rel, data in sorted(files.items()) if self._put(rel, data, self._known, None)]
        self._save()
        return written

    def _put(self, rel: str, data: Asset, known: dict[str, list], changed: set[str] | None) -> bool:
        """Make the file at `rel` hold `data` (its manifest entry into `known`); True if written."""
        path = self.root / rel
        if isinstance(data, StoredAsset):
            if self.holds(rel, data.sha256):
                known[rel] = self._known[rel]
                return False
            sha, data = data.sha256, data.read()
        else:
            sha = sha256_hex(data) if not rel.endswith(".md") else None
        if path.is_dir():  # a folder where a generated file goes: the tree is the build's own
            shutil.rmtree(path)
        written = write_if_changed(path, data)
        if written and changed is not None:
            changed.add(rel)
        if sha is not None:
            st = path.stat()
            known[rel] = [st.st_size, st.st_mtime_ns, sha]
        return written

    def _save(self) -> None:
        if self.manifest is not None:
            write_atomic(self.manifest, cache_mac.seal(json.dumps(self._known, sort_keys=True).encode()), durable=False)


def _load(manifest: Path) -> dict[str, list]:
    """The manifest's entries, or none (missing, unreadable, or failing its MAC: then every
    file is compared by its bytes, as without one)."""
    try:
        sealed = cache_mac.unseal(manifest.read_bytes())
        known = json.loads(sealed) if sealed is not None else {}
    except (OSError, ValueError):
        return {}
    return known if isinstance(known, dict) else {}


def _own_tree(root: Path) -> None:
    """The generated-docs tree belongs to the build alone: a link planted in it (writes would go
    through a linked folder to wherever it points, and MkDocs would publish what it holds) or
    anything but a plain file or folder is removed, the link itself, never what it points to."""
    if root.is_symlink() or (root.exists() and not root.is_dir()):
        root.unlink()
    for folder, dirs, names in os.walk(root):  # links are listed, never followed
        for name in dirs + names:
            path = Path(folder) / name
            if path.is_symlink() or not (path.is_dir() or path.is_file()):
                path.unlink()
