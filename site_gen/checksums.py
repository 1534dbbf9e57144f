"""SHA256SUMS files, in the format `sha256sum` writes and `sha256sum -c` checks: one line per
file, `<64 hex>  <path>`, paths relative to the folder the list is in, in byte order of the
path. Two lists are built with it: `records/SHA256SUMS` (the served records) and the site-wide
`SHA256SUMS` at the site's root, which `build` writes after MkDocs and the search indexer have
written everything and which lists every file of the site but itself and the build marker.
`verify --site` checks the site against it: a file missing or altered, and a file present but
not listed (an injected page or script), are each a problem.

A path holding a backslash or a newline is written as GNU coreutils does (the line starts with
a backslash, `\\` and `\\n` escaped), so `sha256sum -c` still reads it."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Iterable

from benchledger.errors import Problem
from benchledger.records.digest import distinct_prefixes, is_sha256, sha256_hex
from site_gen.site_folder import MARKER

SUMS_NAME = "SHA256SUMS"
# Files in a site folder that its list does not cover: the list itself and the marker `build`
# keeps there (hidden bookkeeping, not served: a mirrored copy does not have it).
UNLISTED = frozenset({SUMS_NAME, MARKER})


def format_sums(pairs: Iterable[tuple[str, str]]) -> bytes:
    """`sha256sum -c`-compatible lines for (sha256, path) pairs, in the order given."""
    lines = []
    for sha, path in pairs:
        if "\\" in path or "\n" in path:
            lines.append("\\" + sha + "  " + path.replace("\\", "\\\\").replace("\n", "\\n") + "\n")
        else:
            lines.append(f"{sha}  {path}\n")
    return "".join(lines).encode()


_LOOSE_LINE = re.compile(r"([0-9a-fA-F]{64})[ \t]+\*?(\S.*)")


def parse_sums(data: bytes, shown: str) -> tuple[dict[str, str], list[Problem]]:
    """The (path -> sha256) a SHA256SUMS file lists, and a problem per line it cannot read
    (named by line number) or path it lists twice."""
    listed: dict[str, str] = {}
    problems: list[Problem] = []
    text = data.decode("utf-8", errors="replace")
    for number, line in enumerate(text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"), start=1):
        escaped = line.startswith("\\")
        body = line[1:] if escaped else line
        sha, sep, path = body.partition("  ")
        if not sep or not is_sha256(sha) or not path:
            problems.append(Problem(shown, "", f"line {number} is not a sha256, two spaces and a path (as sha256sum writes it)", number))
            # a line still read as hash and path (one space, a tab, upper-case hex) is checked
            # as well: its file is then not also reported as missing from the list
            loose = _LOOSE_LINE.fullmatch(body)
            if loose is None:
                continue
            sha, path = loose.group(1).lower(), loose.group(2)
        if escaped:
            path = path.replace("\\\\", "\0").replace("\\n", "\n").replace("\0", "\\")
        if path in listed:
            problems.append(Problem(shown, "", f"line {number} lists {path} a second time", number))
            continue
        listed[path] = sha
    if text and not text.endswith("\n"):
        problems.append(Problem(shown, "", "does not end with a newline: truncated?"))
    return listed, problems


def site_files(root: Path) -> list[str]:
    """Every file (or link, or other non-folder entry) under `root`, as a root-relative POSIX
    path, in byte order, but for `UNLISTED` at the root. Links are not followed."""
    found = []
    for folder, dirs, names in os.walk(root, followlinks=False):
        rel = Path(folder).relative_to(root)
        # a link to a folder is listed as an entry (and so reported), never walked into
        for name in dirs + names:
            path = Path(folder) / name
            if name in dirs and not path.is_symlink():
                continue
            entry = (rel / name).as_posix()
            if entry not in UNLISTED:
                found.append(entry)
    return sorted(found, key=lambda p: p.encode())


Known = dict[str, tuple[int, int, str]]  # path -> (size, mtime_ns, sha256) of a file hashed before


def site_hashes(root: Path, known: Known | None = None, suffix: str = "") -> Known:
    """(size, mtime_ns, sha256) of every plain file of the folder `root` as it is now (whose
    name ends with `suffix`), in the list's order (a build makes no links). A file whose size
    and mtime are those in `known` keeps the hash given there, unread: a rebuild rewrites a few
    pages of hundreds of MB of site."""
    known = known or {}
    out: Known = {}
    for rel in site_files(root):
        if not rel.endswith(suffix):
            continue
        path = root / rel
        st = path.lstat()
        if not stat.S_ISREG(st.st_mode):
            continue
        before = known.get(rel)
        same = before is not None and before[:2] == (st.st_size, st.st_mtime_ns)
        out[rel] = (st.st_size, st.st_mtime_ns, before[2] if same else sha256_hex(path.read_bytes()))
    return out


def sums_of(hashes: Known) -> bytes:
    """The SHA256SUMS text of `site_hashes`' answer."""
    return format_sums((sha, rel) for rel, (_, _, sha) in hashes.items())


def site_sums(root: Path, known: Known | None = None) -> bytes:
    """The site-wide SHA256SUMS of the folder `root` as it is now (see `site_hashes`)."""
    return sums_of(site_hashes(root, known))


def check_site_files(root: Path, checked_elsewhere: frozenset[str] = frozenset()) -> list[Problem]:
    """Every problem between the folder `root` and its SHA256SUMS, all at once: the list
    missing or unreadable, a listed file missing or altered, a file present but not listed.
    A missing or altered file in `checked_elsewhere` is left to the check that owns it (the
    served records, against the ledger), so each such fault is one problem, not two."""
    sums_file = root / SUMS_NAME
    shown = sums_file.as_posix()
    if not sums_file.is_file():
        return [Problem(shown, "", "missing: a benchledger site lists every file it serves here, with its sha256 "
                                   "(a site built before that list existed: rebuild it)")]
    listed, problems = parse_sums(sums_file.read_bytes(), shown)
    present = set(site_files(root))
    for rel, sha in sorted(listed.items(), key=lambda item: item[0].encode()):
        path = root / rel
        if rel in checked_elsewhere:
            continue
        if rel not in present:
            problems.append(Problem(path.as_posix(), "", f"missing: {SUMS_NAME} lists it with sha256 {sha[:12]}"))
        elif path.is_symlink() or not path.is_file():
            problems.append(Problem(path.as_posix(), "", f"not a plain file: {SUMS_NAME} lists a file with sha256 {sha[:12]} here"))
        else:
            actual = sha256_hex(path.read_bytes())
            if actual != sha:
                now, listed_as = distinct_prefixes(actual, sha)
                problems.append(Problem(path.as_posix(), "", f"altered: its sha256 is {now} but {SUMS_NAME} lists {listed_as} "
                                                             "(or that line of the list was changed)"))
    for rel in sorted(present - listed.keys(), key=str.encode):
        problems.append(Problem((root / rel).as_posix(), "", f"not in {SUMS_NAME}: the build did not make this file (added or injected later), or its line was removed from the list"))
    return problems
