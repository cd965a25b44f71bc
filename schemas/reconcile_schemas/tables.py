"""The contract's nine input tables (docs/contract.md §3) as Pandera schemas.

Each schema describes a table *after* the loader's normalization: accepted narrower
types already widened (int32 to int64, ms to ns timestamps, zoned to naive UTC), and
a nullable column that a file lacks already inserted as nulls. It holds every rule of
§1 that a single row can break: type, nullability, enumeration, range, and the
cross-field rules, plus the one uniqueness constraint of its table. Rules that need
other tables, or several rows in an order, live in ``rules/`` as SQL.

Every check is declared so that it can run on two engines from this one
declaration: Pandera runs it on in-memory Polars frames, and the validator
translates it to DuckDB SQL for logs larger than memory (built-in checks by name and
statistics, row rules by their SQL predicate, which Polars runs through
``pl.sql_expr``). A row rule's predicate must be true or null-safe for rows whose
columns are null: nulls are the nullability checks' business.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandera.polars as pa
import polars as pl

from reconcile_schemas.names import ROW_RULE
from reconcile_schemas.types import CoordinateType, Logical, polars_dtype


def row_rule(name: str, predicate: str, columns: Sequence[str], error: str) -> pa.Check:
    """A check that every row satisfies an SQL predicate (true passes)."""

    def check(data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select(pl.sql_expr(predicate).alias(name))

    return pa.Check(
        check,
        name=name,
        error=error,
        statistics={"kind": ROW_RULE, "sql": predicate, "columns": list(columns)},
    )


class _Columns:
    """Column factories for one coordinate type; each records its logical type."""

    def __init__(self, coordinate: CoordinateType) -> None:
        self.coordinate = coordinate

    def _column(self, logical: Logical, checks: Sequence[pa.Check], nullable: bool) -> pa.Column:
        return pa.Column(
            polars_dtype(logical, self.coordinate),
            checks=list(checks),
            nullable=nullable,
            metadata={"logical": logical.value},
        )

    def string(self, *checks: pa.Check, nullable: bool = False) -> pa.Column:
        return self._column(Logical.STRING, checks, nullable)

    def int64(self, *checks: pa.Check, nullable: bool = False) -> pa.Column:
        return self._column(Logical.INT64, checks, nullable)

    def boolean(self, *checks: pa.Check, nullable: bool = False) -> pa.Column:
        return self._column(Logical.BOOL, checks, nullable)

    def timestamp(self, *checks: pa.Check, nullable: bool = False) -> pa.Column:
        return self._column(Logical.TIMESTAMP, checks, nullable)

    def coordinate_(self, *checks: pa.Check, nullable: bool = False) -> pa.Column:
        return self._column(Logical.COORDINATE, checks, nullable)

    def enum(self, *values: str) -> pa.Column:
        return self._column(Logical.STRING, [pa.Check.isin(list(values))], False)


def scopes(coordinate: CoordinateType) -> pa.DataFrameSchema:
    c = _Columns(coordinate)
    return pa.DataFrameSchema(
        {
            "scope_id": c.string(),
            "ordering": c.string(),
            "domain": c.enum("discrete", "dense"),
        },
        unique=["scope_id"],
        name="scopes",
        metadata={"key_columns": ["scope_id"]},
    )


def checkpoints(coordinate: CoordinateType) -> pa.DataFrameSchema:
    c = _Columns(coordinate)
    return pa.DataFrameSchema(
        {
            "scope_id": c.string(),
            "partition_id": c.string(),
            "attempt_id": c.string(),
            "owner_epoch": c.int64(pa.Check.ge(0)),
            "expected_generation": c.int64(pa.Check.ge(0)),
            "generation": c.int64(),
            "cas_result": c.enum("won", "lost"),
            "written_at": c.timestamp(),
            "resume_token": c.string(nullable=True),
            "page_id": c.string(nullable=True),
            "watermark": c.coordinate_(nullable=True),
            "watermark_inclusive": c.boolean(nullable=True),
            "watermark_event_id": c.string(nullable=True),
            "ordering": c.string(nullable=True),
        },
        checks=[
            row_rule(
                "generation_above_expected",
                "generation IS NULL OR expected_generation IS NULL"
                " OR generation > expected_generation",
                ["expected_generation", "generation"],
                "generation must be greater than expected_generation",
            )
        ],
        name="checkpoints",
        metadata={"key_columns": ["scope_id", "partition_id", "attempt_id", "generation"]},
    )


def receipts(coordinate: CoordinateType) -> pa.DataFrameSchema:
    c = _Columns(coordinate)
    return pa.DataFrameSchema(
        {
            "scope_id": c.string(),
            "partition_id": c.string(),
            "event_id": c.string(),
            "position": c.coordinate_(),
            "outcome": c.enum("committed", "dead_lettered", "failed", "ineligible"),
            "eligibility_stable": c.boolean(nullable=True),
            "attempt_id": c.string(),
            "owner_epoch": c.int64(pa.Check.ge(0), nullable=True),
            "page_id": c.string(nullable=True),
            "recorded_at": c.timestamp(),
        },
        name="receipts",
        metadata={"key_columns": ["scope_id", "partition_id", "event_id", "attempt_id"]},
    )


def pages(coordinate: CoordinateType) -> pa.DataFrameSchema:
    c = _Columns(coordinate)
    return pa.DataFrameSchema(
        {
            "scope_id": c.string(),
            "partition_id": c.string(),
            "attempt_id": c.string(),
            "page_id": c.string(),
            "page_seq": c.int64(pa.Check.ge(0)),
            "request_token": c.string(nullable=True),
            "next_token": c.string(nullable=True),
            "event_count": c.int64(pa.Check.ge(0)),
            "min_position": c.coordinate_(nullable=True),
            "max_position": c.coordinate_(nullable=True),
            "finality_through": c.coordinate_(nullable=True),
            "finality_inclusive": c.boolean(nullable=True),
            "fetched_at": c.timestamp(),
        },
        checks=[
            row_rule(
                "positions_null_iff_empty",
                "event_count IS NULL OR ((event_count = 0) = (min_position IS NULL)"
                " AND (event_count = 0) = (max_position IS NULL))",
                ["event_count", "min_position", "max_position"],
                "min_position and max_position must be null exactly when event_count = 0",
            ),
            row_rule(
                "finality_endpoint_given",
                "finality_through IS NULL OR finality_inclusive IS NOT NULL",
                ["finality_through", "finality_inclusive"],
                "finality_inclusive is required when finality_through is set",
            ),
        ],
        unique=["scope_id", "page_id"],
        name="pages",
        metadata={"key_columns": ["scope_id", "partition_id", "attempt_id", "page_id"]},
    )


def snapshot(coordinate: CoordinateType) -> pa.DataFrameSchema:
    c = _Columns(coordinate)
    return pa.DataFrameSchema(
        {
            "scope_id": c.string(),
            "partition_id": c.string(),
            "event_id": c.string(),
            "position": c.coordinate_(),
            "eligible": c.boolean(),
            "eligibility_stable": c.boolean(),
            "visible_at": c.timestamp(nullable=True),
        },
        name="snapshot",
        metadata={"key_columns": ["scope_id", "partition_id", "event_id"]},
    )


def snapshot_bounds(coordinate: CoordinateType) -> pa.DataFrameSchema:
    c = _Columns(coordinate)
    return pa.DataFrameSchema(
        {
            "scope_id": c.string(),
            "partition_id": c.string(),
            "complete_through": c.coordinate_(),
            "complete_inclusive": c.boolean(),
        },
        unique=["scope_id", "partition_id"],
        name="snapshot_bounds",
        metadata={"key_columns": ["scope_id", "partition_id"]},
    )


def epochs(coordinate: CoordinateType) -> pa.DataFrameSchema:
    c = _Columns(coordinate)
    return pa.DataFrameSchema(
        {
            "scope_id": c.string(),
            "epoch": c.int64(pa.Check.ge(1)),
            "effective_at": c.timestamp(),
            # null only on a scope's first epoch: a multi-row rule, see rules/
            "cutover": c.coordinate_(nullable=True),
            "cutover_inclusive": c.boolean(nullable=True),
        },
        unique=["scope_id", "epoch"],
        name="epochs",
        metadata={"key_columns": ["scope_id", "epoch"]},
    )


def members(coordinate: CoordinateType) -> pa.DataFrameSchema:
    c = _Columns(coordinate)
    return pa.DataFrameSchema(
        {
            "scope_id": c.string(),
            "epoch": c.int64(pa.Check.ge(1)),
            "partition_id": c.string(),
            "role": c.enum("member", "retiring"),
            "coverage_from": c.coordinate_(nullable=True),
            "sealed_through": c.coordinate_(nullable=True),
            "sealed_inclusive": c.boolean(nullable=True),
        },
        unique=["scope_id", "epoch", "partition_id"],
        name="members",
        metadata={"key_columns": ["scope_id", "epoch", "partition_id"]},
    )


def published(coordinate: CoordinateType) -> pa.DataFrameSchema:
    c = _Columns(coordinate)
    return pa.DataFrameSchema(
        {
            "scope_id": c.string(),
            "epoch": c.int64(pa.Check.ge(1), nullable=True),
            "published_at": c.timestamp(),
            "kind": c.enum("scalar", "vector"),
            "frontier": c.coordinate_(nullable=True),
            "frontier_inclusive": c.boolean(nullable=True),
        },
        name="published",
        metadata={"key_columns": ["scope_id", "published_at"]},
    )


SchemaFactory = Callable[[CoordinateType], pa.DataFrameSchema]

# In dependency order (the order of ``names.TABLES``): a table's rows refer only to
# tables before it.
PANDERA_TABLES: dict[str, SchemaFactory] = {
    "scopes": scopes,
    "checkpoints": checkpoints,
    "receipts": receipts,
    "pages": pages,
    "snapshot": snapshot,
    "snapshot_bounds": snapshot_bounds,
    "epochs": epochs,
    "members": members,
    "published": published,
}
