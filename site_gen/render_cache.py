"""Per-record renderings kept on disk between builds, so a rebuild with nothing changed does no
rendering: same record bytes + same ledger entry + same options + same generator code (a
fingerprint of site_gen/, the records core, templates/ and the rendering libraries) = the same output, which is
what invariant 5 promises anyway. Values are JSON; larger byte strings (SVG assets) are kept
once each in a content-addressed blob folder."""

from __future__ import annotations

import dataclasses
import json
import re
import threading
from functools import cached_property
from importlib import metadata, resources
from pathlib import Path
from typing import Any, Callable, Protocol

from benchledger.atomic import write_atomic
from benchledger.records import cache_mac
from benchledger.records.digest import named_bytes_sha256, sha256_hex
from site_gen.eviction import sweep
from site_gen.page import Asset, Page, StoredAsset
from site_gen.resources import resource_files

PACKAGE_DIR = Path(__file__).resolve().parent
_VALUE_NAME = re.compile(r"[0-9a-f]{64}\.json")
_BLOB_NAME = re.compile(r"[0-9a-f]{64}")
_MISS = object()  # what `_lookup` gives for a value not cached (a cached one may be null)
# Libraries whose version changes rendered bytes.
LIBRARIES = ("altair", "vl-convert-python", "pandas", "jinja2")


def code_fingerprint(overrides: Path | None = None) -> str:
    """SHA-256 over the generator's sources, templates and library versions, and the files of
    a project's templates folder (`overrides`) when it has one."""
    # the records core decides what a record means (schemas, pointers): its code changes pages too
    records_dir = Path(str(resources.files("benchledger.records")))
    # the case tables decide what comparison pages and the explorer show
    cases_dir = Path(str(resources.files("benchledger.cases")))
    files = [(path.relative_to(root.parent).as_posix(), path.read_bytes())
             for root in (PACKAGE_DIR, records_dir, cases_dir)
             for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)]
    files += resource_files()  # templates, assets and default pages, wherever they are installed
    if overrides is not None:
        files += [("overrides/" + path.relative_to(overrides).as_posix(), path.read_bytes())
                  for path in sorted(p for p in overrides.rglob("*") if p.is_file())]
    return named_bytes_sha256(files + [(f"{name}={metadata.version(name)}", b"") for name in LIBRARIES])


class Rendered(Protocol):
    """What a rendering is keyed by (a `context.RecordView` is one): the record's ledger entry,
    the build's options and the published log's key and size (the audit block names them)."""

    @property
    def entry(self) -> Any: ...

    @property
    def options(self) -> Any: ...

    @property
    def log_key(self) -> str: ...  # the published log's verifier key ("" when none)

    @property
    def log_size(self) -> int: ...  # the latest checkpoint's tree size


