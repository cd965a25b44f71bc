"""The proven frontier's history takes the receiving steps of a page (its block, step
by step, while its receipts come) only where they can hold the frontier
(rc_contending_pages): a page whose least block lies above a bound from above on the
frontier at every instant of its window is left out. These tests hold that choice to
what it must never change: the frontier history, the frontier at every instant, and
its limiting partitions are those computed from every step."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconcile import Analysis, open_logset
from reconcile.engine.plan import plan
from reconcile.engine.registry import OUTPUTS, PARTITION_ONLY, PARTITION_PHASE, REGISTRY
from reconcile.sql import load
from reconcile_schemas import TABLES
from tests.conftest import examples
from tests.logsets import checkpoint, page, receipt, write_logset
from tests.strategies import logsets, moment


def _every_step(analysis: Analysis) -> pa.Table:
    """rc_moving_steps as rc_contending_steps: every page's steps, none left out."""
    return analysis.arrow("rc_moving_steps")["rc_moving_steps"]


def _compare(path: Path, as_of: Any = None) -> tuple[Analysis, Analysis]:
    """The analysis as it runs, and one given every receiving step."""
    logset = open_logset(path)
    chosen = Analysis(logset, as_of)
    given_all = Analysis(logset, as_of)
    given_all.preset({"rc_contending_steps": _every_step(Analysis(logset, as_of))})
    for table in ("rc_frontier_history", "rc_frontier_at"):
        want = given_all.read(table)
        got = chosen.read(table)
        keys = [c for c in want.columns if not want.schema[c].is_nested()]
        assert got.sort(keys, nulls_last=True).equals(want.sort(keys, nulls_last=True)), table
    return chosen, given_all


def _two_partitions() -> dict[str, list[dict[str, Any]]]:
    """'slow' holds the frontier; 'fast' is a hundred positions ahead, its page's
    receipts coming between the same instants."""
    rows: dict[str, list[dict[str, Any]]] = {"checkpoints": [], "receipts": [], "pages": []}
    for name, base, offset in (("slow", 0, 0.0), ("fast", 100, 0.5)):
        rows["pages"].append(
            page(
                f"{name}-1",
                0,
                4,
                base + 1,
                base + 4,
                partition=name,
                finality_through=base + 4,
                finality_inclusive=True,
            )
        )
        for i in range(1, 5):
            rows["receipts"].append(
                receipt(
                    f"{name}-e{i}",
                    base + i,
                    partition=name,
                    page_id=f"{name}-1",
                    recorded=2.0 * i - 1 + offset,
                )
            )
            rows["checkpoints"].append(
                checkpoint(name, i, base + i, written=2.0 * i + offset, page_id=f"{name}-1")
            )
    return rows


def test_a_page_far_above_the_frontier_is_left_out_and_the_history_is_unchanged(
    tmp_path: Path,
) -> None:
    path = write_logset(tmp_path / "ls", _two_partitions(), "int64")
    chosen, _ = _compare(path)
    steps = chosen.read("rc_moving_steps")
    assert set(steps["page_id"]) == {"slow-1", "fast-1"}, "both pages step while receipts come"
    contending = chosen.read("rc_contending_pages")
    assert contending["page_id"].to_list() == ["slow-1"]
    proven = chosen.frontier_history().filter(pl.col("basis") == "proven")
    # the slow page's block, receipt by receipt: before position 2, 3, 4 (inclusive
    # form: 1, 2, 3), then its finality once its last event came
    assert proven["frontier"].to_list() == [0, 1, 2, 4]
    assert proven["limiting_partitions"].to_list() == [["slow"]] * 4


def test_a_page_that_holds_the_frontier_is_kept(tmp_path: Path) -> None:
    rows = _two_partitions()
    # the fast partition's page now lies at the slow one's positions, and the slow
    # partition's receipts all come at once: the fast page holds the frontier
    for row in rows["pages"] + rows["receipts"] + rows["checkpoints"]:
        for column in ("min_position", "max_position", "finality_through", "position", "watermark"):
            if row.get(column) is not None and row["partition_id"] == "fast":
                row[column] -= 100
    for row in rows["receipts"]:
        if row["partition_id"] == "slow":
            row["recorded_at"] = rows["receipts"][0]["recorded_at"]
    path = write_logset(tmp_path / "ls", rows, "int64")
    chosen, _ = _compare(path)
    assert chosen.read("rc_contending_pages")["page_id"].to_list() == ["fast-1"]
    proven = chosen.frontier_history().filter(pl.col("basis") == "proven")
    assert proven["frontier"].to_list() == [0, 1, 2, 4]
    assert proven["limiting_partitions"].to_list()[:3] == [["fast"]] * 3


def test_the_contending_pages_can_be_read_alone(tmp_path: Path) -> None:
    """A table read by a view (the bound's tree reads rc_base_segments through one)
    lives as long as the view is read, also when a run stops at the view's reader."""
    path = write_logset(tmp_path / "ls", _two_partitions(), "int64")
    with open_logset(path) as logset, Analysis(logset) as analysis:
        analysis.read("rc_receiving_windows")
        assert analysis.read("rc_contending_pages").height == 1


# The choice itself, on drawn bounds and windows: a scope's bound per instant (rising,
# falling, or missing: None), and windows [lo, hi) of pages with their least block.
Window = tuple[str, str, int, int, int]
scoped_bounds = st.lists(st.none() | st.integers(-3, 3), min_size=2, max_size=16)
windows = st.lists(
    st.tuples(
        st.sampled_from(["s0", "s1"]),
        st.sampled_from(["g1", "g2", "g3", "g4", "g5", "g6"]),
        st.integers(0, 15),
        st.integers(1, 8),
        st.integers(-4, 4),
    ).map(lambda w: (w[0], w[1], w[2], w[2] + w[3], w[4])),
    max_size=20,
)


