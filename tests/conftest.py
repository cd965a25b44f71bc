"""Shared test settings.

``RECONCILE_HYPOTHESIS_SCALE`` multiplies the number of examples every
property-based test draws (default 1, as CI runs them); raise it for a thorough
local run, e.g. ``RECONCILE_HYPOTHESIS_SCALE=10 uv run pytest -k reference``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import pytest

SCALE = max(1, int(os.environ.get("RECONCILE_HYPOTHESIS_SCALE", "1")))


def examples(n: int) -> int:
    """How many examples a property-based test draws: ``n`` times the scale."""
    return n * SCALE


def fast_tier(values: Iterable[Any], keep: Iterable[Any]) -> list[Any]:
    """Parameters for ``pytest.mark.parametrize``: those in ``keep`` run in the fast
    tier (``pytest -m 'not slow'``), the others are marked slow (CI runs them all)."""
    kept = set(keep)
    return [pytest.param(v, marks=() if v in kept else pytest.mark.slow) for v in values]
