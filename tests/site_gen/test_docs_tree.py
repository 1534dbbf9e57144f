"""The generated docs tree (site_gen/docs_tree.py): written only where bytes changed, its
manifest naming what it holds by hash, a cached asset handed on unread when the tree holds it,
read and checked when it does not."""

from __future__ import annotations

import hashlib

import pytest

from benchledger.errors import BuildError
from site_gen.docs_tree import DocsTree
from site_gen.page import StoredAsset


def _blob(folder, data: bytes) -> StoredAsset:
    sha = hashlib.sha256(data).hexdigest()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / sha).write_bytes(data)
    return StoredAsset(sha, folder / sha)


def test_the_manifest_names_each_asset_by_hash_and_a_stat_keeps_it_honest(tmp_path):
    manifest = tmp_path / "manifest.json"
    svg = b"<svg>1</svg>"
    DocsTree(tmp_path / "tree", manifest).write({"docs/a.md": b"# A\n", "docs/charts/c.svg": svg})
    tree = DocsTree(tmp_path / "tree", manifest)  # the next build's
    sha = hashlib.sha256(svg).hexdigest()
    assert tree.holds("docs/charts/c.svg", sha)
    assert not tree.holds("docs/charts/c.svg", hashlib.sha256(b"other").hexdigest())
    assert not tree.holds("docs/a.md", hashlib.sha256(b"# A\n").hexdigest())  # Markdown is compared, not listed
    (tmp_path / "tree" / "docs" / "charts" / "c.svg").write_bytes(b"<svg>22</svg>")  # edited since
    assert not DocsTree(tmp_path / "tree", manifest).holds("docs/charts/c.svg", sha)


def test_a_forged_manifest_is_no_manifest(tmp_path):
    manifest = tmp_path / "manifest.json"
    svg = b"<svg>1</svg>"
    DocsTree(tmp_path / "tree", manifest).write({"docs/c.svg": svg})
    manifest.write_bytes(manifest.read_bytes().replace(b"docs/c.svg", b"docs/d.svg"))
    assert not DocsTree(tmp_path / "tree", manifest).holds("docs/c.svg", hashlib.sha256(svg).hexdigest())


def test_a_held_asset_is_not_read_and_one_not_held_is_read_and_checked(tmp_path):
    manifest, blobs = tmp_path / "manifest.json", tmp_path / "blobs"
    asset = _blob(blobs, b"<svg>chart</svg>")
    assert DocsTree(tmp_path / "tree", manifest).write({"docs/c.svg": asset}) == 1  # not held: read, written
    asset.path.unlink()
    assert DocsTree(tmp_path / "tree", manifest).write({"docs/c.svg": asset}) == 0  # held: its blob is not needed
    (tmp_path / "tree" / "docs" / "c.svg").unlink()
    with pytest.raises(BuildError, match="cannot read the cached asset"):
        DocsTree(tmp_path / "tree", manifest).write({"docs/c.svg": asset})
    altered = _blob(blobs, b"<svg>chart</svg>")
    altered.path.write_bytes(b"<svg>beacon</svg>")
    with pytest.raises(BuildError, match="altered"):
        DocsTree(tmp_path / "tree", manifest).write({"docs/c.svg": altered})
    assert not (tmp_path / "tree" / "docs" / "c.svg").exists()  # nothing unchecked was written


def test_a_tree_without_a_manifest_rewrites_only_changes_and_removes_stale_files(tmp_path):
    assert DocsTree(tmp_path).write({"a.md": b"1", "d/b.md": b"2"}) == 2
    assert DocsTree(tmp_path).write({"a.md": b"1", "d/b.md": b"2"}) == 0
    assert DocsTree(tmp_path).write({"a.md": b"3"}) == 1
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == ["a.md"]


def test_files_left_for_later_stay_as_they_are_until_added(tmp_path):
    manifest = tmp_path / "manifest.json"
    old, new = b"<svg>old</svg>", b"<svg>new</svg>"
    DocsTree(tmp_path / "tree", manifest).write({"docs/a.md": b"# A\n", "docs/c.svg": old, "docs/gone.svg": old})
    tree = DocsTree(tmp_path / "tree", manifest)
    changed: set[str] = set()
    # a chart still being drawn: its file keeps the last build's bytes meanwhile, others go
    assert tree.write({"docs/a.md": b"# A\n"}, changed, later=["docs/c.svg", "docs/d.svg"]) == 0
    assert (tmp_path / "tree/docs/c.svg").read_bytes() == old and changed == {"docs/gone.svg"}
    assert tree.holds("docs/c.svg", hashlib.sha256(old).hexdigest())
    assert tree.add({"docs/c.svg": new, "docs/d.svg": old}) == ["docs/c.svg", "docs/d.svg"]
    assert tree.add({"docs/c.svg": new}) == []  # the same bytes again: nothing written
    again = DocsTree(tmp_path / "tree", manifest)  # the manifest took the added files in
    assert again.holds("docs/c.svg", hashlib.sha256(new).hexdigest()) and again.holds("docs/d.svg", hashlib.sha256(old).hexdigest())
