"""Running a table's row checks, uniqueness and the cross-table rules in DuckDB.

Each table costs one scan when it is valid: a single aggregate counts the failing
rows of every check, per file. Only a check that fails costs more: one small query
for a few example rows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

import duckdb
import polars as pl

from reconcile.db import glob_literal, quote_identifier
from reconcile.errors import ResourceError, first_line, resource_error
from reconcile.logset.discover import LogSetFiles
from reconcile.logset.load import LogSet
from reconcile.logset.normalize import (
    BAD_TIME_COLUMN,
    DAWN,
    DUSK,
    FILE_COLUMN,
    ROW_COLUMN,
    TIME_FIRST,
    TIME_LAST,
)
from reconcile.problems import Problem
from reconcile.render.values import times_as_text
from reconcile.validate.compile import (
    DataCheck,
    compile_checks,
    key_columns,
    time_range_checks,
    unique_columns,
)
from reconcile.validate.raw import with_raw_values
from reconcile_schemas import Rule, table_schema

_FILE = quote_identifier(FILE_COLUMN)
_ROW = quote_identifier(ROW_COLUMN)


def _json_value(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return value


def _exact_rows(rows: duckdb.DuckDBPyRelation) -> list[tuple[Any, ...]]:
    """A query's rows with every time as its text to the nanosecond (a Python
    datetime would hold microseconds)."""
    frame = pl.from_arrow(rows.to_arrow_table())
    assert isinstance(frame, pl.DataFrame)
    return times_as_text(frame).rows()


def _examples(
    logset: LogSet, query: duckdb.DuckDBPyRelation, columns: Sequence[str]
) -> tuple[dict[str, Any], ...]:
    rows = _exact_rows(query)
    examples = []
    for row in rows:
        example: dict[str, Any] = {}
        for name, value in zip(columns, row, strict=True):
            if name == FILE_COLUMN:
                example["file"] = logset.files.relative(value) if value else None
            elif name == ROW_COLUMN:
                example["row"] = value
            else:
                example[name] = _json_value(value)
        examples.append(example)
    return tuple(examples)


def _shown(table: str, check_columns: Sequence[str]) -> list[str]:
    keys = key_columns(table_schema(table))
    return [FILE_COLUMN, ROW_COLUMN, *dict.fromkeys([*check_columns, *keys])]


def _count_query(table: str, checks: Sequence[DataCheck], columns: Sequence[str]) -> str:
    counts = ", ".join(
        f"count(*) FILTER (WHERE {check.fails}) AS {quote_identifier(f'c{i}')}"
        for i, check in enumerate(checks)
    )
    # the columns no check reads are read too, after the checks' counts (which the
    # caller reads by position): their values decoded, so that text that is not UTF-8,
    # or a page that does not decompress, is the file's problem here, not an internal
    # error of a later step (a count of them reads no value: hashed and folded)
    named = " ".join(check.fails for check in checks)
    unread = [c for c in columns if not re.search(rf"\b{re.escape(c)}\b", named)]
    every = "".join(f", bit_xor(hash({quote_identifier(c)}))" for c in unread)
    return (
        f"SELECT {_FILE}, count(*), {counts}{every} FROM {quote_identifier(table)} GROUP BY {_FILE}"
    )


def _example_query(table: str, predicate: str, columns: Sequence[str], limit: int) -> str:
    shown = ", ".join(quote_identifier(c) for c in columns)
    return (
        f"SELECT {shown} FROM {quote_identifier(table)} WHERE {predicate}"
        f" ORDER BY {_FILE}, {_ROW} LIMIT {int(limit)}"
    )


def row_checks_query(table: str) -> str:
    """The name the scan of a table's row checks goes by in errors."""
    return f"{table} row checks"


def _not_the_files(error: duckdb.Error, query: str) -> ResourceError | None:
    """The error to raise when a scan failed for want of memory or spill space: the
    engine's resources, not the files, are then at fault (exit 4, not a problem)."""
    return resource_error(error, step="validate", query=query)


def unreadable_mapped(
    files: LogSetFiles, table: str, error: duckdb.Error, query: str | None = None
) -> list[Problem]:
    """The problem of a table read through a mapping whose scan (``query``, default
    its row checks) failed: the mapping's conversions fail on a value, or a file of it
    does not read. Raises :class:`~reconcile.errors.ResourceError` when the scan ran
    out of memory or spill space instead."""
    resources = _not_the_files(error, query or row_checks_query(table))
    if resources is not None:
        raise resources from error
    sources = files.mapped[table].files
    return [
        Problem(
            check="unreadable_table",
            table=table,
            files=tuple(files.relative(f) for f in sources[:3]),
            message=f"cannot be read through the mapping: {error}",
        )
    ]


