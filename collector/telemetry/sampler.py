"""The periodic sampling thread shared by the host and GPU samplers: absolute deadlines on the
monotonic clock (no drift), samples kept in time order, and an immediate `sample_now()` for
phase boundaries."""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from typing import Generic, TypeVar

S = TypeVar("S")


class PeriodicSampler(ABC, Generic[S]):
    """Calls `read(t)` every 1/hz seconds in a daemon thread; `read` returns a sample or None."""

    thread_name = "sampler"

    def __init__(self, hz: float, clock=time.monotonic):
        if not hz > 0:
            raise ValueError(f"sampling rate must be > 0 Hz, got {hz}")
        self.hz = hz
        self.clock = clock
        self._samples: list[S] = []
        self._lock = threading.Lock()
        # Held while the thread runs; stop() releases it. The thread waits for each tick by
        # trying to acquire it with a timeout: one C-level wait per tick, about half of what
        # Event.wait costs (its Python-level condition machinery runs on every wake-up).
        self._running: threading.Lock | None = None
        self._thread: threading.Thread | None = None

    @abstractmethod
    def read(self, t: float, **options) -> S | None:
        """One observation stamped t (the monotonic time just before reading)."""

    def sample_now(self, **options) -> S | None:
        """Take one sample immediately (from any thread) and keep it; options go to read()."""
        with self._lock:
            sample = self.read(self.clock(), **options)
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
            return list(self._samples)

    def _loop(self, running: threading.Lock) -> None:
        period = 1.0 / self.hz
        next_t = self.clock() + period
        while not running.acquire(timeout=max(0.0, next_t - self.clock())):
            self.sample_now()
            next_t += period
            now = self.clock()
            if next_t < now:  # fell behind (a slow read): skip missed ticks instead of bursting
                next_t = now + period
