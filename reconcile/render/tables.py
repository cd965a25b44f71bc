"""Result frames as text for a terminal, and as JSON."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

import polars as pl

from reconcile.render.safe import BREAKS, inline
from reconcile.render.values import cert_text

if TYPE_CHECKING:
    from polars._typing import PolarsDataType

WATERMARK_COLUMNS = (
    "scope_id",
    "partition_id",
    "evidence",
    "committed_position",
    "blocking_position",
    "blocking_reason",
    "proven_through",
    "proven_inclusive",
    "claimed_through",
    "claimed_inclusive",
    "claim_status",
)


def _json_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def _has_time(dtype: PolarsDataType) -> bool:
    if isinstance(dtype, pl.Datetime):
        return True
    if isinstance(dtype, pl.List | pl.Array):
        return _has_time(dtype.inner)
    if isinstance(dtype, pl.Struct):
        return any(_has_time(field.dtype) for field in dtype.fields)
    return False


def _time_text(expr: pl.Expr, dtype: PolarsDataType, sep: str) -> pl.Expr:
    """``expr`` (of ``dtype``) with every time in it, however deep in lists and
    structs, as text to the nanosecond: ``datetime.isoformat``'s form (seconds, with
    six digits where there are microseconds), nine digits where there are
    nanoseconds, which a Python datetime would drop."""
    if isinstance(dtype, pl.Datetime):
        zone = "%:z" if dtype.time_zone is not None else ""
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
        return expr.list.eval(_time_text(pl.element(), dtype.inner, sep))
    if isinstance(dtype, pl.Struct) and _has_time(dtype):
        fields = [
            _time_text(expr.struct.field(f.name), f.dtype, sep).alias(f.name) for f in dtype.fields
        ]
        return pl.when(expr.is_null()).then(None).otherwise(pl.struct(fields))
    return expr


def times_as_text(frame: pl.DataFrame, sep: str = "T") -> pl.DataFrame:
    """``frame`` with its times as exact text (:func:`_time_text`): what leaves for
    JSON or a terminal, where a Python datetime would cut nanoseconds off."""
    return frame.with_columns(
        _time_text(pl.col(name), dtype, sep).alias(name)
        for name, dtype in frame.schema.items()
        if _has_time(dtype)
    )


def frame_json(frame: pl.DataFrame) -> str:
    """The rows as a JSON array, times as ISO 8601 text to the nanosecond."""
    return json.dumps(times_as_text(frame).to_dicts(), indent=2)


def render_watermarks_json(frame: pl.DataFrame) -> str:
    return frame_json(frame)


def _inline(column: pl.Expr) -> pl.Expr:
    """:func:`~reconcile.render.safe.inline` on a column of text."""
    for character in BREAKS:
        column = column.str.replace_all(character, inline(character), literal=True)
    return column


def render_watermarks_text(frame: pl.DataFrame) -> str:
    """One line per partition: where its prefix stops and what it can certify."""
    if frame.is_empty():
        return "no partitions"
    as_of = times_as_text(frame.select("as_of"))["as_of"][0]
    lines = [f"as of {as_of}Z", ""]
    # a value's own line breaks and tabs escaped: no value starts a line of its own
    shown = frame.select(WATERMARK_COLUMNS).with_columns(_inline(pl.col(pl.String)))
    with pl.Config(
        tbl_rows=-1,
        tbl_cols=-1,
        tbl_width_chars=200,
        tbl_hide_dataframe_shape=True,
        tbl_hide_column_data_types=True,
        tbl_formatting="ASCII_MARKDOWN",
    ):
        lines.append(str(shown))
    return "\n".join(lines)


def _certificate(through: Any, inclusive: Any, null: str = "-") -> str:
    return cert_text(through, inclusive, ascii_signs=True, null=null)


def render_frontiers_text(frame: pl.DataFrame) -> str:
    """Each scope's frontier per basis: the scalar and who holds it, or the vector
    and why no scalar exists."""
    if frame.is_empty():
        return "no scopes"
    lines = [f"as of {times_as_text(frame.select('as_of'))['as_of'][0]}Z"]
    for row in times_as_text(frame, " ").iter_rows(named=True):
        epoch = "no epoch in force" if row["epoch"] is None else f"epoch {row['epoch']}"
        head = f"{inline(row['scope_id'])} [{row['basis']}] {epoch}, {row['members']} member(s): "
        if row["kind"] == "scalar":
            limiting = ", ".join(inline(p) for p in row["limiting_partitions"])
            lines.append(
                head
                + f"complete {_certificate(row['frontier'], row['frontier_inclusive'], '+inf')}"
                + f" (held by {limiting})"
            )
        else:
            lines.append(head + f"vector: {', '.join(inline(r) for r in row['reasons'])}")
            for item in row["vector"] or []:
                cert = _certificate(item["through"], item["inclusive"])
                lines.append(f"    {inline(item['partition_id'])}: {cert}")
    return "\n".join(lines)
