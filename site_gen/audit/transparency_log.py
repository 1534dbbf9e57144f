"""`verify --site`'s transparency-log steps, called by site_gen.audit.verify_site: the
published checkpoint against the served ledger and the site's (and the auditor's) verifier keys,
every stored checkpoint, every record's inclusion proof, the published consistency proofs, and
consistency with a checkpoint the auditor kept from an earlier visit. Every message names its
step (format, signature, pinned, root, inclusion, consistency), as the browser check does."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from benchledger.errors import InputError, Problem
from benchledger.records import tlog
from benchledger.records.checkpoint import read_checkpoint
from benchledger.records.keys import VerifierKey
from benchledger.records.ledger import LedgerEntry, encode_entry
from benchledger.records.merkle import leaf_hash, verify_inclusion
from site_gen.audit.site import site_json
from site_gen.pages.transparency import CHECKPOINT, LEDGER_DIR, VKEY, checkpoint_path, consistency_path, inclusion_path

PINNED, INCLUSION = "pinned", "inclusion"
_CHECKPOINT_NAME = re.compile(r"[1-9][0-9]{0,19}")


def _read(site: Path, rel: str) -> bytes | None:
    path = site / rel
    return path.read_bytes() if path.is_file() else None


def _stored(site: Path, rel: str, raw: bytes) -> tlog.StoredCheckpoint:
    checkpoint, note = read_checkpoint(raw, rel)
    return tlog.StoredCheckpoint(rel, raw, checkpoint, note)


def coverage(site: Path, ledger_entries: int) -> int | None:
    """How many of the served ledger's `ledger_entries` the site's latest checkpoint signs
    (None when it publishes none that can be read: `check_site_log` says why)."""
    raw = _read(site, CHECKPOINT)
    try:
        return None if raw is None else min(read_checkpoint(raw, CHECKPOINT)[0].size, ledger_entries)
    except InputError:
        return None


def check_site_log(site: Path, entries: Sequence[LedgerEntry], ledger_shown: str, *,
                   pinned: Sequence[VerifierKey] = (), kept: tuple[str, bytes] | None = None) -> list[Problem]:
    """Every transparency-log problem of the site at `site`, whose served (already read) ledger
    holds `entries`. `pinned`: verifier keys the auditor trusts (--vkey); `kept`: (name, bytes)
    of a checkpoint the auditor kept (--checkpoint). Site files are named under `site`."""
    found = _check(site, entries, ledger_shown, pinned, kept)
    own = {kept[0]} if kept else set()
    return [p if p.file in own or p.file == ledger_shown else Problem((site / p.file).as_posix(), p.path, p.message, p.line)
            for p in found]


def _check(site: Path, entries: Sequence[LedgerEntry], ledger_shown: str, pinned: Sequence[VerifierKey],
           kept: tuple[str, bytes] | None) -> list[Problem]:
    raw_checkpoint, raw_vkey = _read(site, CHECKPOINT), _read(site, VKEY)
    if raw_checkpoint is None and raw_vkey is None and not (site / LEDGER_DIR).exists():
        if pinned or kept:
            return [Problem(CHECKPOINT, "", f"{tlog.FORMAT}: missing: the site publishes no signed checkpoint, so nothing it "
                                            "serves can be checked against your key or kept checkpoint")]
        return []
    problems: list[Problem] = []
    try:
        if raw_checkpoint is None:
            raise InputError(CHECKPOINT, "", f"{tlog.FORMAT}: missing: the site publishes {LEDGER_DIR}/ but no latest checkpoint")
        if raw_vkey is None:
            raise InputError(VKEY, "", f"{tlog.FORMAT}: missing: the site publishes no verifier key")
        latest = _stored(site, CHECKPOINT, raw_checkpoint)
        site_key = VerifierKey.parse(raw_vkey.decode("utf-8", errors="replace"), VKEY)
    except InputError as err:
        return [Problem(p.file, p.path, p.message if p.message.startswith(tlog.FORMAT) else f"{tlog.FORMAT}: {p.message}", p.line)
                for p in err.problems]
    tree = tlog.ledger_tree(entries)
    size = latest.checkpoint.size

    # The latest checkpoint: signed by the site's key and the pinned one(s), its root the served ledger's.
    problems += tlog.check_signature(latest, [site_key], f"the site's key {VKEY}")
    if pinned and not any(latest.note.signed_by(k) for k in pinned):
        problems.append(Problem(CHECKPOINT, "", f"{PINNED}: not signed by the key you pinned ({', '.join(k.text for k in pinned)}); "
                                                f"its signature lines name {', '.join(latest.note.key_names())}: the site's "
                                                "history was re-signed with another key"))
    problems += tlog.check_root(latest, tree, ledger_shown)

    # Every stored checkpoint: signed, its root the served ledger's, consistent with the latest.
    stored_dir = site / LEDGER_DIR / "checkpoints"
    names = sorted(p.name for p in stored_dir.iterdir()) if stored_dir.is_dir() else []
    if str(size) not in names:
        problems.append(Problem(checkpoint_path(size), "", f"{tlog.FORMAT}: missing: the latest checkpoint is not among the stored ones"))
    for name in names:
        rel = f"{LEDGER_DIR}/checkpoints/{name}"
        if not _CHECKPOINT_NAME.fullmatch(name):
            problems.append(Problem(rel, "", f"{tlog.FORMAT}: not a checkpoint (named by its tree size)"))
            continue
        try:
            cp = _stored(site, rel, (site / rel).read_bytes())
        except InputError as err:
            problems += err.problems
            continue
        if cp.checkpoint.size != int(name):
            problems.append(Problem(rel, "", f"{tlog.FORMAT}: signs tree size {cp.checkpoint.size} but is published as {name}"))
            continue
        problems += tlog.check_signature(cp, [site_key], f"the site's key {VKEY}")
        problems += tlog.check_root(cp, tree, ledger_shown)
        if cp.checkpoint.size == size:
            if cp.raw != latest.raw and cp.checkpoint != latest.checkpoint:
                problems.append(Problem(rel, "", f"{tlog.CONSISTENCY}: differs from {CHECKPOINT} at the same tree size: two histories"))
        elif cp.checkpoint.size < size:
            problems += _published_consistency(site, cp, latest)

    # Every record's inclusion proof into the latest checkpoint.
    for entry in entries[:size]:
        problems += _inclusion(site, entry, latest)

    # Consistency with the checkpoint the auditor kept from an earlier visit.
    if kept is not None:
        problems += _kept(kept, latest, tree, [site_key, *pinned], ledger_shown)
    return problems


def _published_consistency(site: Path, old: tlog.StoredCheckpoint, latest: tlog.StoredCheckpoint) -> list[Problem]:
    rel = consistency_path(old.checkpoint.size, latest.checkpoint.size)
    raw = _read(site, rel)
    if raw is None:
        return [Problem(rel, "", f"{tlog.CONSISTENCY}: missing: no proof that {old.shown} is a prefix of the latest checkpoint")]
    try:
        m, n, hashes = tlog.read_consistency(site_json(raw), rel)
    except (InputError, ValueError) as err:
        return err.problems if isinstance(err, InputError) else [Problem(rel, "", f"{tlog.FORMAT}: not JSON")]
    if (m, n) != (old.checkpoint.size, latest.checkpoint.size):
        return [Problem(rel, "", f"{tlog.FORMAT}: proves sizes {m} to {n}, its name says otherwise")]
    return tlog.check_consistency(old.checkpoint, latest.checkpoint, hashes, rel)


def _inclusion(site: Path, entry: LedgerEntry, latest: tlog.StoredCheckpoint) -> list[Problem]:
    rel = inclusion_path(entry.sha256)
    raw = _read(site, rel)
    if raw is None:
        return [Problem(rel, "", f"{INCLUSION}: missing: record {entry.sha256[:12]} has no inclusion proof")]
    try:
        index, size, line, hashes = tlog.read_inclusion(site_json(raw), rel)
    except InputError as err:
        return err.problems
    except ValueError:
        return [Problem(rel, "", f"{tlog.FORMAT}: not JSON")]
    if line != encode_entry(entry) or index != entry.position:
        return [Problem(rel, "", f"{INCLUSION}: its ledger line (entry {index}) is not the served ledger's line {entry.position + 1}")]
    if size != latest.checkpoint.size:
        return [Problem(rel, "", f"{INCLUSION}: proves into a tree of size {size}, the latest checkpoint signs {latest.checkpoint.size}")]
    if not verify_inclusion(index, size, leaf_hash(line), hashes, latest.checkpoint.root):
        return [Problem(rel, "", f"{INCLUSION}: the proof does not lead to the latest checkpoint's root: the line is not in the signed tree")]
    return []


def _kept(kept: tuple[str, bytes], latest: tlog.StoredCheckpoint, tree, keys: list[VerifierKey], ledger_shown: str) -> list[Problem]:
    shown, raw = kept
    try:
        old = _stored(Path("."), shown, raw)
    except InputError as err:
        return err.problems
    problems = []
    if not any(old.note.signed_by(k) for k in keys):
        problems.append(Problem(shown, "", f"{tlog.SIGNATURE}: the checkpoint you kept is not signed by the site's key or a pinned one "
                                           f"(signature lines name {', '.join(old.note.key_names())}): the site's key changed"))
    kept_size = old.checkpoint.size
    proof = tree.consistency_proof(kept_size, latest.checkpoint.size) if kept_size <= latest.checkpoint.size <= tree.size else []
    found = tlog.check_consistency(old.checkpoint, latest.checkpoint, proof, CHECKPOINT)
    if found:
        problems += [Problem(p.file, p.path, f"{p.message} (the checkpoint you kept: {shown})") for p in found]
    elif kept_size <= tree.size and tree.root(kept_size) != old.checkpoint.root:
        problems.append(Problem(shown, "", f"{tlog.CONSISTENCY}: the served ledger's first {kept_size} entries do not hash to the root "
                                           "you kept: history was rewritten"))
    return problems
