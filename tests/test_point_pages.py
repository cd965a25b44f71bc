"""history/point_pages: the page windows open at each point of the exact evaluator.
Windows that outlive their partition's next page (pages handled side by side) can be
open several at once; the query matches them to the points through cells of time (an
equi-join, then the time check), and a window much longer than a cell by partition
alone. Held here to the plain rule on drawn windows and points: a window [fetched_at,
end_t) is open at t when fetched_at <= t < end_t."""

from __future__ import annotations

from datetime import datetime, timedelta

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconcile.sql import load
from tests.conftest import examples

T0 = datetime(2026, 1, 1)

windows = st.lists(
    st.tuples(
        st.sampled_from(["a", "b"]),
        st.integers(0, 60),
        # mostly short, some far longer than the typical one (matched by partition)
        st.one_of(st.integers(0, 12), st.integers(500, 5000)),
    ),
    max_size=14,
)
points = st.lists(st.tuples(st.sampled_from(["a", "b"]), st.integers(-5, 400)), max_size=14)


def _open(drawn: list[tuple[str, int, int]], at: list[tuple[str, int]]) -> set[tuple[int, str]]:
    """(point, page) for every window that outlives its next page and is open at the
    point's instant."""
    return {
        (n, f"g{k}")
        for n, (partition, t) in enumerate(at)
        for k, (own, start, length) in enumerate(drawn)
        if own == partition and start <= t < start + length
    }


def _query(drawn: list[tuple[str, int, int]], at: list[tuple[str, int]]) -> set[tuple[int, str]]:
    con = duckdb.connect()
    con.execute(load("macros_int64"))
    con.execute(load("macros"))
    con.execute("CREATE MACRO rc_as_of() AS TIMESTAMP_NS '2030-01-01'")
    con.execute(
        "CREATE TABLE rc_page_windows (scope_id VARCHAR, partition_id VARCHAR,"
        " page_id VARCHAR, discrete BOOLEAN, fetched_at TIMESTAMP_NS,"
        " complete_at TIMESTAMP_NS, min_position BIGINT, first_own_at TIMESTAMP_NS,"
        " last_own_at TIMESTAMP_NS, own_min_pos BIGINT, tail_pos BIGINT,"
        " end_t TIMESTAMP_NS, outlives_next BOOLEAN, mutable BOOLEAN)"
    )
    con.execute(
        "CREATE TABLE rc_points (point_id BIGINT, scope_id VARCHAR, partition_id VARCHAR,"
        " t TIMESTAMP_NS)"
    )
    for k, (partition, start, length) in enumerate(drawn):
        fetched = T0 + timedelta(seconds=start)
        end = fetched + timedelta(seconds=length)
        con.execute(
            "INSERT INTO rc_page_windows VALUES ('s', ?, ?, true, ?, NULL, 1, NULL, NULL,"
            " NULL, 1, ?, true, false)",
            [partition, f"g{k}", fetched, end],
        )
    for n, (partition, t) in enumerate(at):
        con.execute(
            "INSERT INTO rc_points VALUES (?, 's', ?, ?)",
            [n, partition, T0 + timedelta(seconds=t)],
        )
    rows = con.execute(f"SELECT point_id, page_id FROM ({load('history/point_pages')})").fetchall()
    assert len(rows) == len(set(rows)), "a window matched twice to a point"
    return {(int(n), str(page)) for n, page in rows}


def test_windows_side_by_side_and_a_long_one() -> None:
    drawn = [("a", 0, 10), ("a", 5, 10), ("a", 8, 3000), ("b", 0, 10)]
    at = [("a", 9), ("a", 12), ("a", 2000), ("b", 9), ("a", 10)]
    assert _query(drawn, at) == _open(drawn, at)


@pytest.mark.slow
@settings(max_examples=examples(100), deadline=None)
@given(drawn=windows, at=points)
def test_the_open_windows_are_those_the_plain_rule_gives(
    drawn: list[tuple[str, int, int]], at: list[tuple[str, int]]
) -> None:
    assert _query(drawn, at) == _open(drawn, at)
