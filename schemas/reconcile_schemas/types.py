"""Logical column types of the contract (docs/contract.md §1) and their Polars form.

The contract names five logical types. Four map to one Polars type each; a
*coordinate* is either int64 or timestamp, the same for a whole log set, so every
schema that holds a coordinate column is built for one coordinate type.

Timestamps are normalized to naive nanosecond datetimes holding UTC instants: the
contract accepts µs and ns, naive (read as UTC) and zoned values, and nanoseconds are
the only unit that loses none of them.
"""

from __future__ import annotations

from enum import StrEnum

import polars as pl


class Logical(StrEnum):
    """A contract column's logical type."""

    STRING = "string"
    INT64 = "int64"
    BOOL = "bool"
    TIMESTAMP = "timestamp"
    COORDINATE = "coordinate"


class CoordinateType(StrEnum):
    """The one coordinate type of a log set."""

    INT64 = "int64"
    TIMESTAMP = "timestamp"


TIMESTAMP_DTYPE = pl.Datetime("ns")


def polars_dtype(logical: Logical, coordinate: CoordinateType) -> pl.DataType:
    """The normalized Polars type of a logical type, for a log set's coordinate type."""
    if logical is Logical.COORDINATE:
        return pl.Int64() if coordinate is CoordinateType.INT64 else TIMESTAMP_DTYPE
    return {
        Logical.STRING: pl.String(),
        Logical.INT64: pl.Int64(),
        Logical.BOOL: pl.Boolean(),
        Logical.TIMESTAMP: TIMESTAMP_DTYPE,
    }[logical]


def duckdb_type(logical: Logical, coordinate: CoordinateType) -> str:
    """The normalized DuckDB type name of a logical type."""
    if logical is Logical.COORDINATE:
        return "BIGINT" if coordinate is CoordinateType.INT64 else "TIMESTAMP_NS"
    return {
        Logical.STRING: "VARCHAR",
        Logical.INT64: "BIGINT",
        Logical.BOOL: "BOOLEAN",
        Logical.TIMESTAMP: "TIMESTAMP_NS",
    }[logical]
