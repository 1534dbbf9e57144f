"""`benchledger serve`: build the site, then serve it on 127.0.0.1 for a preview."""

from __future__ import annotations

import functools
import http.server

from benchledger.cli.commands.build import add_site_arguments, build
from benchledger.errors import BenchledgerError

HELP = "build the site and preview it on http://127.0.0.1:PORT (loopback only)"


def add_arguments(parser):
    add_site_arguments(parser)
    parser.add_argument("--port", type=port, default=8000, help="port on 127.0.0.1 (default: 8000)")


def port(text: str) -> int:
    """A TCP port number (0 lets the system pick one); argparse reports anything else."""
    value = int(text)
    if not 0 <= value <= 65535:
        raise ValueError(text)
    return value


def run(args) -> int:
    result = build(args)
    for note in result.notes:
        print(f"note: {note}")
    print(f"built {result.pages} pages into {result.out_dir}")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(result.out_dir))
    # Loopback only: a preview is not a publication.
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    except OSError as err:
        raise BenchledgerError(f"cannot listen on 127.0.0.1:{args.port}: {err.strerror}; pick another --port") from None
    with server:
        print(f"serving {result.out_dir} on http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)")
        server.serve_forever()
    return 0
