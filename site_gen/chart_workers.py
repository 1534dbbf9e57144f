"""Static SVGs drawn by vl-convert in worker processes, several at once, with the fonts it
bundles.

vl-convert runs every conversion of a process on one V8 worker, one at a time: threads of one
process asking for SVGs only queue behind each other. `ChartWorkers` starts up to one
`python -m site_gen.chart_workers` process per CPU (a new one only when every started one is
busy) and hands each request to an idle one; callers block, from as many threads as they like.

Fonts: vl-convert measures every label's text through fontdb, which knows the machine's fonts
as files and opens, maps and unmaps the file for each glyph it reads: 600 system calls for a
small chart, half of its time. A worker is started with a fontconfig file that names one empty
folder, so fontdb loads no system font and "sans-serif" is the Liberation Sans that vl-convert
holds in memory. Charts are then drawn about twice as fast, and with the same fonts, so the
same SVG bytes, on every machine (they depended on the fonts installed).

The wire format on a worker's stdin and stdout: a 4-byte big-endian length, then that many
bytes; a request is the Vega-Lite spec as JSON (or `BUNDLE`: vl-convert's Vega bundle), a reply
is b"+" and the SVG or the bundle (UTF-8), or b"-" and vl-convert's error message."""

from __future__ import annotations

import json
import os
import queue
import struct
import subprocess
import sys
import tempfile
import threading
import weakref
from pathlib import Path
from typing import Any, BinaryIO
from xml.sax.saxutils import escape as xml_escape

from benchledger.errors import BuildError

_LENGTH = struct.Struct(">I")
MAX_WORKERS = 8  # each holds a V8 heap (~100 MB)
FONT_SETUP = "vl-convert bundled Liberation Sans, no system fonts"  # part of an SVG's cache key
BUNDLE = b"bundle"  # the request for the Vega bundle (a spec is a JSON object: never this)


def _send(stream: BinaryIO, data: bytes) -> None:
    stream.write(_LENGTH.pack(len(data)) + data)
    stream.flush()


def _receive(stream: BinaryIO) -> bytes | None:
    """One framed message, or None at end of stream."""
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        return None
    (size,) = _LENGTH.unpack(head)
    data = stream.read(size)
    return data if len(data) == size else None


def cpu_count() -> int:
    """CPUs this process may run on (its affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def default_count() -> int:
    """How many workers a pool starts at most: one per CPU, up to MAX_WORKERS."""
    return min(MAX_WORKERS, cpu_count())


class ChartWorkers:
    """A pool of vl-convert processes, grown on demand up to `count`; `close()` ends them (so
    does the pool being garbage-collected, or this process ending: a worker stops at the end of
    its stdin)."""

    def __init__(self, count: int | None = None):
        self.count = max(1, count or default_count())
        self._idle: queue.Queue[subprocess.Popen] = queue.Queue()
        self._all: list[subprocess.Popen] = []
        self._lock = threading.Lock()
        self._fonts: tempfile.TemporaryDirectory | None = None
        self._finalizer = weakref.finalize(self, _end, self._all)

    def svg(self, spec: dict[str, Any]) -> str:
        """The static SVG vl-convert draws for `spec` (ValueError with its message when it fails)."""
        return self._ask(json.dumps(spec).encode())

    def vega_bundle(self) -> str:
        """vl-convert's self-contained Vega + Vega-Lite + vega-embed script. Made by a worker:
        1.4 s of CPU that holds this process's interpreter lock, and the V8 runtime it starts
        then lives in the worker, not here."""
        return self._ask(BUNDLE)

    def _ask(self, request: bytes) -> str:
        worker = self._take()
        try:
            _send(worker.stdin, request)
            reply = _receive(worker.stdout)
        except OSError:  # BrokenPipeError: the worker is gone
            reply = None
        if reply is None:  # it died (killed, out of memory): say so, and leave the pool usable
            code = worker.poll()
            self._drop(worker)
            raise BuildError(f"a chart worker process (vl-convert) ended with exit status {code} while drawing a chart: "
                             "was it killed, or out of memory? Run the build again")
        self._idle.put(worker)
        if reply[:1] == b"-":
            raise ValueError(reply[1:].decode("utf-8", "replace"))
        return reply[1:].decode("utf-8")

    def _take(self) -> subprocess.Popen:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            if len(self._all) < self.count:
                worker = self._spawn()
                self._all.append(worker)
                return worker
        return self._idle.get()

    def _spawn(self) -> subprocess.Popen:
        """A worker running this module (caller holds the lock), importing site_gen from where
        this process does (a checkout need not be installed), with the font setup above."""
        if self._fonts is None:
            self._fonts = tempfile.TemporaryDirectory(prefix="benchledger-fonts-")
            empty = Path(self._fonts.name, "none")
            empty.mkdir()
            Path(self._fonts.name, "fonts.conf").write_text(
                f'<?xml version="1.0"?>\n<fontconfig><dir>{xml_escape(str(empty))}</dir></fontconfig>\n', encoding="utf-8")
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p),
               "FONTCONFIG_FILE": os.path.join(self._fonts.name, "fonts.conf")}
        return subprocess.Popen([sys.executable, "-m", "site_gen.chart_workers"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, env=env)

    def _drop(self, dead: subprocess.Popen) -> None:
        dead.kill()
        dead.wait()
        _close(dead.stdin)
        dead.stdout.close()
        with self._lock:
            self._all.remove(dead)

    def close(self) -> None:
        """End the workers and wait for them; a later request starts new ones."""
        with self._lock:
            _end(self._all)
            self._idle = queue.Queue()
            if self._fonts is not None:
                self._fonts.cleanup()
                self._fonts = None


def _end(workers: list[subprocess.Popen]) -> None:
    """Close each worker's stdin (its loop ends there) and wait for it; empties the list."""
    for worker in workers:
        _close(worker.stdin)
    for worker in workers:
        try:
            worker.wait(timeout=10)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        worker.stdout.close()
    workers.clear()


def _close(stream: BinaryIO) -> None:
    try:
        stream.close()
    except OSError:  # BrokenPipeError flushing to a worker that is gone: it is closed all the same
        pass


def serve(requests: BinaryIO, replies: BinaryIO) -> None:
    """A worker's loop: answer each request read from `requests` until it ends."""
    import signal

    import vl_convert

    # Ctrl-C reaches the whole process group: the build stops and closes our stdin, which ends us
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while (request := _receive(requests)) is not None:
        try:
            made = vl_convert.javascript_bundle() if request == BUNDLE else vl_convert.vegalite_to_svg(json.loads(request))
            reply = b"+" + made.encode("utf-8")
        except ValueError as err:
            reply = b"-" + str(err).encode("utf-8", "replace")
        _send(replies, reply)


if __name__ == "__main__":
    serve(sys.stdin.buffer, sys.stdout.buffer)
