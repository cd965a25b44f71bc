"""Result frames as text for a terminal, and as JSON."""

from __future__ import annotations

import json
from typing import Any

import polars as pl

from reconcile.render.safe import BREAKS, inline
from reconcile.render.values import cert_text, times_as_text

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


def frame_json(frame: pl.DataFrame) -> str:
    """The rows as a JSON array, times as RFC 3339 text in UTC (``Z``), to the
    nanosecond."""
    return json.dumps(times_as_text(frame, utc="Z").to_dicts(), indent=2)


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
