"""A mapping bound to the files it names: each mapped table as a DuckDB relation.

Binding finds the files of each mapped table, reads their columns (Parquet footers;
for CSV and JSON Lines, DuckDB's detection), and states every contract column as an
SQL expression over them, checked by DuckDB: an unknown column, an expression that
does not bind, or a conversion that does not apply to the column's type is a
:class:`~reconcile.mapping.spec.MappingError` naming the table, the contract column
and what the mapping says. Nothing is copied: a bound table is a table source
(:class:`~reconcile.logset.sources.TableSource`) handed to discovery, the loader
registers its relation as the table's view, and the rows are read when a query needs
them.
"""

from __future__ import annotations

import csv
import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from duckdb.sqltypes import DuckDBPyType

from reconcile.db import connect, glob_literal, quote_identifier, quote_literal
from reconcile.errors import first_line, resource_error
from reconcile.logset.discover import is_hidden, relative_name
from reconcile.logset.normalize import RFC3339_PATTERN, text_time
from reconcile.mapping.spec import (
    EPOCH_UNITS,
    EXTENSIONS,
    RFC3339,
    ColumnSpec,
    LogMapping,
    MappingError,
    TableSpec,
)
from reconcile.sql import load
from reconcile_schemas import Logical, logical_type, table_schema

FILE = "__file"
ROW = "file_row_number"
_FRACTIONAL = ("FLOAT", "DOUBLE", "DECIMAL", "REAL")
_INTEGERS = frozenset({"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UHUGEINT"})


