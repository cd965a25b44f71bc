"""Checks of a log set's layout and column types, from file footers alone.

These run before any data is read: which tables exist, whether each file opens as
Parquet, whether each file has every required column with an accepted type, and
whether the log set keeps to one coordinate type (docs/contract.md §1).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from reconcile.logset.arrow_types import EXPECTED_TEXT, Kind, accepts
from reconcile.logset.coordinate import CoordinateColumn
from reconcile.logset.discover import LogSetFiles
from reconcile.logset.file_schemas import FileSchema
from reconcile.logset.normalize import DAWN, DUSK, TIME_FIRST, TIME_LAST
from reconcile.logset.overwrite import without_cas
from reconcile.problems import Problem
from reconcile.validate.int96 import int96_problems
from reconcile_schemas import REQUIRED_TABLES, CoordinateType, Logical, logical_type, table_schema
from reconcile_schemas.names import CAS_COLUMNS


@dataclass(frozen=True)
class Structure:
    """What the footers say: problems, and the tables too broken to read data from."""

    problems: tuple[Problem, ...]
    broken: frozenset[str]


def _tables_present(files: LogSetFiles) -> list[Problem]:
    # a table in two forms (ambiguous_table) is there, not missing: said once
    ambiguous = {p.table for p in files.problems if p.check == "ambiguous_table"}
    problems = [
        Problem(
            check="missing_table",
            table=name,
            message=f"the required table {name} is missing: expected {name}.parquet or"
            f" a folder {name}/ in {files.root}",
        )
        for name in sorted(REQUIRED_TABLES)
        if name not in files.tables and name not in ambiguous
    ]
    has_epochs, has_members = "epochs" in files.tables, "members" in files.tables
    if has_epochs != has_members:
        present, absent = ("epochs", "members") if has_epochs else ("members", "epochs")
        problems.append(
            Problem(
                check="epochs_members_together",
                table=absent,
                message=f"{present} is present without {absent}: membership needs both",
            )
        )
    return problems


_INT = re.compile(r"-?[0-9]+")
# a hive folder's time as DuckDB reads one: the extended form (2026-01-01, then a time
# after T or a space, then Z or an offset of hours and minutes); Python reads more
# (20260101T000000Z, 2026-W01-4, a comma before the fraction), which DuckDB refused
# with no file or column named
_HIVE_TIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"(?:[Tt ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?)?"
    r"(?:[Zz]|[+-][0-9]{2}(?::?[0-9]{2})?)?"
)


def _hive_value_fits(logical: Logical, coordinate: CoordinateType, value: str) -> bool:
    own_time = logical is Logical.TIMESTAMP  # a row's own time, not a coordinate
    if logical is Logical.COORDINATE:
        logical = Logical.INT64 if coordinate is CoordinateType.INT64 else Logical.TIMESTAMP
    if logical is Logical.INT64:
        return bool(_INT.fullmatch(value)) and -(2**63) <= int(value) < 2**63
    if logical is Logical.BOOL:
        return value.lower() in ("true", "false")
    if logical is Logical.TIMESTAMP:
        if not _HIVE_TIME.fullmatch(value):
            return False
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return False
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        if own_time:
            return _DAWN < moment < _DUSK
        return _FIRST <= moment <= _LAST
    return True


# a row's own time lies strictly between the engine's beginning and end of time, a
# coordinate within the times the engine holds (a hive value outside is not read)
_DAWN = datetime.fromisoformat(f"{DAWN}+00:00")
_DUSK = datetime.fromisoformat(f"{DUSK}+00:00")
_FIRST = datetime.fromisoformat(f"{TIME_FIRST}+00:00")
_LAST = datetime.fromisoformat(f"{TIME_LAST}+00:00")
# DuckDB's own column of a Parquet read's row numbers: a file's column of this name
# cannot be read beside it (DuckDB compares names without case)
RESERVED = ("file_row_number",)


def _name_problems(files: LogSetFiles, table: str, schemas: Sequence[FileSchema]) -> list[Problem]:
    """Column names the reader cannot tell apart, or that a reader would resolve
    silently: a name repeated in a file (without regard to case, as DuckDB binds
    names), a hive key that is also a column of the file below it, a name only the
    reader itself may use, and a contract column's name in another case."""
    contract = set(table_schema(table).columns)
    by_lower = {name.lower(): name for name in contract}
    grouped: dict[tuple[str, str], list[str]] = defaultdict(list)
    for file in schemas:
        where = files.relative(file.path)
        seen: dict[str, str] = {}
        for name in (*file.names, *file.hive):
            lowered = name.lower()
            if lowered in seen:
                check = "hive_key_shadows_column" if name in file.hive else "duplicate_column"
                grouped[(check, f"{seen[lowered]}|{name}")].append(where)
                continue
            seen[lowered] = name
            if lowered in RESERVED:
                grouped[("reserved_column", name)].append(where)
            elif name not in contract and lowered in by_lower:
                grouped[("misnamed_column", name)].append(where)
    problems = []
    for (check, detail), names in grouped.items():
        first, _, second = detail.partition("|")
        if check == "duplicate_column":
            column = first if first in contract else None
            message = (
                f"column {first!r} appears twice in a file"
                + (f" (also as {second!r})" if second != first else "")
                + ": a reader would keep one of them without saying which; keep one"
            )
        elif check == "hive_key_shadows_column":
            column = first if first in contract else None
            message = (
                f"hive folder key {second}= is also the file's column {first!r}: one would"
                " silently win over the other; drop the column from the files or the key"
                " from the folders"
            )
        elif check == "reserved_column":
            column = None
            message = (
                f"column {first!r} has the name of the reader's own row numbers, which"
                " cannot be read beside it; rename it (the contract reads no such column)"
            )
        else:
            column = by_lower[first.lower()]
            message = (
                f"column {first!r} is the contract's {column!r} in another case; names are"
                f" exact: rename it to {column!r}"
            )
        problems.append(
            Problem(check=check, table=table, column=column, files=tuple(names), message=message)
        )
    return problems


