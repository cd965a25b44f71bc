"""Analyses of one log set stand side by side: each in a namespace of its own.

A notebook investigation holds several analyses of one log set at once, at
different times T. Each must give what a fresh analysis at its T gives, whatever
the others did before or in between, and none leaves its working tables in the
user's connection.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from reconcile import open_logset
from reconcile.audit import AuditSettings
from reconcile.audit.findings import findings
from reconcile.engine import Analysis
from reconcile.errors import ReconcileError, UsageError
from tests.conftest import fast_tier

DATA = Path(__file__).resolve().parents[1] / "data"
TIMES = ["2026-01-01T00:00:03", "2026-01-01T00:10:00", None]


def _results(analysis: Analysis) -> dict[str, pl.DataFrame]:
    return {
        "watermarks": analysis.watermarks(),
        "frontiers": analysis.frontiers(),
        "frontier_history": analysis.frontier_history(),
        "findings": findings(analysis),
    }


def _fresh(name: str, as_of: str | None) -> dict[str, pl.DataFrame]:
    with open_logset(DATA / name) as logset, Analysis(logset, as_of) as analysis:
        return _results(analysis)


@pytest.mark.parametrize("name", fast_tier(["faults", "timestamps"], keep=[]))
def test_three_analyses_side_by_side_equal_three_fresh_ones(name: str) -> None:
    with open_logset(DATA / name) as logset:
        if name == "timestamps":
            times: list[str | None] = ["2026-01-01T00:00:02", "2026-01-01T00:00:05", None]
        else:
            times = list(TIMES)
        analyses = [Analysis(logset, t) for t in times]
        # interleaved: each asks for a little, then the next, then all again
        for analysis in analyses:
            analysis.watermarks()
        got = [_results(a) for a in reversed(analyses)][::-1]
        ends = [a.as_of for a in analyses]
    for t, result in zip(times, got, strict=True):
        want = _fresh(name, t)
        for table, frame in want.items():
            assert result[table].equals(frame), (t, table)
    assert ends[0] < ends[1] < ends[2]
    # the times differ enough to change the answers
    assert not got[0]["watermarks"].equals(got[2]["watermarks"])


def test_a_later_analysis_does_not_change_an_earlier_one() -> None:
    """The case found: an analysis at T, then a second at the end of the log set;
    the first still answers at T."""
    with open_logset(DATA / "faults") as logset:
        early = Analysis(logset, TIMES[0])
        Analysis(logset).watermarks()
        marks = early.watermarks()
        assert early.as_of.isoformat() == "2026-01-01T00:00:03"
        assert set(marks["as_of"].to_list()) == {early.as_of}
    assert marks.equals(_fresh("faults", TIMES[0])["watermarks"])


def test_settings_belong_to_their_analysis() -> None:
    """Two stall thresholds side by side: each analysis applies its own."""
    with open_logset(DATA / "stuck") as logset:
        strict = Analysis(logset, settings=AuditSettings(stall_minutes=1))
        lenient = Analysis(logset, settings=AuditSettings(stall_minutes=10_000))
        stalled = [
            findings(a).filter(pl.col("rule") == "stalled_partition").height
            for a in (strict, lenient)
        ]
    assert stalled[0] > 0
    assert stalled[1] == 0


def test_the_user_s_connection_shows_the_contract_s_tables_only() -> None:
    with open_logset(DATA / "faults") as logset:
        before = sorted(r[0] for r in logset.con.sql("SHOW TABLES").fetchall())
        with Analysis(logset) as analysis:
            analysis.frontier_history()
            findings(analysis)
            during = sorted(r[0] for r in logset.con.sql("SHOW TABLES").fetchall())
            temporary = logset.con.sql(
                "SELECT count(*) FROM duckdb_tables() WHERE temporary"
            ).fetchall()
    assert before == during
    assert "checkpoints" in during
    assert not [t for t in during if t.startswith("rc_")]
    assert temporary == [(0,)]


def test_a_closed_analysis_says_so() -> None:
    with open_logset(DATA / "example") as logset:
        analysis = Analysis(logset)
        analysis.watermarks()
        analysis.close()
        with pytest.raises(ReconcileError, match="closed"):
            analysis.frontiers()


def test_an_analysis_of_a_closed_log_set_says_so() -> None:
    with open_logset(DATA / "example") as logset:
        analysis = Analysis(logset)
        analysis.watermarks()
    with pytest.raises(UsageError, match="log set of this analysis was closed"):
        analysis.frontiers()


def test_timelines_follow_the_partitions_asked_for() -> None:
    """Asking for other partitions recomputes what depends on them: never the
    previous partitions' timelines."""
    with open_logset(DATA / "faults") as logset, Analysis(logset) as analysis:
        partitions = analysis.read("rc_partitions").select("scope_id", "partition_id")
        first, second = partitions.head(1), partitions.slice(1, 2)
        analysis.history(first)
        again = analysis.history(second)
        with Analysis(logset) as fresh:
            want = fresh.history(second)
    assert again.equals(want)
    assert set(again["partition_id"].to_list()) == set(second["partition_id"].to_list())


def test_asking_for_an_unknown_table_is_an_error() -> None:
    with open_logset(DATA / "example") as logset, Analysis(logset) as analysis:
        with pytest.raises(ReconcileError, match="not a working table"):
            analysis.read("rc_nothing")
        with pytest.raises(ReconcileError, match="not an input"):
            analysis.put("rc_watermarks", pl.DataFrame())


