"""Static SVGs drawn by vl-convert in worker processes, several at once, with the fonts it
bundles.

vl-convert runs every conversion of a process on one V8 worker, one at a time: threads of one
process asking for SVGs only queue behind each other. `ChartWorkers` starts up to one
`python -m site_gen.chart_workers` process per CPU (a new one only when every started one is
busy) and hands each request to the least busy one; a request is a future, asked for from any
thread.

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

import collections
import json
import os
import queue
import re
import struct
import subprocess
import sys
import tempfile
import threading
import weakref
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Iterator
from xml.sax.saxutils import escape as xml_escape

from benchledger.cpus import usable_cpus
from benchledger.errors import BuildError
from benchledger.records.pointer import to_pointer

_LENGTH = struct.Struct(">I")
MAX_WORKERS = 8  # each holds a V8 heap (~100 MB)
# A worker runs at a lower priority than the build: the build's own process renders the pages
# and runs MkDocs, work no one else can do, while a chart can be drawn at any time before the
# site is finished. At the same priority, two workers and the build on two CPUs each got two
# thirds of one, and a cold 1,000-article build's pages took 44 s instead of 30; the workers
# still get every CPU the build leaves idle.
WORKER_NICENESS = 10
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


def default_count() -> int:
    """How many workers a pool starts at most: one per CPU, up to MAX_WORKERS."""
    return min(MAX_WORKERS, usable_cpus())


class ChartWorkers:
    """A pool of vl-convert processes, grown on demand up to `count`; `close()` ends them (so
    does the pool being garbage-collected, or this process ending: a worker stops at the end of
    its stdin).

    Requests are pipelined: each worker has up to `IN_FLIGHT` requests written to its stdin, and
    one thread of this process reads its replies. A thread that wakes from a read must take this
    process's interpreter lock again, which the pages' rendering holds for up to 5 ms at a time;
    one request at a time left a worker idle for that wait after every chart (a cold build drew a
    third of its charts while the pages rendered), while with requests queued at the worker it
    goes straight on to the next chart."""

    IN_FLIGHT = 4  # requests at a worker at once: its stdout pipe holds about as many SVGs

    def __init__(self, count: int | None = None):
        self.count = max(1, count or default_count())
        self._queue: collections.deque[tuple[bytes, Future]] = collections.deque()  # not yet sent
        self._all: list[_Worker] = []
        self._lock = threading.Lock()
        self._fonts: tempfile.TemporaryDirectory | None = None
        self._finalizer = weakref.finalize(self, _end, self._all)

    def svg(self, spec: dict[str, Any]) -> str:
        """The static SVG vl-convert draws for `spec` (ValueError with its message when it fails)."""
        return self.submit(spec).result()

    def submit(self, spec: dict[str, Any]) -> Future:
        """A future of the SVG for `spec`, drawn by the next free worker (see `svg`)."""
        return self._submit(json.dumps(spec).encode())

    def vega_bundle(self) -> str:
        """vl-convert's self-contained Vega + Vega-Lite + vega-embed script."""
        return self.submit_bundle().result()

    def submit_bundle(self) -> Future:
        """A future of `vega_bundle()`. Made by a worker: 1.4 s of CPU that would hold this
        process's interpreter lock, and the V8 runtime it starts then lives in the worker."""
        return self._submit(BUNDLE)

    def _submit(self, request: bytes) -> Future:
        future: Future = Future()
        with self._lock:
            self._queue.append((request, future))
            # a worker more when each started one has a full pipeline
            if len(self._all) < self.count and all(len(w.sent) >= self.IN_FLIGHT for w in self._all):
                self._all.append(self._spawn())
            self._feed()
        return future

    def _feed(self) -> None:
        """Hand queued requests to workers with room in their pipeline, least loaded first
        (caller holds the lock). A worker's writer thread sends them in this order, the order of
        its `sent` futures; writing here could block on a full pipe while holding the lock that
        the worker's reader needs to empty the other one."""
        for worker in sorted(self._all, key=lambda w: len(w.sent)):
            while self._queue and len(worker.sent) < self.IN_FLIGHT:
                request, future = self._queue.popleft()
                worker.sent.append(future)
                worker.outbox.put(request)

    def _answered(self, worker: "_Worker") -> Future:
        """The future a reply of `worker` completes (its oldest request); the room it leaves in
        the pipeline is filled."""
        with self._lock:
            future = worker.sent.popleft()
            self._feed()
        return future

    def _ended(self, worker: "_Worker") -> list[Future]:
        """The futures a worker that ended leaves unanswered. One that died while the pool was
        in use is replaced when requests are waiting."""
        with self._lock:
            failed = list(worker.sent)
            worker.sent.clear()
            if worker in self._all:
                self._all.remove(worker)
                if self._queue:
                    self._all.append(self._spawn())
                    self._feed()
        return failed

    def _spawn(self) -> "_Worker":
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
        process = subprocess.Popen([sys.executable, "-m", "site_gen.chart_workers"], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, env=env)
        worker = _Worker(process)
        # the threads hold the pool weakly: a pool no one holds any more is still collected
        worker.threads = (threading.Thread(target=_read_replies, args=(weakref.ref(self), worker), name="chart-replies",
                                           daemon=True),
                          threading.Thread(target=_write_requests, args=(worker,), name="chart-requests", daemon=True))
        for thread in worker.threads:
            thread.start()
        return worker

    def close(self) -> None:
        """End the workers and wait for them; requests not answered fail. A later request starts
        new workers."""
        with self._lock:
            workers, self._all[:] = list(self._all), []
            queued, self._queue = list(self._queue), collections.deque()
        _end(workers)
        for _, future in queued:
            future.cancel()
        if self._fonts is not None:
            self._fonts.cleanup()
            self._fonts = None


