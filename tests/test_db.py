"""The engine's DuckDB settings: the default memory limit follows the machine; the
spill folder goes with the engine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reconcile import config as db_config
from reconcile.config import EngineConfig
from reconcile.db import Engine

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize(
    ("available", "expected"),
    [(4 * 1000**3, "1600MB"), (64 * 1000**3, "3000MB"), (None, "3000MB"), (100 * 1000**2, "256MB")],
)
def test_default_memory_limit_is_a_share_of_memory_capped(
    monkeypatch: pytest.MonkeyPatch, available: int | None, expected: str
) -> None:
    monkeypatch.setattr(db_config, "available_memory", lambda: available)
    assert db_config.default_memory_limit() == expected


def test_engine_applies_the_default_or_the_given_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db_config, "available_memory", lambda: 4 * 1000**3)
    with Engine(EngineConfig()) as engine:
        (setting,) = engine.con.execute("SELECT current_setting('memory_limit')").fetchone() or ()
        assert setting == "1.4 GiB"  # 1600 MB, as DuckDB prints it
    with Engine(EngineConfig(memory_limit="2GB")) as engine:
        (setting,) = engine.con.execute("SELECT current_setting('memory_limit')").fetchone() or ()
        assert setting == "1.8 GiB"


def test_an_engine_never_closed_removes_its_spill_folder_at_exit(tmp_path: Path) -> None:
    """A log set left open (as a notebook leaves it for the session) does not leave
    its spill folder behind when Python exits."""
    script = (
        "import reconcile\n"
        f"logset = reconcile.open_logset({str(DATA / 'clean')!r})\n"
        "print(sum(1 for p in __import__('pathlib').Path("
        f"{str(tmp_path)!r}).glob('reconcile-spill-*')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        check=True,
    )
    assert result.stdout.strip() == "1"  # there while the log set was open
    assert not list(tmp_path.glob("reconcile-spill-*"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [("150MB", 150 * 1000**2), ("4 GiB", 4 * 1024**3), ("1.5GB", 1_500_000_000), ("x", None)],
)
def test_sizes_read_as_duckdb_reads_them(text: str, expected: int | None) -> None:
    assert db_config.size_bytes(text) == expected


def test_an_engine_runs_no_more_threads_than_its_memory_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    assert db_config.threads_for(EngineConfig(memory_limit="150MB")) == 1
    assert db_config.threads_for(EngineConfig(memory_limit="300MB", threads=2)) == 2
    assert db_config.threads_for(EngineConfig(memory_limit="300MB")) == 3
    assert db_config.threads_for(EngineConfig(memory_limit="50GB")) == 8
    with Engine(EngineConfig(memory_limit="150MB", threads=2)) as engine:
        rows = engine.con.execute("SELECT current_setting('threads')").fetchall()
        assert rows == [(1,)] and engine.threads == 1


@pytest.mark.slow
def test_a_million_receipts_audit_in_150mb(tmp_path: Path) -> None:
    """The limit at which two threads ran out of memory without spilling (issue 19):
    the engine spills on the one thread the limit holds, and the audit completes."""
    logs = tmp_path / "m1"
    command = [sys.executable, "-m", "reconcile"]
    subprocess.run(
        [*command, "simulate", str(logs), "--partitions", "1000", "--events", "1000000"],
        check=True,
        capture_output=True,
    )
    done = subprocess.run(
        [*command, "audit", str(logs), "--out", str(tmp_path / "r"), "--memory-limit", "150MB"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    assert done.returncode in (0, 1), done.stderr
    assert (tmp_path / "r" / "summary.json").exists()


def test_an_interrupt_while_the_spill_folder_is_made_never_leaves_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Ctrl-C (or the SIGINT that SIGTERM and SIGHUP become) arriving right after
    the folder is made, before its removal is registered, waits for the registration:
    the interrupt still ends the run, and the folder goes with it."""
    import fcntl  # noqa: PLC0415
    import gc  # noqa: PLC0415
    import signal  # noqa: PLC0415
    import types  # noqa: PLC0415

    from reconcile import db  # noqa: PLC0415

    def flock_then_interrupt(handle: object, operation: int) -> None:
        fcntl.flock(handle, operation)  # type: ignore[arg-type]
        os.kill(os.getpid(), signal.SIGINT)  # Python acts on it at its next step

    fake = types.SimpleNamespace(**{n: getattr(fcntl, n) for n in dir(fcntl) if n.isupper()})
    fake.flock = flock_then_interrupt
    monkeypatch.setattr(db, "fcntl", fake)
    # as in the command line: a pytest-xdist worker runs with SIGINT ignored
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    interrupted = False
    try:
        Engine(EngineConfig(temp_directory=tmp_path))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        signal.signal(signal.SIGINT, previous)
    gc.collect()  # the half-made engine, no longer referenced, is collected
    assert interrupted
    assert list(tmp_path.iterdir()) == []


def test_a_sweep_by_another_run_never_takes_a_folder_being_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two runs sharing a temp folder (two audits at once, or a test suite's
    workers): one sweeps spill folders while the other makes its own. A sweep that
    lands between the other's making of the folder and its taking of the lock finds
    it not yet locked; it must leave it alone (it once removed it, and the run
    failed with exit 4, "cannot make a spill folder")."""
    import fcntl  # noqa: PLC0415
    import types  # noqa: PLC0415

    from reconcile import db  # noqa: PLC0415

    swept: list[list[Path]] = []
    sweeping: list[bool] = []

    def sweep_then_flock(handle: object, operation: int) -> None:
        if not sweeping:  # the other run's sweep, at the worst moment (once)
            sweeping.append(True)
            swept.append(db.sweep_spill_folders(tmp_path))
        fcntl.flock(handle, operation)  # type: ignore[arg-type]

    fake = types.SimpleNamespace(**{n: getattr(fcntl, n) for n in dir(fcntl) if n.isupper()})
    fake.flock = sweep_then_flock
    monkeypatch.setattr(db, "fcntl", fake)
    with Engine(EngineConfig(temp_directory=tmp_path)) as engine:
        assert swept == [[]]
        folder = engine.spill_folder
        assert folder is not None and folder.is_dir()
        assert folder.name.startswith(db.SPILL_PREFIX)
        monkeypatch.undo()
        assert db.sweep_spill_folders(tmp_path) == []  # locked: alive
        assert folder.is_dir()
        assert engine.con.execute("SELECT count(*) FROM range(10)").fetchall() == [(10,)]
    assert list(tmp_path.iterdir()) == []


def test_a_folder_left_half_made_is_swept_once_old(tmp_path: Path) -> None:
    """A run killed while it made its spill folder leaves it under the making
    prefix: a young one may be another run's, an old one is removed."""
    from reconcile import db  # noqa: PLC0415

    young = tmp_path / "reconcile-making-1-young"
    old = tmp_path / "reconcile-making-2-old"
    for folder in (young, old):
        folder.mkdir()
        (folder / "owner.lock").write_bytes(b"")
    long_ago = os.stat(old).st_mtime - 2 * 3600
    os.utime(old, (long_ago, long_ago))
    assert db.sweep_spill_folders(tmp_path) == [old]
    assert young.is_dir() and not old.exists()
