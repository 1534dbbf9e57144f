"""MkDocs' dirty mode (`build(config, dirty=True)`), used only where it provably gives the bytes
a clean build would, else a clean build.

A dirty build skips every page whose source is older than its output and copies only newer
assets; it does not empty the site folder. Left alone that is unsafe in four ways, each closed
here: (1) a site folder changed since the last build (or made by another build) would be kept:
the state of the last successful build records every file of the site folder (size, mtime) and
the config, tool versions and generator code it was built with, and any difference means a
clean build; (2) MkDocs tells changed sources by mtime: the output of every source this build
wrote or removed is deleted first, so it is rebuilt (or stays gone) whatever the clocks say;
(3) files no page produces any more would stay: their outputs are among those deleted; (4)
strict checks skip what is not rendered: a page may be skipped only when its last build checked
links to its own anchors and no other page's (a generated page's links to other pages are all
inside raw HTML blocks, which MkDocs never checks; the state records each page's checked links),
no page may have gone, and the anchors of the skipped pages come from the state
(`restore_anchors`, from the hooks), so links into them are checked as in a clean build. A
page's HTML is a function of its source, the config, the fixed nav and the theme (all in the
state's identity), so any such unchanged page is skipped, not only the record articles: a
warm build at 1,000 articles rebuilt 60 unchanged pages (the home page, comparisons and series,
one of them 17 MB) for 2 s.

Measured at 100 synthetic articles (one more record sealed, the same generated docs): a clean
MkDocs step 2.18 s, a dirty one 0.37 s, every file byte-identical to the clean build's once the
outputs of removed sources are deleted (load average 3.7-3.9 on the shared 2-core machine)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from benchledger.atomic import write_atomic
from benchledger.files import stat_identity
from benchledger.records import cache_mac
from benchledger.records.digest import sha256_hex
from site_gen.checksums import SUMS_NAME, parse_sums
from site_gen.page import output_path

STATE_VERSION = 1
STATE_NAME = "mkdocs-state.json"  # in the build's cache folder
# The hooks (site_gen/mkdocs_hooks.py) read the skipped pages' anchors from, and write every
# page's anchors and checked links to, the files these variables name.
ENV_ANCHORS_IN = "BENCHLEDGER_ANCHORS_IN"
ENV_ANCHORS_OUT = "BENCHLEDGER_ANCHORS_OUT"
TOOLS = ("mkdocs", "mkdocs-material", "Markdown", "pymdown-extensions", "pagefind-bin")


@dataclass(frozen=True)
class Plan:
    """What this build's MkDocs step does: dirty (reusing the pages of `reused`) or clean, and why."""

    dirty: bool
    reason: str
    delete: tuple[str, ...] = ()  # site-relative outputs to delete before a dirty build
    anchors: dict[str, list[str]] | None = None  # skipped pages' anchors, for the hooks


def site_manifest(out_dir: Path) -> dict[str, list[int]]:
    """Every file of the site folder: relative path -> its `stat_identity`. The change time and
    inode too: an edit that kept a page's size and set its mtime back (`touch -r`) passed for the
    file the last build wrote, and a warm build kept it."""
    out = {}
    for folder, _, names in os.walk(out_dir):
        for name in names:
            path = Path(folder) / name
            st = path.lstat()
            out[path.relative_to(out_dir).as_posix()] = stat_identity(st)
    return out


def tools() -> dict[str, str]:
    found = {}
    for name in TOOLS:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = ""
    return found


def identity(out_dir: Path, config: bytes, code: str) -> dict:
    """What a dirty build must share with the build whose output it reuses."""
    return {"version": STATE_VERSION, "out_dir": out_dir.as_posix(), "config_sha256": sha256_hex(config),
            "tools": tools(), "code": code}


def load_state(path: Path) -> dict | None:
    """The state the last successful build left, or None (none, unreadable, or not sealed with
    this user's cache MAC: a forged state must not make a build keep files it did not make)."""
    try:
        sealed = cache_mac.unseal(path.read_bytes())
        state = json.loads(sealed) if sealed is not None else None
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) and state.get("version") == STATE_VERSION else None


