"""What a command loads before it answers: ``--help`` and usage errors load no
engine, and no command loads Pandera (the schemas' compiled form serves the engine).
Speed itself is measured by bench/startup.py, never asserted here."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("duckdb", "polars", "pyarrow", "numpy", "pandas", "pandera", "pyspark")


def loaded_after(code: str) -> list[str]:
    """The heavy libraries loaded once ``code`` has run in a fresh interpreter."""
    script = (
        "import sys, json\n"
        f"{code}\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True, text=True
    )
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["audit", "--help"],
        ["simulate", "--help"],
        ["audit", "LOGS"],  # --out missing: a usage error
        ["audit", "LOGS", "--out", "R", "--threads", "0"],
    ],
)
def test_help_and_usage_errors_load_no_engine(argv: list[str]) -> None:
    code = f"from reconcile.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass"
    assert loaded_after(code) == []


def test_importing_the_package_loads_no_engine() -> None:
    assert loaded_after("import reconcile") == []


def test_the_engine_never_imports_pandera() -> None:
    """The audit's whole path, the library's entry points included, reads the
    compiled declarations: Pandera (seconds to import, with pandas) stays out."""
    code = (
        "import reconcile, reconcile.commands, reconcile.audit, reconcile.validate\n"
        "from reconcile import open_logset, validate_logset, watermarks, Analysis"
    )
    assert set(loaded_after(code)) == {"duckdb", "polars", "pyarrow", "numpy"}


def test_the_commands_load_the_simulator_only_to_simulate() -> None:
    script = (
        "import sys, reconcile.commands\n"
        "print(sorted(m for m in sys.modules if m.startswith('reconcile.simulate')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True, text=True
    )
    assert done.stdout.strip().splitlines()[-1] == "[]"
