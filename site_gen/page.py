"""A generated page: the value every page kind produces and the render cache keeps. Its own
module so that the cache does not stand on the page-kind interface (which stands on the
site context, which holds the cache)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

from benchledger.errors import BuildError


@dataclass(frozen=True)
class StoredAsset:
    """An asset's bytes as a render-cache blob holds them, named by their SHA-256: read only if
    the generated docs tree does not hold them already (site_gen/docs_tree.py)."""

    sha256: str
    path: Path  # the blob

    def read(self) -> bytes:
        """The bytes, checked against their name; BuildError when the blob is gone or altered."""
        try:
            data = self.path.read_bytes()
        except OSError as err:
            raise BuildError(f"{self.path}: cannot read the cached asset ({err.strerror}); remove the cache folder "
                             "or build with --no-cache") from None
        if hashlib.sha256(data).hexdigest() != self.sha256:
            raise BuildError(f"{self.path}: the cached asset was altered (its bytes no longer hash to its name); "
                             "remove the cache folder or build with --no-cache")
        return data


Asset = Union[bytes, StoredAsset]


def asset_sha256(asset: Asset) -> str:
    """The SHA-256 of an asset's bytes (a stored one's, unread)."""
    return asset.sha256 if isinstance(asset, StoredAsset) else hashlib.sha256(asset).hexdigest()


@dataclass(frozen=True)
class Page:
    """One generated Markdown page, relative to the generated docs directory."""

    path: str  # posix, e.g. "articles/llm-cpu-offload-2026-09-27.md"
    title: str
    markdown: str
    assets: dict[str, Asset] = field(default_factory=dict)  # extra files, path -> bytes (or a cached blob)
