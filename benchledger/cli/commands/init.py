"""`benchledger init DIR`: scaffold a new project (settings, empty store, example article,
example plans, .gitignore, a GitHub Pages workflow) in a new or empty folder."""

from __future__ import annotations

import shlex
from pathlib import Path

from benchledger.cli.arguments import path

HELP = ("make a new project in a new or empty folder: benchledger.toml, an empty store, an example article, example "
        "plans, a publishing workflow")


def add_arguments(parser):
    parser.add_argument("folder", type=path, help="the project folder to create (must be new or empty)")


def run(args) -> int:
    from benchledger.scaffold import create_project

    written = create_project(args.folder)
    print(f"made a benchledger project in {args.folder}:")
    for rel in written:
        print(f"  {rel}")
    enter = "" if Path(args.folder) == Path(".") else f"cd {shlex.quote(str(args.folder))} && "  # pasted into a shell
    print(f"next: {enter}benchledger build; then collect a first record (benchledger collect plans/graph-replay-cpu.toml, "
          "see plans/README.md) or seal one (benchledger seal FILE --schema ID), and cite it")
    return 0
