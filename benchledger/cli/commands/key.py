"""`benchledger key generate NAME --out FILE`: a new Ed25519 signing key for checkpoints."""

from __future__ import annotations

from pathlib import Path

from benchledger.cli.arguments import path, text
from benchledger.atomic import fsync_dir, write_new
from benchledger.cli.locations import project_of, records_dir
from benchledger.errors import InputError, SealError, os_reason
from benchledger.folders import within
from benchledger.records.keys import SignerKey, key_name_problem

HELP = "make a new Ed25519 key pair for signing checkpoints; prints its verifier key"


def add_arguments(parser):
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    gen = sub.add_parser("generate", help="write a new private key (mode 0600) and print its verifier key",
                         description="write a new private key (mode 0600) and print its verifier key")
    gen.add_argument("name", type=text, metavar="NAME", help="the key's name, e.g. the log's origin like example.com/benchmarks (printable ASCII, no spaces or '+')")
    gen.add_argument("--out", required=True, type=path, metavar="FILE",
                     help="where to write the private key; never inside the records store or a site")
    gen.add_argument("--records", type=text, default=None, help="the records store the key must stay out of (default: the project's, ./records)")


def run(args) -> int:
    problem = key_name_problem(args.name)
    if problem:
        raise InputError("NAME", "", f"key name {args.name!r} {problem}")
    out: Path = args.out
    records = records_dir(args)
    if within(out, records):
        raise SealError(f"{out.as_posix()}: a private key never goes into the records store ({records.as_posix()}), which is "
                        "published with the site; write it somewhere else")
    site = project_of(args).site_dir.resolve()
    if within(out, site):
        raise SealError(f"{out.as_posix()}: a private key never goes into the site folder ({site.as_posix()}); write it somewhere else")
    key = SignerKey.generate(args.name)
    try:  # whole or not at all, never over an existing file, 0600 from the start
        write_new(out, (key.text + "\n").encode("ascii"), mode=0o600)
        fsync_dir(out.parent)
    except FileExistsError:
        raise SealError(f"{out.as_posix()} already exists; a key file is never overwritten") from None
    except OSError as err:
        raise SealError(f"cannot write {out.as_posix()}: {os_reason(err)}") from None
    print(key.verifier.text)
    return 0
