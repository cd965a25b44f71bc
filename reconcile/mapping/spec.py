"""A mapping file: how a user's own logs stand for the contract's tables.

A mapping is TOML, one section per contract table it supplies (``--mapping FILE``
names one; ``--mapping auto`` reads the log directory's own ``reconcile.toml``, which
is never applied unasked, since a mapping runs SQL over the files it chooses)::

    [checkpoints]
    files = "progress/*.parquet"        # path or glob under the log directory, or a list
    format = "parquet"                  # parquet, csv or jsonl (default: the extension)
    # delimiter = ";"                   # CSV only (default "," or a tab for .tsv);
    #                                   # CSV files have a header row and "-quoted fields
    filter = "kind = 'checkpoint'"      # SQL over the file's columns: this table's rows

    [checkpoints.columns]
    partition_id = "shard"                                   # a column of the files
    scope_id = { constant = "orders" }                       # one value for every row
    written_at = { column = "ts_ms", timestamp = "epoch_ms" }
    cas_result = { column = "cas", values = { OK = "won", CONFLICT = "lost" } }
    owner_epoch = { sql = "CAST(lease AS BIGINT)" }          # an SQL expression

A contract column the section does not name is the files' column of the same name
when they have one, else absent (null when nullable; a validation problem when not).
Tables the mapping does not name are found in the contract's own layout.

This module reads and checks the file alone; :mod:`reconcile.mapping.bind` checks it
against the files it names.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from reconcile.errors import InputError
from reconcile_schemas import TABLES, table_schema

MAPPING_FILE = "reconcile.toml"
FORMATS = ("parquet", "csv", "jsonl")
EXTENSIONS = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".tsv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}
# epoch units: nanoseconds per unit
EPOCH_UNITS = {"epoch_s": 1_000_000_000, "epoch_ms": 1_000_000, "epoch_us": 1_000, "epoch_ns": 1}
# text in RFC 3339 (ISO 8601 date and time): its offset honoured, none meaning UTC, a
# space for the T, to the nanosecond
RFC3339 = "rfc3339"

_TABLE_KEYS = frozenset({"files", "format", "filter", "columns", "delimiter"})
_COLUMN_KEYS = frozenset({"column", "sql", "constant", "values", "timestamp"})
_SCALARS = (str, int, float, bool, datetime, date)


class MappingError(InputError):
    """The mapping file is wrong: it cannot be read, or names what does not exist."""


@dataclass(frozen=True)
class ColumnSpec:
    """Where one contract column comes from: exactly one of ``column`` (a column of the
    files), ``sql`` (an expression over them) or ``constant``; a column or expression
    may go through ``values`` (a map of its values, as text) or ``timestamp`` (an epoch
    unit, ``rfc3339``, or a strptime format for text)."""

    column: str | None = None
    sql: str | None = None
    constant: Any = None
    is_constant: bool = False
    values: tuple[tuple[str, Any], ...] = ()
    timestamp: str | None = None

    def label(self) -> str:
        """What the user wrote, in a few words: ``shard``, ``ts_ms (epoch_ms)``."""
        if self.is_constant:
            return f"constant {self.constant!r}"
        base = self.column if self.column is not None else f"sql {self.sql}"
        if self.timestamp is not None:
            return f"{base} ({self.timestamp})"
        if self.values:
            return f"{base} (value map)"
        return base


@dataclass(frozen=True)
class TableSpec:
    """One contract table's section of the mapping."""

    table: str
    files: tuple[str, ...]
    format: str | None = None
    filter: str | None = None
    columns: tuple[tuple[str, ColumnSpec], ...] = ()
    # CSV: the field delimiter (default: a tab for .tsv files, else a comma)
    delimiter: str | None = None

    def column(self, name: str) -> ColumnSpec | None:
        return dict(self.columns).get(name)


