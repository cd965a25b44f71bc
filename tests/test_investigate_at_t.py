"""The notebook's views of the frontier answer at the analysis's T, never above what
the audit proves there: a membership proof in an epoch not yet in force is no proof,
and a proven frontier that fell after the last evaluated instant is not drawn (or
paired with a finding) at its older, higher value."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from reconcile import investigate, open_logset, plots
from reconcile.audit import audit
from reconcile.engine import Analysis
from reconcile.errors import UsageError
from tests.logsets import at, checkpoint, page, receipt, write_logset


def _write(partition: str, generation: int, seconds: float, watermark: int) -> dict[str, Any]:
    return checkpoint(
        partition, generation, watermark, written=seconds, scope="s", attempt=f"{partition}-a1"
    )


def _epoch(epoch: int, seconds: float, cutover: int | None) -> dict[str, Any]:
    return {
        "scope_id": "s",
        "epoch": epoch,
        "effective_at": at(seconds),
        "cutover": cutover,
        "cutover_inclusive": None if cutover is None else True,
    }


def _member(epoch: int, partition: str, coverage: int | None = None) -> dict[str, Any]:
    return {
        "scope_id": "s",
        "epoch": epoch,
        "partition_id": partition,
        "role": "member",
        "coverage_from": coverage,
    }


def test_membership_counts_only_epochs_in_force_at_t(tmp_path: Path) -> None:
    """B joins at epoch 2 (in force from 10 s) without coverage; its proof comes with
    epoch 3 (from 20 s). At 15 s the audit says unproven: so does membership()."""
    path = write_logset(
        tmp_path / "logs",
        {
            "checkpoints": [
                _write("A", 1, 1, 5),
                _write("B", 1, 11, 6),
                _write("A", 2, 12, 9),
                _write("B", 2, 21, 9),
            ],
            "epochs": [_epoch(1, 0, None), _epoch(2, 10, 5), _epoch(3, 20, 5)],
            "members": [
                _member(1, "A"),
                _member(2, "A"),
                _member(2, "B"),
                _member(3, "A"),
                _member(3, "B", 0),
            ],
        },
    )
    with open_logset(path) as logset:
        changes = {
            seconds: investigate.membership(Analysis(logset, at(seconds).replace(tzinfo=None)))
            for seconds in (5, 15, 25)
        }
        frontiers = Analysis(logset, at(15).replace(tzinfo=None)).frontiers()
        # the audit's rule alike: unproven at 15 s, proven by epoch 3 at 25 s
        rule = {
            seconds: audit(logset, at(seconds).replace(tzinfo=None), timelines=False)
            .findings.filter(pl.col("rule") == "unproven_membership")
            .select("epoch", "partition_id")
            .rows()
            for seconds in (15, 25)
        }
    assert changes[5].is_empty()  # epoch 2 not yet in force
    joined = changes[15].filter(pl.col("partition_id") == "B")
    assert joined.select("epoch", "change", "proved_in").rows() == [(2, "join", None)]
    assert all("unproven_membership" in r for r in frontiers["reasons"].to_list())
    assert rule == {15: [(2, "B")], 25: []}
    proved = changes[25].filter((pl.col("partition_id") == "B") & (pl.col("epoch") == 2))
    assert proved["proved_in"].to_list() == [3]
    assert proved["cutover_inclusive"].to_list() == [True]


def _fell_after_the_last_write(tmp_path: Path, **more: list[dict[str, Any]]) -> Path:
    """A page through 10 (finality), e1 and e2 committed, a claim of 10 written at 4 s;
    then e3 at position 3 fails at 6 s: the proven frontier falls to 2 after the last
    evaluated instant (the write), and the audit says so at T. ``more``: rows to add,
    by table."""
    tables: dict[str, list[dict[str, Any]]] = {
        "checkpoints": [checkpoint("p0", 1, 10, written=4, page_id="pg1")],
        "pages": [page("pg1", 0, 2, 1, 2, fetched=1, finality_through=10, finality_inclusive=True)],
        "receipts": [
            receipt("e1", 1, recorded=2, page_id="pg1"),
            receipt("e2", 2, recorded=3, page_id="pg1"),
            receipt("e3", 3, "failed", recorded=6, page_id="pg1"),
        ],
    }
    for table, rows in more.items():
        tables[table] = tables.get(table, []) + rows
    return write_logset(tmp_path / "fell", tables)


def test_findings_on_timeline_never_pairs_a_finding_at_t_with_an_older_higher_frontier(
    tmp_path: Path,
) -> None:
    with open_logset(_fell_after_the_last_write(tmp_path)) as logset:
        result = audit(logset)
    proven_at_t = result.frontiers.filter(pl.col("basis") == "proven")["frontier"].to_list()
    assert proven_at_t == [2]
    assert (
        result.frontier_history.filter(pl.col("basis") == "proven")["frontier"].to_list()[-1] == 10
    )
    skipped = result.findings.filter(pl.col("rule") == "skipped_event")
    assert skipped.height == 1
    placed = investigate.findings_on_timeline(skipped, result.frontier_history, result.frontiers)
    assert placed["proven_frontier"].to_list() == [2]
    # without the table at T nothing says what held after the write: unknown, not 10
    unknown = investigate.findings_on_timeline(skipped, result.frontier_history)
    assert unknown["proven_frontier"].to_list() == [None]


def test_the_drawn_proven_frontier_never_stands_above_the_frontier_at_t(tmp_path: Path) -> None:
    with open_logset(_fell_after_the_last_write(tmp_path)) as logset:
        analysis = Analysis(logset)
        history, frontiers = analysis.frontier_history(), analysis.frontiers()
        end = analysis.as_of
    for given in (frontiers, None):
        figure = plots.frontier_timeline(history, "s", end, frontiers=given)
        lines = {line.get_label(): line for line in figure.axes[0].get_lines()}
        proven = lines["proven frontier"]
        xs = list(proven.get_xdata())
        assert max(xs) < 1.0  # the line stops at the write, short of T (x = 1)
        if given is not None:
            square = lines["proven frontier at T"]
            assert list(square.get_xdata()) == [1.0] and list(square.get_ydata()) == [2]


def test_a_proven_frontier_that_fell_and_came_back_is_not_carried_across(
    tmp_path: Path,
) -> None:
    """Proven 10 at the write (4 s); e3 fails at 6 s (proven 2), its retry commits at
    7 s (10 again, T). A publication of 10 at 6.5 s is above the proven frontier then:
    no view pairs it with 10, draws 10 across, or counts a proven stay through it."""
    path = _fell_after_the_last_write(
        tmp_path,
        receipts=[receipt("e3", 3, recorded=7, page_id="pg1", attempt="a2")],
        published=[
            {
                "scope_id": "s",
                "epoch": None,
                "published_at": at(6.5),
                "kind": "scalar",
                "frontier": 10,
                "frontier_inclusive": True,
            }
        ],
    )
    with open_logset(path) as logset:
        result = audit(logset)
        analysis = Analysis(logset)
        hold = investigate.longest_hold(analysis, basis="proven")
    over = result.findings.filter(pl.col("rule") == "published_overclaim")
    assert over.height == 1 and "above the proven frontier" in over["message"][0]
    placed = investigate.findings_on_timeline(over, result.frontier_history, result.frontiers)
    assert placed.select("claimed_frontier", "proven_frontier").rows() == [(10, None)]
    assert hold["until"] == at(4).replace(tzinfo=None)  # its last evaluated instant, not T
    figure = plots.frontier_timeline(
        result.frontier_history, "s", result.as_of, frontiers=result.frontiers
    )
    lines = {line.get_label(): line for line in figure.axes[0].get_lines()}
    assert max(lines["proven frontier"].get_xdata()) < 1.0
    assert list(lines["proven frontier at T"].get_ydata()) == [10]
    assert max(lines["claimed frontier"].get_xdata()) == 1.0  # claims change at writes only


def test_a_frontiers_table_nanoseconds_before_the_history_is_refused() -> None:
    """The frontiers table at T is refused when T lies before the history's last row,
    by 100 ns too (compared as Python datetimes the two were one instant)."""
    last = pl.Series([1_767_225_605_000_000_100]).cast(pl.Datetime("ns"))
    history = pl.DataFrame(
        {
            "scope_id": ["s0"],
            "basis": ["proven"],
            "at": last,
            "kind": ["scalar"],
            "frontier": [5],
            "frontier_inclusive": [True],
            "limiting_partitions": [["p0"]],
        }
    )
    frontiers = pl.DataFrame(
        {
            "as_of": pl.Series([1_767_225_605_000_000_000]).cast(pl.Datetime("ns")),
            "scope_id": ["s0"],
            "basis": ["proven"],
            "kind": ["scalar"],
            "frontier": [5],
            "frontier_inclusive": [True],
        }
    )
    findings = pl.DataFrame(
        {
            "rule": ["skipped_event"],
            "scope_id": ["s0"],
            "partition_id": ["p0"],
            "event_id": ["e1"],
            "at": last,
            "evidence": ["{}"],
        }
    )
    with pytest.raises(UsageError, match="before the history's last row"):
        investigate.findings_on_timeline(findings, history, frontiers)
    # at the last row's own instant it is taken
    at_t = frontiers.with_columns(as_of=last)
    assert investigate.findings_on_timeline(findings, history, at_t).height == 1


def test_a_proven_frontier_evaluated_50_ns_before_t_is_not_drawn_as_if_at_t() -> None:
    """The proven frontier's last evaluated instant lies 50 ns before T, and the frontier
    fell to 2 by T: the picture ends the line there and marks 2 at T. As float seconds
    the two instants were one, and the line ran on to T at 5 with no mark."""
    t_ns = 1_767_225_605_000_000_100  # 2026-01-01T00:00:05.000000100
    history = pl.DataFrame(
        {
            "scope_id": ["s0", "s0"],
            "basis": ["proven", "claimed"],
            "at": pl.Series([t_ns - 50, t_ns - 50]).cast(pl.Datetime("ns")),
            "kind": ["scalar", "scalar"],
            "frontier": [5, 5],
            "frontier_inclusive": [True, True],
            "limiting_partitions": [["p0"], ["p0"]],
        }
    )
    frontiers = pl.DataFrame(
        {
            "as_of": pl.Series([t_ns, t_ns]).cast(pl.Datetime("ns")),
            "scope_id": ["s0", "s0"],
            "basis": ["proven", "claimed"],
            "kind": ["scalar", "scalar"],
            "frontier": [2, 5],
            "frontier_inclusive": [True, True],
        }
    )
    # T as the analysis gives it: exact text, or a datetime (to the microsecond)
    for as_of in ("2026-01-01T00:00:05.000000100", datetime(2026, 1, 1, 0, 0, 5)):
        figure = plots.frontier_timeline(history, "s0", as_of, frontiers=frontiers)
        lines = {line.get_label(): line for line in figure.axes[0].get_lines()}
        assert list(lines["proven frontier at T"].get_ydata()) == [2], as_of
        assert "claimed frontier at T" not in lines  # claims change at writes only
    # a table 500 ns off T given as text is another T's
    with pytest.raises(UsageError, match="another T"):
        plots.frontier_timeline(history, "s0", "2026-01-01T00:00:05.000000600", frontiers=frontiers)
