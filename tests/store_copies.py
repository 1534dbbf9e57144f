"""Helpers for store tests: a private copy of the shipped records, a digest of a whole tree
(to show that a refused operation changed nothing), and the leaves of a parsed record."""

import hashlib
import json
import shutil
from pathlib import Path

SHIPPED = Path(__file__).resolve().parents[1] / "records"


def shipped_copy(tmp_path: Path) -> Path:
    """A copy of records/ under tmp_path (tests never touch the real one)."""
    return Path(shutil.copytree(SHIPPED, tmp_path / "records"))


def tree_digest(root: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file (and 'dir' for every folder) under root."""
    return {p.relative_to(root).as_posix(): "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*"))}


GSH, TGR = "gsh-llm-core-article/1", "torch-graph-replay/1"
SHIPPED_PATHS = {GSH: "llm-cpu-offload/2026-09-27.json", TGR: "torch-graph-replay/2026-10-28.json"}


def seed(schema_id: str):
    """A fresh parsed copy of the shipped record of `schema_id` (tests may change it)."""
    return json.loads((SHIPPED / SHIPPED_PATHS[schema_id]).read_bytes())


def leaves(value, parts: tuple = ()):
    """(parts, value) of every number, string, boolean and null in a parsed JSON `value`, in
    document order (`parts`: the keys and indexes leading to it)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, parts + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from leaves(item, parts + (i,))
    else:
        yield parts, value
