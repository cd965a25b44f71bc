"""The normalizing projection of a table, for DuckDB and for Polars.

Both engines see the same table: every contract column present with its normalized
type (int64, bool, string, naive UTC nanosecond timestamps, the log set's
coordinate type), a nullable column that the files lack as all null, extra columns
dropped, and two columns saying where each row came from: ``__file`` (the file's
path) and ``__row`` (the row's number within its file, from 0).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pandera.polars as pa
import polars as pl

from reconcile.db import quote_identifier
from reconcile.logset.file_schemas import FileSchema
from reconcile_schemas import (
    TIMESTAMP_DTYPE,
    CoordinateType,
    Logical,
    duckdb_type,
    logical_type,
    polars_dtype,
)

FILE_COLUMN = "__file"
ROW_COLUMN = "__row"


def _zoned(duckdb_type_name: str) -> bool:
    """Whether a DuckDB type is a timestamp with a time zone (an instant)."""
    return duckdb_type_name.upper() in ("TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ", "TIMESTAMPTZ_NS")


def duckdb_projection(
    schema: pa.DataFrameSchema,
    coordinate: CoordinateType,
    present: Mapping[str, str],
    hive_keys: Iterable[str] = (),
) -> str:
    """The SELECT list that normalizes a ``read_parquet`` relation of a table.

    ``present`` maps the columns the relation has (any file of the table) to their
    DuckDB types, and ``hive_keys`` are those that come from hive folders, which are
    strings.

    An instant (a timestamp with a zone) becomes naive UTC through its epoch in
    nanoseconds: exact, independent of the session's zone, and an order of magnitude
    cheaper than a cast, which goes through ICU's calendar for every row.
    """
    hive_set = set(hive_keys)
    items: list[str] = []
    for name, column in schema.columns.items():
        logical = logical_type(column)
        target = duckdb_type(logical, coordinate)
        ident = quote_identifier(name)
        if name not in present:
            expression = f"CAST(NULL AS {target})"
        elif target == "TIMESTAMP_NS" and name in hive_set:
            # A hive value is text; read its offset, if any, before dropping the zone.
            expression = f"make_timestamp_ns(epoch_ns(CAST({ident} AS TIMESTAMPTZ)))"
        elif target == "TIMESTAMP_NS" and _zoned(present[name]):
            expression = f"make_timestamp_ns(epoch_ns({ident}))"
        else:
            expression = f"CAST({ident} AS {target})"
        items.append(f"{expression} AS {ident}")
    items.append(f"{quote_identifier(FILE_COLUMN)}")
    items.append(f"CAST(file_row_number AS BIGINT) AS {quote_identifier(ROW_COLUMN)}")
    return ", ".join(items)


def duckdb_empty(schema: pa.DataFrameSchema, coordinate: CoordinateType) -> str:
    """A query for the table with no rows (an absent optional table)."""
    items = [
        f"CAST(NULL AS {duckdb_type(logical_type(c), coordinate)}) AS {quote_identifier(n)}"
        for n, c in schema.columns.items()
    ]
    items.append(f"CAST(NULL AS VARCHAR) AS {quote_identifier(FILE_COLUMN)}")
    items.append(f"CAST(NULL AS BIGINT) AS {quote_identifier(ROW_COLUMN)}")
    return f"SELECT {', '.join(items)} WHERE false"


def polars_schema(schema: pa.DataFrameSchema, coordinate: CoordinateType) -> pl.Schema:
    """The normalized Polars schema of a table, with ``__file`` and ``__row``."""
    fields: dict[str, pl.DataType] = {
        name: polars_dtype(logical_type(column), coordinate)
        for name, column in schema.columns.items()
    }
    fields[FILE_COLUMN] = pl.String()
    fields[ROW_COLUMN] = pl.Int64()
    return pl.Schema(fields)


def _polars_column(
    name: str, logical: Logical, coordinate: CoordinateType, file: FileSchema
) -> pl.Expr:
    target = polars_dtype(logical, coordinate)
    if name in file.hive:
        value = pl.lit(file.hive[name], dtype=pl.String())
        if target == TIMESTAMP_DTYPE:
            return value.str.to_datetime(time_zone="UTC").dt.replace_time_zone(None).cast(target)
        return value.cast(target)
    if name not in file.columns:
        return pl.lit(None, dtype=target)
    expr = pl.col(name)
    arrow_type = file.columns[name]
    if target == TIMESTAMP_DTYPE and getattr(arrow_type, "tz", None):
        expr = expr.dt.convert_time_zone("UTC").dt.replace_time_zone(None)
    return expr.cast(target)


def polars_frame(
    schema: pa.DataFrameSchema, coordinate: CoordinateType, files: Sequence[FileSchema]
) -> pl.LazyFrame:
    """A lazy frame over a table's files, normalized like the DuckDB view."""
    target = polars_schema(schema, coordinate)
    frames = []
    for file in files:
        scan = pl.scan_parquet(file.path, row_index_name=ROW_COLUMN, hive_partitioning=False)
        exprs = [
            _polars_column(name, logical_type(column), coordinate, file).alias(name)
            for name, column in schema.columns.items()
        ]
        exprs.append(pl.lit(str(file.path), dtype=pl.String()).alias(FILE_COLUMN))
        exprs.append(pl.col(ROW_COLUMN).cast(pl.Int64()))
        frames.append(scan.select(exprs))
    if not frames:
        return pl.LazyFrame(schema=target)
    return pl.concat(frames, how="vertical")
