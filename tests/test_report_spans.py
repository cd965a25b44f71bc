"""The report's marks of stretches in time (reconcile.render.spans), against a plain
reading: at each instant of the history, the latest row of each basis at or before it."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from reconcile.render.spans import lag_spans

T0 = datetime(2026, 1, 1)

row = st.tuples(
    st.integers(0, 12),  # instant, in seconds from T0
    st.sampled_from(["claimed", "proven"]),
    st.sampled_from(["scalar", "scalar", "scalar", "vector"]),
    st.one_of(st.none(), st.integers(0, 5)),
    st.booleans(),
)


def _history(rows: list[tuple[int, str, str, int | None, bool]]) -> pl.DataFrame:
    # one row per (instant, basis): the history has at most one change of each there
    unique = {(t, b): (t, b, k, v, i) for t, b, k, v, i in rows}
    return pl.DataFrame(
        [
            {
                "at": T0 + timedelta(seconds=t),
                "basis": b,
                "kind": k,
                "frontier": None if k == "vector" else v,
                "frontier_inclusive": None if k == "vector" or v is None else i,
            }
            for t, b, k, v, i in sorted(unique.values())
        ],
        schema={
            "at": pl.Datetime("us"),
            "basis": pl.String,
            "kind": pl.String,
            "frontier": pl.Int64,
            "frontier_inclusive": pl.Boolean,
        },
    )


def _reference(history: pl.DataFrame) -> list[tuple[Any, Any]]:
    """At each instant: is the claim above the proof? Then the runs of yes."""

    def level(r: dict[str, Any] | None) -> float | None:
        if r is None or r["kind"] != "scalar":
            return None
        if r["frontier"] is None:
            return float("inf")
        # an exclusive endpoint lies just below its value
        return r["frontier"] - (0 if r["frontier_inclusive"] else 0.5)

    rows = history.to_dicts()
    instants = sorted({r["at"] for r in rows})
    ahead = []
    for t in instants:
        latest = {}
        for r in rows:
            if r["at"] <= t:
                latest[r["basis"]] = r
        c, p = level(latest.get("claimed")), level(latest.get("proven"))
        ahead.append(c is not None and p is not None and c > p)
    spans: list[tuple[Any, Any]] = []
    for i, t in enumerate(instants):
        if ahead[i] and (i == 0 or not ahead[i - 1]):
            end = next((instants[j] for j in range(i + 1, len(instants)) if not ahead[j]), None)
            spans.append((t, end))
    return spans


@settings(max_examples=300, deadline=None)
@given(st.lists(row, max_size=14))
def test_lag_spans_equal_a_plain_reading(
    rows: list[tuple[int, str, str, int | None, bool]],
) -> None:
    history = _history(rows)
    assert lag_spans(history) == _reference(history)


def test_a_lag_that_lasts_to_t_has_no_end() -> None:
    history = _history([(0, "proven", "scalar", 3, True), (0, "claimed", "scalar", 5, True)])
    assert lag_spans(history) == [(T0, None)]
    # an exclusive claim at the proof's value is below it: no lag
    even = _history([(0, "proven", "scalar", 5, True), (0, "claimed", "scalar", 5, False)])
    assert lag_spans(even) == []


def test_time_frontiers_nanoseconds_apart_are_told_apart() -> None:
    """A claim through 5 s + 2 ns above a proof through 5 s + 1 ns is a lag: compared
    as Python datetimes (microseconds) the two were equal, and no strip was drawn."""
    base = 1_767_225_605 * 10**9  # 2026-01-01T00:00:05
    history = pl.DataFrame(
        {
            "at": [T0, T0],
            "basis": ["proven", "claimed"],
            "kind": ["scalar", "scalar"],
            "frontier": pl.Series([base + 1, base + 2]).cast(pl.Datetime("ns")),
            "frontier_inclusive": [True, True],
        }
    )
    assert lag_spans(history) == [(T0, None)]
    even = history.with_columns(frontier=pl.Series([base + 2, base + 2]).cast(pl.Datetime("ns")))
    assert lag_spans(even) == []
