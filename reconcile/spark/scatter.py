"""Reading a log set's files in Spark tasks and splitting their rows by scope.

Each file is read by Spark's ``binaryFile`` source (so from any file system Spark
reads) and parsed by pyarrow in the task: the rows keep their files' own Arrow
types, as the DuckDB engine reads them, instead of Spark's (which has no nanosecond
timestamps). A first pass reads each file's *facts* (its schema, row count and latest timestamp)
from its footer and one column; the second cuts each file into *pieces*: Arrow IPC
streams of at most ``PIECE_ROWS`` of its rows, all of one scope, with
``__source_row`` (each row's number in the file).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from urllib.parse import unquote

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from reconcile.db import connect
from reconcile.errors import first_line, resource_error
from reconcile.logset.arrow_types import Kind, kind_of
from reconcile.logset.file_schemas import int96_columns, mapped_int96
from reconcile.logset.normalize import DAWN_NS, DUSK_NS, text_instant
from reconcile.mapping.bind import MappedTable
from reconcile.mapping.check import in_user_terms
from reconcile.problems import Problem
from reconcile.spark.mapped import mapped_count_and_end, mapped_rows
from reconcile.validate.int96 import int96_finer, int96_problem
from reconcile_schemas import ROW_TIME, TABLES, table_schema

# The timestamp column of each table that the end of the log set reads
# (sql/end_of_log.sql): the latest of them all; each table's row time.
END_COLUMNS: Mapping[str, str] = ROW_TIME

SOURCE_ROW = "__source_row"

_NS_PER = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}

PIECES_SCHEMA = "scope_id string, relpath string, blob binary"
BUCKETED_SCHEMA = "scope_id string, bucket long, relpath string, blob binary"
FACTS_SCHEMA = "relpath string, rows long, end_ns long, blob binary, problem string"

_COMPRESSION = "lz4"

# Rows per piece: a piece is one Spark row (tens of MB at most): an executor holds a
# few of them at a time, whatever the size of the files.
PIECE_ROWS = 100_000


@dataclass(frozen=True)
class SourceFile:
    """A file of the log set: its table, name relative to the log set, hive values.
    A file read through a mapping has the bound table (``mapped``), its name in the
    user's folder (``user_file``), and a ``relpath`` of the contract's layout under
    which its rows are laid out (``<table>/NNNNN.parquet``)."""

    table: str
    relpath: str
    uri: str
    hive: Mapping[str, str] = field(default_factory=dict)
    mapped: MappedTable | None = None
    user_file: str | None = None


def to_ipc(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    options = pa.ipc.IpcWriteOptions(compression=_COMPRESSION)
    with pa.ipc.new_stream(sink, table.schema, options=options) as writer:
        writer.write_table(table)
    return sink.getvalue()


def from_ipc(blob: bytes) -> pa.Table:
    with pa.ipc.open_stream(pa.BufferReader(blob)) as reader:
        return reader.read_all()


def _scope_keys(source: SourceFile, table: pa.Table) -> pa.Array | str | None:
    """Each row's scope as text: one value for the file when it is a hive key; None
    for every row when the file has no scope_id that reads as text (validation then
    reports the file, in the task of the rows without a scope)."""
    if "scope_id" in source.hive:
        return source.hive["scope_id"]
    if "scope_id" not in table.column_names:
        return None
    return _as_text(table.column("scope_id"))


def _as_text(column: pa.ChunkedArray) -> pa.Array | None:
    """A string column (plain, large, view or dictionary) as plain strings; None for
    any other type, which validation reports as the file's problem."""
    if kind_of(column.type) is not Kind.STRING:
        return None
    return pc.cast(column, pa.string()).combine_chunks()


# the times strictly between DAWN and DUSK, the ends the engine keeps for the beginning
# and the end of time: the range of T (--as-of) and of the times it computes with
_FIRST_NS, _LAST_NS = DAWN_NS + 1, DUSK_NS - 1