def plan(state: dict | None, ident: dict, out_dir: Path, docs_pages: set[str], changed: set[str]) -> Plan:
    """Dirty when every condition of the module docstring holds; `docs_pages` are the docs-
    relative .md paths of this build, `changed` the docs-relative paths written or removed."""
    if state is None:
        return Plan(False, "no state of an earlier build")
    if {k: state.get(k) for k in ident} != ident:
        return Plan(False, "the config, tools or generator code changed")
    if site_manifest(out_dir) != state.get("manifest"):
        return Plan(False, "the site folder changed since the last build")
    before = set(state.get("anchors", {}))
    if before - docs_pages:
        return Plan(False, "a page is gone")
    links = state.get("links", {})
    # a page's links to its own anchors (the permalinks) hold as they did: same source, same
    # anchors; one that checked links to other pages is rebuilt, so they are checked again
    skipped = {p for p in docs_pages & before if p not in changed and not set(links.get(p, {})) - {p}}
    rebuilt = (docs_pages - skipped) | changed
    delete = tuple(sorted(output_path(p) for p in rebuilt))
    return Plan(True, f"{len(skipped)} unchanged pages reused", delete, {p: state["anchors"][p] for p in skipped})


def known_sums(state: dict | None, sums: bytes) -> dict[str, tuple[int, int, str]]:
    """(size, mtime_ns, sha256) of each file the last build listed in its SHA256SUMS, as its
    state's manifest saw it right after that list was written: for a dirty build, whose plan
    found the folder as that build left it, those files' hashes hold while their stat does."""
    manifest = (state or {}).get("manifest", {})
    listed, problems = parse_sums(sums, SUMS_NAME)
    if problems:
        return {}
    return {rel: (manifest[rel][0], manifest[rel][1], sha) for rel, sha in listed.items() if rel in manifest}


def prepare(plan: Plan, out_dir: Path, anchors_in: Path) -> None:
    """Delete the outputs the dirty build must remake (or that must go), and hand the hooks the
    reused pages' anchors."""
    for rel in plan.delete:
        path = out_dir / rel
        if path.is_file() or path.is_symlink():
            path.unlink()
    write_atomic(anchors_in, json.dumps(plan.anchors, sort_keys=True).encode(), durable=False)


def save_state(path: Path, ident: dict, out_dir: Path, anchors_out: Path, search: dict) -> None:
    """After a successful build: what the next one may reuse (`search`: what the search index
    keeps, `Indexed.state()` in site_gen/search_index.py)."""
    recorded = json.loads(anchors_out.read_bytes())
    state = {**ident, "manifest": site_manifest(out_dir), "anchors": recorded["anchors"], "links": recorded["links"],
             "search": search}
    write_atomic(path, cache_mac.seal(json.dumps(state, sort_keys=True).encode()), durable=False)


# -- inside MkDocs (called by the hooks) --------------------------------------------------------

def restore_anchors(files) -> None:
    """Give every page MkDocs skipped its anchors from the state (`on_env`, after every page is
    read and before links are checked), then record every page's anchors and checked links."""
    if os.environ.get(ENV_ANCHORS_IN):
        reused = json.loads(Path(os.environ[ENV_ANCHORS_IN]).read_bytes())
        for file in files.documentation_pages():
            page = file.page
            if page is not None and page.present_anchor_ids is None:
                if file.src_uri not in reused:
                    raise RuntimeError(f"{file.src_uri}: skipped by a dirty build but not planned to be")
                page.present_anchor_ids = set(reused[file.src_uri])
                page.links_to_anchors = {}
    if os.environ.get(ENV_ANCHORS_OUT):
        anchors, links = {}, {}
        for file in files.documentation_pages():
            page = file.page
            anchors[file.src_uri] = sorted(page.present_anchor_ids or ())
            links[file.src_uri] = {target.src_uri: sorted(found) for target, found in (page.links_to_anchors or {}).items()}
        write_atomic(Path(os.environ[ENV_ANCHORS_OUT]), json.dumps({"anchors": anchors, "links": links}, sort_keys=True).encode(),
                     durable=False)
