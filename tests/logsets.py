"""Tiny hand-made log sets for tests: rows as dicts, written with contract types.

``write_logset(path, {"checkpoints": [...], ...})`` writes each table as
``<table>.parquet`` with the Arrow type the contract names for each column it
declares; columns left out of every row are left out of the file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from reconcile_schemas import Logical, logical_type, table_schema

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def at(seconds: float) -> datetime:
    """A timestamp `seconds` after a fixed origin, as tests write them."""
    return T0 + timedelta(seconds=seconds)


def arrow_type(logical: Logical, coordinate: str) -> pa.DataType:
    if logical is Logical.COORDINATE:
        return pa.int64() if coordinate == "int64" else pa.timestamp("us", tz="UTC")
    return {
        Logical.STRING: pa.string(),
        Logical.INT64: pa.int64(),
        Logical.BOOL: pa.bool_(),
        Logical.TIMESTAMP: pa.timestamp("us", tz="UTC"),
    }[logical]


def table(name: str, rows: Sequence[Mapping[str, Any]], coordinate: str = "int64") -> pa.Table:
    """An Arrow table of contract columns present in any row, typed as the contract says."""
    schema = table_schema(name)
    names = [n for n in schema.columns if any(n in row for row in rows)]
    extra = sorted({k for row in rows for k in row} - set(schema.columns))
    if extra:
        raise KeyError(f"{name}: not contract columns: {extra}")
    fields = [pa.field(n, arrow_type(logical_type(schema.columns[n]), coordinate)) for n in names]
    return pa.Table.from_pylist([dict(row) for row in rows], schema=pa.schema(fields))


def write_logset(
    path: Path,
    tables: Mapping[str, Sequence[Mapping[str, Any]] | pa.Table],
    coordinate: str = "int64",
) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name, rows in tables.items():
        data = rows if isinstance(rows, pa.Table) else table(name, rows, coordinate)
        pq.write_table(data, path / f"{name}.parquet")
    return path


def checkpoint(
    partition: str = "p0",
    generation: int = 1,
    watermark: Any = None,
    *,
    scope: str = "s",
    attempt: str = "a1",
    owner_epoch: int = 1,
    expected: int | None = None,
    cas: str = "won",
    written: float = 0.0,
    inclusive: bool | None = True,
    **extra: Any,
) -> dict[str, Any]:
    """A checkpoint row with sensible defaults; ``expected`` defaults to generation - 1."""
    row = {
        "scope_id": scope,
        "partition_id": partition,
        "attempt_id": attempt,
        "owner_epoch": owner_epoch,
        "expected_generation": generation - 1 if expected is None else expected,
        "generation": generation,
        "cas_result": cas,
        "written_at": at(written),
        "watermark": watermark,
        "watermark_inclusive": inclusive if watermark is not None else None,
    }
    row.update(extra)
    return row


def receipt(
    event: str,
    position: Any,
    outcome: str = "committed",
    *,
    partition: str = "p0",
    scope: str = "s",
    attempt: str = "a1",
    recorded: float = 0.0,
    **extra: Any,
) -> dict[str, Any]:
    row = {
        "scope_id": scope,
        "partition_id": partition,
        "event_id": event,
        "position": position,
        "outcome": outcome,
        "attempt_id": attempt,
        "recorded_at": at(recorded),
    }
    row.update(extra)
    return row


def page(
    page_id: str,
    seq: int,
    count: int,
    lo: Any = None,
    hi: Any = None,
    *,
    partition: str = "p0",
    scope: str = "s",
    attempt: str = "a1",
    fetched: float = 0.0,
    **extra: Any,
) -> dict[str, Any]:
    row = {
        "scope_id": scope,
        "partition_id": partition,
        "attempt_id": attempt,
        "page_id": page_id,
        "page_seq": seq,
        "event_count": count,
        "min_position": lo,
        "max_position": hi,
        "fetched_at": at(fetched),
    }
    row.update(extra)
    return row


# bundled folders of a framework's own artifacts, read by its reader (--source), not
# log sets in the contract's layout: data/README.md, docs/readers.md
FRAMEWORK_EXAMPLES = {"airbyte": "airbyte", "dlt": "dlt", "singer": "singer"}


def own_mapping(path: Path) -> str | None:
    """``"auto"`` for a log set that brings its own mapping (``reconcile.toml``), which
    the tests trust as their own (a user says ``--mapping auto``); None for others."""
    return "auto" if (path / "reconcile.toml").exists() else None
