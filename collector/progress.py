"""Live progress for long collections: one rewritten line on a terminal (case, phase, round,
elapsed, ETA), plain lines otherwise (one per case, phase and round, so logs stay readable)."""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO


def _clock_text(seconds: float) -> str:
    seconds = int(max(0.0, seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s"


class Progress:
    """Reports where a run is. ETA assumes the remaining cases take as long as the finished ones
    (by rounds inside the current case)."""

    def __init__(self, total_cases: int, stream: TextIO | None = None, tty: bool | None = None, clock=time.monotonic):
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.clock = clock
        self.total_cases = max(1, total_cases)
        self.started = clock()
        self.cases_done = 0
        self.case_id = "-"
        self.phase_name = "-"
        self.round_i = 0
        self.round_n = 0
        self._last_draw = 0.0
        self._lock = threading.Lock()
        self._ticker: threading.Thread | None = None
        self._done = threading.Event()

    def case(self, case_id: str) -> None:
        self.case_id, self.phase_name, self.round_i, self.round_n = case_id, "-", 0, 0
        self._emit(force=True)
        if self.tty and self._ticker is None:  # keep elapsed/ETA moving through long phases
            self._ticker = threading.Thread(target=self._tick, name="progress", daemon=True)
            self._ticker.start()

    def _tick(self) -> None:
        while not self._done.wait(1.0):
            self._emit(force=True)

    def phase(self, name: str) -> None:
        self.phase_name = name
        self._emit(force=True)

    def round(self, i: int, n: int) -> None:
        """Round i (1-based) of n rounds in the current case (all groups together)."""
        self.round_i, self.round_n = i, n
        self._emit(force=not self.tty)

    def case_done(self, status: str, case_id: str | None = None) -> None:
        """A case finished (`case_id`: when not the current one, as with cases run in parallel)."""
        self.cases_done += 1
        self.note(f"case {case_id or self.case_id}: {status}")

    def case_kept(self, case_id: str, status: str) -> None:
        """A case finished by an earlier, interrupted run of the same plan."""
        self.cases_done += 1
        self.note(f"case {case_id}: {status} (kept from an earlier run)")

    def note(self, message: str) -> None:
        """A line that stays (on a terminal, printed above the live line)."""
        with self._lock:
            if self.tty:
                self.stream.write("\r\x1b[K")
            self.stream.write(message + "\n")
            self.stream.flush()

    def line(self) -> str:
        elapsed = self.clock() - self.started
        frac = (self.cases_done + (self.round_i / self.round_n if self.round_n else 0.0)) / self.total_cases
        eta = f"{_clock_text(elapsed / frac * (1 - frac))}" if frac > 0 else "?"
        rounds = f" round {self.round_i}/{self.round_n}" if self.round_n else ""
        return (
            f"case {min(self.cases_done + 1, self.total_cases)}/{self.total_cases} {self.case_id} "
            f"phase {self.phase_name}{rounds} elapsed {_clock_text(elapsed)} eta {eta}"
        )

    def finish(self) -> None:
        """Stop the live line (clears it on a terminal)."""
        self._done.set()
        if self._ticker is not None:
            self._ticker.join()
            self._ticker = None
        if self.tty:
            with self._lock:
                self.stream.write("\r\x1b[K")
                self.stream.flush()

    def _emit(self, force: bool) -> None:
        with self._lock:
            now = self.clock()
            if self.tty:
                if force or now - self._last_draw >= 0.1:
                    self.stream.write("\r\x1b[K" + self.line())
                    self.stream.flush()
                    self._last_draw = now
            elif force:
                self.stream.write(self.line() + "\n")
                self.stream.flush()
