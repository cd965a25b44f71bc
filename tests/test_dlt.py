"""The dlt reader against real dlt pipelines (tests/frameworks/dlt_pipeline.py) run
here, offline, over a paginated API this test controls, into a DuckDB file and into a
filesystem dataset of Parquet files. Each fault is injected into the source or the
run, the destination's real artifacts and the source's final extract are audited
with ``--source dlt``, and the audit must name exactly the rows the fault lost, by
key, and nothing on a run without fault."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pytest

from reconcile.cli import main
from reconcile.readers import read_dlt
from tests.frameworks.dlt_pipeline import Pipeline
from tests.frameworks.dlt_pipeline import rows as _rows

pytestmark = pytest.mark.slow  # a dlt pipeline per test: seconds

DESTINATIONS = ["duckdb", "filesystem"]


def _skipped(findings: pl.DataFrame) -> set[str]:
    return set(findings.filter(pl.col("rule") == "skipped_event")["event_id"].to_list())


@pytest.mark.parametrize("destination", DESTINATIONS)
@pytest.mark.parametrize("range_start", ["closed", "open"])
def test_a_late_row_under_the_cursor_is_named(
    tmp_path: Path, destination: str, range_start: str
) -> None:
    """A row commits at the source after the first run, with a cursor below the
    stored last_value: no later run reads it, whichever end the range has."""
    pipe = Pipeline(tmp_path, range_start=range_start, destination=destination)
    pipe.api.rows = _rows(range(10))  # cursors 0..4
    pipe.run()
    pipe.api.rows += [{"id": "late", "updated_at": 2, "value": "v"}, *_rows(range(10, 14))]
    pipe.run()
    findings = pipe.audit(tmp_path)
    assert _skipped(findings) == {"late"}
    overclaims = findings.filter(pl.col("rule") == "overclaim")
    assert overclaims.height >= 1  # the state that claimed past it


@pytest.mark.parametrize("destination", DESTINATIONS)
@pytest.mark.parametrize(("range_start", "lost"), [("open", {"tie"}), ("closed", set())])
def test_a_tie_at_the_boundary_is_lost_with_an_open_range(
    tmp_path: Path, destination: str, range_start: str, lost: set[str]
) -> None:
    """A row arrives at the stored last_value after the run that stored it: an open
    range start (``>``) never reads it; a closed one (``>=``, dlt's default) reads
    last_value again and skips only the rows whose hashes the state kept."""
    pipe = Pipeline(tmp_path, range_start=range_start, destination=destination)
    pipe.api.rows = _rows(range(10))
    pipe.run()
    pipe.api.rows += [{"id": "tie", "updated_at": 4, "value": "v"}, *_rows(range(10, 12))]
    pipe.run()
    findings = pipe.audit(tmp_path)
    assert _skipped(findings) == lost
    if not lost:
        assert findings.is_empty()


def test_a_crash_before_the_load_completed_loses_nothing_on_a_sql_destination(
    tmp_path: Path,
) -> None:
    """The worker dies after the rows and the state reached DuckDB and before the
    load was marked complete. A new worker restores the last completed load's state
    (none), so it reads every row again: nothing is lost, and the crashed load's rows
    are failed receipts, not replays."""
    pipe = Pipeline(tmp_path, destination="duckdb")
    pipe.api.rows = _rows(range(8))
    pipe.run(crash=True)
    pipe.api.rows += _rows(range(8, 12))
    pipe.run(new_worker=True)
    findings = pipe.audit(tmp_path)
    assert findings.is_empty()
    receipts = _receipts(pipe, tmp_path)
    failed = receipts.filter(pl.col("outcome") == "failed")
    assert set(failed["event_id"]) == {f"k{i}" for i in range(8)}


def test_a_state_stored_before_its_load_completed_is_caught_on_a_filesystem(
    tmp_path: Path,
) -> None:
    """A filesystem destination stores the state file before the load's completion
    file. The worker dies between the two; a new worker restores that newest state
    and never reads the crashed load's rows again. Their load never completed, so
    they are not proven delivered: the audit names each of them."""
    pipe = Pipeline(tmp_path, destination="filesystem")
    pipe.api.rows = _rows(range(8))
    pipe.run(crash=True)
    pipe.api.rows += _rows(range(8, 12))
    pipe.run(new_worker=True)
    findings = pipe.audit(tmp_path)
    assert _skipped(findings) == {f"k{i}" for i in range(8)}


@pytest.mark.parametrize("destination", DESTINATIONS)
def test_a_resumed_run_completes_the_crashed_load(tmp_path: Path, destination: str) -> None:
    """The same worker runs again after the crash: dlt loads the pending package
    first, marking it complete, and nothing is lost."""
    pipe = Pipeline(tmp_path, destination=destination)
    pipe.api.rows = _rows(range(8))
    pipe.run(crash=True)
    pipe.api.rows += _rows(range(8, 12))
    pipe.run()
    findings = pipe.audit(tmp_path)
    assert findings.is_empty()


@pytest.mark.parametrize("destination", DESTINATIONS)
def test_resumed_runs_without_fault_find_nothing(tmp_path: Path, destination: str) -> None:
    pipe = Pipeline(tmp_path, destination=destination)
    pipe.api.rows = _rows(range(10))
    pipe.run()
    pipe.api.rows += _rows(range(10, 16))
    pipe.run()
    pipe.run(new_worker=True)  # nothing new, the state restored from the destination
    findings = pipe.audit(tmp_path)
    assert findings.is_empty()
    receipts = _receipts(pipe, tmp_path)
    assert receipts.height == 16
    assert set(receipts["outcome"]) == {"committed"}


def test_a_reader_that_dropped_a_row_would_be_caught(tmp_path: Path) -> None:
    """The framework's own destination, one row deleted (what a reader dropping a row
    would do): the audit names that row, so these tests fail on such a reader."""
    pipe = Pipeline(tmp_path, destination="duckdb")
    pipe.api.rows = _rows(range(8))
    pipe.run()
    with duckdb.connect(str(pipe.dest / "pipeline.duckdb")) as con:
        con.execute("DELETE FROM shop.items WHERE id = 'k3'")
    findings = pipe.audit(tmp_path)
    assert _skipped(findings) == {"k3"}


def test_a_destination_without_its_states_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With the stored states gone there is no cursor, so no claim to audit: the
    reader says so (exit 2) rather than reporting a clean run."""
    pipe = Pipeline(tmp_path, destination="duckdb")
    pipe.api.rows = _rows(range(10))
    pipe.run()
    with duckdb.connect(str(pipe.dest / "pipeline.duckdb")) as con:
        con.execute("DELETE FROM shop._dlt_pipeline_state")
    code = main(["audit", str(pipe.dest), "--source", "dlt", "--out", str(tmp_path / "r")])
    assert code == 2
    assert (
        "no stored state (_dlt_pipeline_state) holds an incremental cursor"
        in capsys.readouterr().err
    )
    assert not (tmp_path / "r").exists()


def _receipts(pipe: Pipeline, tmp: Path) -> pl.DataFrame:
    """The receipts the reader writes of the destination."""
    folder = tmp / "read"
    folder.mkdir()
    read_dlt(pipe.dest, folder)
    return pl.read_parquet(folder / "receipts.parquet")
