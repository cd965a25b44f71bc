"""The normalizing projection of a table, for DuckDB and for Polars.

Both engines see the same table: every contract column present with its normalized
type (int64, bool, string, naive UTC nanosecond timestamps, the log set's
coordinate type), a nullable column that the files lack as all null, extra columns
dropped, and two columns saying where each row came from: ``__file`` (the file's
path) and ``__row`` (the row's number within its file, from 0).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime

import polars as pl
import pyarrow as pa_arrow

from reconcile.db import quote_identifier, quote_literal
from reconcile.logset.file_schemas import FileSchema
from reconcile_schemas import (
    TIMESTAMP_DTYPE,
    CoordinateType,
    Logical,
    Schema,
    duckdb_type,
    logical_type,
    polars_dtype,
)

FILE_COLUMN = "__file"
ROW_COLUMN = "__row"
# The first timestamp column of a row whose value the engine cannot hold (outside
# DuckDB's nanosecond timestamps, or +-infinity), by name; NULL when none: what
# validation's check ``timestamp_in_range`` reads. The engine never reads it.
BAD_TIME_COLUMN = "__bad_time"

# The first and the last microsecond of TIMESTAMP_NS, the engine's time type (its
# int64 nanoseconds; the very ends read as -infinity and infinity): the range of a
# coordinate that is a timestamp.
TIME_FIRST = "1677-09-21 00:12:43.145225"
TIME_LAST = "2262-04-11 23:47:16.854775"
# The instants the engine stands for "before every row" and "never" (the macros
# rc_dawn() and rc_dusk() of reconcile/sql/macros.sql): a row's own time (written_at,
# recorded_at, fetched_at, visible_at, effective_at, published_at) and T lie strictly
# between them, or the history would take a row for the beginning or the end of time.
DAWN = "1678-01-01 00:00:00"
DUSK = "2261-12-31 00:00:00"


def _zoned(duckdb_type_name: str) -> bool:
    """Whether a DuckDB type is a timestamp with a time zone (an instant)."""
    return duckdb_type_name.upper() in ("TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ", "TIMESTAMPTZ_NS")


# RFC 3339 text (a space for the T allowed, either case, the offset optional: none
# is UTC), as Python's re and DuckDB's regexp_full_match both read it
RFC3339_PATTERN = (
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?"
    r"([Zz]|[+-][0-9]{2}:[0-9]{2})?"
)


# Text that ends in a time with an offset from UTC no clock has: hours past 23, or
# minutes or seconds past 59 (RFC 3339 §5.6). DuckDB reads +25:00 as 25 hours, an
# instant a day away from any the writer meant: such text is no time. The readers'
# macro rc_no_clock (sql/readers/clock.sql) holds the same pattern.
NO_CLOCK_OFFSET = (
    r"[0-9]{2}:[0-9]{2}(:[0-9]{2}([.,][0-9]*)?)?\s*[+-]((2[4-9]|[3-9][0-9])(:?[0-9]{2}"
    r"(:?[0-9]{2})?)?|[0-9]{2}:?[6-9][0-9](:?[0-9]{2})?|[0-9]{2}:?[0-9]{2}:?[6-9][0-9])$"
)


def _zoned_text(text: str) -> str:
    """SQL for the TIMESTAMPTZ a timestamp's text names, to the microsecond (digits
    past the sixth cut); lower-case t and z read as upper (RFC 3339 §5.6). Raises as
    the cast does on text that is no time, naming the text as written; text with an
    offset no clock has (:data:`NO_CLOCK_OFFSET`) is no time."""
    clocked = (
        f"CASE WHEN regexp_matches({text}, '{NO_CLOCK_OFFSET}')"
        f" THEN 'offset of no clock: ' || {text} ELSE {text} END"
    )
    upper = (
        f"regexp_replace(regexp_replace({clocked}, '^([0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}})t', '\\1T'),"
        " 'z$', 'Z')"
    )
    return f"CAST(regexp_replace({upper}, '(\\.[0-9]{{6}})[0-9]+', '\\1') AS TIMESTAMPTZ)"


def _extra_nanos(text: str) -> str:
    """SQL for the seventh to ninth digits of a time's fraction, as nanoseconds."""
    return f"CAST(rpad(regexp_extract({text}, '\\.[0-9]{{6}}([0-9]{{1,3}})', 1), 3, '0') AS BIGINT)"


def text_instant(text: str) -> str:
    """SQL for the instant a timestamp's text names (``text``: an SQL expression), as
    a naive UTC TIMESTAMP_NS, to the nanosecond. DuckDB's TIMESTAMPTZ, which reads an
    offset, holds microseconds: the fraction is cut there for the cast and its seventh
    to ninth digits added back (digits past the ninth dropped); lower-case t and z
    read as upper (RFC 3339 §5.6). Raises as the cast does on text that is no time."""
    return f"make_timestamp_ns(epoch_ns({_zoned_text(text)}) + {_extra_nanos(text)})"


