"""frontier/member_spans: where each partition is a member of the epoch in force, as
stretches of instants, the spans of consecutive epochs it is a member of joined into
one (every segment of the frontier is clipped to them by a join on the partition:
a row per epoch multiplied the segments by the epochs). Held here to a plain
reference on drawn epochs and memberships: a partition that leaves and comes back
has two stretches, never one across the epochs it was out."""

from __future__ import annotations

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconcile.sql import load
from tests.conftest import examples

PARTITIONS = ("a", "b", "c")

# per epoch, in order: how many instants it holds, and which partitions are members
epochs = st.lists(
    st.tuples(st.integers(1, 4), st.sets(st.sampled_from(PARTITIONS))),
    min_size=1,
    max_size=8,
)


def _reference(drawn: list[tuple[int, set[str]]]) -> set[tuple[str, int, int]]:
    """Each partition's maximal runs of consecutive epochs it is a member of, as
    instant ranges [lo, hi)."""
    bounds, start = [], 0
    for width, _ in drawn:
        bounds.append((start, start + width))
        start += width
    stretches = set()
    for partition in PARTITIONS:
        run: tuple[int, int] | None = None
        for (lo, hi), (_, members) in zip(bounds, drawn, strict=True):
            if partition in members:
                run = (run[0], hi) if run else (lo, hi)
            elif run:
                stretches.add((partition, *run))
                run = None
        if run:
            stretches.add((partition, *run))
    return stretches


def _query(drawn: list[tuple[int, set[str]]]) -> list[tuple[str, int, int]]:
    con = duckdb.connect()
    con.execute("CREATE TABLE rc_instants (scope_id VARCHAR, idx BIGINT, epoch BIGINT)")
    con.execute(
        "CREATE TABLE rc_members (scope_id VARCHAR, epoch BIGINT, partition_id VARCHAR,"
        " role VARCHAR)"
    )
    idx = 0
    for epoch, (width, members) in enumerate(drawn, 1):
        for _ in range(width):
            con.execute("INSERT INTO rc_instants VALUES ('s', ?, ?)", [idx, epoch])
            idx += 1
        for partition in PARTITIONS:
            role = "member" if partition in members else "retired"
            con.execute("INSERT INTO rc_members VALUES ('s', ?, ?, ?)", [epoch, partition, role])
    rows = con.execute(
        f"SELECT partition_id, lo, hi FROM ({load('frontier/member_spans')})"
    ).fetchall()
    return [(str(p), int(lo), int(hi)) for p, lo, hi in rows]


def test_a_partition_out_for_an_epoch_has_two_stretches() -> None:
    drawn = [(2, {"a", "b"}), (3, {"a"}), (1, {"a", "b"})]
    assert sorted(_query(drawn)) == [("a", 0, 6), ("b", 0, 2), ("b", 5, 6)]


@pytest.mark.slow
@settings(max_examples=examples(100), deadline=None)
@given(drawn=epochs)
def test_member_spans_are_the_runs_of_consecutive_epochs(
    drawn: list[tuple[int, set[str]]],
) -> None:
    found = _query(drawn)
    assert len(found) == len(set(found))
    assert set(found) == _reference(drawn)
