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


class PreviewHandler(http.server.SimpleHTTPRequestHandler):
    """The standard file handler, but a path it cannot even look up (`GET /%00`: an embedded NUL)
    is a 400, not a traceback on the console."""

    def send_head(self):
        try:
            return super().send_head()
        except ValueError:
            self.send_error(400, "bad path")
            return None


def run(args) -> int:
    # Loopback only: a preview is not a publication. Bound before building, so a port in use
    # is reported before anything is written into --out.
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), http.server.BaseHTTPRequestHandler)
    except OSError as err:
        raise BenchledgerError(f"cannot listen on 127.0.0.1:{args.port}: {err.strerror}; pick another --port") from None
    with server:
        result = build(args)
        for note in result.notes:
            print(f"note: {note}")
        print(f"built {result.pages} pages into {result.out_dir}")
        server.RequestHandlerClass = functools.partial(PreviewHandler, directory=str(result.out_dir))
        print(f"serving {result.out_dir} on http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)", flush=True)
        server.serve_forever()
    return 0