def _contending_reference(
    given_bounds: dict[str, list[int | None]], given_windows: list[Window]
) -> set[tuple[str, str]]:
    """The pages with a window whose least block is at or below the greatest bound
    over the window's instants, or whose instants have no bound."""
    kept = set()
    for scope, page_id, lo, hi, low in given_windows:
        inside = [b for b in given_bounds[scope][lo:hi] if b is not None]
        if not inside or low <= max(inside):
            kept.add((scope, page_id))
    return kept


def _contending_query(
    given_bounds: dict[str, list[int | None]], given_windows: list[Window]
) -> set[tuple[str, str]]:
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE rc_bound_min (scope_id VARCHAR, idx BIGINT, v STRUCT(v BIGINT, i INTEGER))"
    )
    con.execute(
        "CREATE TABLE rc_receiving_windows (scope_id VARCHAR, partition_id VARCHAR,"
        " page_id VARCHAR, lo BIGINT, hi BIGINT, low STRUCT(v BIGINT, i INTEGER),"
        " high STRUCT(v BIGINT, i INTEGER))"
    )
    # the drawn values are integers and fixed names: written as literals, one statement
    bound_rows = [
        f"('{scope}', {idx}, {{'v': {'NULL' if v is None else v}, 'i': 1}})"
        for scope, values in given_bounds.items()
        for idx, v in enumerate(values)
    ]
    con.execute(f"INSERT INTO rc_bound_min VALUES {', '.join(bound_rows)}")
    window_rows = [
        f"('{scope}', 'p', '{page_id}', {lo}, {hi}, {{'v': {low}, 'i': 0}}, NULL)"
        for scope, page_id, lo, hi, low in given_windows
    ]
    if window_rows:
        con.execute(f"INSERT INTO rc_receiving_windows VALUES {', '.join(window_rows)}")
    rows = con.execute(f"SELECT scope_id, page_id FROM ({load('frontier/contending_pages')})")
    found = rows.fetchall()
    assert len(found) == len(set(found))
    return set(found)


@pytest.mark.slow
@settings(max_examples=examples(100), deadline=None)
@given(first=scoped_bounds, second=scoped_bounds, drawn=windows)
def test_the_contending_pages_are_those_a_window_maximum_keeps(
    first: list[int | None], second: list[int | None], drawn: list[Window]
) -> None:
    """Where the bound falls inside a window its greatest value is not at the window's
    end: the query must find it all the same (and where it only rises, it is there)."""
    given_bounds = {"s0": first, "s1": second}
    assert _contending_query(given_bounds, drawn) == _contending_reference(given_bounds, drawn)


def test_a_bound_that_falls_inside_a_window_keeps_the_page() -> None:
    """The bound is 5 at instant 1 and 0 at instants 2 and 3: a page whose window spans
    them, its least block 4, can hold the frontier at instant 1."""
    given_bounds: dict[str, list[int | None]] = {"s0": [0, 5, 0, 0], "s1": []}
    assert _contending_query(given_bounds, [("s0", "g1", 0, 4, 4)]) == {("s0", "g1")}
    assert _contending_query(given_bounds, [("s0", "g1", 2, 4, 4)]) == set()


def _producers(**where: Any) -> dict[str, str]:
    every = set(TABLES)
    order = plan(REGISTRY, OUTPUTS, present=every, contract=TABLES, **where)
    return {step.name: getattr(step, "query", "") for step in order.steps}


def test_the_receiving_steps_come_from_the_receipts_unless_a_phase_cannot_read_them() -> None:
    """On the whole log set the contending pages' steps are made from their receipts
    alone (every page's steps, rc_moving_steps, are never made); the scope's phase,
    which reads no receipts, takes them from the steps its buckets made."""
    whole = _producers(available=set())
    assert whole["rc_contending_steps"] == "history/moving_steps"
    assert "rc_moving_steps" not in whole
    scope = _producers(
        available=set(PARTITION_PHASE) | {"rc_partition_findings"}, never_reads=PARTITION_ONLY
    )
    assert scope["rc_contending_steps"] == "frontier/contending_steps"


# the reference test (tests/test_frontier_reference.py) draws 120 of these log sets
# through the engine as it runs; this one compares with every step, a few are enough
@pytest.mark.slow
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=logsets(), cut=st.one_of(st.none(), st.integers(0, 12)))
def test_leaving_out_pages_changes_no_frontier(case: dict[str, Any], cut: int | None) -> None:
    tables = {k: v for k, v in case["tables"].items() if v}
    with tempfile.TemporaryDirectory() as folder:
        path = write_logset(Path(folder) / "ls", tables, case["coordinate"])
        as_of = None if cut is None else moment(cut)
        chosen, _ = _compare(path, as_of)
        # the bound is at or above the proven minimum wherever both have a value
        both = chosen.read("rc_bound_min").join(
            chosen.read("rc_proven_min"), on=["scope_id", "idx"], suffix="_proven"
        )
        for bound, proven in zip(both["v"].to_list(), both["v_proven"].to_list(), strict=True):
            if bound is not None and proven is not None:
                assert (bound["v"], bound["i"]) >= (proven["v"], proven["i"])
