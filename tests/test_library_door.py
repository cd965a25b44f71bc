"""The library, as a notebook uses it: an answer is never read from files that
changed after the log set was opened (it mixed old and new: one analysis gave
frontiers from the old checkpoints and a history from the new, and a LazyFrame
misread a rewritten file's times), a closed log set says so, and one analysis
shared by threads gives each the answer it would give alone."""

from __future__ import annotations

import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest

import reconcile
from reconcile import EngineConfig, api, open_logset
from reconcile.audit import AuditSettings
from reconcile.engine import Analysis
from reconcile.engine.namespace import Namespace
from reconcile.errors import InputError, UsageError

STUCK = Path(__file__).parent.parent / "data" / "stuck"


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(STUCK, tmp_path / "stuck"))


def test_a_rewritten_file_is_refused(copy: Path) -> None:
    with open_logset(copy) as logset:
        analysis = Analysis(logset)
        analysis.frontiers()
        rows = pl.read_parquet(copy / "checkpoints.parquet")
        rows.head(rows.height // 2).write_parquet(copy / "checkpoints.parquet")
        with pytest.raises(InputError, match=r"checkpoints.parquet was changed after"):
            analysis.frontier_history()
        with pytest.raises(InputError, match="changed"):
            logset.lazyframe("checkpoints")
        with pytest.raises(InputError, match="changed"):
            logset.relation("receipts")


@pytest.mark.parametrize("at_step", [2, 9])
def test_a_file_replaced_while_a_call_runs_is_refused(
    copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at_step: int
) -> None:
    """A writer replaces receipts.parquet (an atomic rename) between two steps of one
    call. The files were checked before the steps only: the call answered, from
    both files at once (a proven_through that neither the old nor the new files
    give), or with the new files under the old files' T; with a thread doing it at a
    random moment, DuckDB's reading error came out as an internal error."""
    rows = pl.read_parquet(copy / "receipts.parquet")
    rows.head(rows.height // 2).write_parquet(tmp_path / "half.parquet")
    create = Namespace.create
    calls = {"n": 0}

    def replacing(self: Namespace, *args: Any, **kwargs: Any) -> None:
        calls["n"] += 1
        if calls["n"] == at_step:
            (tmp_path / "half.parquet").replace(copy / "receipts.parquet")
        create(self, *args, **kwargs)

    monkeypatch.setattr(Namespace, "create", replacing)
    with open_logset(copy) as logset:
        analysis = Analysis(logset)
        with pytest.raises(InputError, match=r"receipts.parquet was changed after"):
            analysis.watermarks()
        assert calls["n"] >= at_step
        with pytest.raises(InputError, match="changed"):
            analysis.frontiers()


def test_a_removed_file_is_refused(copy: Path) -> None:
    with open_logset(copy) as logset:
        (copy / "pages.parquet").unlink()
        with pytest.raises(InputError, match=r"pages.parquet was removed after"):
            Analysis(logset).watermarks()


def test_a_closed_logset_says_so() -> None:
    logset = open_logset(STUCK)
    logset.close()
    with pytest.raises(UsageError, match="is closed"):
        Analysis(logset)
    with pytest.raises(UsageError, match="is closed"):
        logset.lazyframe("receipts")


def test_asking_a_closed_analysis_or_one_whose_logset_closed_says_so() -> None:
    """certificates_at with text t said the instant was "not an instant the reconciler
    reads"; with datetimes, and timelines() and put(), DuckDB's raw "Connection already
    closed!" came through."""
    points = pl.DataFrame({"scope_id": ["s0"], "partition_id": ["p0002"]})
    asked = [
        points.with_columns(t=pl.lit("2026-01-01T00:00:03")),
        points.with_columns(t=pl.lit(datetime(2026, 1, 1, 0, 0, 3))),
    ]
    logset = open_logset(STUCK)
    closed, open_one = Analysis(logset), Analysis(logset)
    closed.close()
    for given in asked:
        with pytest.raises(UsageError, match="this analysis was closed"):
            closed.certificates_at(given)
    logset.close()
    calls = [
        *(lambda given=given: open_one.certificates_at(given) for given in asked),
        lambda: open_one.timelines(points),
        lambda: open_one.put("rc_selected", points),
    ]
    for call in calls:
        with pytest.raises(UsageError, match="the log set of this analysis was closed"):
            call()


def test_one_analysis_shared_by_threads() -> None:
    with open_logset(STUCK) as logset:
        alone = Analysis(logset)
        want = [alone.watermarks(), alone.frontiers(), alone.frontier_history()]
        shared = Analysis(logset)
        calls = [shared.watermarks, shared.frontiers, shared.frontier_history] * 3
        with ThreadPoolExecutor(max_workers=4) as pool:
            got = list(pool.map(lambda call: call(), calls))
    for index, frame in enumerate(got):
        assert frame.equals(want[index % 3])


@pytest.mark.slow
def test_history_of_one_partition_per_thread() -> None:
    """history(partitions) selects, then reads: two threads' selections interleaved
    and one got another's partition."""
    with open_logset(STUCK) as logset:
        alone = Analysis(logset)
        parts = alone.read("rc_partitions")
        picks = [parts.slice(i, 1) for i in range(4)]
        want = [alone.history(p) for p in picks]
        shared = Analysis(logset)
        for _ in range(5):
            with ThreadPoolExecutor(max_workers=4) as pool:
                got = list(pool.map(shared.history, picks))
            assert all(g.equals(w) for g, w in zip(got, want, strict=True))


def test_a_file_rewritten_while_it_is_validated_is_refused(
    copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files are what validation read: stamped when found, checked once open."""
    validate = api.validate_files

    def then_rewrite(*args: object, **kwargs: object) -> object:
        report = validate(*args, **kwargs)  # type: ignore[arg-type]
        rows = pl.read_parquet(copy / "receipts.parquet")
        rows.with_columns(pl.lit("bogus").alias("outcome")).write_parquet(copy / "receipts.parquet")
        return report

    monkeypatch.setattr(api, "validate_files", then_rewrite)
    with pytest.raises(InputError, match=r"receipts\.parquet was changed"):
        open_logset(copy)


def _tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_a_spill_folder_inside_the_log_set_is_refused(
    copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command line refused --temp-dir inside the log set; the library spilled
    into it (and a second open read the spill folder as part of a table)."""
    before = _tree(copy)
    inside = copy / "receipts"
    refused = r"temp_directory .* is inside the log set .*never written"
    with pytest.raises(UsageError, match=refused):
        open_logset(copy, config=EngineConfig(temp_directory=inside))
    monkeypatch.setenv("RECONCILE_TEMP_DIR", str(copy))
    with pytest.raises(UsageError, match=r"RECONCILE_TEMP_DIR .* is inside the log set"):
        open_logset(copy)
    assert _tree(copy) == before
    # a folder given as text, outside the log set, is where the engine spills
    monkeypatch.delenv("RECONCILE_TEMP_DIR")
    with open_logset(copy, config=EngineConfig(temp_directory=str(tmp_path / "spill"))) as logset:
        folder = logset.engine.spill_folder
        assert folder is not None and folder.parent == tmp_path / "spill"
    with pytest.raises(UsageError, match="give a folder as a path or text, not int"):
        EngineConfig(temp_directory=5)  # type: ignore[arg-type]


def test_a_path_where_an_open_log_set_is_asked_for_says_open_it() -> None:
    """Analysis(path), reconcile.watermarks(path) and audit(path) failed with
    AttributeError: 'str' object has no attribute 'check_unchanged'."""
    from reconcile.audit import audit  # noqa: PLC0415

    opened = r"open it first .*reconcile\.open_logset\("
    with pytest.raises(UsageError, match=opened + re.escape(repr(str(STUCK)))):
        Analysis(str(STUCK))  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=opened):
        reconcile.watermarks(STUCK)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=opened):
        audit(str(STUCK))  # type: ignore[arg-type]


def test_ctrl_c_in_a_running_query_is_a_keyboard_interrupt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """DuckDB ends a query stopped by Ctrl-C in RuntimeError("Query interrupted"):
    about half the interrupts of a notebook's call came out so, an Exception that
    any `except Exception` cell swallows. The analysis answers again afterwards."""
    create = Namespace.create
    calls = {"n": 0}

    def interrupted(self: Namespace, *args: Any, **kwargs: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("Query interrupted")
        create(self, *args, **kwargs)

    monkeypatch.setattr(Namespace, "create", interrupted)
    with open_logset(STUCK) as logset:
        analysis = Analysis(logset)
        with pytest.raises(KeyboardInterrupt):
            analysis.watermarks()
        want = Analysis(logset).watermarks()
        assert analysis.watermarks().equals(want)

    def validation_interrupted(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("Query interrupted")

    monkeypatch.setattr(api, "validate_files", validation_interrupted)
    with pytest.raises(KeyboardInterrupt):
        open_logset(STUCK)


NO_CLOCK = [
    "2026-01-01T00:10:00+25:00",
    "2026-01-01T00:10:00+24:00",
    "2026-01-01 00:10:00-05:60",
    "2026-01-01T00:10+3000",
    "2026-01-01T00:10:00+25:00:00",
    "2026-01-01T00:10:00+05:30:99",
]


@pytest.mark.parametrize("t", NO_CLOCK)
def test_an_offset_of_no_clock_is_refused(t: str) -> None:
    """DuckDB read +25:00 as 25 hours: T a day from any instant meant, without a word."""
    with open_logset(STUCK) as logset:
        with pytest.raises(UsageError, match="offset from UTC of no clock"):
            Analysis(logset, t)
        assert Analysis(logset, "2026-01-01T00:10:00+23:59").as_of_iso == "2025-12-31T00:11:00"


def test_settings_of_the_wrong_type_are_usage_errors() -> None:
    """A thread count or a stall threshold given as text was a raw TypeError."""
    with pytest.raises(UsageError, match="a whole number"):
        open_logset(STUCK, config=EngineConfig(threads="2"))  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="stall threshold '5'"):
        AuditSettings(stall_minutes="5")  # type: ignore[arg-type]


def test_bad_settings_are_named_as_the_library_user_gave_them() -> None:
    """A notebook's EngineConfig(threads=0) was refused as "threads 0 (--threads or
    RECONCILE_THREADS)": options the user never gave. The error names the field first."""
    with pytest.raises(UsageError, match=r"threads 0 \(EngineConfig threads;"):
        open_logset(STUCK, config=EngineConfig(threads=0))
    with pytest.raises(UsageError, match=r"\(EngineConfig memory_limit;"):
        open_logset(STUCK, config=EngineConfig(memory_limit="lots"))
    with pytest.raises(UsageError, match=r"\(AuditSettings stall_minutes;"):
        AuditSettings(stall_minutes=2e8)


def test_closing_a_log_set_an_analysis_is_running_on_says_so() -> None:
    """LogSet.close() while another thread's analysis ran a query raised DuckDB's own
    ResourceInUseException ("connection is busy"); now a UsageError that says so,
    and the log set stays open. (The race itself is a query in flight: stood in for
    here by DuckDB's own exception.)"""
    with open_logset(STUCK) as logset:
        engine_close = logset.engine.close

        def busy() -> None:
            raise duckdb.ResourceInUseException("connection is busy with another call")

        logset.engine.close = busy  # type: ignore[method-assign]
        with pytest.raises(UsageError, match="in use by an analysis running"):
            logset.close()
        logset.engine.close = engine_close  # type: ignore[method-assign]
        assert not logset.closed
        assert Analysis(logset).watermarks().height > 0


def test_a_named_query_asked_amiss_is_the_callers_error() -> None:
    """query("../../etc/passwd") built a path outside the package's queries (and failed
    in a raw FileNotFoundError); missing parameters were an internal error asking to
    be reported; a query whose tables were not given in reads, too."""
    with open_logset(STUCK.parent / "membership") as logset, Analysis(logset) as analysis:
        for name in ("../../etc/passwd", "no/such", "investigate/../investigate/membership"):
            with pytest.raises(UsageError, match="no named query of the engine"):
                analysis.query(name)
        with pytest.raises(UsageError, match=r"needs parameter\(s\) event_id, partition_id"):
            analysis.query("investigate/event_trail", scope_id="s0")
        with pytest.raises(UsageError, match=r"takes no parameter\(s\) x"):
            analysis.query("investigate/membership", x=1)
        points = {"point_id": [0], "scope_id": ["s0"], "partition_id": ["p0"], "t": ["garbage"]}
        with pytest.raises(UsageError, match="put rc_asked_points: a value does not read as"):
            analysis.put("rc_asked_points", pl.DataFrame(points))
        # the working tables it names are computed first, given in reads or not
        assert analysis.query("investigate/membership").height == 3
    with (
        open_logset(STUCK) as logset,
        Analysis(logset) as analysis,
        pytest.raises(UsageError, match="a parameter does not read as the type"),
    ):
        analysis.query("investigate/partition_pages", scope_id=1, partition_id="p0001")


def test_arguments_of_the_wrong_kind_are_named_not_raw_errors() -> None:
    """Each raised Python's, Polars' or Arrow's own error (AttributeError, TypeError,
    ColumnNotFoundError, ArrowTypeError) instead of saying which argument was amiss;
    a pandas frame for put() failed though history() and certificates_at() take one."""
    from reconcile import investigate  # noqa: PLC0415
    from reconcile.audit import audit  # noqa: PLC0415

    pandas = pytest.importorskip("pandas")
    with pytest.raises(UsageError, match="give the log set's folder as text or a Path"):
        open_logset(None)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="not bytes"):
        open_logset(bytes(STUCK))  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="config is an EngineConfig"):
        open_logset(STUCK, config={"threads": 1})  # type: ignore[arg-type]
    with open_logset(STUCK) as logset, Analysis(logset) as analysis:
        with pytest.raises(UsageError, match="settings: give an AuditSettings"):
            Analysis(logset, None, {"stall_minutes": 5})  # type: ignore[arg-type]
        with pytest.raises(UsageError, match="settings: give an AuditSettings"):
            audit(logset, settings={"stall_minutes": 5})  # type: ignore[arg-type]
        with pytest.raises(UsageError, match="lag: this is not the watermarks table"):
            investigate.lag(analysis.frontiers())
        with pytest.raises(UsageError, match=r"holders: give an analysis, .*, not DataFrame"):
            investigate.holders(analysis.watermarks())
        mixed = pandas.DataFrame(
            {
                "scope_id": ["s0", "s0"],
                "partition_id": ["p0002", "p0002"],
                "t": [pandas.Timestamp("2026-01-01T00:00:03"), "2026-01-01T00:00:04"],
            }
        )
        with pytest.raises(UsageError, match="the pandas frame does not convert"):
            analysis.certificates_at(mixed)
        chosen = pandas.DataFrame({"scope_id": ["s0"], "partition_id": ["p0002"]})
        analysis.put("rc_selected", chosen)
        assert analysis.read("rc_timelines")["partition_id"].unique().to_list() == ["p0002"]