@dataclass(eq=False)
class _Worker:
    """A worker process, the futures of the requests handed to it (oldest first), the requests
    its writer thread has still to send (None: close its stdin) and its two threads."""

    process: subprocess.Popen
    sent: collections.deque = field(default_factory=collections.deque)
    outbox: queue.SimpleQueue = field(default_factory=queue.SimpleQueue)
    threads: tuple[threading.Thread, ...] = ()


def _read_replies(pool_ref: "weakref.ref[ChartWorkers]", worker: _Worker) -> None:
    """A worker's reader thread: each reply completes the oldest request sent to it; at the
    end of its stdout (the worker ended) the requests still there fail."""
    while (reply := _receive(worker.process.stdout)) is not None:
        pool = pool_ref()
        future = pool._answered(worker) if pool is not None else worker.sent.popleft()
        del pool
        if reply[:1] == b"-":
            future.set_exception(ValueError(reply[1:].decode("utf-8", "replace")))
        else:
            future.set_result(reply[1:].decode("utf-8"))
    code = worker.process.wait()
    worker.outbox.put(None)  # its writer ends too
    pool = pool_ref()
    failed = pool._ended(worker) if pool is not None else list(worker.sent)
    del pool
    for future in failed:
        future.set_exception(BuildError(
            f"a chart worker process (vl-convert) ended with exit status {code} while drawing a chart: "
            "was it killed, or out of memory? Run the command again"))


def _write_requests(worker: _Worker) -> None:
    """A worker's writer thread: send each request handed to it, in order, until None; then
    close its stdin, which ends its loop."""
    stdin = worker.process.stdin
    while (request := worker.outbox.get()) is not None:
        try:
            _send(stdin, request)
        except OSError:  # BrokenPipeError: it is gone, and its reader fails what it was sent
            pass
    _close(stdin)


def _end(workers: list[_Worker]) -> None:
    """End each worker (its stdin closed after what it was sent) and wait for it and its
    threads; empties the list."""
    for worker in workers:
        worker.outbox.put(None)
    for worker in workers:
        try:
            worker.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            worker.process.kill()
            worker.process.wait()
        for thread in worker.threads:
            if thread is not threading.current_thread():
                thread.join()
        worker.process.stdout.close()
    workers.clear()


def _close(stream: BinaryIO) -> None:
    try:
        stream.close()
    except OSError:  # BrokenPipeError flushing to a worker that is gone: it is closed all the same
        pass


class ShapeCompiler:
    """Static SVGs drawn from Vega compiled once per chart *shape*: the spec with its datasets
    emptied and its axes' tick values (`axis.values`) left open.

    vl-convert compiles a chart's Vega-Lite to Vega before it draws it, a fifth to a quarter of
    drawing a line chart (18-27 ms here), and the charts of a site have few shapes (2,059 charts
    of 161 shapes at 1,000 articles: the same axes, titles and series, other numbers and ticks).
    Vega-Lite copies a named dataset's rows into the Vega data entry of that name, and an axis's
    tick values into its Vega axes, and reads nothing else of them, so a shape's Vega with a
    chart's rows and ticks put in is the chart's Vega. That is checked, not assumed: the first
    chart of a shape is compiled whole as well, and a shape whose Vega with that chart's rows and
    ticks put in is not exactly the chart's own Vega is drawn from Vega-Lite for every chart of
    it, as before."""

    MAX_SHAPES = 4096  # the oldest is forgotten past this (each holds a few KB of Vega)

    def __init__(self) -> None:
        self._shapes: collections.OrderedDict[str, _Template | None] = collections.OrderedDict()

    def svg(self, spec: dict[str, Any]) -> str:
        """The SVG vl_convert.vegalite_to_svg draws of `spec`. Raises ValueError as it does."""
        import vl_convert

        datasets = spec.get("datasets")
        if not isinstance(datasets, dict) or not datasets or not all(
                isinstance(rows, list) and all(isinstance(row, dict) for row in rows) for rows in datasets.values()):
            return vl_convert.vegalite_to_svg(spec)  # rows of bare values: Vega-Lite wraps them
        ticks: dict[str, list] = {}
        shape = {key: {name: [] for name in datasets} if key == "datasets" else _open_ticks(value, (key,), ticks)
                 for key, value in spec.items()}
        key = json.dumps(shape, sort_keys=True, ensure_ascii=False)
        if key in self._shapes:
            self._shapes.move_to_end(key)
            template = self._shapes[key]
        else:
            template = self._learn(key, spec, shape, datasets, ticks)
        if template is None:
            return vl_convert.vegalite_to_svg(spec)
        return vl_convert.vega_to_svg(template.filled(datasets, ticks))

    def _learn(self, key: str, spec: dict[str, Any], shape: dict[str, Any], datasets: dict[str, list],
               ticks: dict[str, list]) -> "_Template | None":
        """The shape's Vega if it gives this chart's own Vega with the rows and ticks put in,
        else None (an invalid spec is not remembered: its error is vegalite_to_svg's to raise)."""
        import vl_convert

        try:
            whole = vl_convert.vegalite_to_vega(spec)
        except ValueError:  # drawn from Vega-Lite, which raises vl-convert's own error for it
            return None
        try:
            vega = vl_convert.vegalite_to_vega(shape)
        except ValueError:  # valid only with rows: draw each chart from its own Vega-Lite
            template = None
        else:
            template = _Template(vega, list(_tick_holes(vega, ())))
            if template.filled(datasets, ticks) != whole:
                template = None
        self._shapes[key] = template
        if len(self._shapes) > self.MAX_SHAPES:
            self._shapes.popitem(last=False)
        return template


