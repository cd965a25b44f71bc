"""Lookups (reconcile.engine.lookups): functions a query calls, built from a working
table (a Python function over Arrow chunks).
``rc_instant_no`` gives a time its instant number, the first instant at or after it
in its scope: checked against a plain search, and against the ASOF join it replaces,
on drawn instants and times; ``rc_instant_span`` gives two times' numbers at once."""

from __future__ import annotations

import bisect
from datetime import datetime, timedelta
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconcile import open_logset
from reconcile.engine import Analysis, lookups
from reconcile.engine.declare import Lookup, Step, table
from reconcile.engine.namespace import Namespace
from reconcile.engine.steps.frontier import INSTANT_NO, INSTANT_SPAN
from reconcile.errors import InternalError
from reconcile_schemas import CoordinateType
from tests.conftest import examples

DATA = Path(__file__).resolve().parents[1] / "data"
BASE = datetime(2026, 1, 1)

# scope -> instants as offsets in seconds (the table keeps them distinct per scope)
# about 348 years before BASE, as the engine's dawn sentinel is: a time that far
# from the others overflows their difference in int64 nanoseconds
FAR = -10_980_000_000
offsets = st.integers(0, 40) | st.just(FAR)
instants = st.dictionaries(
    st.sampled_from(["a", "b", "c"]),
    st.sets(offsets, max_size=12),
    min_size=1,
)
times = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c"]), st.none() | st.integers(-2, 45) | st.just(FAR))
)


def _reference(by_scope: dict[str, set[int]], scope: str, t: int | None) -> int | None:
    """The number of the first instant at or after ``t`` among the scope's,
    instants numbered scope by scope in time order; past the scope's last when none;
    None for a null time or a scope without instants."""
    numbered = [(s, x) for s in sorted(by_scope) for x in sorted(by_scope[s])]
    own = [i for i, (s, _) in enumerate(numbered) if s == scope]
    if t is None or not own:
        return None
    offsets = [numbered[i][1] for i in own]
    return own[0] + bisect.bisect_left(offsets, t)


def _namespace(by_scope: dict[str, set[int]], asked: list[tuple[str, int | None]]) -> Namespace:
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    ns = Namespace(con, CoordinateType.INT64)
    rows = [(s, BASE + timedelta(seconds=x)) for s in by_scope for x in by_scope[s]]
    ns.cursor.execute("CREATE TEMP TABLE raw (scope_id VARCHAR, t TIMESTAMP_NS)")
    if rows:
        ns.cursor.executemany("INSERT INTO raw VALUES (?, ?)", rows)
    ns.cursor.execute(
        "CREATE TEMP TABLE rc_instants AS SELECT scope_id, t,"
        " row_number() OVER (ORDER BY scope_id, t) - 1 AS idx FROM raw"
    )
    ns.cursor.execute("CREATE TEMP TABLE asked (k INTEGER, scope_id VARCHAR, t TIMESTAMP_NS)")
    values = [
        (k, s, None if x is None else BASE + timedelta(seconds=x)) for k, (s, x) in enumerate(asked)
    ]
    if values:
        ns.cursor.executemany("INSERT INTO asked VALUES (?, ?, ?)", values)
    return ns


STEP = Step(
    "test/instant_no",
    table("rc_test", "k INTEGER, idx BIGINT", "each asked time's instant number"),
    reads=("rc_instants",),
    lookups=(INSTANT_NO,),
)

ASKED = """
WITH n AS (
    SELECT scope_id, min(idx) AS first, max(idx) + 1 AS n FROM rc_instants GROUP BY scope_id
)
SELECT a.k, rc_instant_no(n.first, n.n, a.t) AS idx
FROM asked AS a LEFT JOIN n USING (scope_id)
ORDER BY a.k
"""

ASOF = """
WITH n AS (
    SELECT scope_id, min(idx) AS first, max(idx) + 1 AS n FROM rc_instants GROUP BY scope_id
)
SELECT a.k, CASE WHEN a.t IS NOT NULL THEN coalesce(i.idx, n.n) END AS idx
FROM asked AS a
JOIN n USING (scope_id)
ASOF LEFT JOIN rc_instants AS i ON i.scope_id = a.scope_id AND i.t >= a.t
ORDER BY a.k
"""


def _asked(ns: Namespace, sql: str) -> list[tuple[int, int | None]]:
    with ns.lookups(STEP):
        return [(int(k), idx) for k, idx in ns.cursor.execute(sql).fetchall()]


