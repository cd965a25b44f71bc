"""Exit codes that mean one thing each (issue 18), as a user sees them: the status,
one line on stderr that says what failed and what to do, and no Python traceback
unless ``--debug`` asks for one.

Covered elsewhere, not repeated here: clean audit 0 and findings 1
(``test_audit_cli``), an invalid log set 2 (``test_audit_cli``, ``test_cli``), a file
that really is not Parquet 2 (``test_validate``), a wrong command line 2 and an
--out that is not a report 2 (``test_cli``, ``test_audit_cli``).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest

from reconcile.cli import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_RESOURCES,
    main,
)
from reconcile.commands import failure
from reconcile.errors import (
    InputError,
    InternalError,
    ReconcileError,
    ResourceError,
    UsageError,
    classify_engine_error,
)
from tests.logsets import checkpoint, write_logset

ROOT = Path(__file__).resolve().parents[1]
FAULTS = ROOT / "data" / "faults"
# Far below what data/faults needs (the audit fails below about 40MB here, and at
# 4MB with one thread or many); 1MB is below DuckDB's smallest block of data (2 MiB),
# so validation's first scan cannot run at all.
AUDIT_TOO_LITTLE = "4MB"
VALIDATE_TOO_LITTLE = "1MB"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line(err: str) -> str:
    """The message: a single line, and no traceback."""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# -- out of memory: exit 4, not an error of the input -------------------------------


def test_audit_out_of_memory_exits_4_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    code, text, err = run(
        capsys, "audit", str(FAULTS), "--out", str(out), "--memory-limit", AUDIT_TOO_LITTLE
    )
    assert code == EXIT_RESOURCES
    message = one_line(err)
    assert message.startswith("reconcile: out of memory in step ")
    assert "--memory-limit" in message and "--threads" in message and "--temp-dir" in message
    assert "Possible solutions" not in message  # DuckDB's advice names SQL settings
    assert text == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_validate_out_of_memory_exits_4_not_unreadable_file(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, text, err = run(capsys, "validate", str(FAULTS), "--memory-limit", VALIDATE_TOO_LITTLE)
    assert code == EXIT_RESOURCES
    message = one_line(err)
    assert "out of memory in step validate (query " in message
    assert "--memory-limit" in message
    assert "unreadable" not in text + err and "cannot be read" not in text + err
    assert text == ""  # no validation report: nothing was found wrong with the files


def test_audit_out_of_memory_in_validation_is_not_an_invalid_log_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    code, _, err = run(
        capsys, "audit", str(FAULTS), "--out", str(out), "--memory-limit", VALIDATE_TOO_LITTLE
    )
    assert code == EXIT_RESOURCES
    assert "out of memory in step validate" in one_line(err)
    assert not out.exists()


def test_the_installed_command_exits_4_without_a_traceback(tmp_path: Path) -> None:
    """What a user runs: the status reaches the shell, stderr holds one line."""
    command = ["audit", str(FAULTS), "--out", str(tmp_path / "r")]
    done = subprocess.run(
        [sys.executable, "-m", "reconcile", *command, "--memory-limit", AUDIT_TOO_LITTLE],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == EXIT_RESOURCES, done.stderr
    assert "--memory-limit" in one_line(done.stderr)
    assert not (tmp_path / "r").exists()


def test_a_spill_folder_that_cannot_be_created_exits_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    code, _, err = run(
        capsys,
        "audit",
        str(FAULTS),
        "--out",
        str(tmp_path / "report"),
        "--memory-limit",
        "16MB",
        "--threads",
        "1",
        "--temp-dir",
        str(blocker / "spill"),
    )
    assert code == EXIT_RESOURCES
    message = one_line(err)
    assert "disk full or not writable in step " in message
    assert "--temp-dir" in message
    assert not (tmp_path / "report").exists()


# -- internal errors: exit 3, one line asking for a report; --debug shows more -------


def fake_audit(error: BaseException, step_name: str = "findings") -> Callable[..., Any]:
    def broken(*args: object, step: Callable[[str], None], **kwargs: object) -> None:
        step(step_name)
        raise error

    return broken


def test_an_unexpected_error_exits_3_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("reconcile.commands.audit", fake_audit(RuntimeError("boom\nsecond line")))
    out = tmp_path / "report"
    code, _, err = run(capsys, "audit", str(FAULTS), "--out", str(out))
    assert code == EXIT_INTERNAL
    message = one_line(err)
    assert message.startswith("reconcile: internal error in step findings: RuntimeError: boom")
    assert "second line" not in message
    assert "please report it" in message
    assert "--debug" in message
    assert not out.exists()


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_shows_the_traceback(
    where: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("reconcile.commands.audit", fake_audit(RuntimeError("boom")))
    args = ["audit", str(FAULTS), "--out", str(tmp_path / "report")]
    args = ["--debug", *args] if where == "before" else [*args, "--debug"]
    code, _, err = run(capsys, *args)
    assert code == EXIT_INTERNAL
    assert "Traceback (most recent call last)" in err
    assert "RuntimeError: boom" in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("reconcile: internal error in step findings")
    assert "--debug" not in last  # already given


def test_a_raw_duckdb_error_escaping_the_engine_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    error = duckdb.InternalException("INTERNAL Error: Attempted to access index 3\nStack")
    monkeypatch.setattr("reconcile.commands.audit", fake_audit(error, "frontiers"))
    code, _, err = run(capsys, "audit", str(FAULTS), "--out", str(tmp_path / "r"))
    assert code == EXIT_INTERNAL
    message = one_line(err)
    assert "internal error in step frontiers: INTERNAL Error: Attempted" in message
    assert "please report it" in message


def test_a_raw_out_of_memory_escaping_the_engine_exits_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "reconcile.commands.audit", fake_audit(genuine_out_of_memory(), "timelines")
    )
    code, _, err = run(capsys, "audit", str(FAULTS), "--out", str(tmp_path / "r"))
    assert code == EXIT_RESOURCES
    message = one_line(err)
    assert message.startswith("reconcile: out of memory in step timelines: Out of Memory Error")
    assert "--memory-limit" in message


def test_the_reconcilers_own_errors_exit_3_and_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = str(tmp_path / "r")
    internal = InternalError("frontier below a member", step="frontiers", query="rc_frontier")
    monkeypatch.setattr("reconcile.commands.audit", fake_audit(internal))
    code, _, err = run(capsys, "audit", str(FAULTS), "--out", out)
    assert code == EXIT_INTERNAL
    message = one_line(err)
    # the command's step, then the error's own step and query
    assert (
        "internal error in step findings: frontiers (query rc_frontier): frontier below" in message
    )
    assert "please report it" in message

    resource = ResourceError("Out of Memory Error: x", step="history", query="rc_history")
    monkeypatch.setattr("reconcile.commands.audit", fake_audit(resource))
    code, _, err = run(capsys, "audit", str(FAULTS), "--out", out)
    assert code == EXIT_RESOURCES
    assert "out of memory in step findings: history (query rc_history)" in one_line(err)

    # a plain ReconcileError (an engine self-check) is not about the input either
    plain = ReconcileError("rows out of order (step history; the engine's fault)")
    monkeypatch.setattr("reconcile.commands.audit", fake_audit(plain))
    code, _, err = run(capsys, "audit", str(FAULTS), "--out", out)
    assert code == EXIT_INTERNAL
    assert "error in step findings: rows out of order" in one_line(err)
    assert not Path(out).exists()


def test_interrupted_exits_130_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # DuckDB ends a query that Ctrl-C interrupts with RuntimeError("Query interrupted")
    for error in (KeyboardInterrupt(), RuntimeError("Query interrupted")):
        monkeypatch.setattr("reconcile.commands.audit", fake_audit(error))
        code, _, err = run(capsys, "audit", str(FAULTS), "--out", str(tmp_path / "r"))
        assert code == EXIT_INTERRUPTED
        assert one_line(err) == "reconcile: interrupted"
        assert not (tmp_path / "r").exists()


# -- usage: exit 2 -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--memory-limit", "lots", "memory limit 'lots'"),
        ("--memory-limit", "banana", "memory limit 'banana'"),
        ("--memory-limit", "0MB", "memory limit '0MB'"),
        ("--memory-limit", "0%", "memory limit '0%'"),
    ],
)
def test_an_engine_setting_duckdb_refuses_exits_2(
    option: str, value: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "validate", str(FAULTS), option, value)
    assert code == EXIT_INVALID
    message = one_line(err)
    assert said in message and option in message


def test_an_empty_log_set_path_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    """Not the working directory taken for the log set."""
    code, text, err = run(capsys, "validate", "")
    assert code == EXIT_INVALID and text == ""
    assert "path is empty" in one_line(err)


def test_a_report_folder_that_cannot_be_written_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    code, _, err = run(capsys, "simulate", str(blocker / "logs"))
    assert code == EXIT_INVALID
    assert "cannot write" in one_line(err)


# -- the one mapping from errors to exit codes ---------------------------------------


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (InputError("log set x: no such directory"), EXIT_INVALID),
        (UsageError("--spark-buckets must be 0 or more"), EXIT_INVALID),
        (ResourceError("Out of Memory Error: x"), EXIT_RESOURCES),
        (InternalError("inconsistent"), EXIT_INTERNAL),
        (ReconcileError("not the input's"), EXIT_INTERNAL),
        (ValueError("bug"), EXIT_INTERNAL),
        (duckdb.BinderException("Binder Error: no column x"), EXIT_INTERNAL),
        (duckdb.OutOfMemoryException("Out of Memory Error: x"), EXIT_RESOURCES),
        (duckdb.IOException('IO Error: No files found that match "x.parquet"'), EXIT_INTERNAL),
        (duckdb.IOException("IO Error: write: No space left on device"), EXIT_RESOURCES),
        (OSError(28, "No space left on device"), EXIT_RESOURCES),
        (KeyboardInterrupt(), EXIT_INTERRUPTED),
        (duckdb.InterruptException("INTERRUPT Error: Interrupted!"), EXIT_INTERRUPTED),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, BaseException) else str(value),
)
def test_failure_maps_each_error_to_one_status(error: BaseException, status: int) -> None:
    code, message = failure(error, step="watermarks")
    assert code == status
    assert "\n" not in message and message.startswith("reconcile: ")


def fake_spark_error(text: str) -> Exception:
    """An exception of PySpark's kind (its module is what marks it), with ``text``."""
    kind = type("PythonException", (Exception,), {"__module__": "pyspark.errors.exceptions"})
    error: Exception = kind(text)
    return error


