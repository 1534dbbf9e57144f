"""A generated page: the value every page kind produces and the render cache keeps. Its own
module so that the cache does not stand on the page-kind interface (which stands on the
site context, which holds the cache)."""

from __future__ import annotations

import dataclasses
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Union

from benchledger.errors import BuildError, os_reason
from benchledger.records.digest import sha256_hex


def output_path(docs_rel: str) -> str:
    """Where MkDocs writes the docs file `docs_rel` (no directory URLs: a.md -> a.html): what a
    link to it, the feed and `verify --site` name."""
    return docs_rel[: -len(".md")] + ".html" if docs_rel.endswith(".md") else docs_rel


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
            raise BuildError(f"{self.path}: cannot read the cached asset ({os_reason(err)}); remove the cache folder "
                             "or build with --no-cache") from None
        if sha256_hex(data) != self.sha256:
            raise BuildError(f"{self.path}: the cached asset was altered (its bytes no longer hash to its name); "
                             "remove the cache folder or build with --no-cache")
        return data


@dataclass(frozen=True)
class PendingAsset:
    """An asset still being made while the pages go on rendering (a chart a vl-convert worker
    process is drawing, site_gen/charts.py): `result()` waits for its bytes. A failure of the
    making (ValueError) becomes the BuildError `failed` words for the page that shows it."""

    future: Future
    failed: Callable[[ValueError], BuildError]

    def result(self) -> bytes:
        try:
            return self.future.result()
        except ValueError as err:
            raise self.failed(err) from None


Asset = Union[bytes, StoredAsset]


def asset_sha256(asset: Asset) -> str:
    """The SHA-256 of an asset's bytes (a stored one's, unread)."""
    return asset.sha256 if isinstance(asset, StoredAsset) else sha256_hex(asset)


@dataclass(frozen=True)
class Page:
    """One generated Markdown page, relative to the generated docs directory."""

    path: str  # posix, e.g. "articles/llm-cpu-offload-2026-09-27.md"
    title: str
    markdown: str
    # extra files, path -> bytes (or a cached blob, or bytes still being made: see `finished`)
    assets: dict[str, Asset | PendingAsset] = field(default_factory=dict)

    @property
    def pending(self) -> bool:
        """Whether an asset is still being made."""
        return any(isinstance(asset, PendingAsset) for asset in self.assets.values())

    def finished(self) -> "Page":
        """The page with every asset made (waiting for those still being made)."""
        if not self.pending:
            return self
        return dataclasses.replace(self, assets={path: asset.result() if isinstance(asset, PendingAsset) else asset
                                                 for path, asset in self.assets.items()})
