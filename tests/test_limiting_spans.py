"""Who held the frontier when (``investigate/limiting_spans``, read by
``investigate.limiting_spans``, ``holders`` and ``longest_hold``), held to a plain
reference on drawn tables.

The query merges a partition's pieces at one value into stays. On the proven basis
the pieces of one partition may overlap, and one piece may lie inside another: a
stay runs on while any piece before it still covers the next evaluated instant, not
only the piece just before it. No bundled or drawn log set makes such pieces, so the
query is run here on its input tables alone (the frontier at each instant, and the
holders' stretches), drawn to overlap and nest.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconcile.sql import load
from tests.conftest import examples

T0 = datetime(2026, 1, 1)
SCOPES = ("s0", "s1")
PARTITIONS = ("p0", "p1")

Cert = tuple[int, int]  # (v, i)
# scope_id, basis, idx, history, epoch, frontier
Instant = tuple[str, str, int, bool, int, Cert | None]
# scope_id, partition_id, lo, hi, v
Piece = tuple[str, str, int, int, Cert]

# few values, so that a partition's pieces often share one and meet, overlap or nest
certs = st.sampled_from(((1, 1), (2, 1), (2, 0)))


@st.composite
def frontiers(draw: Any) -> list[Instant]:
    """Each scope's instants on both bases: whether the history keeps them, a
    non-decreasing epoch, and a frontier of few values (or none: a vector)."""
    rows: list[Instant] = []
    for scope in SCOPES:
        n = draw(st.integers(0, 12))
        for basis in ("claimed", "proven"):
            epoch = 1
            frontier: Cert | None = draw(certs)
            for idx in range(n):
                epoch += draw(st.sampled_from((0, 0, 0, 1)))
                kept = draw(st.sampled_from((True, True, True, False)))
                # mostly the value before: runs of one value, where stays are long
                if draw(st.integers(0, 7)) == 0:
                    frontier = draw(st.one_of(st.none(), certs, certs, certs))
                rows.append((scope, basis, idx, kept, epoch, frontier))
    return rows


@st.composite
def pieces(draw: Any, instants: list[Instant] | None = None) -> list[Piece]:
    """Stretches [lo, hi) of instants where a partition's certificate of value v
    holds the frontier when the frontier is v: apart, meeting, overlapping, and
    nested (short pieces inside a long one, apart from each other) on purpose."""
    found: list[Piece] = []
    for scope in SCOPES:
        for pid in PARTITIONS:
            # mostly a value the scope's frontier takes somewhere, so that it holds
            seen = sorted({f for sc, _, _, _, _, f in instants or () if sc == scope and f})
            value = draw(st.sampled_from(seen) if seen and draw(st.integers(0, 3)) else certs)
            for _ in range(draw(st.integers(0, 4))):
                lo = draw(st.integers(0, 12))
                hi = draw(st.integers(lo, 14))
                v = value if draw(st.integers(0, 3)) else draw(certs)
                found.append((scope, pid, lo, hi, v))
            if draw(st.booleans()):
                lo = draw(st.integers(0, 8))
                hi = draw(st.integers(lo + 4, 14))
                found.append((scope, pid, lo, hi, value))
                for _ in range(draw(st.integers(1, 3))):
                    inner = draw(st.integers(lo + 1, hi - 2))
                    found.append((scope, pid, inner, inner + draw(st.integers(1, 2)), value))
    return found


def _time(idx: int) -> datetime:
    return T0 + timedelta(seconds=10 * idx)


def _spans_query(
    instants: list[Instant], claimed: list[Piece], proven: list[Piece], basis: str
) -> list[tuple[Any, ...]]:
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute(
        "CREATE TABLE rc_frontier_at (scope_id VARCHAR, basis VARCHAR, idx BIGINT,"
        " t TIMESTAMP_NS, history BOOLEAN, epoch BIGINT, kind VARCHAR,"
        " frontier STRUCT(v BIGINT, i INTEGER))"
    )
    for name in ("rc_claimed_holders", "rc_proven_holders"):
        con.execute(
            f"CREATE TABLE {name} (scope_id VARCHAR, partition_id VARCHAR, lo BIGINT,"
            " hi BIGINT, v STRUCT(v BIGINT, i INTEGER))"
        )
    rows = [
        (
            scope,
            b,
            idx,
            _time(idx),
            kept,
            epoch,
            "vector" if frontier is None else "scalar",
            None if frontier is None else {"v": frontier[0], "i": frontier[1]},
        )
        for scope, b, idx, kept, epoch, frontier in instants
    ]
    if rows:
        con.executemany("INSERT INTO rc_frontier_at VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    for name, given_pieces in (("rc_claimed_holders", claimed), ("rc_proven_holders", proven)):
        if given_pieces:
            con.executemany(
                f"INSERT INTO {name} VALUES (?, ?, ?, ?, ?)",
                [(s, p, lo, hi, {"v": v[0], "i": v[1]}) for s, p, lo, hi, v in given_pieces],
            )
    rows = con.execute(load("investigate/limiting_spans"), {"basis": basis}).fetchall()
    return [
        (scope, pid, at, last, until, epoch, (frontier, 1 if inclusive else 0))
        for scope, pid, at, last, until, epoch, frontier, inclusive in rows
    ]


def _spans_reference(
    instants: list[Instant], claimed: list[Piece], proven: list[Piece], basis: str
) -> list[tuple[Any, ...]]:
    """The plain reading: the history's instants of the basis, numbered in order; a
    partition holds at one of them where the frontier there is v and one of its pieces
    of value v covers the instant; a stay is a run of consecutive numbers at which it
    holds at one value."""
    held = claimed if basis == "claimed" else proven
    stays: list[tuple[Any, ...]] = []
    for scope in SCOPES:
        hist = sorted(
            (idx, epoch, frontier)
            for s, b, idx, kept, epoch, frontier in instants
            if s == scope and b == basis and kept
        )
        for pid in PARTITIONS:
            for v in sorted({p[4] for p in held if p[0] == scope and p[1] == pid}):
                holds = [
                    frontier == v
                    and any(
                        s == scope and p == pid and pv == v and lo <= idx < hi
                        for s, p, lo, hi, pv in held
                    )
                    for idx, _, frontier in hist
                ]
                k = 0
                while k < len(hist):
                    if not holds[k]:
                        k += 1
                        continue
                    first = k
                    while k + 1 < len(hist) and holds[k + 1]:
                        k += 1
                    until = _time(hist[k + 1][0]) if k + 1 < len(hist) else None
                    stays.append(
                        (
                            scope,
                            pid,
                            _time(hist[first][0]),
                            _time(hist[k][0]),
                            until,
                            hist[first][1],
                            v,
                        )
                    )
                    k += 1
    return stays


def _sorted(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return sorted(rows, key=lambda r: (r[0], r[2], r[1], r[3], r[6]))


@pytest.mark.slow
@settings(max_examples=examples(150), deadline=None)
@given(data=st.data(), basis=st.sampled_from(("claimed", "proven")))
def test_stays_equal_the_plain_runs_of_held_instants(data: st.DataObject, basis: str) -> None:
    instants = data.draw(frontiers())
    claimed = data.draw(pieces(instants))
    proven = data.draw(pieces(instants))
    found = _spans_query(instants, claimed, proven, basis)
    assert _sorted(found) == _sorted(_spans_reference(instants, claimed, proven, basis))


def test_a_piece_inside_a_longer_one_does_not_end_the_stay() -> None:
    """p0's proven certificate holds the frontier 5 from instant 0 to 5 by one piece;
    two shorter pieces lie inside it, the second not touching the first. One stay,
    from instant 0 to 5: the second short piece continues the long one, not the
    short one before it."""
    instants: list[Instant] = [("s0", "proven", i, True, 1, (5, 1)) for i in range(6)]
    proven: list[Piece] = [
        ("s0", "p0", 0, 6, (5, 1)),
        ("s0", "p0", 1, 2, (5, 1)),
        ("s0", "p0", 4, 5, (5, 1)),
    ]
    found = _spans_query(instants, [], proven, "proven")
    assert found == [("s0", "p0", _time(0), _time(5), None, 1, (5, 1))]
    assert found == _spans_reference(instants, [], proven, "proven")


def test_pieces_that_meet_make_one_stay() -> None:
    """p0's proven certificate holds the frontier 5 over instants 0-2 by one piece
    and 3-5 by another: one stay, from instant 0 to 5."""
    instants: list[Instant] = [("s0", "proven", i, True, 1, (5, 1)) for i in range(6)]
    proven: list[Piece] = [("s0", "p0", 0, 3, (5, 1)), ("s0", "p0", 3, 6, (5, 1))]
    found = _spans_query(instants, [], proven, "proven")
    assert found == [("s0", "p0", _time(0), _time(5), None, 1, (5, 1))]
    assert found == _spans_reference(instants, [], proven, "proven")