@pytest.mark.parametrize(
    ("text", "status", "said"),
    [
        (
            "An exception was thrown from the Python worker.\nTraceback (most recent call"
            " last):\nduckdb.duckdb.OutOfMemoryException: Out of Memory Error: failed to"
            " allocate data of size 2.0 MiB\n\nPossible solutions:\n* Increasing",
            EXIT_RESOURCES,
            "--memory-limit (it applies to each task)",
        ),
        (
            "java.lang.OutOfMemoryError: Java heap space",
            EXIT_RESOURCES,
            "spark.executor.memory",
        ),
        (
            "reconcile.errors.ResourceError: disk full or not writable in step validate",
            EXIT_RESOURCES,
            "RECONCILE_TEMP_DIR",
        ),
        ("org.apache.spark.SparkException: Job aborted: executor lost", EXIT_INTERNAL, "lost"),
    ],
)
def test_errors_from_spark_jobs(text: str, status: int, said: str) -> None:
    pytest.importorskip("pyspark")
    from reconcile.spark.run import SparkJobFailed, spark_errors  # noqa: PLC0415

    with pytest.raises((ResourceError, SparkJobFailed)) as raised, spark_errors("audit"):
        raise fake_spark_error(text)
    code, message = failure(raised.value, step="audit the scopes")
    assert code == status
    assert said in message
    assert "\n" not in message
    # the same, when it escapes without spark_errors around it
    code, message = failure(fake_spark_error(text), step="audit the scopes")
    assert code == status and said in message


