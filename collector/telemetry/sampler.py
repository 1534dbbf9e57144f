"""The periodic sampling thread shared by the host and GPU samplers: absolute deadlines on the
monotonic clock (no drift), samples kept in time order, and an immediate `sample_now()` for
phase boundaries.

A tick only *captures* (what must happen at that instant: reading the kernel's or the driver's
figures); turning captures into samples (`decode`) can wait and run for several together. A
sampler thread wakes to cold caches, so running the parsing code once for a batch instead of
once per wake-up is most of what a host sample costs the machine it measures."""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from typing import Any, Generic, TypeVar

S = TypeVar("S")


class PeriodicSampler(ABC, Generic[S]):
    """Calls `capture(t)` every 1/hz seconds in a daemon thread; `decode` turns each capture into
    a sample or None, at most `decode_batch` ticks later (and before any sample is handed out)."""

    thread_name = "sampler"
    decode_batch = 1  # captures held undecoded at most (1: decode at once)

    def __init__(self, hz: float, clock=time.monotonic):
        if not hz > 0:
            raise ValueError(f"sampling rate must be > 0 Hz, got {hz}")
        self.hz = hz
        self.clock = clock
        self._samples: list[S] = []
        self._pending: list[Any] = []  # captures not decoded yet, in time order
        self._lock = threading.Lock()
        # Held while the thread runs; stop() releases it. The thread waits for each tick by
        # trying to acquire it with a timeout: one C-level wait per tick, about half of what
        # Event.wait costs (its Python-level condition machinery runs on every wake-up).
        self._running: threading.Lock | None = None
        self._thread: threading.Thread | None = None

    @abstractmethod
    def capture(self, t: float, **options) -> Any:
        """Observe now (t: the monotonic time just before); runs under the sampler lock."""

    def decode(self, raw: Any) -> S | None:
        """The sample a capture makes, or None (default: the capture is the sample)."""
        return raw

    def sample_now(self, **options) -> S | None:
        """Take one sample immediately (from any thread) and keep it; options go to capture()."""
        with self._lock:
            self._decode_pending()
            sample = self.decode(self.capture(self.clock(), **options))
            if sample is not None:
                self._samples.append(sample)
            return sample

    def start(self) -> None:
        """Take a first sample now, then sample periodically until stop()."""
        if self._thread is not None:
            return
        self.sample_now()
        self._running = threading.Lock()
        self._running.acquire()
        self._thread = threading.Thread(target=self._loop, args=(self._running,), name=self.thread_name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread and take a last sample, so the final interval end is bracketed."""
        if self._thread is None:
            return
        self._running.release()
        self._thread.join()
        self._thread = self._running = None
        self.sample_now()

    def samples(self) -> list[S]:
        """A copy of the samples so far, in time order."""
        with self._lock:
            self._decode_pending()
            return list(self._samples)

    def _decode_pending(self) -> None:
        """Decode the held captures, in order (caller holds the lock)."""
        for raw in self._pending:
            sample = self.decode(raw)
            if sample is not None:
                self._samples.append(sample)
        self._pending.clear()

    def _loop(self, running: threading.Lock) -> None:
        period = 1.0 / self.hz
        next_t = self.clock() + period
        while not running.acquire(timeout=max(0.0, next_t - self.clock())):
            with self._lock:
                self._pending.append(self.capture(self.clock()))
                if len(self._pending) >= self.decode_batch:
                    self._decode_pending()
            next_t += period
            now = self.clock()
            if next_t < now:  # fell behind (a slow read): skip missed ticks instead of bursting
                next_t = now + period
