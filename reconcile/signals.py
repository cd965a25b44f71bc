"""SIGTERM and SIGHUP end a command the way Ctrl-C does (issue 19): its cleanup runs
(the report's partial folder, the spill folder), and it exits with its own status.

DuckDB interrupts a running query promptly on SIGINT only; a Python handler for
another signal runs once the query ends, which may be minutes. So the signals are
caught by Python's C-level handler, which writes each to a wakeup pipe at once; a
watcher thread reads the pipe and, on SIGTERM or SIGHUP, notes it and sends the
process SIGINT: the query is interrupted, the command unwinds as on Ctrl-C, and the
command line reports the signal that was noted.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from types import FrameType

CAUGHT = (signal.SIGTERM, signal.SIGHUP)


@dataclass
class Caught:
    """The terminating signal received, if any."""

    signum: int | None = None

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name if self.signum is not None else ""


def _ignore(signum: int, frame: FrameType | None) -> None:
    """Python's handler: nothing (the watcher acts); it only keeps the signal from
    killing the process outright."""


def _watch(reader: int, caught: Caught) -> None:
    while True:
        try:
            data = os.read(reader, 64)
        except OSError:
            return
        if not data:
            return
        for number in data:
            if number in CAUGHT and caught.signum is None:
                caught.signum = number
                os.kill(os.getpid(), signal.SIGINT)


@contextlib.contextmanager
def terminations() -> Iterator[Caught]:
    """Within: SIGTERM and SIGHUP interrupt the command as Ctrl-C does, and the one
    received is in the yielded :class:`Caught`. Outside the main thread (where no
    handler can be set) nothing changes."""
    caught = Caught()
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    reader, writer = os.pipe()
    os.set_blocking(writer, False)
    try:
        previous_fd = signal.set_wakeup_fd(writer, warn_on_full_buffer=False)
    except ValueError:
        os.close(reader)
        os.close(writer)
        yield caught
        return
    previous = {number: signal.signal(number, _ignore) for number in CAUGHT}
    # A job a shell starts in the background inherits SIGINT ignored: the watcher's
    # SIGINT must still interrupt (Ctrl-C at a terminal never reaches such a job).
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        previous[signal.SIGINT] = signal.signal(signal.SIGINT, signal.default_int_handler)
    watcher = threading.Thread(target=_watch, args=(reader, caught), daemon=True)
    watcher.start()
    try:
        yield caught
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        signal.set_wakeup_fd(previous_fd)
        os.close(writer)
        watcher.join(timeout=5)
        os.close(reader)


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Within: a SIGINT (Ctrl-C, or the one the watcher sends for SIGTERM and SIGHUP)
    waits until the block ends, then acts as it would have. For a step that must not
    be cut in half: a spill folder made and registered for removal is never left made
    but unregistered. Outside the main thread (where no handler can be set) nothing
    changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        pending.append(signum)

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if pending:
            if callable(previous):
                previous(signal.SIGINT, None)  # Python's own: KeyboardInterrupt
            elif previous == signal.SIG_DFL:
                os.kill(os.getpid(), signal.SIGINT)
