"""A partition's events at the source: positions, eligibility, poison events.

Positions climb by random gaps (a gap of 0 is a tie) and stay strictly inside the
scope's bound ``(low, bound)``, so the bound's end is above every event. Timestamp
coordinates are microseconds since the Unix epoch, with gaps of whole milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reconcile.simulate.keys import Bools, Int64s
from reconcile.simulate.options import Eligibility, SimOptions


@dataclass
class Events:
    position: Int64s
    eligible: Bools
    stable: Bools  # for ineligible events: whether the decision is proven stable
    dead_letter: Bools  # eligible events that end in the dead-letter queue

    @property
    def n(self) -> int:
        return len(self.position)


def make_events(
    rng: np.random.Generator, n: int, low: int, bound: int, unit: int, options: SimOptions
) -> Events:
    """``n`` events with positions in ``(low, bound)``; ``unit`` is a gap's step."""
    room = (bound - low - 1) // unit
    max_gap = max(1, min(10, room // max(n, 1)))
    gaps = rng.integers(1, max_gap + 1, size=n) * unit
    ties = rng.random(n) < options.tie_rate
    ties[0] = False
    gaps[ties] = 0
    position = low + np.cumsum(gaps, dtype=np.int64)
    eligible = rng.random(n) >= options.ineligible_rate
    stable = np.full(n, options.eligibility is Eligibility.STABLE)
    dead_letter = eligible & (rng.random(n) < options.dead_letter_rate)
    return Events(position.astype(np.int64), eligible, stable, dead_letter)
