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
from contextlib import AbstractContextManager, nullcontext
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
        # The running thread's stop flag, set (under the lock) by stop(). The thread sleeps to
        # each tick's deadline and, holding the lock, checks the flag before it captures: a
        # plain sleep is the cheapest wait Python has (time.sleep, 0.111 % of a core at 10 Hz
        # here, where a lock acquired with a timeout cost 0.13 % and Event.wait twice that),
        # and stop() need not wake the thread: once the flag is set it captures nothing more
        # and ends at its next deadline.
        self._stopping: list[bool] | None = None
        self._thread: threading.Thread | None = None

    @abstractmethod
    def capture(self, t: float, **options) -> Any:
        """Observe now (t: the monotonic time just before); runs under the sampler lock."""

    def decode(self, raw: Any) -> S | None:
        """The sample a capture makes, or None (default: the capture is the sample)."""
        return raw

    def _held(self) -> AbstractContextManager:
        """Entered under the lock wherever samples are handed out or taken now: captures made
        elsewhere than in `_loop` are added to the held ones there, and none is made meanwhile
        (HostSampler's compiled ticks); nothing by default."""
        return nullcontext()

    def sample_now(self, **options) -> S | None:
        """Take one sample immediately (from any thread) and keep it; options go to capture()."""
        with self._lock, self._held():
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
        self._stopping = [False]
        self._thread = threading.Thread(target=self._loop, args=(self._stopping,), name=self.thread_name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop sampling and take a last sample, so the final interval end is bracketed (no
        periodic capture follows it; the thread itself ends at its next deadline)."""
        if self._thread is None:
            return
        with self._lock:
            self._stopping[0] = True
        self._thread = self._stopping = None
        self.sample_now()

    def samples(self) -> list[S]:
        """A copy of the samples so far, in time order."""
        with self._lock, self._held():
            self._decode_pending()
            return list(self._samples)

    def _decode_pending(self) -> None:
        """Decode the held captures, in order (caller holds the lock)."""
        for raw in self._pending:
            sample = self.decode(raw)
            if sample is not None:
                self._samples.append(sample)
        self._pending.clear()

    def _loop(self, stopping: list[bool]) -> None:
        period = 1.0 / self.hz
        # locals: each wake-up finds the interpreter's caches cold, and a global or attribute
        # lookup is a miss more
        clock, sleep, lock, pending, capture, batch = self.clock, time.sleep, self._lock, self._pending, self.capture, self.decode_batch
        next_t = clock() + period
        while True:
            delay = next_t - clock()
            if delay > 0:
                sleep(delay)
            with lock:
                if stopping[0]:
                    return
                pending.append(capture(clock()))
                if len(pending) >= batch:
                    self._decode_pending()
            next_t += period
            now = clock()
            if next_t < now:  # fell behind (a slow read): skip missed ticks instead of bursting
                next_t = now + period
