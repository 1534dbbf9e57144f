"""`benchledger serve`: build the site, then serve it on 127.0.0.1 for a preview, building it
again whenever the records, the articles or the project's own files change."""

from __future__ import annotations

import functools
import http.server
import os
import sys
import threading
from pathlib import Path

from benchledger.cli.commands.build import add_site_arguments, build
from benchledger.cli.locations import project_of, records_dir
from benchledger.errors import BenchledgerError, os_reason

HELP = "build the site and preview it on http://127.0.0.1:PORT (loopback only), rebuilding it when its inputs change"

# How often the inputs are looked at: a writer saves, then switches to the browser.
POLL_S = 1.0


def add_arguments(parser):
    add_site_arguments(parser)
    parser.add_argument("--port", type=port, default=8000, help="port on 127.0.0.1 (default: 8000)")
    parser.add_argument("--no-watch", action="store_true",
                        help="build once; do not rebuild when the records, articles, templates or benchledger.toml change")


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


def watched_paths(args) -> list[Path]:
    """What a build reads besides the packaged code: the records store, the articles, the
    project's templates, pages and logo, and its benchledger.toml."""
    project = project_of(args)
    articles = getattr(args, "articles", None)
    paths = [records_dir(args), Path(articles) if articles else project.articles_dir]
    paths += [p for p in (project.templates_dir, project.config_file, project.theme.logo) if p is not None]
    paths += [page.source for page in project.pages]
    return paths


def snapshot(paths: list[Path]) -> dict[str, tuple[int, int]]:
    """(mtime in ns, size) of every file under `paths`; a path that is gone is left out, so its
    removal is a change too."""
    seen: dict[str, tuple[int, int]] = {}
    for path in paths:
        for folder, dirs, files in os.walk(path) if path.is_dir() else [(str(path.parent), [], [path.name])]:
            dirs.sort()
            for name in files:
                full = os.path.join(folder, name)
                try:
                    info = os.stat(full)
                except OSError:
                    continue
                seen[full] = (info.st_mtime_ns, info.st_size)
    return seen


def rebuild_on_change(args, stop: threading.Event, last: dict[str, tuple[int, int]]) -> None:
    """Build again each time the inputs change from `last` (as the served build found them) and
    then hold still for one poll (an editor or a `seal` may write in several steps). A failed
    build is reported, and the last good site stays served: a typo in an article must not end
    the preview."""
    while not stop.wait(POLL_S):
        now = snapshot(watched_paths(args))
        if now == last:
            continue
        while not stop.wait(POLL_S):  # settle
            settled = snapshot(watched_paths(args))
            if settled == now:
                break
            now = settled
        changed = sorted({path for path, _ in set(now.items()) ^ set(last.items())})
        last = now
        args._project = None  # benchledger.toml may have changed
        try:
            result = build(args)
        except BenchledgerError as err:  # the preview goes on; `main` handles every other command's errors
            for line in err.lines():
                print(f"benchledger serve: rebuild failed: {line}", file=sys.stderr, flush=True)
            print("benchledger serve: still serving the last good build; fix the input and save again", file=sys.stderr, flush=True)
            continue
        print(f"rebuilt {result.pages} pages after {len(changed)} changed file(s): {changed[0]}{' ...' if len(changed) > 1 else ''}", flush=True)


def run(args) -> int:
    # Loopback only: a preview is not a publication. Bound before building, so a port in use
    # is reported before anything is written into --out.
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), http.server.BaseHTTPRequestHandler)
    except OSError as err:
        raise BenchledgerError(f"cannot listen on 127.0.0.1:{args.port}: {os_reason(err)}; pick another --port") from None
    with server:
        # the inputs before the build reads them: an article saved while it runs, or before the
        # watcher first looks, is a change (a snapshot taken by the watcher itself took it in
        # unbuilt, and the preview never showed it)
        inputs = snapshot(watched_paths(args))
        result = build(args)
        for note in result.notes:
            print(f"note: {note}")
        print(f"built {result.pages} pages into {result.out_dir}")
        server.RequestHandlerClass = functools.partial(PreviewHandler, directory=str(result.out_dir))
        stop = threading.Event()
        if not args.no_watch:
            threading.Thread(target=rebuild_on_change, args=(args, stop, inputs), name="rebuild", daemon=True).start()
        watching = "" if args.no_watch else "; rebuilt when the records, articles or project files change"
        print(f"serving {result.out_dir} on http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops{watching})", flush=True)
        try:
            server.serve_forever()
        finally:
            stop.set()
    return 0
