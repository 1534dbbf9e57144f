"""`benchledger checkpoint --key FILE`: sign the ledger's Merkle tree and store the checkpoint."""

from __future__ import annotations

import os
from pathlib import Path

from benchledger.cli.arguments import path, text
from benchledger.cli.locations import records_dir
from benchledger.errors import InputError, SealError
from benchledger.folders import within
from benchledger.files import read_input
from benchledger.records.checkpoint import origin_problem
from benchledger.records.keys import SignerKey
from benchledger.records.store import Store
from benchledger.records.signing import append_checkpoint

HELP = "sign the ledger's current Merkle tree and append the checkpoint to records/checkpoints/"
KEY_VARIABLE = "BENCHLEDGER_SIGNING_KEY"


def add_arguments(parser):
    parser.add_argument("--key", type=path, metavar="FILE",
                        help=f"the private key file from `benchledger key generate` (default: ${KEY_VARIABLE})")
    parser.add_argument("--origin", type=text, help="the log's origin line (default: the last checkpoint's, or the key's name)")
    parser.add_argument("--records", type=text, default=None, help="the records store (default: the project's, ./records)")


def read_signer(path: Path | None) -> SignerKey:
    """The signer key from `path` or $BENCHLEDGER_SIGNING_KEY (a file name)."""
    path = path or (Path(os.environ[KEY_VARIABLE]) if os.environ.get(KEY_VARIABLE) else None)
    if path is None:
        raise InputError("--key", "", f"no signing key: pass --key FILE or set {KEY_VARIABLE} to the key file")
    raw = read_input(path, path.as_posix(), 64 * 1024, "a key file")
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError as err:
        raise InputError(path.as_posix(), "", f"not a key file from `benchledger key generate`: byte {err.start} is not ASCII") from None
    return SignerKey.parse(text, path.as_posix())


def run(args) -> int:
    problem = None if args.origin is None else origin_problem(args.origin)
    if problem:
        raise InputError("--origin", "", f"origin {args.origin!r} {problem}; pass the log's name, like example.com/benchmarks")
    store = Store(records_dir(args))
    key_file = args.key or (Path(os.environ[KEY_VARIABLE]) if os.environ.get(KEY_VARIABLE) else None)
    if key_file is not None and within(key_file, store.root):
        raise SealError(f"{key_file.as_posix()}: a private key must not live in the records store, which is published; "
                        "move it out (and make a new key if the store was ever published)")
    signer = read_signer(key_file)
    stored, written = append_checkpoint(store, signer, args.origin)
    cp = stored.checkpoint
    if not written:
        print(f"{stored.shown} already covers all {cp.size} ledger entries; nothing to sign")
        return 0
    print(f"signed {stored.shown}: tree size {cp.size}, root {cp.root.hex()}, origin {cp.origin}, key {signer.verifier.text}")
    return 0