class RenderCache:
    """`memo(view, name, make)`: the cached JSON value, or `make()` stored for next time.
    With no folder it only calls `make()`."""

    def __init__(self, cache_dir: Path | None, template_overrides: Path | None = None,
                 holds: Callable[[str, str], bool] | None = None):
        self.dir = cache_dir
        self.template_overrides = template_overrides
        # whether the generated docs tree holds an asset (docs path, sha256) already: then a
        # cached page hands it on unread (site_gen/docs_tree.py)
        self.holds = holds
        self.hits = 0
        self._lock = threading.Lock()
        # what this build read or wrote, by file name: the rest goes in sweep()
        self._used_values: set[str] = set()
        self._used_blobs: set[str] = set()
        self._unstored: list[tuple[str, Page]] = []  # (key, page) of pages whose assets were being made

    @cached_property
    def fingerprint(self) -> str:
        return code_fingerprint(self.template_overrides)

    def _key(self, ident: list, name: str) -> str:
        return sha256_hex(json.dumps([self.fingerprint, name, *ident], sort_keys=True).encode())

    @staticmethod
    def _view_ident(view: Rendered) -> list:
        return [dataclasses.asdict(view.entry), repr(view.options), view.log_key, view.log_size]

    def memo(self, view: Rendered, name: str, make: Callable[[], Any]) -> Any:
        """The value `make()` gives for one record's view, cached."""
        return self._memo(self._key(self._view_ident(view), name), make)

    def _memo(self, key: str, make: Callable[[], Any]) -> Any:
        value = self._lookup(key)
        if value is _MISS:
            value = make()
            self._store(key, value)
        return value

    def _lookup(self, key: str) -> Any:
        """The cached value of `key` (_MISS: a miss, or no folder)."""
        if self.dir is None:
            return _MISS
        path = self.dir / "values" / f"{key}.json"
        self._used_values.add(path.name)
        data = cache_mac.unseal(path.read_bytes()) if path.is_file() else None
        if data is None:  # an edited or foreign entry fails its MAC: a miss, rendered again
            return _MISS
        with self._lock:
            self.hits += 1
        return json.loads(data)

    def _store(self, key: str, value: Any) -> None:
        if self.dir is not None:
            write_atomic(self.dir / "values" / f"{key}.json", cache_mac.seal(json.dumps(value, sort_keys=True).encode()),
                         durable=False)

    def put_blob(self, data: Asset) -> str:
        """Keep `data` among the blobs (by its sha256, written once) and return its sha256."""
        if isinstance(data, StoredAsset):  # a blob already
            return data.sha256
        sha = sha256_hex(data)
        self._used_blobs.add(sha)
        if self.dir is not None and not (self.dir / "blobs" / sha).is_file():
            write_atomic(self.dir / "blobs" / sha, data, durable=False)
        return sha

    def get_blob(self, sha: str) -> bytes | None:
        """The blob named `sha`, or None when missing or when its bytes do not hash to its name."""
        path = self.dir / "blobs" / sha if self.dir is not None else None
        self._used_blobs.add(sha)
        if path is None or not path.is_file():
            return None
        data = path.read_bytes()
        return data if sha256_hex(data) == sha else None

    def _asset(self, path: str, sha: str) -> Asset | None:
        """A cached page's asset: unread when the docs tree holds it, else its checked bytes."""
        if self.holds is not None and self.dir is not None and self.holds(path, sha):
            self._used_blobs.add(sha)
            return StoredAsset(sha, self.dir / "blobs" / sha)
        return self.get_blob(sha)

    def sweep(self) -> int:
        """After a successful build: remove the values and blobs it did not use (see
        site_gen/eviction.py); returns how many."""
        if self.dir is None:
            return 0
        return (sweep(self.dir / "values", self._used_values, _VALUE_NAME)
                + sweep(self.dir / "blobs", self._used_blobs, _BLOB_NAME))

    def page(self, view: Rendered, name: str, make: Callable[[], Page]) -> Page:
        """A cached Page of one record's view (its assets in the blob folder); re-rendered if a
        blob went missing."""
        return self._page(self._key(self._view_ident(view), name), make)

    def page_inputs(self, inputs: list, name: str, make: Callable[[], Page]) -> Page:
        """A cached Page made from `inputs` (JSON: every ledger entry, path and option the page
        is made from; the generator's code is in the key already)."""
        return self._page(self._key(inputs, name), make)

    def _page(self, key: str, make: Callable[[], Page]) -> Page:
        value = self._lookup(key)
        if value is not _MISS:
            markdown = self.get_blob(value["markdown"])
            assets = {p: self._asset(p, sha) for p, sha in value["assets"].items()}
            if markdown is not None and all(b is not None for b in assets.values()):
                return Page(value["path"], value["title"], markdown.decode(), assets)
        page = make()
        if self.dir is not None:
            if page.pending:  # stored once its charts are drawn: store_finished()
                with self._lock:
                    self._unstored.append((key, page))
            else:
                self._store_page(key, page)
        return page

    def store_finished(self) -> None:
        """Store the pages rendered while their assets were still being made, in the order they
        were rendered, each once its assets are made (waiting for them): the pages are stored
        while the charts of later ones are still being drawn."""
        with self._lock:
            unstored, self._unstored = self._unstored, []
        for key, page in unstored:
            self._store_page(key, page.finished())

    def _store_page(self, key: str, page: Page) -> None:
        # The Markdown is a blob too, not a JSON string: an article's is a few hundred KB of
        # HTML, and decoding its escaped quotes was most of reading a warm build's pages.
        self._store(key, {"path": page.path, "title": page.title, "markdown": self.put_blob(page.markdown.encode()),
                          "assets": {p: self.put_blob(b) for p, b in sorted(page.assets.items())}})
