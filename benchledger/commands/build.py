"""`benchledger build` (not implemented yet)."""

from benchledger.errors import BenchledgerError

HELP = "build (not implemented yet)"


def add_arguments(parser):
    parser.add_argument("--records", default="records", help="the records store (default: ./records)")


def run(args) -> int:
    raise BenchledgerError("'build' is not implemented yet")