SPAN_STEP = Step(
    "test/instant_span",
    table("rc_test", "k INTEGER, lo BIGINT, hi BIGINT", "each asked pair's instant numbers"),
    reads=("rc_instants",),
    lookups=(INSTANT_SPAN,),
)

# each asked time with the next one asked (the last with the first), both searched
# in the first one's scope
SPAN_ASKED = """
WITH n AS (
    SELECT scope_id, min(idx) AS first, max(idx) + 1 AS n FROM rc_instants GROUP BY scope_id
),
pairs AS (
    SELECT a.k, a.scope_id, a.t AS t1, b.t AS t2
    FROM asked AS a
    JOIN asked AS b ON b.k = (a.k + 1) % (SELECT count(*) FROM asked)
),
searched AS (
    SELECT p.k, rc_instant_span(n.first, n.n, p.t1, p.t2) AS span
    FROM pairs AS p LEFT JOIN n USING (scope_id)
)
SELECT k, span.lo, span.hi FROM searched ORDER BY k
"""


@given(instants, times)
@settings(max_examples=examples(60), deadline=None)
def test_instant_span_numbers_both_ends_as_instant_no_does(
    by_scope: dict[str, set[int]], asked: list[tuple[str, int | None]]
) -> None:
    ns = _namespace(by_scope, asked)
    with ns.lookups(SPAN_STEP):
        got = [(int(k), lo, hi) for k, lo, hi in ns.cursor.execute(SPAN_ASKED).fetchall()]
    n = len(asked)
    assert got == [
        (k, _reference(by_scope, s, x), _reference(by_scope, s, asked[(k + 1) % n][1]))
        for k, (s, x) in enumerate(asked)
    ]


@given(instants, times)
@settings(max_examples=examples(60), deadline=None)
def test_instant_no_is_the_first_instant_at_or_after_a_time(
    by_scope: dict[str, set[int]], asked: list[tuple[str, int | None]]
) -> None:
    """The lookup gives the plain search's numbers."""
    ns = _namespace(by_scope, asked)
    got = _asked(ns, ASKED)
    assert got == [(k, _reference(by_scope, s, x)) for k, (s, x) in enumerate(asked)]
    # where the scope has instants, it is what the ASOF join it replaces gives
    with_instants = [(k, idx) for k, idx in got if by_scope.get(asked[k][0])]
    assert with_instants == _asked(ns, ASOF)


def test_a_time_at_an_instant_is_that_instant() -> None:
    """At, between, before and after the instants, null, and a scope without any:
    in one scope's chunk (one search), and in a chunk of several."""
    one = [("a", 5), ("a", 4), ("a", 0), ("a", 10)]
    ns = _namespace({"a": {1, 5, 9}, "b": {1}}, one)
    assert _asked(ns, ASKED) == [(0, 1), (1, 1), (2, 0), (3, 3)]
    several = [*one, ("a", None), ("b", 1), ("c", 3)]
    ns = _namespace({"a": {1, 5, 9}, "b": {1}}, several)
    assert _asked(ns, ASKED) == [(0, 1), (1, 1), (2, 0), (3, 3), (4, None), (5, 3), (6, None)]


def test_a_lookup_is_gone_after_its_step() -> None:
    ns = _namespace({"a": {1, 5, 9}}, [("a", 4)])
    assert _asked(ns, ASKED) == [(0, 1)]
    functions = ns.cursor.execute(
        "SELECT count(*) FROM duckdb_functions() WHERE function_name LIKE 'rc_instant_no%'"
    ).fetchall()
    assert functions == [(0,)]
    with pytest.raises(duckdb.Error, match="rc_instant_no"):
        ns.cursor.execute(ASKED)


