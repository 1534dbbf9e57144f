"""`benchledger seal` (not implemented yet)."""

from benchledger.errors import BenchledgerError

HELP = "seal (not implemented yet)"


def add_arguments(parser):
    parser.add_argument("--records", default="records", help="the records store (default: ./records)")


def run(args) -> int:
    raise BenchledgerError("'seal' is not implemented yet")
