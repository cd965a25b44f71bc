"""Translating a table's Pandera schema into DuckDB failure predicates.

The schema is the one declaration of a table's row rules (``reconcile_schemas``,
read in its compiled form); Pandera runs it on in-memory frames, and this module
states each of its checks as an SQL predicate that is true on a failing row, so
that DuckDB can run them all in one pass over files larger than memory. Built-in
checks are read from their name and statistics; row rules carry their own SQL. A
check this module does not know is an error in the schema, raised at once rather
than skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reconcile.db import quote_identifier, quote_literal
from reconcile_schemas import ROW_RULE, CoordinateType, Logical, Schema, logical_type
from reconcile_schemas.declared import Check


@dataclass(frozen=True)
class DataCheck:
    """One row check: ``fails`` is an SQL predicate true on the rows that break it."""

    check: str
    column: str
    fails: str
    message: str
    shows: tuple[str, ...]


def _sql_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return quote_literal(value)
    raise TypeError(f"no SQL literal for {value!r}")


def _column_check(name: str, check: Check) -> DataCheck:
    ident = quote_identifier(name)
    stats: Mapping[str, Any] = check.statistics or {}
    if check.name == "isin":
        allowed = list(stats["allowed_values"])
        fails = f"{ident} IS NOT NULL AND {ident} NOT IN ({', '.join(map(_sql_value, allowed))})"
        message = f"{name} must be one of {', '.join(allowed)}"
    elif check.name == "greater_than_or_equal_to":
        fails = f"{ident} < {_sql_value(stats['min_value'])}"
        message = f"{name} must be >= {stats['min_value']}"
    elif check.name == "greater_than":
        fails = f"{ident} <= {_sql_value(stats['min_value'])}"
        message = f"{name} must be > {stats['min_value']}"
    else:
        raise ValueError(f"check {check.name!r} on column {name} has no SQL translation")
    return DataCheck(check.name, name, fails, message, (name,))


def _row_rule(check: Check) -> DataCheck:
    stats: Mapping[str, Any] = check.statistics or {}
    if stats.get("kind") != ROW_RULE:
        raise ValueError(f"table check {check.name!r} is not a row rule with SQL")
    columns = tuple(stats["columns"])
    return DataCheck(
        check=str(check.name),
        column=", ".join(columns),
        fails=f"NOT coalesce(({stats['sql']}), true)",
        message=str(check.error),
        shows=columns,
    )


def compile_checks(schema: Schema, flag: str | None = None) -> list[DataCheck]:
    """Every row check of a schema, nullability first, as DuckDB predicates. With
    ``flag`` (the column naming a row's time the engine cannot hold, which reads as
    null: :func:`time_range_checks`), such a value is not reported as a null too."""
    checks: list[DataCheck] = []
    for name, column in schema.columns.items():
        if not column.nullable:
            fails = f"{quote_identifier(name)} IS NULL"
            if flag is not None:
                fails += f" AND {quote_identifier(flag)} IS DISTINCT FROM {quote_literal(name)}"
            checks.append(
                DataCheck(
                    "not_nullable",
                    name,
                    fails,
                    f"{name} must not be null",
                    (name,),
                )
            )
        checks.extend(_column_check(name, check) for check in column.checks)
    checks.extend(_row_rule(check) for check in schema.checks)
    return checks


def time_range_checks(
    schema: Schema,
    coordinate: CoordinateType,
    flag: str,
    coordinates: tuple[str, str],
    times: tuple[str, str],
) -> list[DataCheck]:
    """For each timestamp column of a schema (coordinates too, in a log set of
    timestamps), the check that its values are times the engine can hold: the
    normalized view names in ``flag`` the first column of a row that holds one
    outside its range, ``coordinates`` (first, last: DuckDB's nanosecond timestamps)
    for a coordinate, ``times`` (strictly between the engine's beginning and end of
    time) for a row's own time. Not a Pandera check: the ranges are the engine's, not
    the contract's."""
    checks = []
    for name, column in schema.columns.items():
        logical = logical_type(column)
        if logical is Logical.TIMESTAMP:
            first, last = times
            said = f"at or before {first} or at or after {last} UTC"
        elif logical is Logical.COORDINATE and coordinate is CoordinateType.TIMESTAMP:
            first, last = coordinates
            said = f"before {first} or after {last} UTC, or +-infinity"
        else:
            continue
        checks.append(
            DataCheck(
                "timestamp_in_range",
                name,
                f"{quote_identifier(flag)} = {quote_literal(name)}",
                f"{name} holds a time the reconciler cannot compute with: {said} (it"
                " computes in int64 nanoseconds, and keeps their ends for the beginning"
                " and the end of time)",
                (name,),
            )
        )
    return checks


def unique_columns(schema: Schema) -> tuple[str, ...]:
    """The columns whose combination must not repeat (empty: none)."""
    unique = schema.unique
    if not unique:
        return ()
    return (unique,) if isinstance(unique, str) else tuple(unique)


def key_columns(schema: Schema) -> tuple[str, ...]:
    """Columns that identify a row to a person, shown beside every example."""
    return tuple(schema.metadata.get("key_columns", ()))