def text_time(text: str) -> str:
    """:func:`text_instant` for a row's time read from text: a time the engine cannot
    hold (year 1, year 9999) reads as -infinity or infinity, as a Parquet file's
    would, for validation to name its row (``timestamp_in_range``) rather than the
    scan to fail; text that is no time raises."""
    zoned = _zoned_text(text)
    return (
        f"CASE WHEN {text} IS NULL THEN NULL"
        f" WHEN {zoned} >= TIMESTAMPTZ '{TIME_FIRST}+00' AND {zoned} < TIMESTAMPTZ '{TIME_LAST}+00'"
        f" THEN make_timestamp_ns(epoch_ns({zoned}) + {_extra_nanos(text)})"
        f" WHEN {zoned} < TIMESTAMPTZ '1970-01-01 00:00:00+00'"
        " THEN CAST('-infinity' AS TIMESTAMP_NS) ELSE CAST('infinity' AS TIMESTAMP_NS) END"
    )


def _as_time(ident: str, source_type: str, hive: bool) -> str:
    """A column as naive UTC TIMESTAMP_NS, never raising: NULL where the value has no
    nanosecond timestamp (year 1, year 9999 in microseconds), infinities kept."""
    kind = source_type.upper()
    if hive:
        # A hive value is text (checked in range from the footers' pass); read its
        # offset, if any, before dropping the zone.
        return text_instant(ident)
    if kind == "TIMESTAMP_NS":
        return ident
    if _zoned(kind):
        if kind == "TIMESTAMPTZ_NS":
            return f"make_timestamp_ns(epoch_ns({ident}))"
        return (
            f"CASE WHEN {ident} BETWEEN TIMESTAMPTZ '{TIME_FIRST}+00'"
            f" AND TIMESTAMPTZ '{TIME_LAST}+00' THEN make_timestamp_ns(epoch_ns({ident})) END"
        )
    if kind == "VARCHAR":
        # text (a mapped CSV or JSON Lines column): RFC 3339, its offset honoured
        return f"TRY({text_instant(ident)})"
    return f"TRY_CAST({ident} AS TIMESTAMP_NS)"


def duckdb_projection(
    schema: Schema,
    coordinate: CoordinateType,
    present: Mapping[str, str],
    hive_keys: Iterable[str] = (),
    file_column: str = FILE_COLUMN,
) -> str:
    """The SELECT list that normalizes a ``read_parquet`` relation of a table.

    ``present`` maps the columns the relation has (any file of the table) to their
    DuckDB types, ``hive_keys`` are those that come from hive folders, which are
    strings, and ``file_column`` is the relation's column naming each row's file.

    An instant (a timestamp with a zone) becomes naive UTC through its epoch in
    nanoseconds: exact, independent of the session's zone, and an order of magnitude
    cheaper than a cast, which goes through ICU's calendar for every row. No
    conversion raises: a time the engine cannot hold reads as NULL (or stays
    infinite), and the row's ``__bad_time`` names its column, for validation to
    report (issue 19) rather than the engine to take for "no value".
    """
    hive_set = set(hive_keys)
    items: list[str] = []
    bad: list[str] = []
    for name, column in schema.columns.items():
        logical = logical_type(column)
        target = duckdb_type(logical, coordinate)
        ident = quote_identifier(name)
        if name not in present:
            expression = f"CAST(NULL AS {target})"
        elif target == "TIMESTAMP_NS":
            expression = _as_time(ident, present[name], name in hive_set)
            # a coordinate: within TIMESTAMP_NS's microseconds (not at the int64 ends
            # of nanoseconds, which a file may hold and DuckDB reads as values)
            held = (
                f"{expression} BETWEEN TIMESTAMP_NS '{TIME_FIRST}' AND TIMESTAMP_NS '{TIME_LAST}'"
            )
            if logical is Logical.TIMESTAMP:  # a row's own time, not a coordinate
                held = (
                    f"{expression} > TIMESTAMP_NS '{DAWN}' AND {expression} < TIMESTAMP_NS '{DUSK}'"
                )
            bad.append(
                f"WHEN {ident} IS NOT NULL AND NOT coalesce({held}, false)"
                f" THEN {quote_literal(name)}"
            )
        else:
            expression = f"CAST({ident} AS {target})"
        items.append(f"{expression} AS {ident}")
    items.append(f"{quote_identifier(file_column)} AS {quote_identifier(FILE_COLUMN)}")
    items.append(f"CAST(file_row_number AS BIGINT) AS {quote_identifier(ROW_COLUMN)}")
    flagged = f"CASE {' '.join(bad)} END" if bad else "CAST(NULL AS VARCHAR)"
    items.append(f"{flagged} AS {quote_identifier(BAD_TIME_COLUMN)}")
    return ", ".join(items)


def duckdb_empty(schema: Schema, coordinate: CoordinateType) -> str:
    """A query for the table with no rows (an absent optional table)."""
    items = [
        f"CAST(NULL AS {duckdb_type(logical_type(c), coordinate)}) AS {quote_identifier(n)}"
        for n, c in schema.columns.items()
    ]
    items.append(f"CAST(NULL AS VARCHAR) AS {quote_identifier(FILE_COLUMN)}")
    items.append(f"CAST(NULL AS BIGINT) AS {quote_identifier(ROW_COLUMN)}")
    items.append(f"CAST(NULL AS VARCHAR) AS {quote_identifier(BAD_TIME_COLUMN)}")
    return f"SELECT {', '.join(items)} WHERE false"


