"""A one-line progress display on stderr, shown only when stderr is a terminal."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``Progress("simulating", total=1000)``, then ``advance()``; ``close()`` ends the line.

    Quiet when the stream is not a terminal (CI logs, pipes), and redrawn at most ten
    times a second.
    """

    def __init__(self, label: str, total: int, stream: TextIO | None = None) -> None:
        self.label = label
        self.total = max(total, 1)
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty()
        self.started = time.monotonic()
        self._drawn = 0.0

    def advance(self, count: int = 1, note: str = "") -> None:
        self.done += count
        now = time.monotonic()
        if self.enabled and (now - self._drawn > 0.1 or self.done >= self.total):
            self._drawn = now
            share = min(self.done / self.total, 1.0)
            bar = "#" * int(share * 24)
            elapsed = now - self.started
            self.stream.write(
                f"\r{self.label} [{bar:<24}] {share:6.1%} {elapsed:6.1f}s {note}"[:79].ljust(79)
            )
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * 79 + "\r")
            self.stream.flush()
