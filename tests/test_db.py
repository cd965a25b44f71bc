"""The engine's DuckDB settings: the default memory limit follows the machine."""

from __future__ import annotations

import pytest

from reconcile import db
from reconcile.db import Engine, EngineConfig


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