def end_ns(source: SourceFile, table: pa.Table | pa.RecordBatch) -> int | None:
    """The latest timestamp of the table's end-of-log column in these rows, in ns
    since the epoch (a naive timestamp is read as UTC, as the engine reads it)."""
    name = END_COLUMNS.get(source.table)
    if name is None or name not in table.schema.names:
        return None
    column = table.column(name)
    if not pa.types.is_timestamp(column.type):
        return None
    # the maximum in the column's own unit, then to ns in Python's integers: exact,
    # and no overflow for seconds far from 1970
    latest = pc.max(pc.cast(column, pa.int64())).as_py()
    if latest is None:
        return None
    # clamped to the range the engine computes in (the facts' column is int64, and the
    # end of the log is T for every scope's task): a row's time outside it is
    # refused by validation, which names it (exit 2), while the valid scopes' tasks
    # compute as of a T they can read
    return min(max(int(latest) * _NS_PER[column.type.unit], _FIRST_NS), _LAST_NS)


def hive_end_ns(value: str) -> int | None:
    """A row time written as a hive key (``published_at=2026-01-01T00:00:30Z/``), in
    ns since the epoch, read as the engine reads it (:func:`text_instant`); None where
    it is no time (validation names the folder)."""
    try:
        rows = _parser().execute(f"SELECT epoch_ns({text_instant('$v')})", {"v": value}).fetchall()
    except duckdb.Error:
        return None
    if not rows or rows[0][0] is None:
        return None
    return min(max(int(rows[0][0]), _FIRST_NS), _LAST_NS)  # as end_ns clamps


@cache
def _parser() -> duckdb.DuckDBPyConnection:
    """One DuckDB per worker process for reading times from text (a connection costs
    milliseconds; a hive layout keyed by time has a value per file)."""
    return connect()


def _split(source: SourceFile, rows: pa.Table) -> Iterator[tuple[str | None, pa.Table]]:
    """The rows by scope, each scope's in file order."""
    keys = _scope_keys(source, rows)
    if keys is None or isinstance(keys, str):
        yield keys, rows
        return
    for value in pc.unique(keys).to_pylist():
        mask = pc.is_null(keys) if value is None else pc.equal(keys, value)
        yield value, rows.filter(pc.fill_null(mask, False))


def bucket_of(partitions: pl.Series, buckets: int) -> pl.Series:
    """Each partition_id's bucket: a stable hash (the same in every task and on the
    driver: one Polars version), modulo ``buckets``; a null's is 0."""
    if buckets < 1:
        raise ValueError(f"buckets of partitions: {buckets} (at least 1)")
    return (partitions.hash(seed=1) % buckets).fill_null(0).cast(pl.Int64)


def by_bucket(frame: pl.DataFrame, buckets: int) -> dict[int, pl.DataFrame]:
    """The rows of ``frame`` by the bucket of their partition_id."""
    numbers = bucket_of(frame["partition_id"], buckets).alias("_bucket")
    parts = frame.with_columns(numbers).partition_by("_bucket", as_dict=True)
    return {int(key[0]): part.drop("_bucket") for key, part in parts.items()}


def _buckets(source: SourceFile, rows: pa.Table, buckets: int) -> Iterator[tuple[int, pa.Table]]:
    """The rows by bucket of partitions (:func:`bucket_of`); rows without a
    partition_id that reads as text go to bucket 0."""
    if "partition_id" in source.hive:
        values = pl.Series([source.hive["partition_id"]] * rows.num_rows, dtype=pl.String)
    else:
        text = (
            _as_text(rows.column("partition_id")) if "partition_id" in rows.column_names else None
        )
        if text is None:
            yield 0, rows
            return
        values = pl.Series(text)
    numbers = bucket_of(values, buckets).to_arrow()
    for bucket in pc.unique(numbers).to_pylist():
        yield int(bucket), rows.filter(pc.equal(numbers, bucket))


