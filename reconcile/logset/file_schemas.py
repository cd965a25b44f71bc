"""Reading each file's column names and types from its Parquet footer alone."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from reconcile.db import quote_identifier
from reconcile.logset.discover import LogSetFiles, TableFiles
from reconcile.logset.sources import TableSource
from reconcile.problems import Problem


@dataclass(frozen=True)
class FileSchema:
    """The columns of one file: its own, and the hive keys of its folders (strings)."""

    path: Path
    columns: dict[str, pa.DataType]
    hive: dict[str, str]
    # the file's own column names as written, in order, repeats included (a Parquet
    # file may repeat a name; ``columns`` keeps one of them)
    names: tuple[str, ...] = ()
    # its columns stored as INT96 timestamps (Impala's, Hive's, old Spark's), each as
    # (contract column, the file's column): DuckDB reads them to the microsecond,
    # pyarrow to the nanosecond
    int96: tuple[tuple[str, str], ...] = ()


def read_file_schemas(
    logset: LogSetFiles, table: TableFiles
) -> tuple[list[FileSchema], list[Problem]]:
    """Each file's schema; files whose footer cannot be read become problems. A
    table read from a table source (a mapping's) has, in each file, the types its
    source reads (the mapping was checked against the files when it was bound)."""
    mapped = logset.mapped.get(table.name)
    if mapped is not None:
        return [
            FileSchema(
                path, dict(mapped.types), {}, tuple(mapped.types), _mapped_int96(mapped, path)
            )
            for path in mapped.files
        ], []
    schemas: list[FileSchema] = []
    problems: list[Problem] = []
    for path, hive in zip(table.files, table.hive, strict=True):
        try:
            arrow_schema = pq.read_schema(path)
        # a footer broken in a column's name is not UTF-8: pyarrow's UnicodeDecodeError,
        # a ValueError like its ArrowInvalid
        except (OSError, ValueError, pa.ArrowException) as error:
            problems.append(
                Problem(
                    check="unreadable_file",
                    table=table.name,
                    files=(logset.relative(path),),
                    message=f"cannot be read as Parquet: {error}",
                )
            )
            continue
        columns = {field.name: field.type for field in arrow_schema}
        for key in hive:
            columns.setdefault(key, pa.string())
        int96 = tuple((c, c) for c in _int96_columns(path, columns))
        schemas.append(FileSchema(path, columns, hive, tuple(arrow_schema.names), int96))
    return schemas, problems


def _int96_columns(path: Path, columns: dict[str, pa.DataType]) -> tuple[str, ...]:
    """The top-level columns of a file stored as INT96 (read as nanosecond timestamps;
    only those are looked for, in the footer read again)."""
    if not any(pa.types.is_timestamp(t) and t.unit == "ns" for t in columns.values()):
        return ()
    try:
        schema = pq.read_metadata(path).schema
    except (OSError, ValueError, pa.ArrowException):
        return ()
    return int96_columns(schema)


def int96_columns(schema: pq.ParquetSchema) -> tuple[str, ...]:
    """The top-level columns of a Parquet schema stored as INT96."""
    return tuple(
        schema.column(i).name
        for i in range(len(schema))
        if schema.column(i).physical_type == "INT96" and "." not in schema.column(i).path
    )


def _mapped_int96(mapped: TableSource, path: Path) -> tuple[tuple[str, str], ...]:
    """The contract columns a mapping reads as they are from a Parquet file's INT96
    column (a column read through an expression of the mapping's is not traced)."""
    expressions = dict(getattr(mapped, "expressions", ()))
    if getattr(mapped, "format", None) != "parquet" or not expressions:
        return ()
    try:
        arrow_schema = pq.read_schema(path)
    except (OSError, ValueError, pa.ArrowException):
        return ()
    return mapped_int96(expressions, _int96_columns(path, {f.name: f.type for f in arrow_schema}))


def mapped_int96(
    expressions: dict[str, str], stored: tuple[str, ...]
) -> tuple[tuple[str, str], ...]:
    """(contract column, file column) for each contract column a mapping's
    ``expressions`` read as they are from one of the INT96 columns ``stored``."""
    return tuple(
        (name, source)
        for name, sql in expressions.items()
        for source in stored
        if sql == quote_identifier(source)
    )
