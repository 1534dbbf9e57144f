"""The transparency log as published: fixed paths under ledger/ that the browser check and
`verify --site` read, and a page that lists them.

- ledger/checkpoint: the latest signed checkpoint; ledger/checkpoints/<size>: every stored one;
- ledger/vkey: the verifier key line of the key that signed the latest;
- ledger/inclusion/<record sha256>.json: {"leaf_index", "tree_size", "line", "hashes"}, the
  record's ledger line proved into the latest checkpoint's tree;
- ledger/consistency/<m>-<n>.json: {"from_size", "to_size", "hashes"}, from every stored
  checkpoint to the latest."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Iterable

from markupsafe import Markup

from benchledger.records.tlog import consistency_document, inclusion_document, ledger_tree
from site_gen import escape
from site_gen.pages.base import Page, PageKind

if TYPE_CHECKING:
    from site_gen.context import SiteContext

LEDGER_DIR = "ledger"
CHECKPOINT = f"{LEDGER_DIR}/checkpoint"
VKEY = f"{LEDGER_DIR}/vkey"
PAGE = "transparency.md"


def checkpoint_path(size: int) -> str:
    """Where the site publishes the checkpoint of tree size `size`."""
    return f"{LEDGER_DIR}/checkpoints/{size}"


def inclusion_path(sha256: str) -> str:
    """Where the site publishes the inclusion proof of the record `sha256`."""
    return f"{LEDGER_DIR}/inclusion/{sha256}.json"


def consistency_path(old_size: int, new_size: int) -> str:
    """Where the site publishes the proof that tree `old_size` is a prefix of tree `new_size`."""
    return f"{LEDGER_DIR}/consistency/{old_size}-{new_size}.json"


def _json(doc: dict) -> bytes:
    return json.dumps(doc, separators=(",", ":")).encode("ascii") + b"\n"


def log_files(site: "SiteContext") -> dict[str, bytes]:
    """Every file under ledger/ (none when the store has no checkpoint)."""
    log = site.log
    if log is None:
        return {}
    latest = log.latest.checkpoint
    tree = ledger_tree(site.entries)
    files = {CHECKPOINT: log.latest.raw, VKEY: (log.key.text + "\n").encode("ascii")}
    files.update({checkpoint_path(cp.checkpoint.size): cp.raw for cp in log.checkpoints})
    files.update({inclusion_path(e.sha256): _json(inclusion_document(tree, site.entries, e.position, latest.size))
                  for e in site.entries[: latest.size]})
    files.update({consistency_path(cp.checkpoint.size, latest.size): _json(consistency_document(tree, cp.checkpoint.size, latest.size))
                  for cp in log.checkpoints[:-1]})
    return files


class TransparencyPage(PageKind):
    name = "transparency"

    def pages(self, site: "SiteContext") -> Iterable[Page]:
        log = site.log
        rows = []
        if log is not None:
            latest = log.latest.checkpoint.size
            rows = [{"size": cp.checkpoint.size, "path": checkpoint_path(cp.checkpoint.size), "root": cp.checkpoint.root.hex(),
                     "proof": consistency_path(cp.checkpoint.size, latest) if cp.checkpoint.size != latest else None}
                    for cp in log.checkpoints]
        # the note's blank line as a character reference: a blank line would end the raw HTML block
        note = Markup(escape.pre(log.latest.raw.decode("utf-8")).replace("\n\n", "\n&#10;")) if log else ""
        markdown = site.render("transparency.md.j2", log=log, rows=rows, page_path=PAGE, checkpoint_file=CHECKPOINT, note=note,
                               vkey_file=VKEY, entries=len(site.entries))
        yield Page(PAGE, "Transparency log", markdown, log_files(site))
