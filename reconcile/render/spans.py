"""Stretches of time the report's timeline marks, read from the audit's own tables:
where a frontier is a vector (no line to draw), where the claimed frontier stood
ahead of the proven one (a lag of the proof behind the claim), and where a partition
stalled (its ``stalled_partition`` findings). Each is ``(from, to)``, ``to`` None
where the stretch lasts to T. ``column`` names the column each end is read from
(``at`` by default): the report gives ``at_text``, the times as exact text, for its
labels, since a Python datetime cuts nanoseconds off; the stretches are the same."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import polars as pl


def vector_spans(history: pl.DataFrame, basis: str, column: str = "at") -> list[tuple[Any, Any]]:
    """The stretches in which one basis's frontier is a vector."""
    rows = history.filter(pl.col("basis") == basis).sort("at")
    spans: list[tuple[Any, Any]] = []
    begun: Any = None
    inside = False
    for r in rows.iter_rows(named=True):
        if r["kind"] == "vector" and not inside:
            begun, inside = r[column], True
        elif r["kind"] != "vector" and inside:
            spans.append((begun, r[column]))
            inside = False
    if inside:
        spans.append((begun, None))
    return spans


def _key(row: dict[str, Any]) -> tuple[int, Any, int] | None:
    """A scalar frontier as a sort key: a null value is +inf; at one value an
    exclusive endpoint is below an inclusive one (an unknown endpoint never occurs
    in a scalar). None for a vector, which has no single value to compare."""
    if row["kind"] != "scalar":
        return None
    if row["frontier"] is None:
        return (1, 0, 0)
    return (0, row["frontier"], 1 if row["frontier_inclusive"] else 0)


def lag_spans(history: pl.DataFrame, column: str = "at") -> list[tuple[Any, Any]]:
    """The stretches in which both frontiers are scalars and the claimed one stands
    above the proven one: the claim ran ahead of what the logs prove. One scope's
    history; where either is a vector nothing is said (no honest comparison)."""
    rows = history.filter(pl.col("basis").is_in(["claimed", "proven"])).sort("at")
    if isinstance(rows.schema["frontier"], pl.Datetime):
        # compared to the nanosecond: as Python datetimes, two frontiers a few
        # nanoseconds apart would be equal, and a claim above its proof not seen
        rows = rows.with_columns(pl.col("frontier").dt.epoch("ns"))
    state: dict[str, tuple[int, Any, int] | None] = {"claimed": None, "proven": None}
    spans: list[tuple[Any, Any]] = []
    begun: Any = None
    inside = False
    grouped = rows.group_by("at", maintain_order=True).agg(pl.all())
    # one value of the column per instant (the instant itself, or its text)
    label = pl.col(column) if column == "at" else pl.col(column).list.first()
    for at, bases, kinds, values, inclusive in grouped.select(
        label, "basis", "kind", "frontier", "frontier_inclusive"
    ).iter_rows():
        for basis, kind, value, incl in zip(bases, kinds, values, inclusive, strict=True):
            state[basis] = _key({"kind": kind, "frontier": value, "frontier_inclusive": incl})
        claimed, proven = state["claimed"], state["proven"]
        ahead = claimed is not None and proven is not None and claimed > proven
        if ahead and not inside:
            begun, inside = at, True
        elif not ahead and inside:
            spans.append((begun, at))
            inside = False
    if inside:
        spans.append((begun, None))
    return spans


def stall_spans(
    findings: pl.DataFrame, column: str = "at", ends: str | None = None
) -> list[tuple[str, Any, Any]]:
    """Each ``stalled_partition`` finding of the frame as (partition, from, to): it
    holds from its ``at`` for its evidence's ``seconds``. ``ends`` names a column
    that holds each stall's end instead (the report's exact text of the evidence's
    ``until``)."""
    rows = findings.filter((pl.col("rule") == "stalled_partition") & pl.col("at").is_not_null())
    out: list[tuple[str, Any, Any]] = []
    given = pl.col(ends) if ends is not None else pl.lit(None)
    for partition, at, evidence, end in rows.select(
        "partition_id", column, "evidence", given
    ).iter_rows():
        fields = json.loads(evidence) if evidence else {}
        seconds = fields.get("seconds") if isinstance(fields, dict) else None
        if not isinstance(seconds, int | float):
            continue
        out.append((partition, at, end if ends is not None else at + timedelta(seconds=seconds)))
    return out
