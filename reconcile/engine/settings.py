"""What an analysis is asked besides T: the thresholds of the audit rules."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from reconcile.errors import UsageError


@dataclass(frozen=True)
class AuditSettings:
    """What the audit is asked: the stall threshold of `stalled_partition`."""

    stall_minutes: float = 10.0

    def __post_init__(self) -> None:
        # a threshold beyond int64 nanoseconds (about 292 years) cannot be compared
        number = isinstance(self.stall_minutes, (int, float)) and not isinstance(
            self.stall_minutes, bool
        )
        if not (number and math.isfinite(self.stall_minutes) and 0 <= self.stall_minutes < 1.5e11):
            raise UsageError(
                f"stall threshold {self.stall_minutes!r} minutes: give a number from 0 to"
                " 1.5e11 (--stall-threshold)"
            )

    def params(self) -> dict[str, Any]:
        """The query parameters these settings give (``$stall_ns``)."""
        return {"stall_ns": int(self.stall_minutes * 60e9)}
