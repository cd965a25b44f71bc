"""The segment tree in SQL (``reconcile/sql/tree``): the least value of the intervals
covering each point, checked against a plain scan of every interval for every point,
on drawn intervals, values and points. The frontier's history and the exact evaluator
both take their minimum from it, so a block it drops or a node it misplaces would
move a frontier."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconcile.engine.namespace import bound
from reconcile.sql import load
from tests.conftest import examples

GROUPS = ["", "a", "b"]
Interval = tuple[str, int, int, tuple[int, int]]
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# value, then the inclusive mark: CERT orders by both; the ends of int64 among them
# (the tree compares certificates by a key, rc_cert_key, that must hold them)
ENDS = [INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX - 1, INT64_MAX]
values = st.tuples(st.integers(-5, 5) | st.sampled_from(ENDS), st.integers(0, 1))
# lengths near a power of two far out, where a float's log2 rounds up
FAR = [2**49 - 1, 2**49 + 4, 2**50 + 4, 2**55 + 4, 2**61 + 4, 2**62 - 1]
near = st.integers(0, 70) | st.sampled_from([0, 1, 63, 64, 65, 127, 128, 129, 1023])
bounds = near | st.sampled_from(FAR)
intervals = st.lists(st.tuples(st.sampled_from(GROUPS), bounds, bounds, values), max_size=25)
# the query walks every block of the points' span: points stay near
points = st.lists(st.tuples(st.sampled_from(GROUPS), near), max_size=30, unique=True)


def _reference(given_intervals: list[Interval], grp: str, idx: int) -> tuple[int, int] | None:
    covering = [v for g, lo, hi, v in given_intervals if g == grp and lo <= idx < hi]
    return min(covering) if covering else None


def _tree(
    given_intervals: list[Interval], given_points: list[tuple[str, int]]
) -> dict[tuple[str, int], tuple[int, int] | None]:
    con = duckdb.connect()
    # a tree gone wrong fails here, rather than spilling without end
    con.execute("SET memory_limit = '1GB'; SET max_temp_directory_size = '256MB'")
    con.execute(load("macros_int64"))
    con.execute(
        "CREATE TABLE intervals (grp VARCHAR, lo BIGINT, hi BIGINT, v STRUCT(v BIGINT, i INTEGER))"
    )
    con.execute("CREATE TABLE points (grp VARCHAR, idx BIGINT)")
    for grp, lo, hi, (v, i) in given_intervals:
        con.execute("INSERT INTO intervals VALUES (?, ?, ?, {'v': ?, 'i': ?})", [grp, lo, hi, v, i])
    for grp, idx in given_points:
        con.execute("INSERT INTO points VALUES (?, ?)", [grp, idx])
    nodes = bound(load("tree/nodes"), (("rc_tree_in", "intervals"),))
    con.execute(f"CREATE TABLE nodes AS {nodes}")
    query = bound(load("tree/query"), (("rc_tree_nodes", "nodes"), ("rc_tree_points", "points")))
    rows = con.execute(f"SELECT grp, idx, v FROM ({query})").fetchall()
    out: dict[tuple[str, int], tuple[int, int] | None] = {}
    for grp, idx, v in rows:
        assert (grp, idx) not in out, "a point answered twice"
        out[(grp, idx)] = None if v is None else (v["v"], v["i"])
    return out


@pytest.mark.slow  # a property test of 8-12 s: outside the fast tier
@settings(max_examples=examples(200), deadline=None)
@given(intervals, points)
def test_the_tree_gives_each_point_the_least_interval_covering_it(
    given_intervals: list[Interval],
    given_points: list[tuple[str, int]],
) -> None:
    out = _tree(given_intervals, given_points)
    assert set(out) == set(given_points)
    for grp, idx in given_points:
        assert out[(grp, idx)] == _reference(given_intervals, grp, idx), (grp, idx)


def test_a_long_interval_under_many_short_ones() -> None:
    # halves of one length and start share a block: the lower value must win there,
    # and a point covered by the long interval alone keeps its value
    intervals_ = [("", 0, 1000, (7, 0)), ("", 3, 9, (5, 1)), ("", 3, 9, (4, 0)), ("", 5, 6, (9, 0))]
    points_ = [("", 0), ("", 3), ("", 5), ("", 8), ("", 9), ("", 999), ("", 1000)]
    out = _tree(intervals_, points_)
    assert out == {
        ("", 0): (7, 0),
        ("", 3): (4, 0),
        ("", 5): (4, 0),
        ("", 8): (4, 0),
        ("", 9): (7, 0),
        ("", 999): (7, 0),
        ("", 1000): None,
    }


def test_an_interval_just_short_of_a_power_of_two_keeps_its_start() -> None:
    """log2 of 2^50 + 4 - 5 rounds to 50 in floating point: the halves must still
    start at the interval's start, not one before it."""
    for hi in (2**50 + 4, 2**55 + 4, 2**61 + 4, 2**62 + 4):
        out = _tree([("", 5, hi, (1, 0))], [("", x) for x in range(12)])
        assert out == {("", x): (1, 0) if x >= 5 else None for x in range(12)}, hi