@dataclass(frozen=True)
class LogMapping:
    """A whole mapping file: the tables it supplies."""

    path: Path
    tables: tuple[TableSpec, ...]

    def table(self, name: str) -> TableSpec | None:
        return next((t for t in self.tables if t.table == name), None)


def _fail(path: Path, where: str, message: str) -> MappingError:
    return MappingError(f"mapping {path}: {where}: {message}")


def _unknown_keys(path: Path, where: str, found: dict[str, Any], allowed: frozenset[str]) -> None:
    unknown = sorted(set(found) - allowed)
    if unknown:
        raise _fail(
            path,
            where,
            f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}",
        )


def _text(path: Path, where: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(path, where, f"expected a non-empty string, found {value!r}")
    return value


def _timestamp(path: Path, where: str, value: Any) -> str:
    text = _text(path, where, value)
    if text not in EPOCH_UNITS and text != RFC3339 and "%" not in text:
        raise _fail(
            path,
            where,
            f"timestamp {text!r} is neither an epoch unit ({', '.join(EPOCH_UNITS)}),"
            f" {RFC3339} nor a strptime format such as '%Y-%m-%d %H:%M:%S'",
        )
    return text


def _column(path: Path, table: str, name: str, raw: Any) -> ColumnSpec:
    where = f"[{table}.columns] {name}"
    if isinstance(raw, str):
        return ColumnSpec(column=_text(path, where, raw))
    if not isinstance(raw, dict):
        raise _fail(path, where, "expected a column name or a table such as { column = ..., ... }")
    _unknown_keys(path, where, raw, _COLUMN_KEYS)
    sources = [k for k in ("column", "sql", "constant") if k in raw]
    if len(sources) != 1:
        raise _fail(path, where, "give exactly one of column, sql or constant")
    if "constant" in raw:
        if set(raw) != {"constant"}:
            raise _fail(path, where, "a constant takes no values or timestamp")
        if not isinstance(raw["constant"], _SCALARS):
            raise _fail(path, where, "a constant is a string, number, bool or datetime")
        return ColumnSpec(constant=raw["constant"], is_constant=True)
    values: tuple[tuple[str, Any], ...] = ()
    if "values" in raw:
        found = raw["values"]
        if not isinstance(found, dict) or not found:
            raise _fail(path, where, "values is a table of source value = contract value")
        for key, target in found.items():
            if not isinstance(target, (str, bool, int)):
                raise _fail(path, where, f"values: {key!r} maps to {target!r}, not a value")
        values = tuple(found.items())
    timestamp = _timestamp(path, where, raw["timestamp"]) if "timestamp" in raw else None
    if values and timestamp:
        raise _fail(path, where, "give values or timestamp, not both")
    return ColumnSpec(
        column=_text(path, where, raw["column"]) if "column" in raw else None,
        sql=_text(path, where, raw["sql"]) if "sql" in raw else None,
        values=values,
        timestamp=timestamp,
    )


def _table(path: Path, table: str, raw: Any) -> TableSpec:
    where = f"[{table}]"
    if not isinstance(raw, dict):
        raise _fail(path, where, "expected a table section")
    _unknown_keys(path, where, raw, _TABLE_KEYS)
    if "files" not in raw:
        raise _fail(path, where, "files is required: a path or glob, or a list of them")
    files = raw["files"]
    globs = [files] if isinstance(files, str) else files
    if not isinstance(globs, list) or not globs:
        raise _fail(path, where, "files is a path or glob, or a list of them")
    patterns = tuple(_text(path, f"{where} files", g) for g in globs)
    fmt = raw.get("format")
    if fmt is not None and fmt not in FORMATS:
        raise _fail(path, where, f"format {fmt!r} is not one of {', '.join(FORMATS)}")
    condition = _text(path, f"{where} filter", raw["filter"]) if "filter" in raw else None
    delimiter = raw.get("delimiter")
    if delimiter is not None and (not isinstance(delimiter, str) or len(delimiter) != 1):
        raise _fail(path, where, f"delimiter is one character, found {delimiter!r}")
    columns_raw = raw.get("columns", {})
    if not isinstance(columns_raw, dict):
        raise _fail(path, f"[{table}.columns]", "expected a table of contract column = source")
    known = table_schema(table).columns
    unknown = sorted(set(columns_raw) - set(known))
    if unknown:
        raise _fail(
            path,
            f"[{table}.columns]",
            f"{', '.join(unknown)}: no such column of {table}; its columns are {', '.join(known)}",
        )
    columns = tuple(
        (name, _column(path, table, name, columns_raw[name]))
        for name in known
        if name in columns_raw
    )
    return TableSpec(table, patterns, fmt, condition, columns, delimiter)


def parse_mapping(text: str, path: Path) -> LogMapping:
    """A mapping from its TOML text; ``path`` names it in errors."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise MappingError(f"mapping {path} is not valid TOML: {error}") from None
    unknown = sorted(set(raw) - set(TABLES))
    if unknown:
        raise MappingError(
            f"mapping {path}: {', '.join(unknown)}: no such contract table; the tables are"
            f" {', '.join(TABLES)}"
        )
    if not raw:
        raise MappingError(f"mapping {path} maps no table")
    return LogMapping(path, tuple(_table(path, name, raw[name]) for name in TABLES if name in raw))


def load_mapping(path: str | Path, *, inside: Path | None = None) -> LogMapping:
    """Read and check a mapping file; ``inside`` (a log set's folder) is where a
    log set's own mapping must lie, links resolved."""
    where = Path(path)
    try:
        if inside is not None and not where.resolve(strict=True).is_relative_to(inside.resolve()):
            raise MappingError(
                f"mapping {where} leads outside the log set {inside}: a log set's own"
                " mapping is read from inside its folder only"
            )
        if not where.is_file():
            raise MappingError(f"mapping {where} is not a file")
        text = where.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise MappingError(
            f"mapping {where} is not UTF-8 text (byte {error.start}): a mapping is a TOML file"
        ) from None
    except (OSError, RuntimeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise MappingError(f"mapping {where} cannot be read: {reason}") from None
    return parse_mapping(text, where.resolve())


# The words that choose a log set's own mapping, or none, where a file could be named.
AUTO, NONE = "auto", "none"

UNTRUSTED = (
    "{root} brings its own mapping ({name}), which is not applied unless you ask: a"
    " mapping says which files are read and runs its SQL over them. Read through it"
    " with --mapping auto (from Python: mapping='auto'), read the contract's layout"
    " alone with --mapping none, or name a mapping file of your own with --mapping FILE"
)


def default_mapping_file(logset: str | Path) -> Path | None:
    """The log directory's own ``reconcile.toml``, when it has one (in any form: a
    link or a folder of that name is there too, and is refused when read)."""
    default = Path(logset) / MAPPING_FILE
    return default if os.path.lexists(default) else None


def find_mapping(logset: str | Path, explicit: str | Path | None = None) -> LogMapping | None:
    """The mapping for a log set, as the user chose it (issue 19: a log set's own
    mapping is never applied unless asked for):

    * a file (``explicit``): that mapping;
    * ``"auto"``: the log directory's own ``reconcile.toml`` (a MappingError when it
      has none, or when it leads outside the folder);
    * ``"none"``: no mapping, the contract's own layout;
    * None (nothing chosen): the contract's own layout when the log directory has no
      ``reconcile.toml``; when it has one, a MappingError saying how to choose.
    """
    root = Path(logset)
    own = default_mapping_file(root)
    if isinstance(explicit, str) and explicit == AUTO:
        if own is None:
            raise MappingError(f"--mapping auto: {root} has no {MAPPING_FILE}")
        return load_mapping(own, inside=root)
    if isinstance(explicit, str) and explicit == NONE:
        return None
    if explicit is not None:
        return load_mapping(explicit)
    if own is not None:
        raise MappingError(UNTRUSTED.format(root=root, name=MAPPING_FILE))
    return None
