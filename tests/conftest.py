"""Shared test settings.

``RECONCILE_HYPOTHESIS_SCALE`` multiplies the number of examples every
property-based test draws (default 1, as CI runs them); raise it for a thorough
local run, e.g. ``RECONCILE_HYPOTHESIS_SCALE=10 uv run pytest -k reference``.
"""

from __future__ import annotations

import os

SCALE = max(1, int(os.environ.get("RECONCILE_HYPOTHESIS_SCALE", "1")))


def examples(n: int) -> int:
    """How many examples a property-based test draws: ``n`` times the scale."""
    return n * SCALE