def test_an_interval_of_two_to_the_62_points_is_refused() -> None:
    with pytest.raises(duckdb.Error, match="2\\^62 points"):
        _tree([("", 0, 2**62 + 5, (1, 0))], [("", 3)])


def _check_keys(flavour: str, certs: list[Any]) -> None:
    """Each certificate's key (rc_cert_key, in the engine's macros of ``flavour``) is
    null exactly for a null certificate, keys sort as their certificates do, and the
    certificate made from a key again (rc_key_cert) is the certificate."""
    con = duckdb.connect()
    con.execute(load(f"macros_{flavour}"))
    coord = "BIGINT" if flavour == "int64" else "TIMESTAMP_NS"
    con.execute(f"CREATE TABLE c (n INTEGER, cert STRUCT(v {coord}, i INTEGER))")
    for n, cert in enumerate(certs):
        if cert is None:
            con.execute("INSERT INTO c VALUES (?, NULL)", [n])
        else:
            row = f"(?, {{'v': CAST(? AS {coord}), 'i': ?}})"
            con.execute(f"INSERT INTO c VALUES {row}", [n, *cert])
    rows = con.execute(
        "SELECT rc_cert_key(cert), rc_key_cert(rc_cert_key(cert)) FROM c ORDER BY n"
    ).fetchall()
    assert [None if back is None else (back["v"], back["i"]) for _, back in rows] == certs
    assert [key is None for key, _ in rows] == [cert is None for cert in certs]
    present = [(cert, key) for cert, (key, _) in zip(certs, rows, strict=True) if cert is not None]
    assert sorted(present, key=lambda p: p[0]) == sorted(present, key=lambda p: p[1])


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(st.none() | values, min_size=1, max_size=12))
def test_certificate_keys_sort_as_certificates_and_come_back(
    certs: list[tuple[int, int] | None],
) -> None:
    _check_keys("int64", certs)


EPOCH = datetime(1970, 1, 1)
# the engine's times are int64 nanoseconds (1677-09-21 to 2262-04-11); these lie
# inside, far on either side of the epoch (Python's datetime holds microseconds)
TIMES = [EPOCH + timedelta(microseconds=m) for m in (-(2**62) // 1000, -1, 0, 1, 2**62 // 1000)]


@settings(max_examples=examples(30), deadline=None)
@given(
    st.lists(
        st.none()
        | st.tuples(
            st.sampled_from(TIMES) | st.datetimes(EPOCH, datetime(2200, 1, 1)), st.integers(0, 1)
        ),
        min_size=1,
        max_size=12,
    )
)
def test_timestamp_certificate_keys_sort_as_certificates_and_come_back(
    certs: list[tuple[datetime, int] | None],
) -> None:
    _check_keys("timestamp", certs)
