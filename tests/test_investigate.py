"""The notebook's investigation helpers answer at the analysis's T, as the analysis's
other answers do: a partition's pages and an event's receipts after T were listed
beside watermarks as of T, and the notebook's cells disagreed."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import polars as pl
import pytest

from reconcile import open_logset
from reconcile.engine import Analysis
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
            longest_hold(analysis.frontier_history(), "2026-01-01T00:00:05Z")
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
        history = analysis.frontier_history()
        with pytest.raises(UsageError, match="basis 'Claimed' is not one of claimed, proven"):
            limiting_spans(history, "Claimed")
        with pytest.raises(UsageError, match="basis 'proved' is not one of claimed, proven"):
            longest_hold(history, analysis.as_of_iso, basis="proved")
        with pytest.raises(UsageError, match="not one of claimed, proven"):
            holders(history, "both")
        assert limiting_spans(history, "proven").height > 0


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


@pytest.mark.parametrize("t", [1_767_225_900, 1_767_225_900_000, 1.5, True, None])
@pytest.mark.slow
def test_longest_hold_refuses_a_number_for_t(t: object) -> None:
    """Epoch seconds, milliseconds, a float, True: each gave another stretch of 0.0
    minutes, without error; None a raw TypeError."""
    with open_logset(STUCK) as logset:
        analysis = Analysis(logset)
        with pytest.raises(UsageError, match="as_of is T"):
            longest_hold(analysis.frontier_history(), t)


def test_longest_hold_names_the_scope() -> None:
    """Two scopes with partitions of the same names: the partition alone did not say
    whose it was."""
    with open_logset(STUCK.parent / "timestamps") as logset:
        analysis = Analysis(logset)
        history = analysis.frontier_history()
        hold = longest_hold(history, analysis.as_of_iso)
        spans = limiting_spans(history).filter(
            (pl.col("scope_id") == hold["scope_id"])
            & (pl.col("partition_id") == hold["partition_id"])
            & (pl.col("at") == hold["since"])
        )
        assert spans.height == 1