# -- classify_engine_error on DuckDB's own exceptions --------------------------------


def genuine_out_of_memory() -> duckdb.Error:
    con = duckdb.connect()
    con.execute("SET memory_limit = '1MB'")
    con.execute("SET threads = 1")
    try:
        con.execute("SELECT range FROM range(1000000) ORDER BY range DESC").fetchall()
    except duckdb.OutOfMemoryException as error:
        return error
    finally:
        con.close()
    raise AssertionError("no out-of-memory error at 1MB")


def test_classify_out_of_memory() -> None:
    error = genuine_out_of_memory()
    found = classify_engine_error(error, step="watermarks", query="watermarks/receipt_events")
    assert isinstance(found, ResourceError)
    assert (found.resource, found.step, found.query) == (
        "memory",
        "watermarks",
        "watermarks/receipt_events",
    )
    text = str(found)
    assert text.startswith(
        "out of memory in step watermarks (query watermarks/receipt_events): Out of Memory"
    )
    assert "--memory-limit" in text and "--threads" in text
    assert "\n" not in text  # DuckDB's advice (SET memory_limit ...) is left out


def test_classify_a_full_spill_folder(tmp_path: Path) -> None:
    """DuckDB caps the spill folder at its disk's free space: when it is full, the
    error is an OutOfMemoryException that names max_temp_directory_size."""
    con = duckdb.connect()
    for setting in (
        f"SET temp_directory = '{tmp_path}'",
        "SET memory_limit = '20MB'",
        "SET max_temp_directory_size = '1MB'",
        "SET threads = 1",
    ):
        con.execute(setting)
    with pytest.raises(duckdb.OutOfMemoryException) as raised:
        con.execute(
            "SELECT range, CAST(range AS VARCHAR) || 'padding' FROM range(3000000)"
            " ORDER BY range DESC"
        ).fetchall()
    con.close()
    found = classify_engine_error(raised.value, step="history", query="history/claims")
    assert isinstance(found, ResourceError)
    assert found.resource == "disk"
    assert str(found).startswith("disk full or not writable in step history (query history/claims)")
    assert "--temp-dir" in str(found)


