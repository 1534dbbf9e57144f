"""`benchledger merge OTHER_STORE`: seal here every record of another store this one lacks."""

from __future__ import annotations

from pathlib import Path

from benchledger.cli.arguments import path, text
from benchledger.cli.locations import records_dir
from benchledger.errors import InputError, MergeError
from benchledger.project import DEFAULT_RECORDS, PROJECT_FILE, load_project
from benchledger.records.ledger import LEDGER_NAME
from benchledger.records.merge import merge
from benchledger.records.store import Store

HELP = "append to this store every record of another store it does not hold yet (by sha256); both must verify"


def add_arguments(parser):
    parser.add_argument("other", type=path, help="the other records store (a folder with ledger.jsonl), or the project folder holding it")
    parser.add_argument("--records", type=text, default=None, help="the store merged into (default: the project's, ./records)")


def _other_store(path: Path) -> Store:
    """The store at `path`, or, when `path` is a project folder (its benchledger.toml, or a
    records/ with a ledger, and no ledger of its own), that project's store: merging the project
    folder itself read its site, articles and configuration as 164 unsealed files. InputError for
    a path that is no store (the message is about this argument, not about --records)."""
    if not path.is_dir():
        what = "is a file" if path.exists() else "does not exist"
        hint = f" (give the folder that holds it, {path.parent.as_posix()})" if path.name == LEDGER_NAME else ""
        raise InputError(path.as_posix(), "", f"{what}: name the other records store, or the project folder holding it{hint}")
    if not (path / LEDGER_NAME).exists():
        if (path / PROJECT_FILE).is_file():
            return Store(load_project(path).records_dir)
        if (path / DEFAULT_RECORDS / LEDGER_NAME).is_file():
            return Store(path / DEFAULT_RECORDS)
        # an empty folder verifies as an empty store: "0 merged" said nothing of the mistake
        raise InputError(path.as_posix(), "", f"holds no {LEDGER_NAME}, no {PROJECT_FILE} and no {DEFAULT_RECORDS}/{LEDGER_NAME}: "
                                              "not a records store or a project; name the other store")
    return Store(path)


def run(args) -> int:
    store = Store(records_dir(args))
    report = merge(store, _other_store(args.other))
    for entry in report.added:
        print(f"merged {store.shown(entry.path)}  sha256 {entry.sha256}")
    print(f"{len(report.added)} record(s) merged, {len(report.held)} already held, {len(report.conflicts)} in conflict; "
          f"{store.ledger_path.as_posix()} verifies, head {store.head_sha256()}")
    if report.conflicts:
        raise MergeError(report.conflicts, f"{len(report.conflicts)} record(s) not merged: their paths hold other bytes here (nothing was overwritten)")
    return 0