def test_a_lookup_is_built_once_while_its_table_stands() -> None:
    """A step run once per slice searches the same table: built once; a statement
    run for that table (here, replacing it) makes the next call build it again, from
    the new rows."""
    ns = _namespace({"a": {1, 5, 9}}, [("a", 4)])
    assert _asked(ns, ASKED) == [(0, 1)]
    assert _asked(ns, ASKED) == [(0, 1)]
    built = [name for name, _ in ns.timings if name == "(lookup rc_instant_no)"]
    assert len(built) == 1
    ns.run(
        "rc_instants",
        "(test)",
        "CREATE OR REPLACE TEMP TABLE rc_instants AS SELECT scope_id, t + INTERVAL 2 SECOND"
        " AS t, idx FROM rc_instants",
    )
    # instants now at 3, 7, 11: 4 lies before the second
    assert _asked(ns, ASKED) == [(0, 1)]
    ns.run(
        "rc_instants",
        "(test)",
        "CREATE OR REPLACE TEMP TABLE rc_instants AS SELECT scope_id, t - INTERVAL 4 SECOND"
        " AS t, idx FROM rc_instants",
    )
    # instants now at -1, 3, 7: 4 lies before the third
    assert _asked(ns, ASKED) == [(0, 2)]
    built = [name for name, _ in ns.timings if name == "(lookup rc_instant_no)"]
    assert len(built) == 3


def _segments(analysis: Analysis) -> pl.DataFrame:
    frame = analysis.read("rc_proven_segments").with_columns(pl.col("v").struct.unnest())
    return frame.drop("v").sort(frame.drop("v").columns, nulls_last=True)


@pytest.mark.slow
def test_two_analyses_build_their_own_lookup() -> None:
    """Each analysis' instants are its own T's: the proven frontier of two analyses
    run side by side (each building rc_instant_no from its own rc_instants)."""
    with open_logset(DATA / "faults") as logset:
        early = Analysis(logset, "2026-01-01T00:10:00")
        late = Analysis(logset)
        first = _segments(early)
        second = _segments(late)
    with open_logset(DATA / "faults") as logset, Analysis(logset, "2026-01-01T00:10:00") as a:
        assert _segments(a).equals(first)
    assert not first.equals(second)


def test_a_lookup_built_from_a_table_the_step_does_not_read_is_refused() -> None:
    lookup = Lookup("rc_instant_no", "rc_instants", ("BIGINT",), "BIGINT")
    with pytest.raises(ValueError, match="does not read"):
        Step("x/y", table("rc_y", "a BIGINT", "y"), reads=("rc_other",), lookups=(lookup,))


def test_instants_misnumbered_are_the_engine_s_fault() -> None:
    con = duckdb.connect()
    ns = Namespace(con, CoordinateType.INT64)
    ns.cursor.execute(
        "CREATE TEMP TABLE rc_instants AS SELECT 'a' AS scope_id,"
        " TIMESTAMP_NS '2026-01-01' AS t, 3 AS idx"
    )
    with pytest.raises(InternalError, match="not 0, 1, 2"), ns.lookups(STEP):
        pass


def test_a_range_that_is_not_one_run_is_the_engine_s_fault() -> None:
    """Asked for the first instant of a range spanning two scopes, the search would
    answer from the wrong scope: refused."""
    ns = _namespace({"a": {1, 5}, "b": {2, 7}}, [("a", 3), ("b", 3)])
    # raised inside the query: DuckDB's error carries it (the engine's step names it)
    with pytest.raises(duckdb.Error, match="not one run"):
        _asked(ns, "SELECT k, rc_instant_no(0, 4, t) FROM asked ORDER BY k")


def test_a_filter_on_both_ends_calls_the_search_once_per_chunk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A query that filters on both fields of rc_instant_span's result (as every
    caller does: lo < hi) searches once per chunk of rows, not once per field:
    DuckDB's fixed price per call is most of a search's cost at scale."""
    calls = 0
    build = lookups.BUILDERS["rc_instant_span"]

    def counting(cursor: duckdb.DuckDBPyConnection, lookup: Lookup) -> lookups.Kernel:
        kernel = build(cursor, lookup)

        def counted(first: pa.Array, end: pa.Array, t1: pa.Array, t2: pa.Array) -> pa.Array:
            nonlocal calls
            calls += 1
            return kernel(first, end, t1, t2)

        return counted

    monkeypatch.setitem(lookups.BUILDERS, "rc_instant_span", counting)
    asked = [("a", x % 12) for x in range(5000)]
    ns = _namespace({"a": {1, 5, 9}}, asked)
    query = SPAN_ASKED.replace(
        "SELECT k, span.lo, span.hi FROM searched ORDER BY k",
        "SELECT count(*) FROM searched WHERE span.lo < span.hi",
    )
    with ns.lookups(SPAN_STEP):
        (count,) = ns.cursor.execute(query).fetchall()[0]
    # x -> x + 1 crosses an instant from 1, 5 and 9, and 11 -> 0 from every instant
    assert count > 0
    assert calls <= 3  # 5,000 rows: three chunks of 2,048