@dataclass(frozen=True)
class MappedTable:
    """A contract table read through the mapping: the user's files, their format,
    and each contract column's SQL expression over the files' columns (a column in
    neither the mapping nor the files is absent from ``expressions``). It is the
    table's :class:`~reconcile.logset.sources.TableSource`."""

    spec: TableSpec
    root: Path
    files: tuple[Path, ...]
    format: str
    expressions: tuple[tuple[str, str], ...]
    # the contract columns' types as DuckDB reads them, as Arrow types
    types: dict[str, pa.DataType]
    # CSV and JSON Lines: each column's type as read (:func:`file_types`)
    file_types: dict[str, str] = field(default_factory=dict)
    delimiter: str = ","

    @property
    def table(self) -> str:
        return self.spec.table

    @property
    def hive(self) -> tuple[dict[str, str], ...]:
        """None: a mapping reads the files' own columns, not their folders' keys."""
        return tuple({} for _ in self.files)

    def relation(self, con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyRelation:
        """The table's rows on ``con`` (:func:`mapped_relation`)."""
        return mapped_relation(con, self)

    def source(self, column: str) -> str:
        """The user's words for where a contract column comes from."""
        spec = self.spec.column(column)
        if spec is not None:
            return spec.label()
        if column in dict(self.expressions):
            return column
        return "not mapped"

    def file_column(self, column: str) -> str | None:
        """The Parquet column ``column`` is read from, where the mapping names one."""
        spec = self.spec.column(column)
        if self.format != "parquet" or spec is None or spec.column is None:
            return None
        return spec.column


def resolve_files(root: Path, spec: TableSpec, mapping: Path) -> tuple[tuple[Path, ...], str]:
    """The files a table's ``files`` patterns name under ``root`` (sorted, hidden
    ones skipped), and their format.

    A mapping reads the log set's own files only (issue 19): a pattern may not be
    absolute or climb out with ``..``, and a file it matches must be a regular file
    that lies inside ``root`` once its links are resolved; anything else is a
    MappingError, never a file quietly left out.
    """
    where = f"mapping {mapping}: [{spec.table}] files"
    found: dict[Path, None] = {}
    for pattern in spec.files:
        given = Path(pattern)
        if given.is_absolute() or given.drive or ".." in given.parts:
            raise MappingError(
                f"{where} {pattern!r}: a pattern is relative to the log set and stays inside"
                f" it (no absolute path, no ..); the log set is {root}"
            )
        try:
            matches = sorted(root.glob(pattern))
        except (OSError, ValueError) as error:
            raise MappingError(f"{where} {pattern!r}: {error}") from None
        files = []
        for match in matches:
            if is_hidden(match.name):
                continue
            try:
                real = match.resolve(strict=True)
            except (OSError, RuntimeError) as error:
                raise MappingError(
                    f"{where} {pattern!r}: {relative_name(root, match)} cannot be read"
                    f" (a link that leads nowhere or loops: {error})"
                ) from None
            if not real.is_relative_to(root):
                raise MappingError(
                    f"{where} {pattern!r}: {relative_name(root, match)} leads to {real}, outside"
                    " the log set; a mapping reads the log set's own files only"
                )
            if real.is_dir():
                continue
            if not real.is_file():
                raise MappingError(
                    f"{where} {pattern!r}: {relative_name(root, match)} is not a regular file"
                    " (a FIFO, a device or a socket)"
                )
            files.append(real)
        if not files:
            raise MappingError(f"{where} {pattern!r} matches no file under {root}")
        found.update(dict.fromkeys(files))
    paths = tuple(found)
    if spec.format is not None:
        return paths, spec.format
    formats = {EXTENSIONS.get(p.suffix.lower()) for p in paths}
    if len(formats) != 1 or None in formats:
        names = ", ".join(sorted({p.suffix or p.name for p in paths}))
        raise MappingError(
            f"mapping {mapping}: [{spec.table}] cannot tell the files' format from their"
            f' names ({names}); say format = "parquet", "csv" or "jsonl"'
        )
    fmt = formats.pop()
    assert fmt is not None
    return paths, fmt


# the wider of two detected CSV types
_WIDER = {frozenset({"BIGINT", "DOUBLE"}): "DOUBLE"}


def sniff_csv(
    con: duckdb.DuckDBPyConnection, files: tuple[Path, ...], delimiter: str = ","
) -> dict[str, str]:
    """The type DuckDB detects for each column of CSV files (bool, integer, float,
    text), file by file: files of a header alone are left out, and where files differ
    the wider type (text, unless integer and float) holds."""
    types: dict[str, str] = {}
    for file in files:
        rows = con.sql(
            load("mapping/sniff_csv"), params={"file": glob_literal(file), "delimiter": delimiter}
        )
        found = dict(zip(rows.columns, (str(t) for t in rows.types), strict=True))
        if not rows.fetchall():
            for column in found:
                types.setdefault(column, "")
            continue
        for column, kind in found.items():
            seen = types.get(column) or kind
            types[column] = kind if seen == kind else _WIDER.get(frozenset({seen, kind}), "VARCHAR")
    return {column: kind or "VARCHAR" for column, kind in types.items()}


# the types DuckDB's JSON reader makes of a field's strings that are times
_TIMES = frozenset({"date", "timestamp", "timestamp with time zone"})
# the type file_types gives a JSON field of RFC 3339 times: read as its text, then to
# the nanosecond with its offset (text_time)
TEXT_TIME = "TIMESTAMP_NS"
# the rows whose values decide whether a field of times is RFC 3339 (DuckDB's sample)
_SAMPLE = 20_480


def _type_sql(kind: DuckDBPyType) -> str:
    """A detected JSON type as SQL for read_json's columns, field names quoted."""
    name = str(kind.id)
    if name not in ("struct", "list", "map"):
        return str(kind)
    children = [(n, _type_sql(t)) for n, t in kind.children if isinstance(t, DuckDBPyType)]
    if name == "struct":
        return f"STRUCT({', '.join(f'{quote_identifier(n)} {t}' for n, t in children)})"
    if name == "list":
        return f"{children[0][1]}[]"
    return f"MAP({children[0][1]}, {children[1][1]})"


def _has_time(kind: DuckDBPyType) -> bool:
    if str(kind.id) in _TIMES:
        return True
    nested = str(kind.id) in ("struct", "list", "map")
    return nested and any(isinstance(t, DuckDBPyType) and _has_time(t) for _, t in kind.children)


def sniff_jsonl(con: duckdb.DuckDBPyConnection, files: tuple[Path, ...]) -> dict[str, str]:
    """The type each field of JSON Lines files is read as: DuckDB's detection, except
    for text DuckDB takes for times. A top-level field of them whose sampled values
    are all RFC 3339 (or dates) is :data:`TEXT_TIME`, read from its text to the
    nanosecond (DuckDB's TIMESTAMPTZ holds microseconds); one in another format is
    text, for a ``timestamp`` format to read (as in CSV: "01-02-2026" is no guess).
    An object or array holding times DuckDB cannot read in its default format is
    JSON (given a type, DuckDB reads times in that format only)."""
    names = [glob_literal(f) for f in files]
    rows = con.sql(load("mapping/sniff_jsonl"), params={"files": names})
    detected = list(zip(rows.columns, rows.types, strict=True))
    types = {n: _type_sql(k) for n, k in detected}
    times = [n for n, k in detected if str(k.id) in _TIMES]
    nested = [n for n, k in detected if str(k.id) not in _TIMES and _has_time(k)]

    def sample(read: dict[str, str]) -> duckdb.DuckDBPyRelation:
        relation = con.sql(load("mapping/read_jsonl"), params={"files": names, "columns": read})
        return relation.limit(_SAMPLE)

    plain = {n: "VARCHAR" if n in times else "JSON" if n in nested else k for n, k in types.items()}
    if times:
        pattern = quote_literal(f"({RFC3339_PATTERN})|[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}")
        checks = ", ".join(
            f"bool_and({quote_identifier(n)} IS NULL"
            f" OR regexp_full_match({quote_identifier(n)}, {pattern}))"
            for n in times
        )
        found = sample(plain).aggregate(checks).fetchall()[0]
        for name, rfc3339 in zip(times, found, strict=True):
            types[name] = "VARCHAR" if rfc3339 is False else TEXT_TIME
    for name in nested:
        try:
            sample({**plain, name: types[name]}).aggregate(
                f"count({quote_identifier(name)})"
            ).fetchall()
        except (duckdb.ConversionException, duckdb.InvalidInputException):
            types[name] = "JSON"
    return types


def file_types(
    con: duckdb.DuckDBPyConnection, files: tuple[Path, ...], fmt: str, delimiter: str = ","
) -> dict[str, str]:
    """The type each column of CSV or JSON Lines files is read as (Parquet: none)."""
    if fmt == "csv":
        return sniff_csv(con, files, delimiter)
    if fmt == "jsonl":
        return sniff_jsonl(con, files)
    return {}


def reader(
    con: duckdb.DuckDBPyConnection,
    files: tuple[Path, ...],
    fmt: str,
    types: Mapping[str, str] | None = None,
    delimiter: str = ",",
) -> duckdb.DuckDBPyRelation:
    """The files' rows with every column, ``__file`` and ``file_row_number``. CSV
    columns, read as text, are cast to ``types``; JSON Lines fields are read as
    ``types`` (default for both: :func:`file_types`)."""
    names = [glob_literal(f) for f in files]
    if fmt == "parquet":
        return con.sql(load("mapping/read_parquet"), params={"files": names})
    kinds = file_types(con, files, fmt, delimiter) if types is None else types
    if fmt == "jsonl":
        read = {c: "VARCHAR" if k == TEXT_TIME else k for c, k in kinds.items()}
        rows = con.sql(load("mapping/read_jsonl"), params={"files": names, "columns": read})
        times = [c for c, k in kinds.items() if k == TEXT_TIME]
        if not times:
            return rows
        # RFC 3339 text DuckDB detects as times, read to the nanosecond (its
        # TIMESTAMPTZ holds microseconds)
        items = [
            f"{text_time(quote_identifier(c))} AS {quote_identifier(c)}"
            if c in times
            else quote_identifier(c)
            for c in rows.columns
        ]
        return rows.select(", ".join(items))
    rows = con.sql(load("mapping/read_csv"), params={"files": names, "delimiter": delimiter})
    items = []
    for column in rows.columns:
        ident = quote_identifier(column)
        kind = kinds.get(column, "VARCHAR")
        # the type is one DuckDB named (sniff_csv), never a user's string
        items.append(ident if kind == "VARCHAR" else f"CAST({ident} AS {kind}) AS {ident}")
    return rows.select(", ".join(items))


def csv_delimiter(spec: TableSpec, files: tuple[Path, ...]) -> str:
    """The mapping's delimiter; else a tab for .tsv files, a comma for others."""
    if spec.delimiter is not None:
        return spec.delimiter
    return "\t" if files and all(f.suffix.lower() == ".tsv" for f in files) else ","


def _text_columns(spec: TableSpec, columns: list[str]) -> set[str]:
    """The files' columns the contract reads as text: those of text columns, of value
    maps and of text times (a format the mapping gives reads the text)."""
    schema = table_schema(spec.table).columns
    found = set()
    for name, column in schema.items():
        given = spec.column(name)
        if given is None:
            if logical_type(column) is Logical.STRING and name in columns:
                found.add(name)
        elif given.column is not None and (
            given.values
            or (given.timestamp is not None and given.timestamp not in EPOCH_UNITS)
            or (logical_type(column) is Logical.STRING and given.timestamp is None)
        ):
            found.add(given.column)
    return found


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"CAST({value} AS BIGINT)"
    if isinstance(value, float):
        return f"CAST({value!r} AS DOUBLE)"
    if isinstance(value, datetime):
        kind = "TIMESTAMPTZ" if value.tzinfo is not None else "TIMESTAMP_NS"
        return f"CAST({quote_literal(value.isoformat())} AS {kind})"
    if isinstance(value, date):
        return f"CAST({quote_literal(value.isoformat())} AS DATE)"
    return f"CAST({quote_literal(str(value))} AS VARCHAR)"


# the nanoseconds TIMESTAMP_NS holds as finite values (its ends read as infinities)
_NS_FIRST, _NS_LAST = -(2**63) + 2, 2**63 - 2


def _epoch_ns(units: str, scale: int, exact: bool) -> str:
    """An epoch as a TIMESTAMP_NS, ``units`` (an integer expression when ``exact``,
    else a whole DOUBLE) times ``scale`` nanoseconds, never overflowing: within range
    the time, beyond it +-infinity (NaN: infinity), so that validation names the row
    rather than the scan failing or the value reading as null (issue 19)."""
    if exact:
        value = f"(CAST({units} AS HUGEINT) * {scale})"
        fits = f"{value} BETWEEN {_NS_FIRST} AND {_NS_LAST}"
        inside = f"make_timestamp_ns(CAST({value} AS BIGINT))"
    else:
        value = f"({units})"
        # a margin for the DOUBLE's rounding near the ends; the product is exact
        fits = f"abs({value}) < {9.2e18 / scale!r}"
        inside = f"make_timestamp_ns(CAST({value} AS BIGINT) * {scale})"
    return (
        f"CASE WHEN {value} IS NULL THEN NULL WHEN {fits} THEN {inside}"
        f" WHEN {value} < 0 THEN CAST('-infinity' AS TIMESTAMP_NS)"
        " ELSE CAST('infinity' AS TIMESTAMP_NS) END"
    )


def expression(spec: ColumnSpec, source_type: str | None) -> str:
    """A column's SQL over the files' columns; ``source_type`` is the DuckDB type of
    the column or expression it converts (None for a constant)."""
    if spec.is_constant:
        return _literal(spec.constant)
    base = quote_identifier(spec.column) if spec.column is not None else f"({spec.sql})"
    if spec.values:
        cases = " ".join(
            f"WHEN {quote_literal(key)} THEN {_literal(value)}" for key, value in spec.values
        )
        return f"(CASE CAST({base} AS VARCHAR) {cases} END)"
    if spec.timestamp in EPOCH_UNITS:
        factor = EPOCH_UNITS[spec.timestamp]
        kind = (source_type or "").upper()
        if kind.startswith("DECIMAL"):
            return _epoch_ns(f"{base} * {factor}", 1, exact=True)
        if kind.startswith(_FRACTIONAL):
            # a double holds an epoch in seconds to about 0.2 µs: read to the µs
            micros = max(factor // 1000, 1)
            scale = 1000 if factor >= 1000 else 1
            return _epoch_ns(f"round({base} * {micros})", scale, exact=False)
        return _epoch_ns(base, factor, exact=True)
    if spec.timestamp is not None:
        if source_type is not None and source_type.upper().startswith(("TIMESTAMP", "DATE")):
            return base  # a time already (Parquet; an expression of the mapping's)
        if spec.timestamp == RFC3339:
            return text_time(f"CAST({base} AS VARCHAR)")
        return f"strptime(CAST({base} AS VARCHAR), {quote_literal(spec.timestamp)})"
    return base


def _text_sample(rows: duckdb.DuckDBPyRelation, column: str, where: str) -> str | None:
    """A value of a text column, among its first rows, that is not a number."""
    ident = quote_identifier(column)
    found = _rows_read(
        rows.limit(10_000)
        .filter(f"{ident} IS NOT NULL AND TRY_CAST({ident} AS DOUBLE) IS NULL")
        .select(ident)
        .limit(1),
        where,
    )
    return str(found[0][0]) if found else None


def _rows_read(rows: duckdb.DuckDBPyRelation, where: str) -> list[Any]:
    """``rows`` fetched while the mapping is bound: a failure there is the mapping's
    (its filter or a column's SQL failing on a row), never an internal error."""
    try:
        return rows.fetchall()
    except duckdb.Error as error:
        resources = resource_error(error, step="read the mapping", query=where)
        if resources is not None:
            raise resources from error
        raise MappingError(f"{where}: reading the rows fails: {why(error)}") from None


def _no_value(rows: duckdb.DuckDBPyRelation, column: str, where: str) -> bool:
    """Whether a column holds no value in any row (every field empty)."""
    ident = quote_identifier(column)
    return not _rows_read(rows.filter(f"{ident} IS NOT NULL AND {ident} <> ''").limit(1), where)


def _numeric(duckdb_type: str | None) -> bool:
    kind = (duckdb_type or "").upper()
    return kind.startswith(_FRACTIONAL) or kind.endswith("INT") or kind in _INTEGERS


def why(error: duckdb.Error) -> str:
    """DuckDB's reason a mapping's SQL does not apply, in the user's terms: the
    sandbox (:func:`reconcile.db.sandbox`) refusing a file is said as such."""
    text = str(error).strip()
    if isinstance(error, duckdb.PermissionException):
        return (
            f"{first_line(error)}: a mapping's SQL reads the log set's files through the"
            " table it maps, and can open no other file, URL or extension"
        )
    return text


def _columns_hint(name: str, columns: list[str]) -> str:
    close = difflib.get_close_matches(name, columns, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"the files' columns are {', '.join(c for c in columns if c not in (FILE, ROW))}{hint}"


def _own_names(
    con: duckdb.DuckDBPyConnection, files: tuple[Path, ...], fmt: str, delimiter: str
) -> dict[Path, list[str]]:
    """Each file's own column names, as written (a CSV header, a Parquet footer's
    top-level fields, every key of every JSON Lines object): DuckDB reads names
    without regard to case and renames a repeated one, so that a file's ``Status``
    and ``status`` are one name to a mapping, and the first one's values read."""
    names: dict[Path, list[str]] = {}
    for path in files:
        if fmt == "parquet":
            names[path] = list(pq.read_schema(path).names)
        elif fmt == "csv":
            with path.open(encoding="utf-8-sig", newline="") as handle:
                names[path] = next(csv.reader(handle, delimiter=delimiter, quotechar='"'), [])
        else:
            rows = con.sql(load("mapping/jsonl_keys"), params={"file": glob_literal(path)})
            names[path] = [row[0] for row in rows.fetchall()]
    return names


def _check_names(root: Path, names: dict[Path, list[str]], where: str) -> None:
    """Refuse a file whose columns repeat a name (without regard to case), or whose
    folders' hive key is one of its own columns: either way one of two columns would
    be read for the other, and nothing would say which."""
    for path, columns in names.items():
        shown = relative_name(root, path)
        seen: dict[str, str] = {}
        for column in columns:
            if column.lower() in seen:
                twice = (
                    f"column {column!r} twice"
                    if seen[column.lower()] == column
                    else f"columns {seen[column.lower()]!r} and {column!r}, one name to DuckDB"
                    " (which does not tell case apart)"
                )
                raise MappingError(
                    f"{where} {shown} has {twice}: one would be read for the other; rename one"
                )
            seen[column.lower()] = column
        folders = path.relative_to(root).parts[:-1] if path.is_relative_to(root) else ()
        keys = {part.partition("=")[0] for part in folders if "=" in part}
        for key in sorted(keys):
            if key.lower() in seen:
                raise MappingError(
                    f"{where} {shown} lies under a folder {key}=... and has a column"
                    f" {seen[key.lower()]!r} of its own: DuckDB reads the folder's value in"
                    " its place; rename the folder or the column"
                )


def bind_table(
    con: duckdb.DuckDBPyConnection,
    root: Path,
    spec: TableSpec,
    mapping: Path,
    resolved: tuple[tuple[Path, ...], str] | None = None,
) -> MappedTable:
    """Check a table's section against its files (``resolved``: as
    :func:`resolve_files` found them) and state its columns as SQL."""
    files, fmt = resolved if resolved is not None else resolve_files(root, spec, mapping)
    where = f"mapping {mapping}: [{spec.table}]"
    delimiter = csv_delimiter(spec, files)
    try:
        _check_names(root, _own_names(con, files, fmt, delimiter), f"{where} file")
        types = file_types(con, files, fmt, delimiter)
        detected = {c.lower(): k for c, k in types.items()}  # before text is text
        if types:
            named = {c.lower(): c for c in types}
            for text in _text_columns(spec, list(types)):
                if text.lower() in named:
                    types[named[text.lower()]] = "VARCHAR"
        rows = reader(con, files, fmt, types, delimiter)
    except duckdb.Error as error:
        resources = resource_error(error, step="read the mapping", query=f"[{spec.table}] files")
        if resources is not None:
            raise resources from error
        first = relative_name(root, files[0])
        raise MappingError(
            f"{where} files ({first}, ...) cannot be read as {fmt}: {error}"
        ) from None
    columns = list(rows.columns)
    lowered = {c.lower(): c for c in columns}
    if spec.filter is not None:
        try:
            rows = rows.filter(spec.filter)
        except duckdb.Error as error:
            raise MappingError(
                f"{where} filter {spec.filter!r} does not apply: {why(error)}"
            ) from None
    given: list[tuple[str, ColumnSpec]] = []
    identity: dict[str, str] = {}
    for name in table_schema(spec.table).columns:
        column = spec.column(name)
        if column is None:
            if name.lower() in lowered:
                identity[name] = quote_identifier(lowered[name.lower()])
            continue
        if column.column is not None and column.column.lower() not in lowered:
            raise MappingError(
                f"{where} {name} = {column.column!r}: no such column; "
                + _columns_hint(column.column, columns)
            )
        given.append((name, column))
    sources = _source_types(rows, given, where)
    converted: dict[str, str] = {}
    for name, column in given:
        source_type = sources.get(name)
        # a CSV column with no value in the rows DuckDB samples reads as text
        text_ok = (
            fmt == "csv"
            and source_type == "VARCHAR"
            and column.column is not None
            and _text_sample(rows, column.column, where) is None
        )
        held = detected.get((column.column or "").lower(), source_type)
        if column.timestamp == RFC3339 and (_numeric(source_type) or _numeric(held)):
            raise MappingError(
                f"{where} {name} = {column.label()}: cannot convert {held}: rfc3339"
                " reads text; for numbers give an epoch unit (epoch_s, epoch_ms, ...)"
            )
        if column.timestamp == "epoch_ns" and (source_type or "").upper().startswith(_FRACTIONAL):
            # a double is 256 ns apart at today's epochs: every value, the whole numbers
            # among them, would be read to about the µs, and ties made of times apart
            raise MappingError(
                f"{where} {name} = {column.label()}: epoch_ns values read as floating point"
                " (a value written with a fraction or an exponent, in some file or line),"
                " which holds nanoseconds only to about the µs: write every value as a"
                " whole number"
            )
        if column.timestamp in EPOCH_UNITS and not (_numeric(source_type) or text_ok):
            raise MappingError(
                f"{where} {name} = {column.label()}: cannot convert {source_type}: an epoch"
                " unit needs a number; for text times give a strptime format"
            )
        converted[name] = expression(column, source_type)
        empty_bool = (
            fmt == "csv"
            and source_type == "VARCHAR"
            and not column.values
            and logical_type(table_schema(spec.table).columns[name]) is Logical.BOOL
        )
        if empty_bool and column.column is not None and _no_value(rows, column.column, where):
            # a CSV column without a value in any row says no type: DuckDB reads it as
            # text, and a nullable bool column was refused as "found string"
            converted[name] = "CAST(NULL AS BOOLEAN)"
    _check_conversions(rows, given, converted, where)
    expressions = [
        (name, converted.get(name) or identity[name])
        for name in table_schema(spec.table).columns
        if name in converted or name in identity
    ]
    bound = MappedTable(spec, root, files, fmt, tuple(expressions), {}, types, delimiter)
    arrow = mapped_relation(con, bound).limit(0).to_arrow_table().schema
    arrow_types = {name: arrow.field(name).type for name, _ in expressions}
    return MappedTable(spec, root, files, fmt, tuple(expressions), arrow_types, types, delimiter)


def _first_failure(
    rows: duckdb.DuckDBPyRelation,
    items: list[tuple[str, ColumnSpec, str]],
    what: str,
    together: duckdb.Error,
) -> MappingError:
    """The error of the first of ``items`` (name, spec, SQL) that does not bind alone;
    ``together`` when each binds alone."""
    for name, column, sql in items:
        try:
            rows.select(sql)
        except duckdb.Error as error:
            return MappingError(f"{what} {name} = {column.label()}: {why(error)}")
    return MappingError(f"{what}: {why(together)}")


def _source_types(
    rows: duckdb.DuckDBPyRelation, given: list[tuple[str, ColumnSpec]], where: str
) -> dict[str, str]:
    """The DuckDB type of each given column or expression before conversion (one bind
    for all; on failure, one each, to name the one that fails)."""
    bare = [
        (n, c, expression(ColumnSpec(column=c.column, sql=c.sql), None))
        for n, c in given
        if not c.is_constant
    ]
    if not bare:
        return {}
    try:
        types = rows.select(", ".join(sql for _, _, sql in bare)).types
    except duckdb.Error as together:
        raise _first_failure(rows, bare, where, together) from None
    return {name: str(t) for (name, _, _), t in zip(bare, types, strict=True)}


def _check_conversions(
    rows: duckdb.DuckDBPyRelation,
    given: list[tuple[str, ColumnSpec]],
    converted: dict[str, str],
    where: str,
) -> None:
    """Every converted column binds (one bind for all; on failure, one each)."""
    if not converted:
        return
    try:
        rows.select(", ".join(converted.values()))
    except duckdb.Error as together:
        items = [(n, c, converted[n]) for n, c in given]
        raise _first_failure(rows, items, f"{where} cannot convert:", together) from None


def mapped_relation(con: duckdb.DuckDBPyConnection, table: MappedTable) -> duckdb.DuckDBPyRelation:
    """The table's rows: its contract columns (those it maps), ``__file`` and
    ``file_row_number`` (the row's number in the user's file)."""
    rows = reader(con, table.files, table.format, table.file_types, table.delimiter)
    if table.spec.filter is not None:
        rows = rows.filter(table.spec.filter)
    items = [f"{sql} AS {quote_identifier(name)}" for name, sql in table.expressions]
    items += [quote_identifier(FILE), quote_identifier(ROW)]
    return rows.select(", ".join(items))


def bind(mapping: LogMapping, root: Path) -> dict[str, MappedTable]:
    """Every table of a mapping, bound to its files under ``root``, in a DuckDB that
    reads those files and nothing else (:func:`reconcile.db.connect`)."""
    files = {spec.table: resolve_files(root, spec, mapping.path) for spec in mapping.tables}
    readable = [path for paths, _ in files.values() for path in paths]
    with connect(readable) as con:
        return {
            spec.table: bind_table(con, root, spec, mapping.path, files[spec.table])
            for spec in mapping.tables
        }