def _column_problems(
    files: LogSetFiles,
    table: str,
    schemas: Sequence[FileSchema],
    coordinate: CoordinateType,
) -> list[Problem]:
    schema = table_schema(table, coordinate)
    # (check, column, detail) -> files, so that one fault in many files is one problem
    grouped: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for file in schemas:
        name_of_file = files.relative(file.path)
        # checkpoints without compare-and-swap lack all four of its columns; a file
        # with some of them and not the others is neither kind
        cas_free = table == "checkpoints" and without_cas(file)
        if table == "checkpoints" and not cas_free:
            lacking = [c for c in CAS_COLUMNS if c not in file.columns]
            if lacking:
                grouped[("cas_columns_partial", lacking[0], ", ".join(lacking))].append(
                    name_of_file
                )
        for name, column in schema.columns.items():
            if cas_free and name in CAS_COLUMNS:
                continue
            logical = logical_type(column)
            if name in file.hive:
                if not _hive_value_fits(logical, coordinate, file.hive[name]):
                    grouped[("wrong_type", name, f"hive value {file.hive[name]!r}")].append(
                        name_of_file
                    )
            elif name not in file.columns:
                if not column.nullable:
                    grouped[("missing_column", name, "")].append(name_of_file)
            elif not accepts(logical, file.columns[name]):
                grouped[("wrong_type", name, str(file.columns[name]))].append(name_of_file)
    problems = []
    for (check, name, detail), where in grouped.items():
        logical = logical_type(schema.columns[name])
        if check == "cas_columns_partial":
            message = (
                f"lacks {detail} but has the other compare-and-swap columns: a checkpoints"
                f" file has all of {', '.join(CAS_COLUMNS)}, or none of them (a log of"
                " writes without compare-and-swap, each of which wins; docs/contract.md §3)"
            )
        elif check == "missing_column":
            message = f"required column {name} ({EXPECTED_TEXT[logical]}) is missing"
        else:
            message = f"column {name} should be {EXPECTED_TEXT[logical]}, found {detail}"
            if table in files.mapped and detail == "string" and logical is Logical.TIMESTAMP:
                message += (
                    ': text times need timestamp = "rfc3339" or a strptime format in the mapping'
                )
        problems.append(
            Problem(check=check, table=table, column=name, files=tuple(where), message=message)
        )
    return problems


def _coordinate_problems(
    files: LogSetFiles, columns: Sequence[CoordinateColumn], coordinate: CoordinateType
) -> list[Problem]:
    kinds = {c.kind for c in columns}
    if len(kinds) < 2:
        return []
    majority = Kind.INT if coordinate is CoordinateType.INT64 else Kind.TIMESTAMP
    odd = [c for c in columns if c.kind is not majority]
    usual = [c for c in columns if c.kind is majority]
    first = odd[0]

    def example(c: CoordinateColumn) -> dict[str, object]:
        return {
            "table": c.table,
            "file": files.relative(c.file.path),
            "column": c.column,
            "type": str(c.file.columns[c.column]),
        }

    return [
        Problem(
            check="mixed_coordinate_types",
            table=first.table,
            column=first.column,
            files=tuple(dict.fromkeys(files.relative(c.file.path) for c in odd)),
            message=f"coordinate columns mix types: {len(odd)} column(s) are {first.kind.value},"
            f" {len(usual)} are {majority.value}; one log set has one coordinate type"
            " (split it by scope)",
            examples=tuple(example(c) for c in odd[:3] + usual[:2]),
        )
    ]


def check_structure(
    files: LogSetFiles,
    file_schemas: Mapping[str, Sequence[FileSchema]],
    read_problems: Sequence[Problem],
    coordinate_cols: Sequence[CoordinateColumn],
    coordinate: CoordinateType,
) -> Structure:
    """Every layout and type problem of the log set, and which tables they break."""
    problems: list[Problem] = [*files.problems, *_tables_present(files), *read_problems]
    for table, schemas in file_schemas.items():
        problems.extend(_name_problems(files, table, schemas))
        problems.extend(_column_problems(files, table, schemas, coordinate))
        problems.extend(int96_problems(files, table, schemas))
    mixed = _coordinate_problems(files, coordinate_cols, coordinate)
    problems.extend(mixed)
    broken = {p.table for p in problems if p.table and p.check != "missing_table"}
    if mixed:
        majority = Kind.INT if coordinate is CoordinateType.INT64 else Kind.TIMESTAMP
        broken.update(c.table for c in coordinate_cols if c.kind is not majority)
    return Structure(tuple(problems), frozenset(t for t in broken if t is not None))