# An open axis's tick values in a shape: the axis's place in the spec, in a text no chart holds
_OPEN_TICKS = "\ue000benchledger: tick values of the axis at {}"
_OPEN_TICKS_RE = re.compile("\ue000benchledger: tick values of the axis at (.*)", re.S)


def _open_ticks(node: Any, path: tuple, ticks: dict[str, list]) -> Any:
    """`node` (at `path` in the spec) with each axis's tick values (a list of numbers or of
    texts) replaced by a placeholder naming the axis's place, which `ticks` maps to the values.
    Named by place (a JSON pointer), not counted: two specs of one shape may order their keys
    differently."""
    if isinstance(node, list):
        return [_open_ticks(item, (*path, i), ticks) for i, item in enumerate(node)]
    if not isinstance(node, dict):
        return node
    out = {key: _open_ticks(value, (*path, key), ticks) for key, value in node.items()}
    if path and path[-1] == "axis" and _plain_ticks(node.get("values")):
        ticks[place := to_pointer(path)] = node["values"]
        out["values"] = [_OPEN_TICKS.format(place)]
    return out


def _plain_ticks(values: Any) -> bool:
    """A non-empty list of numbers only, or of texts only: values Vega-Lite copies as they are
    (a date object it would turn into an expression)."""
    return isinstance(values, list) and bool(values) and (
        all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
        or all(isinstance(v, str) for v in values))


def _tick_holes(node: Any, path: tuple) -> Iterator[tuple[tuple, str]]:
    """(path in the Vega, axis pointer in the spec) of each placeholder list in a shape's Vega."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _tick_holes(value, (*path, key))
    elif isinstance(node, list):
        if len(node) == 1 and isinstance(node[0], str) and (found := _OPEN_TICKS_RE.fullmatch(node[0])):
            yield path, found.group(1)
            return
        for i, item in enumerate(node):
            yield from _tick_holes(item, (*path, i))


@dataclass(frozen=True)
class _Template:
    """A shape's Vega: its data entries empty, its open axes' tick values placeholders at `holes`."""

    vega: dict[str, Any]
    holes: list[tuple[tuple, str]]

    def filled(self, datasets: dict[str, list], ticks: dict[str, list]) -> dict[str, Any]:
        """The shape's Vega with each dataset's rows in the (empty) data entry of its name and
        each open axis's tick values in place (a copy: the template is shared)."""
        data = [{**entry, "values": datasets[entry["name"]]}
                if entry.get("name") in datasets and entry.get("values") == [] else entry
                for entry in self.vega.get("data", ())]
        vega = {**self.vega, "data": data}
        for path, axis in self.holes:
            vega = _replaced(vega, path, ticks.get(axis, []))
        return vega


def _replaced(node: Any, path: tuple, value: Any) -> Any:
    """`node` with the item at `path` replaced, copying only the containers along the way."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(node, dict):
        return {**node, head: _replaced(node[head], rest, value)}
    copy = list(node)
    copy[head] = _replaced(node[head], rest, value)
    return copy


def serve(requests: BinaryIO, replies: BinaryIO) -> None:
    """A worker's loop: answer each request read from `requests` until it ends."""
    import signal

    import vl_convert

    # Ctrl-C reaches the whole process group: the build stops and closes our stdin, which ends us
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.nice(WORKER_NICENESS)
    compiler = ShapeCompiler()
    while (request := _receive(requests)) is not None:
        try:
            made = vl_convert.javascript_bundle() if request == BUNDLE else compiler.svg(json.loads(request))
            reply = b"+" + made.encode("utf-8")
        except ValueError as err:
            reply = b"-" + str(err).encode("utf-8", "replace")
        _send(replies, reply)


if __name__ == "__main__":
    serve(sys.stdin.buffer, sys.stdout.buffer)
