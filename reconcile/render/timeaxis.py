"""A time axis that shrinks long idle stretches: the report's and the figures'.

A 30-minute stall between two seconds of activity would squeeze that activity into a
pixel; here every gap between consecutive instants much longer than the typical one
is drawn no wider than a small share of the axis, and listed in ``breaks`` so that
the picture can mark it ("+30.0 min").
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import numpy as np


class TimeAxis:
    """Time to x, with long idle stretches shrunk so that the activity around them
    stays readable; each shrunk stretch is drawn as a break in the axis."""

    def __init__(self, times: Sequence[float], a: float, b: float) -> None:
        knots = np.unique(np.asarray(times, dtype=float))
        if len(knots) < 2:
            first = float(knots[0]) if len(knots) else 0.0
            knots = np.array([first, first + 1.0])
        gaps = np.diff(knots)
        ordered = np.sort(gaps)
        typical = float(ordered[int(0.9 * (len(ordered) - 1))]) or float(ordered[-1])
        small = float(gaps[gaps <= 20 * typical].sum()) or float(gaps.sum())
        cap = max(small * 0.08, typical)
        shown = np.r_[0.0, np.cumsum(np.minimum(gaps, cap))]
        wide = gaps > cap
        self._knots, self._shown = knots, shown
        self.knots: list[float] = knots.tolist()
        self.shown: list[float] = shown.tolist()
        self.breaks: list[tuple[float, float]] = list(
            zip(knots[:-1][wide].tolist(), gaps[wide].tolist(), strict=True)
        )
        self.a, self.b = a, b

    def __call__(self, t: float) -> float:
        knots, shown = self.knots, self.shown
        if t <= knots[0]:
            pos = shown[0]
        elif t >= knots[-1]:
            pos = shown[-1]
        else:
            i = bisect.bisect_right(knots, t) - 1
            span = knots[i + 1] - knots[i]
            pos = shown[i] + (shown[i + 1] - shown[i]) * (t - knots[i]) / span
        return self.a + (self.b - self.a) * pos / (shown[-1] or 1.0)

    def many(self, times: np.ndarray) -> np.ndarray:
        """The same as calling it on each time, for an array of them."""
        pos = np.asarray(np.interp(times, self._knots, self._shown), dtype=float)
        scaled: np.ndarray = self.a + (self.b - self.a) * pos / (self.shown[-1] or 1.0)
        return scaled

    def time_at(self, px: float) -> float:
        """The time drawn at ``px``: the inverse of calling it (within a shortened
        stretch, the time the stretch's drawn width stands for there)."""
        pos = (px - self.a) / ((self.b - self.a) or 1.0) * (self.shown[-1] or 1.0)
        return float(np.interp(pos, self._shown, self._knots))


def duration(seconds: float) -> str:
    """A stretch of time as the axis labels it: ``12.0 s``, ``30.0 min``, ``1.5 h``."""
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.1f} min"
    return f"{seconds:.1f} s"
