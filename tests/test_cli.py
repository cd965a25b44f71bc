"""The installed `reconcile` command, as a user runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def reconcile(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reconcile", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )


def test_readme_main_command_validates_bundled_data() -> None:
    result = reconcile("validate", "data/faults")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "VALID" in result.stdout


# a process of its own: seconds of start-up; outside the fast tier
@pytest.mark.slow
def test_invalid_log_set_exits_2_with_the_report(tmp_path: Path) -> None:
    (tmp_path / "ls").mkdir()
    result = reconcile("validate", str(tmp_path / "ls"))
    assert result.returncode == 2
    assert "INVALID" in result.stdout
    assert "checkpoints" in result.stdout


# a process of its own: seconds of start-up; outside the fast tier
@pytest.mark.slow
def test_missing_directory_exits_2_on_stderr(tmp_path: Path) -> None:
    result = reconcile("validate", str(tmp_path / "absent"))
    assert result.returncode == 2
    assert "no such directory" in result.stderr
    assert result.stdout == ""


# a process of its own: seconds of start-up; outside the fast tier
@pytest.mark.slow
def test_unknown_command_exits_2() -> None:
    result = reconcile("frobnicate")
    assert result.returncode == 2
    assert "invalid choice" in result.stderr
