"""What an analysis is asked besides T: the thresholds of the audit rules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class AuditSettings:
    """What the audit is asked: the stall threshold of `stalled_partition`."""

    stall_minutes: float = 10.0

    def params(self) -> dict[str, Any]:
        """The query parameters these settings give (``$stall_ns``)."""
        return {"stall_ns": int(self.stall_minutes * 60e9)}