def test_certificates_at_refuses_a_number_for_t_and_reads_text_as_as_of() -> None:
    """An integer (or bool) t was read as epoch nanoseconds: every certificate came
    back null, without a word; text failed in a raw Polars cast."""
    with open_logset(DATA / "faults") as logset, Analysis(logset) as analysis:
        points = analysis.read("rc_partitions").select("scope_id", "partition_id").head(2)
        when = datetime(2026, 1, 1, 0, 15)
        right = analysis.certificates_at(points.with_columns(t=pl.lit(when)))
        assert right["claimed_through"].null_count() == 0
        for number in (int(when.replace(tzinfo=UTC).timestamp()), True):
            with pytest.raises(UsageError, match="an epoch's unit would be a guess"):
                analysis.certificates_at(points.with_columns(t=pl.lit(number)))
        with pytest.raises(UsageError, match=r"t 'yesterday' \(point 0\) is not an instant"):
            analysis.certificates_at(points.with_columns(t=pl.lit("yesterday")))
        for same in ("2026-01-01T00:15:00", "2026-01-01T01:15:00+01:00"):
            got = analysis.certificates_at(points.with_columns(t=pl.lit(same)))
            assert got.equals(right), same
        aware = analysis.certificates_at(points.with_columns(t=pl.lit(when.replace(tzinfo=UTC))))
        assert aware.equals(right)
        # a pandas frame is read as its Polars twin
        pandas = points.with_columns(t=pl.lit(when)).to_pandas()
        assert analysis.certificates_at(pandas).equals(right)


@pytest.mark.parametrize(
    "t",
    [
        datetime(2262, 1, 1),  # past DUSK, within nanoseconds: answered as if nothing blocked
        datetime(2261, 12, 31),  # DUSK itself, the engine's "never"
        datetime(2300, 1, 1),  # past nanoseconds: a raw Polars error
        datetime(1600, 1, 1),
        datetime(1677, 12, 31),  # before DAWN, the engine's "before every row"
        datetime(2262, 1, 1).date(),
    ],
    ids=str,
)
def test_certificates_at_refuses_a_t_outside_the_engines_times(t: object) -> None:
    """As an as_of there is refused: data/stuck's p0002, blocked by a failed event at
    10378, was proven through 20001 at 2262-01-01, without a word."""
    with open_logset(DATA / "stuck") as logset, Analysis(logset) as analysis:
        points = pl.DataFrame({"scope_id": ["s0"], "partition_id": ["p0002"]})
        inside = analysis.certificates_at(points.with_columns(t=pl.lit(datetime(2261, 12, 30))))
        assert inside["proven_through"].to_list() == [10377]
        with pytest.raises(UsageError, match=r"\(point 0\) is outside the times the reconciler"):
            analysis.certificates_at(points.with_columns(t=pl.lit(t)))


def test_history_refuses_identifiers_that_are_not_text() -> None:
    """An integer, list or null partition_id matched nothing: an empty history."""
    with open_logset(DATA / "faults") as logset, Analysis(logset) as analysis:
        parts = analysis.read("rc_partitions").select("scope_id", "partition_id").head(2)
        want = analysis.history(parts)
        assert want.height > 0
        with pytest.raises(UsageError, match="partition_id is text, not Int"):
            analysis.history(parts.with_columns(partition_id=pl.lit(3)))
        listed = parts.with_columns(pl.concat_list("partition_id").alias("partition_id"))
        with pytest.raises(UsageError, match=r"partition_id is text, not List"):
            analysis.history(listed)
        with pytest.raises(UsageError, match="scope_id is null in row 0"):
            analysis.history(parts.with_columns(scope_id=pl.lit(None, dtype=pl.String)))
        with pytest.raises(UsageError, match="partition_id is text, not Int"):
            analysis.certificates_at(
                parts.with_columns(partition_id=pl.lit(3), t=pl.lit(datetime(2026, 1, 1)))
            )
        assert analysis.history(parts.to_pandas()).equals(want)
        with pytest.raises(UsageError, match=r"give a Polars \(or pandas\) DataFrame, not dict"):
            analysis.history({"scope_id": "s0"})  # type: ignore[arg-type]


def test_reading_what_a_method_supplies_first_names_the_method() -> None:
    """read("rc_timelines") before history() was an internal error asking for a
    report: it is the caller's, and names what to call."""
    with open_logset(DATA / "example") as logset, Analysis(logset) as analysis:
        with pytest.raises(UsageError, match=r"call history\(partitions\) first"):
            analysis.read("rc_timelines")
        with pytest.raises(UsageError, match=r"call certificates_at\(points\) first"):
            analysis.read("rc_asked_certificates")
        history = analysis.history()
        assert analysis.read("rc_timelines").equals(history)


def test_a_point_just_after_t_is_shown_to_the_nanosecond() -> None:
    """The refusal showed the point as a Python datetime, to the microsecond: a t one
    nanosecond after T read as T itself."""
    with open_logset(DATA / "stuck") as logset:
        analysis = Analysis(logset, "2026-01-01T00:00:03.5")
        points = pl.DataFrame(
            {"scope_id": ["s0"], "partition_id": ["p0001"], "t": ["2026-01-01T00:00:03.500000001"]}
        )
        with pytest.raises(UsageError, match=r"point 0 at 2026-01-01T00:00:03\.500000001:"):
            analysis.certificates_at(points)