def polars_schema(schema: Schema, coordinate: CoordinateType) -> pl.Schema:
    """The normalized Polars schema of a table, with ``__file`` and ``__row``."""
    fields: dict[str, pl.DataType] = {
        name: polars_dtype(logical_type(column), coordinate)
        for name, column in schema.columns.items()
    }
    fields[FILE_COLUMN] = pl.String()
    fields[ROW_COLUMN] = pl.Int64()
    fields[BAD_TIME_COLUMN] = pl.String()
    return pl.Schema(fields)


# ns per unit of an Arrow timestamp
_NS_PER = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}
# the int64 nanoseconds DuckDB's TIMESTAMP_NS holds as finite values, both ends
# excluded as DuckDB reads them (-infinity at -(2**63) + 1, infinity at 2**63 - 1)
_NS_FIRST, _NS_LAST = -(2**63) + 2, 2**63 - 2


def _polars_time(
    name: str, arrow_type: pa_arrow.DataType, own_time: bool
) -> tuple[pl.Expr, pl.Expr]:
    """A timestamp column as naive UTC nanoseconds, computed on its physical integers
    (Polars panics on a datetime it cannot convert): the value, null where the engine
    cannot hold it, and whether it is such a value (for a row's ``own_time``, one not
    strictly between DAWN and DUSK, as in the DuckDB view)."""
    unit = getattr(arrow_type, "unit", "ns")
    if hasattr(arrow_type, "value_type"):  # dictionary-encoded
        unit = getattr(arrow_type.value_type, "unit", "ns")
    per = _NS_PER[unit]
    physical = pl.col(name).cast(pl.Int64)
    fits = physical.is_between(-(-_NS_FIRST // per), _NS_LAST // per)
    value = pl.when(fits).then(physical * per).cast(pl.Datetime("ns"))
    held = fits
    if own_time:
        held = fits & (physical * per > DAWN_NS) & (physical * per < DUSK_NS)
    return value, physical.is_not_null() & ~held


def _epoch_ns(moment: str) -> int:
    instant = datetime.fromisoformat(moment).replace(tzinfo=UTC)
    return int(instant.timestamp()) * 1_000_000_000


# DAWN and DUSK in nanoseconds since the epoch: the times the engine computes with
# lie strictly between them
DAWN_NS, DUSK_NS = _epoch_ns(DAWN), _epoch_ns(DUSK)


def _polars_column(
    name: str, logical: Logical, coordinate: CoordinateType, file: FileSchema
) -> tuple[pl.Expr, pl.Expr | None]:
    """A column of one file, normalized; and, for a timestamp, whether a row's value
    is one the engine cannot hold (``__bad_time``)."""
    target = polars_dtype(logical, coordinate)
    if name in file.hive:
        value = pl.lit(file.hive[name], dtype=pl.String())
        if target == TIMESTAMP_DTYPE:
            parsed = value.str.to_datetime(time_zone="UTC", time_unit="ns").dt.replace_time_zone(
                None
            )
            return parsed.cast(target), None
        return value.cast(target), None
    if name not in file.columns:
        return pl.lit(None, dtype=target), None
    if target == TIMESTAMP_DTYPE:
        return _polars_time(name, file.columns[name], logical is Logical.TIMESTAMP)
    return pl.col(name).cast(target), None


def polars_frame(
    schema: Schema, coordinate: CoordinateType, files: Sequence[FileSchema]
) -> pl.LazyFrame:
    """A lazy frame over a table's files, normalized like the DuckDB view (a file's
    own ``__row`` or ``__file`` column, which the contract allows, is not read)."""
    target = polars_schema(schema, coordinate)
    frames = []
    for file in files:
        # glob=False: the file itself, its name never read as a pattern
        scan = pl.scan_parquet(file.path, hive_partitioning=False, glob=False)
        exprs: list[pl.Expr] = []
        bad = pl.lit(None, dtype=pl.String())
        for name, column in reversed(list(schema.columns.items())):
            value, unheld = _polars_column(name, logical_type(column), coordinate, file)
            exprs.insert(0, value.alias(name))
            if unheld is not None:
                bad = pl.when(unheld).then(pl.lit(name)).otherwise(bad)
        exprs.append(pl.lit(str(file.path), dtype=pl.String()).alias(FILE_COLUMN))
        exprs.append(bad.alias(BAD_TIME_COLUMN))
        frames.append(
            scan.select(exprs)
            .with_row_index(ROW_COLUMN)
            .select(
                [*schema.columns, FILE_COLUMN, pl.col(ROW_COLUMN).cast(pl.Int64), BAD_TIME_COLUMN]
            )
        )
    if not frames:
        return pl.LazyFrame(schema=target)
    return pl.concat(frames, how="vertical")