def unreadable_files(logset: LogSet, table: str, error: duckdb.Error) -> list[Problem]:
    """Find which files of a table fail to decode, after a scan of all failed.
    Raises :class:`~reconcile.errors.ResourceError` when the scan, or a file's, ran
    out of memory or spill space: that says nothing of the files."""
    resources = _not_the_files(error, row_checks_query(table))
    if resources is not None:
        raise resources from error
    if table in logset.files.mapped:
        return unreadable_mapped(logset.files, table, error)
    problems = []
    for file in logset.file_schemas.get(table, []):
        try:
            logset.con.execute(
                # each column's every value hashed and folded: a filter on the hash
                # (never null) was answered without decoding the pages
                "SELECT bit_xor(hash(COLUMNS(*))) FROM read_parquet($file)",
                {"file": glob_literal(file.path)},
            ).fetchall()
        except duckdb.Error as file_error:
            resources = _not_the_files(file_error, row_checks_query(table))
            if resources is not None:
                raise resources from file_error
            problems.append(
                Problem(
                    check="unreadable_file",
                    table=table,
                    files=(logset.files.relative(file.path),),
                    message=f"cannot be read as Parquet: {first_line(file_error)}",
                )
            )
    if not problems:
        problems.append(
            Problem(check="unreadable_table", table=table, message=f"cannot be read: {error}")
        )
    return problems


def check_rows(logset: LogSet, table: str, max_examples: int) -> tuple[list[Problem], int | None]:
    """Every row check of a table's schema, in one scan; also the table's row count
    (None when its files cannot be read)."""
    schema = table_schema(table, logset.coordinate)
    checks = compile_checks(schema, BAD_TIME_COLUMN) + time_range_checks(
        schema, logset.coordinate, BAD_TIME_COLUMN, (TIME_FIRST, TIME_LAST), (DAWN, DUSK)
    )
    try:
        per_file = logset.con.execute(_count_query(table, checks, list(schema.columns))).fetchall()
    except duckdb.Error as error:
        return unreadable_files(logset, table, error), None
    problems = []
    for i, check in enumerate(checks):
        failing = {row[0]: row[i + 2] for row in per_file if row[i + 2]}
        if not failing:
            continue
        columns = _shown(table, check.shows)
        shown = logset.con.sql(_example_query(table, check.fails, columns, max_examples))
        examples = _examples(logset, shown, columns)
        if check.check == "timestamp_in_range" and check.column:
            # the normalized value of a time out of range is null, and a mapped one's
            # is the end it saturates at: show the file's own
            mapped = logset.files.mapped.get(table)
            if mapped is None:
                examples = with_raw_values(examples, logset.path, check.column)
            elif (read_from := mapped.file_column(check.column)) is not None:
                examples = with_raw_values(examples, logset.path, check.column, read_from)
        problems.append(
            Problem(
                check=check.check,
                table=table,
                column=check.column,
                files=tuple(logset.files.relative(f) for f in sorted(failing)),
                failing_rows=sum(failing.values()),
                message=check.message,
                examples=examples,
            )
        )
    return problems, sum(row[1] for row in per_file)


def check_unique(logset: LogSet, table: str, max_examples: int) -> list[Problem]:
    """The table's uniqueness constraint: rows sharing a key are all reported."""
    keys = unique_columns(table_schema(table))
    if not keys:
        return []
    idents = ", ".join(quote_identifier(k) for k in keys)
    duplicates = (
        f"SELECT {idents}, count(*) AS n, min({_FILE}) AS {_FILE}, min({_ROW}) AS {_ROW},"
        f" max({_FILE}) AS last_file"
        f" FROM {quote_identifier(table)} GROUP BY {idents} HAVING count(*) > 1"
    )
    groups, rows = logset.con.execute(
        f"SELECT count(*), coalesce(sum(n), 0) FROM ({duplicates})"
    ).fetchall()[0]
    if not groups:
        return []
    columns = [FILE_COLUMN, ROW_COLUMN, *keys, "n", "last_file"]
    shown = logset.con.sql(
        f"SELECT {', '.join(quote_identifier(c) for c in columns)} FROM ({duplicates})"
        f" ORDER BY {idents} LIMIT {int(max_examples)}"
    )
    examples = _examples(logset, shown, columns)
    files = sorted(
        {str(e["file"]) for e in examples}
        | {str(_relative(logset, e["last_file"])) for e in examples}
    )
    for example in examples:
        example["rows_with_key"] = example.pop("n")
        example.pop("last_file")
    return [
        Problem(
            check="unique",
            table=table,
            column=", ".join(keys),
            files=tuple(f for f in files if f),
            failing_rows=int(rows),
            message=f"({', '.join(keys)}) must be unique: {groups} value(s) repeat",
            examples=examples,
        )
    ]


def _relative(logset: LogSet, path: str | None) -> str | None:
    return logset.files.relative(path) if path else None


def check_rule(logset: LogSet, rule: Rule, max_examples: int) -> list[Problem]:
    """A multi-row or cross-table rule from ``reconcile_schemas.rules``."""
    params = {"coordinate_type": logset.coordinate.value} if "$coordinate_type" in rule.sql else {}
    relation = logset.con.sql(rule.sql, params=params)
    rows, hits = relation.aggregate("coalesce(sum(__rows), 0), count(*)").fetchall()[0]
    if not hits:
        return []
    examples = []
    for row in _exact_rows(relation.limit(max_examples)):
        record = dict(zip(relation.columns, row, strict=True))
        record.pop("__rows")
        example: dict[str, Any] = {
            "file": _relative(logset, record.pop(FILE_COLUMN)),
            "row": record.pop(ROW_COLUMN),
        }
        example.update({k: _json_value(v) for k, v in record.items()})
        examples.append(example)
    return [
        Problem(
            check=rule.name,
            table=rule.table,
            column=rule.column,
            files=tuple(dict.fromkeys(e["file"] for e in examples if e["file"])),
            failing_rows=int(rows),
            message=rule.message,
            examples=tuple(examples),
        )
    ]
