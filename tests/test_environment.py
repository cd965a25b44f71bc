"""The command line on machines set up otherwise than the one it was built on: a
terminal that is not UTF-8, a locale that reads file names in another encoding, a
current folder removed under the shell. Each ran to an internal error (exit 3) or
called a valid log set invalid. Time zones are tests/test_time_zone.py's."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reconcile.cli import main
from tests.logsets import checkpoint, receipt, write_logset

# a process of its own per case, seconds each: outside the fast tier, as tests that start
# processes are
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def _reconcile(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reconcile", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        check=False,
        env={**os.environ, **(env or {})},
        cwd=ROOT,
    )


def test_identifiers_a_terminal_cannot_show_are_escaped_not_a_crash(tmp_path: Path) -> None:
    """A partition named "pİ" on a Latin-1 terminal: the audit wrote its whole report
    and then died printing its summary, an internal error (exit 3) where the findings
    said 1, and the answer lost from the screen."""
    logset = write_logset(
        tmp_path / "logs",
        {
            "receipts": [
                receipt("e1", 1, partition="pİ"),
                receipt("e2", 2, "failed", partition="pİ"),
            ],
            "checkpoints": [checkpoint("pİ", 1, 2)],
        },
    )
    latin = {"PYTHONIOENCODING": "latin-1"}
    done = _reconcile("watermarks", str(logset), env=latin)
    assert done.returncode == 0, done.stderr
    assert "p\\u0130" in done.stdout
    done = _reconcile("audit", str(logset), "--out", str(tmp_path / "report"), env=latin)
    assert done.returncode == 1, done.stderr
    assert "skipped_event" in done.stdout and "p\\u0130" in done.stdout


def test_a_current_folder_removed_under_the_shell_is_said_so(tmp_path: Path) -> None:
    """`audit data/faults` from a removed folder: a FileNotFoundError naming no file,
    reported as the reconciler's own fault (exit 3). Paths given in full still work."""
    gone = tmp_path / "gone"
    gone.mkdir()
    script = (
        f"cd {gone} && rmdir {gone} && exec {sys.executable} -m reconcile audit"
        f" data/faults --out report"
    )
    done = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 2, done.stderr
    assert "the current folder no longer exists" in done.stderr
    assert "internal error" not in done.stderr


def test_a_name_the_locale_cannot_hand_to_duckdb_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In a Latin-1 locale Python reads "ü" from the file system as two characters,
    DuckDB opens their UTF-8 bytes, and every table of a valid log set was reported
    unreadable (exit 2, INVALID): now the one line that says why, and how to run it."""
    logset = write_logset(tmp_path / "logs-ü", {"checkpoints": [checkpoint("p0", 1, 2)]})
    monkeypatch.setattr(sys, "getfilesystemencoding", lambda: "iso8859-1")
    code = main(["validate", str(logset)])
    assert code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "reads file names as iso8859-1" in err and "LC_ALL=C.UTF-8" in err
    monkeypatch.setattr(sys, "getfilesystemencoding", lambda: "utf-8")
    assert main(["validate", str(logset)]) == 0


def _shell(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, timeout=300, check=False, cwd=ROOT
    )


@pytest.mark.parametrize("redirect", [">/dev/full", ">&-"], ids=["full", "closed"])
def test_an_output_that_cannot_be_written_is_141_with_the_report_written(
    tmp_path: Path, redirect: str
) -> None:
    """> /dev/full ended in exit 4 ("out of memory or spill space", a wrong hint) and a
    closed stdout in exit 3 (an internal error), each with the report written."""
    out = tmp_path / "report"
    done = _shell(f"{sys.executable} -m reconcile audit data/faults --out {out} {redirect}")
    assert done.returncode == 141, done.stderr
    assert (out / "findings.parquet").is_file() and (out / "report.html").is_file()
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("redirect", ["2>/dev/full", "2>&-"], ids=["full", "closed"])
def test_an_error_with_nowhere_to_be_said_keeps_its_status(tmp_path: Path, redirect: str) -> None:
    """A missing log set with stderr closed or full exited 1, the findings' status."""
    done = _shell(f"{sys.executable} -m reconcile watermarks {tmp_path / 'none'} {redirect}")
    assert done.returncode == 2


def test_a_system_temporary_folder_inside_the_log_set_is_refused(tmp_path: Path) -> None:
    """TMPDIR inside the log set: the spill folder was made there (425 MB written into a
    19 MB log set at a low memory limit), where --temp-dir inside it is refused."""
    logset = tmp_path / "logs"
    shutil.copytree(ROOT / "data" / "example", logset)
    (logset / "tmp").mkdir()
    done = _reconcile(
        "audit", str(logset), "--out", str(tmp_path / "r"), env={"TMPDIR": str(logset / "tmp")}
    )
    assert done.returncode == 2
    assert "the system's temporary folder (TMPDIR" in done.stderr
    assert not (tmp_path / "r").exists()


def test_a_limit_on_a_files_size_is_out_of_room_not_a_usage_error(tmp_path: Path) -> None:
    """ulimit -f under the report's size: "cannot write ...: File too large" was exit 2
    (usage), where a full disk is 4; nothing is left behind either way."""
    out = tmp_path / "report"
    script = f"ulimit -f 100; exec {sys.executable} -m reconcile audit data/faults --out {out}"
    done = _shell(script)
    assert done.returncode == 4, done.stderr
    assert "File too large" in done.stderr and not out.exists()