def test_classify_a_spill_folder_that_cannot_be_created(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    con = duckdb.connect()
    con.execute(f"SET temp_directory = '{blocker / 'spill'}'")
    con.execute("SET memory_limit = '16MB'")
    con.execute("SET threads = 1")
    with pytest.raises(duckdb.IOException) as raised:
        con.execute(
            "SELECT range, CAST(range AS VARCHAR) || 'padding' FROM range(3000000)"
            " ORDER BY range DESC"
        ).fetchall()
    con.close()
    found = classify_engine_error(raised.value, step="watermarks", query="q")
    assert isinstance(found, ResourceError) and found.resource == "disk"


def test_classify_other_errors_as_internal(tmp_path: Path) -> None:
    """A failing query of the engine is its own fault, and so is a file that does
    not read there: validation reads every file first, and reports those."""
    not_parquet = tmp_path / "x.parquet"
    not_parquet.write_text("not parquet")
    con = duckdb.connect()
    for sql in ("SELECT missing FROM range(3)", f"FROM read_parquet('{not_parquet}')"):
        with pytest.raises(duckdb.Error) as raised:
            con.execute(sql).fetchall()
        found = classify_engine_error(raised.value, step="frontiers", query="frontier/points")
        assert isinstance(found, InternalError)
        assert (found.step, found.query) == ("frontiers", "frontier/points")
        text = str(found)
        assert text.startswith("internal error in step frontiers (query frontier/points): ")
        assert text.endswith("please report it")
    con.close()


# A signal while the engine is still loading: the import of reconcile.commands is
# held until the signal has been handled (a finder that waits for it), so the test
# does not depend on timing. It waits in short sleeps, not in signal.pause(): the
# handler of SIGTERM and SIGHUP interrupts the main thread from another thread, and
# an interrupt that lands between Python's check for signals and pause() itself
# would leave pause() waiting for ever (as it did on a loaded machine).
SIGNAL_WHILE_LOADING = """
import importlib.abc, os, signal, sys, time
# as from a terminal: a runner started under nohup (or as a background job of a
# shell without job control) hands its children SIGHUP ignored
signal.signal(signal.SIGHUP, signal.SIG_DFL)
class Held(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "reconcile.commands":
            os.kill(os.getpid(), signal.{signal})
            while True:
                time.sleep(0.01)
        return None
sys.meta_path.insert(0, Held())
from reconcile.cli import main
sys.exit(main(["validate", {logset!r}]))
"""


@pytest.mark.parametrize(
    ("signal", "status", "said"),
    [
        ("SIGINT", 130, "reconcile: interrupted"),
        ("SIGTERM", 143, "reconcile: terminated by SIGTERM"),
        ("SIGHUP", 129, "reconcile: terminated by SIGHUP"),
    ],
)
def test_a_signal_while_the_engine_loads_ends_in_one_line(
    signal: str, status: int, said: str
) -> None:
    code = SIGNAL_WHILE_LOADING.format(signal=signal, logset=str(FAULTS))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == status, done.stderr
    assert done.stderr.strip() == said


def test_output_closed_by_its_reader_exits_141_quietly(tmp_path: Path) -> None:
    """``reconcile watermarks LOGSET | head``: the reader closes the pipe early. The
    command stops with 141 (128 + SIGPIPE) and writes nothing on stderr, not an
    internal error."""
    rows = [checkpoint(f"p{n:05d}", 1, n) for n in range(3000)]
    logset = write_logset(tmp_path / "logs", {"checkpoints": rows})
    process = subprocess.Popen(
        [sys.executable, "-m", "reconcile", "watermarks", str(logset), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(10)
    process.stdout.close()
    error = process.stderr.read().decode()
    assert process.wait(timeout=120) == 141
    assert error == ""


def test_a_log_set_without_rows_asks_for_t(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Valid by validate, refused by audit as having "no timestamped rows", without a
    word of what would do: T from its end cannot be taken, and --as-of gives it."""
    logset = tmp_path / "empty"
    (logset / "checkpoints").mkdir(parents=True)
    assert main(["validate", str(logset)]) == 0
    capsys.readouterr()
    assert main(["audit", str(logset), "--out", str(tmp_path / "r")]) == 2
    assert "give T (--as-of, as_of)" in capsys.readouterr().err
    at = ["--as-of", "2026-01-01T00:00:00Z"]
    assert main(["audit", str(logset), "--out", str(tmp_path / "r"), *at]) == 0


def test_ctrl_c_inside_a_python_function_of_a_query_is_an_interruption() -> None:
    """A signal while DuckDB ran one of the engine's lookups (Python functions) came back
    as "Invalid Input Error: Python exception occurred while executing the UDF:
    KeyboardInterrupt", and the audit ended as an internal error (exit 3), not 130."""
    from reconcile.engine.namespace import engine_failure  # noqa: PLC0415
    from reconcile.errors import query_interrupted  # noqa: PLC0415

    def stopped(values: Any) -> Any:
        raise KeyboardInterrupt

    con = duckdb.connect()
    con.create_function("stopped", stopped, ["BIGINT"], "BIGINT", type="arrow")
    with pytest.raises(duckdb.Error) as caught:
        con.execute("SELECT stopped(range) FROM range(10)").fetchall()
    assert query_interrupted(caught.value)
    assert isinstance(engine_failure(caught.value, step="s", query="q"), KeyboardInterrupt)
    status, _ = failure(caught.value, "audit", False)
    assert status == EXIT_INTERRUPTED