# A piece whose relpath is this carries a problem (JSON) found reading a file.
PROBLEM = "__problem__"


def _parquet_batches(content: bytes, rows_per_piece: int) -> Iterator[pa.Table]:
    """A Parquet file's rows, ``rows_per_piece`` at a time, with SOURCE_ROW. INT96
    times are read to the microsecond, as DuckDB reads them: pyarrow's nanoseconds
    would wrap a year past 2262 into another time, which no range check could see."""
    parquet = pq.ParquetFile(pa.BufferReader(content), coerce_int96_timestamp_unit="us")
    offset = 0
    for batch in parquet.iter_batches(batch_size=rows_per_piece, use_threads=False):
        yield pa.Table.from_batches([batch]).append_column(
            SOURCE_ROW, pa.array(range(offset, offset + batch.num_rows), type=pa.int64())
        )
        offset += batch.num_rows


def _mapped_batches(source: SourceFile, content: bytes, rows_per_piece: int) -> list[pa.Table]:
    """A file's rows as its mapping reads them, ``rows_per_piece`` at a time, with
    SOURCE_ROW; ``duckdb.Error`` when a conversion fails."""
    assert source.mapped is not None
    rows = mapped_rows(source.mapped, source.user_file or source.relpath, content, SOURCE_ROW)
    return [rows.slice(start, rows_per_piece) for start in range(0, rows.num_rows, rows_per_piece)]


def _unreadable(source: SourceFile, error: duckdb.Error) -> dict[str, object]:
    """A piece saying that a file does not read through the mapping (as validation
    says it on one machine), for the task of the rows without a scope."""
    problem = Problem(
        check="unreadable_table",
        table=source.table,
        files=(source.user_file or source.relpath,),
        message=f"cannot be read through the mapping: {error}",
    )
    return {"scope_id": None, "relpath": PROBLEM, "blob": json.dumps(problem.to_dict()).encode()}


# What pyarrow raises on a file that is not Parquet or does not read as such
# (ArrowInvalid; ArrowIOError is OSError). Not pyarrow's error for what it does not
# implement: a valid file pyarrow cannot read that way is the engine's limit (exit 3),
# not the file's fault; nor a MemoryError (ArrowMemoryError), the machine's (exit 4).
UNREADABLE = (OSError, pa.ArrowInvalid)


def unreadable_problem(source: SourceFile, reason: str) -> Problem:
    """The problem of a file that cannot be read as Parquet, worded as validation
    words it on one machine (check ``unreadable_file``)."""
    return Problem(
        check="unreadable_file",
        table=source.table,
        files=(source.user_file or source.relpath,),
        message=f"cannot be read as Parquet: {reason}",
    )


# The name of a stand-in file (standin) in a task's log set.
STANDIN = "__standin__.parquet"


def standin(table: str) -> bytes:
    """An empty IPC table of ``table``'s contract columns, each of Parquet's null
    type: written as STANDIN, a name discovery leaves out, it makes the table's
    folder, and so the table, present without rows in a task's log set."""
    names = table_schema(table).columns
    return to_ipc(pa.schema([(name, pa.null()) for name in names]).empty_table())


def unreadable_file(source: SourceFile, reason: str) -> dict[str, object]:
    """A piece saying that a file cannot be read as Parquet, for the task of the rows
    without a scope."""
    blob = json.dumps(unreadable_problem(source, reason).to_dict()).encode()
    return {"scope_id": None, "relpath": PROBLEM, "blob": blob}


