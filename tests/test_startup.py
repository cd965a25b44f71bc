"""What a command loads before it answers: ``--help`` and usage errors load no
engine, and no command loads Pandera (the schemas' compiled form serves the engine).
Speed itself is measured by bench/startup.py, never asserted here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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


@pytest.mark.slow
def test_lookups_as_functions_load_no_pandas() -> None:
    """Lookups are Python functions over Arrow arrays (reconcile/engine/lookups.py).
    Their answers are built on NumPy's buffers: the first ``pa.array`` of a NumPy
    array imports pandas, a quarter of a second of every audit. data/faults through
    watermarks, findings (rule late_insert's search among them), the history and the
    timelines."""
    faults = Path(__file__).resolve().parents[1] / "data" / "faults"
    code = (
        "from reconcile import open_logset\n"
        "from reconcile.audit.findings import findings\n"
        "from reconcile.engine import Analysis\n"
        f"with open_logset({str(faults)!r}) as logset, Analysis(logset) as analysis:\n"
        "    found = findings(analysis)\n"
        "    assert 'late_insert' in set(found['rule']), 'the search of late_insert ran'\n"
        "    analysis.frontier_history()\n"
        "    analysis.history(analysis.watermarks().select('scope_id', 'partition_id'))\n"
    )
    loaded = loaded_after(code)
    assert "duckdb" in loaded
    assert "pandas" not in loaded
