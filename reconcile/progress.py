"""A one-line progress display on stderr, shown only when stderr is a terminal."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from reconcile.errors import UsageError


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


class Steps:
    """A named sequence of steps on one stderr line: ``[2/6] watermarks 12.3s``.

    The line is redrawn from a background thread while a step runs, so a long DuckDB
    query still shows time passing; quiet when stderr is not a terminal.
    """

    def __init__(self, names: list[str], stream: TextIO | None = None) -> None:
        self.names = names
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty()
        self.current = -1
        self.started = time.monotonic()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        if self.enabled:
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()

    def _draw(self) -> None:
        if self.current < 0:
            return
        name = self.names[self.current]
        elapsed = time.monotonic() - self.started
        text = f"\r[{self.current + 1}/{len(self.names)}] {name} {elapsed:6.1f}s"
        self.stream.write(text[:79].ljust(79))
        self.stream.flush()

    def _tick(self) -> None:
        while not self._stop.wait(0.2):
            with self._lock:
                self._draw()

    def step(self, name: str) -> None:
        with self._lock:
            self.current = self.names.index(name) if name in self.names else self.current
            if self.enabled:
                self._draw()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.enabled:
            self.stream.write("\r" + " " * 79 + "\r")
            self.stream.flush()


class StepClock:
    """Seconds spent in each named step, passing each step on to ``forward``."""

    def __init__(self, forward: Callable[[str], None] | None = None) -> None:
        self.forward = forward
        self.seconds: dict[str, float] = {}
        self._current: str | None = None
        self._started = time.perf_counter()

    @property
    def current(self) -> str | None:
        """The step under way (None before the first and after :meth:`stop`)."""
        return self._current

    def step(self, name: str) -> None:
        self.stop()
        self._current = name
        self._started = time.perf_counter()
        if self.forward is not None:
            self.forward(name)

    def stop(self) -> None:
        if self._current is not None:
            elapsed = time.perf_counter() - self._started
            self.seconds[self._current] = self.seconds.get(self._current, 0.0) + elapsed
            self._current = None


PROFILE_GENERATOR = "reconcile audit --profile"


def check_profile(path: Path) -> None:
    """Refuse a --profile FILE that exists and is not a profile this command wrote
    (it would be overwritten), or whose folder cannot be written: before any work."""
    if os.path.lexists(path):
        try:
            facts = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
        except (OSError, ValueError):
            facts = None
        if not (isinstance(facts, dict) and facts.get("generator") == PROFILE_GENERATOR):
            raise UsageError(
                f"--profile {path} exists and is not a profile written by reconcile: choose"
                " another file (an earlier profile there would be replaced)"
            )
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write --profile {path}: {folder} is not a writable folder")


def write_profile(path: Path, steps: dict[str, float], queries: list[tuple[str, float]]) -> None:
    """Where the time went, as JSON: seconds per step, and per named query (summed
    over its runs, slowest first). Written beside ``path`` and moved into place."""
    check_profile(path)
    total: dict[str, float] = {}
    runs: dict[str, int] = {}
    for name, seconds in queries:
        total[name] = total.get(name, 0.0) + seconds
        runs[name] = runs.get(name, 0) + 1
    ranked = sorted(total.items(), key=lambda item: -item[1])
    document = {
        "generator": PROFILE_GENERATOR,
        "steps": {name: round(seconds, 3) for name, seconds in steps.items()},
        "queries": [
            {"query": name, "seconds": round(seconds, 3), "runs": runs[name]}
            for name, seconds in ranked
        ],
    }
    staging = path.with_name(f".{path.name}.partial-{os.getpid()}")
    try:
        staging.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        staging.replace(path)
    finally:
        staging.unlink(missing_ok=True)