def _int96_problems(source: SourceFile, content: bytes) -> Iterator[dict[str, object]]:
    """Pieces saying which contract columns of a Parquet file are INT96 with times
    finer than a microsecond (validation's int96_nanoseconds, as on one machine):
    the pieces carry them read to the microsecond."""
    if source.mapped is not None and source.mapped.format != "parquet":
        return
    try:
        stored = int96_columns(pq.ParquetFile(pa.BufferReader(content)).schema)
    except (OSError, ValueError, pa.ArrowException) as error:
        if isinstance(error, MemoryError):
            raise
        return  # not Parquet: validation names the file
    if not stored:
        return
    if source.mapped is not None:
        # a mapped file: the contract columns its mapping reads as they are
        pairs = mapped_int96(dict(source.mapped.expressions), stored)
        label = source.user_file or source.relpath
    else:
        contract = set(table_schema(source.table).columns) if source.table in TABLES else set()
        pairs = tuple((c, c) for c in stored if c in contract and c not in source.hive)
        label = source.relpath
    for name, column in pairs:
        count, examples = int96_finer(content, column, name, label)
        if count:
            problem = int96_problem(source.table, name, label, count, examples)
            if source.mapped is not None:
                problem = in_user_terms(problem, {source.table: source.mapped})
            blob = json.dumps(problem.to_dict(), default=str).encode()
            yield {"scope_id": None, "relpath": PROBLEM, "blob": blob}


def pieces(
    source: SourceFile, content: bytes, rows_per_piece: int = PIECE_ROWS, buckets: int = 0
) -> Iterator[dict[str, object]]:
    """The pieces of one file: at most ``rows_per_piece`` rows each, read a batch at
    a time, each of one scope (and of one bucket of partitions, with ``buckets``). A
    file the mapping cannot read gives one PROBLEM piece (in bucket 0 with
    ``buckets``: a table the buckets alone validate is reported there, and the same
    problem from the scope's task counts once)."""
    batches: Iterable[pa.Table]
    for problem in _int96_problems(source, content):
        yield {**problem, "bucket": 0} if buckets else problem
    if source.mapped is None:
        batches = _parquet_batches(content, rows_per_piece)
    else:
        try:
            batches = _mapped_batches(source, content, rows_per_piece)
        except duckdb.Error as error:
            resources = resource_error(error, step="read the files", query=source.relpath)
            if resources is not None:
                raise resources from error
            problem = _unreadable(source, error)
            yield {**problem, "bucket": 0} if buckets else problem
            return
    read = iter(batches)
    while True:
        try:
            rows = next(read)
        except StopIteration:
            return
        except UNREADABLE as error:
            # a file whose footer read and whose rows do not: named as validation
            # names it (its rows before are in pieces already; the problem makes
            # the log set invalid). Only reading is caught: an error of the cutting
            # below is the engine's.
            problem = unreadable_file(source, first_line(error))
            yield {**problem, "bucket": 0} if buckets else problem
            return
        for scope, part in _split(source, rows):
            if not buckets:
                yield {"scope_id": scope, "relpath": source.relpath, "blob": to_ipc(part)}
                continue
            for bucket, share in _buckets(source, part, buckets):
                yield {
                    "scope_id": scope,
                    "bucket": bucket,
                    "relpath": source.relpath,
                    "blob": to_ipc(share),
                }


def _mapped_facts(source: SourceFile, content: bytes) -> dict[str, object]:
    assert source.mapped is not None
    schema = pa.schema([(n, t) for n, t in source.mapped.types.items()])
    column = END_COLUMNS.get(source.table)
    try:
        rows, latest = mapped_count_and_end(
            source.mapped, source.user_file or source.relpath, content, column
        )
    except duckdb.Error:
        # pieces() meets the same error and reports it as the file's problem (or the
        # task's validation reports the time column's type); here the file has no
        # row count and no time to give
        rows, latest = None, None
    return {
        "relpath": source.relpath,
        "rows": rows,
        "end_ns": latest,
        "blob": to_ipc(schema.empty_table()),
    }


