"""The report's pictures: as many points and marks as can be seen, no more."""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction
from pathlib import Path

import numpy as np
import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from reconcile import open_logset
from reconcile.audit import audit
from reconcile.audit.report import summary
from reconcile.render.html import WIDTH, _thinned, render_html
from reconcile.render.timeaxis import TimeAxis

DATA = Path(__file__).resolve().parents[1] / "data"

coordinate = st.integers(min_value=0, max_value=6).map(lambda v: v / 2)
lines = st.lists(st.tuples(coordinate, coordinate), max_size=40).map(
    lambda points: sorted(points, key=lambda p: p[0])
)


def _extents(points: list[tuple[float, float]]) -> dict[float, tuple[float, float]]:
    out: dict[float, tuple[float, float]] = {}
    for x, y in points:
        low, high = out.get(x, (y, y))
        out[x] = (min(low, y), max(high, y))
    return out


def _is_subsequence(part: list[tuple[float, float]], whole: list[tuple[float, float]]) -> bool:
    it = iter(whole)
    return all(any(p == q for q in it) for p in part)


def _on_segment(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> bool:
    (px, py), (ax, ay), (bx, by) = (tuple(Fraction(v) for v in q) for q in (p, a, b))
    collinear = (bx - ax) * (py - ay) == (by - ay) * (px - ax)
    return collinear and min(ax, bx) <= px <= max(ax, bx) and min(ay, by) <= py <= max(ay, by)


@given(lines)
def test_thinning_draws_every_point_of_the_line(line: list[tuple[float, float]]) -> None:
    thin = _thinned(line)
    assert _is_subsequence(thin, line)
    if not line:
        assert thin == []
        return
    assert thin[0] == line[0]
    assert thin[-1] == line[-1]
    segments = list(itertools.pairwise(thin)) or [(thin[0], thin[0])]
    for point in line:
        assert any(_on_segment(point, a, b) for a, b in segments), point
    # no point is left out whose removal would change the path: between two
    # columns the path runs from one column's last point to the next's first
    columns = list(dict.fromkeys(x for x, _ in line))
    for left, right in itertools.pairwise(columns):
        last = [p for p in line if p[0] == left][-1]
        first = next(p for p in line if p[0] == right)
        if last[1] != first[1]:
            assert (last, first) in segments


def test_a_dense_step_function_draws_as_a_few_points_per_column() -> None:
    # 100,000 steps across 100 pixel columns
    line = [(float(i // 1000), float(i % 7)) for i in range(100_000)]
    thin = _thinned(line)
    assert len(thin) <= 4 * 100
    assert _extents(thin) == _extents(line)


def test_a_frontier_that_changes_thousands_of_times_draws_a_mark_per_pixel_column() -> None:
    with open_logset(DATA / "stuck") as logset:
        result = audit(logset)
    scalar = result.frontier_history.filter(pl.col("kind") == "scalar")
    assert scalar.height > 0
    # each scalar change repeated 200 times, a microsecond apart: far more changes
    # than pixel columns
    dense = (
        scalar.join(pl.DataFrame({"k": list(range(200))}), how="cross")
        .with_columns(pl.col("at") + pl.duration(microseconds=pl.col("k")))
        .drop("k")
        .select(result.frontier_history.columns)
        .cast(result.frontier_history.schema)
    )
    result = dataclasses.replace(
        result, frontier_history=pl.concat([dense, result.frontier_history]).sort("at")
    )
    page = render_html(result, summary(result, "error"))
    marks = page.count("<circle")
    assert 0 < marks <= 2 * WIDTH * result.frontiers["scope_id"].n_unique()
    assert "more changes here: see frontier_history.parquet" in page


@given(
    st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=30),
    st.lists(st.integers(min_value=-100, max_value=10_100), min_size=1, max_size=30),
)
def test_the_time_axis_maps_arrays_as_it_maps_each_instant(
    knots: list[int], times: list[int]
) -> None:
    axis = TimeAxis([float(k) for k in knots], 90.0, 910.0)
    each = [axis(float(t)) for t in times]
    assert np.allclose(axis.many(np.asarray(times, dtype=float)), each)
    assert all(90.0 - 1e-6 <= x <= 910.0 + 1e-6 for x in each)
