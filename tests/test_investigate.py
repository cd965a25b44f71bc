"""The notebook's investigation helpers answer at the analysis's T, as the analysis's
other answers do: a partition's pages and an event's receipts after T were listed
beside watermarks as of T, and the notebook's cells disagreed."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import polars as pl
import pytest

from reconcile import LogSet, open_logset
from reconcile.audit import audit
from reconcile.engine import Analysis
from reconcile.engine.settings import AuditSettings
from reconcile.errors import UsageError
from reconcile.investigate import (
    event_trail,
    holders,
    lag,
    limiting_spans,
    longest_hold,
    partition_pages,
)
from reconcile.plots import frontier_timeline
from tests.conftest import fast_tier
from tests.logsets import at, checkpoint, write_logset

STUCK = Path(__file__).parent.parent / "data" / "stuck"
T = datetime(2026, 1, 1, 0, 0, 2)


def test_pages_and_trails_stop_at_t() -> None:
    with open_logset(STUCK) as logset:
        whole = Analysis(logset)
        early = Analysis(logset, T)
        all_pages = partition_pages(whole, "s0", "p0002")
        pages = partition_pages(early, "s0", "p0002")
        assert 0 < pages.height < all_pages.height
        assert pages["fetched_at"].max() <= T
        assert pages.drop("receipts").equals(
            all_pages.filter(pl.col("fetched_at") <= T).drop("receipts")
        )
        # each page's receipts counted up to T only
        counted = dict(
            logset.con.sql(
                "SELECT page_id, count(*) FILTER (WHERE recorded_at <= $t) FROM receipts"
                " WHERE scope_id = 's0' GROUP BY page_id",
                params={"t": T},
            ).fetchall()
        )
        assert pages["receipts"].to_list() == [counted.get(g, 0) for g in pages["page_id"]]
        # an event received after T: no trail at T, one in the whole log
        (event,) = logset.con.sql(
            "SELECT min(event_id) FROM receipts WHERE scope_id = 's0'"
            " AND partition_id = 'p0002' AND recorded_at > $t",
            params={"t": T},
        ).fetchall()[0]
        assert event is not None
        assert event_trail(early, "s0", "p0002", event).height == 0
        assert event_trail(whole, "s0", "p0002", event).height > 0
        # and one received before T: the same trail either way
        (before,) = logset.con.sql(
            "SELECT min(event_id) FROM receipts WHERE scope_id = 's0'"
            " AND partition_id = 'p0002' AND recorded_at <= $t",
            params={"t": T},
        ).fetchall()[0]
        trail = event_trail(early, "s0", "p0002", before)
        assert trail.height > 0 and trail["recorded_at"].max() <= T
        assert trail.equals(event_trail(whole, "s0", "p0002", before))


def test_wrong_argument_types_are_said_so() -> None:
    """A number where an identifier or T is text was an internal error (a DuckDB
    cast) or a raw Polars error; an epoch number for as_of is refused by name."""
    with open_logset(STUCK) as logset:
        analysis = Analysis(logset)
        with pytest.raises(UsageError, match="event_id is text, not int"):
            event_trail(analysis, "s0", "p0002", 5)  # type: ignore[arg-type]
        with pytest.raises(UsageError, match="as_of_iso's form"):
            longest_hold(analysis, "2026-01-01T00:00:05Z")
        with pytest.raises(UsageError, match="is a number"):
            Analysis(logset, 1_767_225_605)  # type: ignore[arg-type]


def test_a_page_counts_its_receipts_up_to_t() -> None:
    with open_logset(STUCK) as logset:
        whole = partition_pages(Analysis(logset), "s0", "p0002")
        first = whole["page_id"][0]
        # T at the 51st receipt of the partition's first page
        ((t,),) = logset.con.sql(
            "SELECT recorded_at FROM receipts WHERE scope_id = 's0' AND page_id = $g"
            " ORDER BY recorded_at LIMIT 1 OFFSET 50",
            params={"g": first},
        ).fetchall()
        pages = partition_pages(Analysis(logset, t), "s0", "p0002")
    assert whole["receipts"][0] > 51
    assert pages.filter(pl.col("page_id") == first)["receipts"].to_list() == [51]


def _certificates(through: list[object], claimed: list[bool], proven: list[bool]) -> pl.DataFrame:
    """Watermarks rows holding what lag reads: a claim and a proof per partition."""
    n = len(claimed)
    return pl.DataFrame(
        {
            "scope_id": ["s0"] * n,
            "partition_id": [f"p{i}" for i in range(n)],
            "claimed_through": through[:n],
            "claimed_inclusive": claimed,
            "proven_through": through[n:],
            "proven_inclusive": proven,
            "claim_status": ["?"] * n,
            "blocking_reason": [None] * n,
        }
    )


def test_lag_orders_certificates_with_their_endpoints() -> None:
    """A dense claim through x inclusive against a proof through x exclusive claims x
    itself, unproven: lag said claim_ahead 0 and nothing else."""
    x = datetime(2026, 1, 1, 0, 0, 13)
    # claims inclusive, exclusive, inclusive, inclusive; proofs the other way, alike,
    # absent (a null through)
    rows = _certificates([x] * 7 + [None], [True, False, True, True], [False, True, True, None])
    got = lag(rows)
    assert got["claim_ahead"].to_list() == [timedelta(0)] * 3 + [None]
    assert got["claim_beyond_proof"].to_list() == [True, False, False, None]
    # on a discrete domain exclusive 10 is inclusive 9: normalized first
    ints = _certificates([10, 10, 10, 10], [True, False], [False, True])
    assert lag(ints, domain="discrete")["claim_ahead"].to_list() == [1, -1]
    assert lag(ints, domain="discrete")["claim_beyond_proof"].to_list() == [True, False]
    assert lag(ints)["claim_beyond_proof"].to_list() == [True, False]  # as dense
    with pytest.raises(UsageError, match="timestamps are always dense"):
        lag(rows, domain="discrete")
    with pytest.raises(UsageError, match="not one of discrete, dense"):
        lag(rows, domain="Discrete")
    # the engine's watermarks: every overclaim is a claim beyond its proof
    with open_logset(STUCK) as logset:
        marks = lag(Analysis(logset).watermarks())
    over = marks.filter(pl.col("claim_status") == "overclaim")
    assert over.height > 0 and over["claim_beyond_proof"].all()


def test_an_unknown_basis_is_refused() -> None:
    """A typo ("Claimed", "proved") matched no row: an empty answer, no error."""
    with open_logset(STUCK) as logset:
        analysis = Analysis(logset)
        with pytest.raises(UsageError, match="basis 'Claimed' is not one of claimed, proven"):
            limiting_spans(analysis, "Claimed")
        with pytest.raises(UsageError, match="basis 'proved' is not one of claimed, proven"):
            longest_hold(analysis, analysis.as_of_iso, basis="proved")
        with pytest.raises(UsageError, match="not one of claimed, proven"):
            holders(analysis, "both")
        assert limiting_spans(analysis, "proven").height > 0


def test_a_name_the_log_set_does_not_hold_is_refused() -> None:
    """A typo ("S0" for "s0") matched no row: a partition without pages, an empty
    history, an empty chart titled for the typo."""
    with open_logset(STUCK) as logset:
        analysis = Analysis(logset)
        assert partition_pages(analysis, "s0", "p0002").height > 0
        with pytest.raises(UsageError, match="no scope 'S0'"):
            partition_pages(analysis, "S0", "p0002")
        with pytest.raises(UsageError, match="no partition 'p2'"):
            partition_pages(analysis, "s0", "p2")
        with pytest.raises(UsageError, match="no partition 'p2'"):
            event_trail(analysis, "s0", "p2", "e1")
        with pytest.raises(UsageError, match="does not hold"):
            analysis.history(pl.DataFrame({"scope_id": ["s0"], "partition_id": ["p2"]}))
        one = pl.DataFrame({"scope_id": ["s0"], "partition_id": ["p0002"]})
        assert analysis.history(one).height > 0
        history = analysis.frontier_history()
        with pytest.raises(UsageError, match="no scope 'S0'"):
            frontier_timeline(history, "S0", analysis.as_of_iso)


@pytest.mark.parametrize("t", [1_767_225_900, 1_767_225_900_000, 1.5, True])
@pytest.mark.slow
def test_longest_hold_refuses_a_number_for_t(t: object) -> None:
    """Epoch seconds, milliseconds, a float, True: each gave another stretch of 0.0
    minutes, without error."""
    with open_logset(STUCK) as logset:
        analysis = Analysis(logset)
        with pytest.raises(UsageError, match="as_of is T"):
            longest_hold(analysis, t)


def test_longest_hold_names_the_scope() -> None:
    """Two scopes with partitions of the same names: the partition alone did not say
    whose it was."""
    with open_logset(STUCK.parent / "timestamps") as logset:
        analysis = Analysis(logset)
        hold = longest_hold(analysis, analysis.as_of_iso)
        # T as an aware datetime (UTC, or another zone) is the same T
        aware = analysis.as_of.replace(tzinfo=UTC)
        assert longest_hold(analysis, aware) == hold
        assert longest_hold(analysis, aware.astimezone(timezone(timedelta(hours=9)))) == hold
        spans = limiting_spans(analysis).filter(
            (pl.col("scope_id") == hold["scope_id"])
            & (pl.col("partition_id") == hold["partition_id"])
            & (pl.col("at") == hold["since"])
        )
        assert spans.height == 1


def _naive(seconds: float) -> datetime:
    """A test instant as the analysis writes times: naive UTC."""
    return at(seconds).replace(tzinfo=None)


def _handover(path: Path) -> Path:
    """A and B claim 100 at 1 s, A moves on to 200 at 2 s, B to 300 only at 30 min: B
    held the claimed frontier at 100 for 30 minutes, A for one second."""
    return write_logset(
        path,
        {
            "checkpoints": [
                checkpoint("A", 1, 100, written=1),
                checkpoint("B", 1, 100, written=1),
                checkpoint("A", 2, 200, written=2),
                checkpoint("B", 2, 300, written=1800),
            ]
        },
    )


def test_a_partition_that_moved_on_no_longer_holds_the_frontier(tmp_path: Path) -> None:
    """The spans came from frontier_history's rows, and A moving on at an unchanged
    frontier has none: longest_hold named A, 30 minutes, where the audit's
    stalled_partition names B."""
    with open_logset(_handover(tmp_path / "handover")) as logset:
        analysis = Analysis(logset)
        hold = longest_hold(analysis)
        spans = limiting_spans(analysis)
        held = holders(analysis).filter(pl.col("partition_id") == "B").row(0, named=True)
    assert (hold["partition_id"], hold["frontier"], hold["minutes"]) == ("B", 100, 30.0)
    assert (hold["since"], hold["until"]) == (_naive(1), _naive(1800))
    at_100 = spans.filter(pl.col("frontier") == 100)
    assert dict(zip(at_100["partition_id"], at_100["until"], strict=True)) == {
        "A": _naive(2),
        "B": _naive(1800),
    }
    assert held["last"] == _naive(2)


def test_the_frontier_history_alone_is_refused() -> None:
    """Its rows do not say when a holder changes at an unchanged value: the answer
    from it named a partition that had stopped holding the frontier."""
    with open_logset(STUCK) as logset:
        analysis = Analysis(logset)
        history = analysis.frontier_history()
        for function in (limiting_spans, holders):
            with pytest.raises(UsageError, match="cannot say who held the frontier between"):
                function(history)  # type: ignore[operator]
        with pytest.raises(UsageError, match="cannot say who held the frontier between"):
            longest_hold(history, analysis.as_of_iso)  # type: ignore[arg-type]
        with pytest.raises(UsageError, match="is not the analysis's T"):
            longest_hold(analysis, "2026-01-01T00:00:02")
        assert longest_hold(analysis, analysis.as_of) == longest_hold(analysis)


def _checkpoints(path: Path, rows: list[tuple[str, str, int, object, float]], kind: str) -> Path:
    """A log set of won writes alone: (scope, partition, generation, watermark, second)."""
    written = [checkpoint(p, g, w, scope=s, written=t) for s, p, g, w, t in rows]
    return write_logset(path, {"checkpoints": written}, kind)


# small log sets of won writes: (scope, partition, generation, watermark, second), the
# coordinate, and T (None: the end of the log set)
HOLDS: dict[str, tuple[list[tuple[str, str, int, object, float]], str, float | None]] = {
    "handover": (
        [("s", "A", 1, 100, 1), ("s", "B", 1, 100, 1), ("s", "A", 2, 200, 2),
         ("s", "B", 2, 300, 1800)],
        "int64",
        None,
    ),
    "one claim written twice, back to back": (
        [("s", "A", 1, 100, 0), ("s", "B", 1, 50, 0), ("s", "B", 2, 150, 60),
         ("s", "A", 2, 100, 120), ("s", "B", 3, 300, 600), ("s", "A", 3, 400, 900)],
        "int64",
        None,
    ),
    "equally long, the earlier": (
        [("s", "A", 1, 10, 0), ("s", "B", 1, 20, 0), ("s", "A", 2, 30, 60),
         ("s", "B", 2, 40, 120), ("s", "A", 3, 50, 120)],
        "int64",
        None,
    ),
    "two scopes": (
        [("s", "A", 1, 10, 0), ("s", "B", 1, 20, 0), ("s", "A", 2, 30, 300),
         ("t", "A", 1, 5, 10), ("t", "B", 1, 5, 10), ("t", "B", 2, 9, 20),
         ("t", "A", 2, 9, 700)],
        "int64",
        None,
    ),
    "held at T": (
        [("s", "A", 1, 10, 0), ("s", "B", 1, 20, 0), ("s", "A", 2, 30, 60)],
        "int64",
        3600,
    ),
    "timestamps": (
        [("s", "A", 1, at(-50), 0), ("s", "B", 1, at(-50), 0),
         ("s", "A", 2, at(-40), 30), ("s", "B", 2, at(-30), 400),
         ("s", "A", 3, at(-20), 450)],
        "timestamp",
        None,
    ),
}  # fmt: skip


def _agree(logset: LogSet, as_of: datetime | None) -> None:
    """longest_hold names the partition, start and minutes of the longest
    stalled_partition finding (every stay longer than 0; the earliest of equally long
    ones), or none where no stay lasted."""
    with Analysis(logset, as_of) as analysis:
        hold = longest_hold(analysis)
    findings = audit(logset, as_of, AuditSettings(stall_minutes=0)).findings
    stays = [
        (-json.loads(f["evidence"])["seconds"], f["at"], f["scope_id"], f["partition_id"])
        for f in findings.filter(pl.col("rule") == "stalled_partition").iter_rows(named=True)
    ]
    if not stays:
        assert hold == {} or hold["minutes"] == 0.0
        return
    seconds, since, scope, partition = min(stays)
    assert (hold["scope_id"], hold["partition_id"], hold["since"]) == (scope, partition, since)
    assert hold["minutes"] == round(-seconds / 60, 1)


@pytest.mark.parametrize("name", fast_tier(sorted(HOLDS), keep=["handover", "timestamps"]))
def test_longest_hold_agrees_with_stalled_partition(tmp_path: Path, name: str) -> None:
    rows, kind, seconds = HOLDS[name]
    path = _checkpoints(tmp_path / "logset", rows, kind)
    with open_logset(path) as logset:
        _agree(logset, None if seconds is None else at(seconds))


@pytest.mark.parametrize("name", ["stuck", "membership", "timestamps"])
@pytest.mark.slow  # three bundled log sets, audited: 5-8 s each
def test_longest_hold_agrees_with_stalled_partition_on_bundled_sets(name: str) -> None:
    with open_logset(STUCK.parent / name) as logset:
        _agree(logset, None)


@pytest.mark.parametrize("name", fast_tier(["stuck", "timestamps", "membership"], keep=["stuck"]))
def test_the_stays_hold_the_historys_limiting_partitions_on_both_bases(name: str) -> None:
    """At every row of the frontier history, the partitions whose stay covers its
    instant are the row's limiting partitions, on the proven basis too (where one
    partition's proven parts may overlap, and islands are merged)."""
    with open_logset(STUCK.parent / name) as logset:
        analysis = Analysis(logset)
        history = analysis.frontier_history()
        for basis in ("claimed", "proven"):
            spans = limiting_spans(analysis, basis)
            rows = history.filter((pl.col("basis") == basis) & (pl.col("kind") == "scalar"))
            assert rows.height
            for row in rows.iter_rows(named=True):
                holding = spans.filter(
                    (pl.col("scope_id") == row["scope_id"])
                    & (pl.col("at") <= row["at"])
                    & (pl.col("last") >= row["at"])
                )
                assert sorted(holding["partition_id"]) == sorted(row["limiting_partitions"]), (
                    basis,
                    row,
                )
            # a stay is whole: the next stay of a partition at one value begins only
            # at or after the instant where the one before it had stopped
            gaps = spans.sort("at").with_columns(
                pl.col("at").shift(-1).over("scope_id", "partition_id", "frontier").alias("next")
            )
            assert gaps.filter(
                pl.col("next").is_not_null()
                & (pl.col("until").is_null() | (pl.col("next") < pl.col("until")))
            ).is_empty(), basis