def facts(source: SourceFile, content: bytes) -> dict[str, object]:
    """A file's schema (as an empty IPC table), row count and latest timestamp, from
    its footer and its end-of-log column alone (a file read through a mapping: its
    mapped columns, read whole)."""
    if source.mapped is not None:
        return _mapped_facts(source, content)
    name = END_COLUMNS.get(source.table)
    times = None
    try:
        parquet = pq.ParquetFile(pa.BufferReader(content), coerce_int96_timestamp_unit="us")
        schema = parquet.schema_arrow
        if name is not None and name not in source.hive and name in schema.names:
            times = parquet.read(columns=[name], use_threads=False)
    except UNREADABLE as error:
        # not Parquet, or not readable as such: validation names the file (the
        # driver keeps it out of the tasks)
        return {"relpath": source.relpath, "problem": first_line(error)}
    latest = None
    if name is not None and name in source.hive:
        if parquet.metadata.num_rows:
            latest = hive_end_ns(source.hive[name])
    elif times is not None:
        latest = end_ns(source, times)
    return {
        "relpath": source.relpath,
        "rows": parquet.metadata.num_rows,
        "end_ns": latest,
        "blob": to_ipc(schema.empty_table()),
    }


def _unquoted(path: str) -> str:
    return unquote(path).rstrip("/")


def match_sources(sources: Mapping[str, SourceFile]) -> dict[str, list[SourceFile]]:
    """Sources by their path without scheme or quoting, for Spark's spelling of it
    (a file read through a mapping for two tables is two sources)."""
    found: dict[str, list[SourceFile]] = {}
    for source in sources.values():
        found.setdefault(_unquoted(source.uri.split(":", 1)[-1]).lstrip("/"), []).append(source)
    return found


def source_of(path: str, by_path: Mapping[str, list[SourceFile]]) -> list[SourceFile]:
    """The sources of the file that Spark names ``path`` (``file:/x``, ``hdfs://nn/x``)."""
    bare = _unquoted(path.split(":", 1)[-1]).lstrip("/")
    found = by_path.get(bare)
    if found is not None:
        return found
    # hdfs://namenode/x: the authority is part of the path after the scheme
    for key, sources in by_path.items():
        if bare.endswith("/" + key) or key.endswith("/" + bare):
            return sources
    raise KeyError(f"Spark read a file the log set does not list: {path}")


def _files(
    sources: Mapping[str, SourceFile], batches: Iterator[pa.RecordBatch]
) -> Iterator[tuple[SourceFile, bytes]]:
    by_path = match_sources(sources)
    for batch in batches:
        paths = batch.column("path").to_pylist()
        contents = batch.column("content").to_pylist()
        for path, content in zip(paths, contents, strict=True):
            for source in source_of(path, by_path):
                yield source, content


def scatter(
    sources: Mapping[str, SourceFile], rows_per_piece: int = PIECE_ROWS, buckets: int = 0
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The ``mapInArrow`` function: (path, content) batches to pieces (with a bucket
    of partitions each, and BUCKETED_SCHEMA, when ``buckets``)."""
    schema = BUCKETED_ARROW if buckets else PIECES_ARROW

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for source, content in _files(sources, batches):
            for piece in pieces(source, content, rows_per_piece, buckets):
                yield pa.RecordBatch.from_pylist([piece], schema=schema)

    return run


def footers(
    sources: Mapping[str, SourceFile],
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The ``mapInArrow`` function: (path, content) batches to each file's facts."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for source, content in _files(sources, batches):
            yield pa.RecordBatch.from_pylist([facts(source, content)], schema=FACTS_ARROW)

    return run


PIECES_ARROW = pa.schema(
    [("scope_id", pa.string()), ("relpath", pa.string()), ("blob", pa.binary())]
)
BUCKETED_ARROW = pa.schema(
    [
        ("scope_id", pa.string()),
        ("bucket", pa.int64()),
        ("relpath", pa.string()),
        ("blob", pa.binary()),
    ]
)
FACTS_ARROW = pa.schema(
    [
        ("relpath", pa.string()),
        ("rows", pa.int64()),
        ("end_ns", pa.int64()),
        ("blob", pa.binary()),
        ("problem", pa.string()),
    ]
)
