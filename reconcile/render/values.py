"""How a value or a certificate reads in every output meant for people: the
terminal, summary.md and report.html say ``≤ 10,377`` (the terminal ``<= 10,377``)
alike, a time as ``2026-01-01 00:00:05.428276`` (whole: a value on a dense time
domain, rounded, would be another), and a null certificate by what it means where
it stands. Machine outputs (Parquet, JSON) keep values as they are."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

import polars as pl

if TYPE_CHECKING:
    from polars._typing import PolarsDataType


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


def _has_time(dtype: PolarsDataType) -> bool:
    if isinstance(dtype, pl.Datetime):
        return True
    if isinstance(dtype, pl.List | pl.Array):
        return _has_time(dtype.inner)
    if isinstance(dtype, pl.Struct):
        return any(_has_time(field.dtype) for field in dtype.fields)
    return False


def time_text(expr: pl.Expr, dtype: PolarsDataType, sep: str = "T", utc: str = "Z") -> pl.Expr:
    """``expr`` (of ``dtype``) with every time in it, however deep in lists and
    structs, as text to the nanosecond: ``datetime.isoformat``'s form (seconds, with
    six digits where there are microseconds), nine digits where there are
    nanoseconds, which a Python datetime would drop; a time without a zone (the
    engine's, all UTC) followed by ``utc``."""
    if isinstance(dtype, pl.Datetime):
        zone = "%:z" if dtype.time_zone is not None else utc
        whole = f"%Y-%m-%d{sep}%H:%M:%S"
        fraction = expr.dt.nanosecond()
        return (
            pl.when(fraction == 0)
            .then(expr.dt.to_string(whole + zone))
            .when(fraction % 1000 == 0)
            .then(expr.dt.to_string(whole + "%.6f" + zone))
            .otherwise(expr.dt.to_string(whole + "%.9f" + zone))
        )
    if isinstance(dtype, pl.List) and _has_time(dtype.inner):
        return expr.list.eval(time_text(pl.element(), dtype.inner, sep, utc))
    if isinstance(dtype, pl.Struct) and _has_time(dtype):
        fields = [
            time_text(expr.struct.field(f.name), f.dtype, sep, utc).alias(f.name)
            for f in dtype.fields
        ]
        return pl.when(expr.is_null()).then(None).otherwise(pl.struct(fields))
    return expr


def times_as_text(frame: pl.DataFrame, sep: str = "T", utc: str = "") -> pl.DataFrame:
    """``frame`` with its times as exact text (:func:`time_text`): what leaves for
    JSON or a terminal, where a Python datetime would cut nanoseconds off. JSON gives
    ``utc="Z"``: a time without a zone is read as local time by many a reader (a
    JavaScript ``Date`` among them), and the engine's times are UTC."""
    return frame.with_columns(
        time_text(pl.col(name), dtype, sep, utc).alias(name)
        for name, dtype in frame.schema.items()
        if _has_time(dtype)
    )
