"""The report's pictures: thinning a polyline keeps the picture it draws."""

from __future__ import annotations

import itertools
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from reconcile.render.html import _thinned

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
