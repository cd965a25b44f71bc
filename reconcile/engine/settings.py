"""What an analysis is asked besides T: the thresholds of the audit rules."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from reconcile.errors import UsageError

# The greatest stall threshold, in minutes (about 285 years): its nanoseconds, 9e18, are
# a query parameter within int64, as the stays it is compared with are
STALL_MINUTES_MAX = 1.5e8


@dataclass(frozen=True)
class AuditSettings:
    """What the audit is asked: the stall threshold of `stalled_partition`."""

    stall_minutes: float = 10.0

    def __post_init__(self) -> None:
        number = isinstance(self.stall_minutes, (int, float)) and not isinstance(
            self.stall_minutes, bool
        )
        if not (number and math.isfinite(self.stall_minutes)) or not (
            0 <= self.stall_minutes <= STALL_MINUTES_MAX
        ):
            raise UsageError(
                f"stall threshold {self.stall_minutes!r} minutes (AuditSettings stall_minutes;"
                f" --stall-threshold on the command line): give a number from 0 to"
                f" {STALL_MINUTES_MAX:g}"
            )

    def params(self) -> dict[str, Any]:
        """The query parameters these settings give (``$stall_ns``)."""
        return {"stall_ns": int(self.stall_minutes * 60e9)}
