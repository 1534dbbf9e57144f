"""The `benchledger` command: one module per verb under `benchledger.cli.commands`, listed in
COMMANDS. This is the one place that turns a BenchledgerError into a message and an exit code."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from benchledger import __version__
from benchledger.cli.locations import add_project_argument
from benchledger.errors import BenchledgerError
from benchledger.records.display import readable

# verb -> module; each module has `HELP`, `add_arguments(parser)` and `run(args) -> int`.
COMMANDS = {
    "init": "benchledger.cli.commands.init",
    "seal": "benchledger.cli.commands.seal",
    "verify": "benchledger.cli.commands.verify",
    "show": "benchledger.cli.commands.show",
    "build": "benchledger.cli.commands.build",
    "serve": "benchledger.cli.commands.serve",
    "collect": "benchledger.cli.commands.collect",
    "check": "benchledger.cli.commands.check",
    "compare": "benchledger.cli.commands.compare",
    "repair": "benchledger.cli.commands.repair",
    "import": "benchledger.cli.commands.import_",
    "merge": "benchledger.cli.commands.merge",
    "key": "benchledger.cli.commands.key",
    "checkpoint": "benchledger.cli.commands.checkpoint",
    "prove": "benchledger.cli.commands.prove",
}


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="benchledger",
        description="Seal benchmark records, verify them, and publish them as auditable articles.",
    )
    parser.add_argument("--version", action="version", version=f"benchledger {__version__}")
    add_project_argument(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for verb, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)
        p = sub.add_parser(verb, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        add_project_argument(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    try:
        code = int(args._run(args) or 0)
        sys.stdout.flush()  # so that a closed pipe is reported here, not at interpreter exit
        return code
    except BenchledgerError as err:
        for line in err.lines():  # one line each, whatever a file name or a record's text holds
            print(f"benchledger {args.command}: error: {readable(line)}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print(f"benchledger {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader of our output went away (`benchledger show X | head`): stop quietly, and keep
        # Python from reporting the same broken pipe again when it flushes stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
