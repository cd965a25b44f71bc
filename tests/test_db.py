"""The engine's DuckDB settings: the default memory limit follows the machine; the
spill folder goes with the engine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reconcile import db
from reconcile.db import Engine, EngineConfig

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize(
    ("available", "expected"),
    [(4 * 1000**3, "1600MB"), (64 * 1000**3, "5000MB"), (None, "5000MB"), (100 * 1000**2, "256MB")],
)
def test_default_memory_limit_is_a_share_of_memory_capped(
    monkeypatch: pytest.MonkeyPatch, available: int | None, expected: str
) -> None:
    monkeypatch.setattr(db, "available_memory", lambda: available)
    assert db.default_memory_limit() == expected


def test_engine_applies_the_default_or_the_given_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db, "available_memory", lambda: 4 * 1000**3)
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
