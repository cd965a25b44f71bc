"""How a value or a certificate reads in every output meant for people: the
terminal, summary.md and report.html say ``≤ 10,377`` (the terminal ``<= 10,377``)
alike, a time as ``2026-01-01 00:00:05.428276`` (whole: a value on a dense time
domain, rounded, would be another), and a null certificate by what it means where
it stands. Machine outputs (Parquet, JSON) keep values as they are."""

from __future__ import annotations

from datetime import datetime
from typing import Any


def value_text(value: Any) -> str:
    """A coordinate or count for people: integers grouped by thousands, times whole
    (seconds, with microseconds where there are any)."""
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S.%f" if value.microsecond else "%Y-%m-%d %H:%M:%S")
    if isinstance(value, bool):
        return str(value).lower()
    return f"{value:,}" if isinstance(value, int) else str(value)


def cert_text(
    through: Any, inclusive: Any, *, ascii_signs: bool = False, null: str = "none"
) -> str:
    """A complete-through certificate: ``≤ v`` inclusive, ``< v`` exclusive,
    ``? v (endpoint unknown)`` where the endpoint is not known; ``null`` where there is
    no value (what that means depends on the column: none, or ``+inf``)."""
    if through is None:
        return null
    shown = value_text(through)
    if inclusive is None:
        return f"? {shown} (endpoint unknown)"
    if inclusive:
        return ("<= " if ascii_signs else "≤ ") + shown
    return "< " + shown
