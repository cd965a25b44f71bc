"""What validation adds for mapped tables: value maps that miss a value, and every
problem restated in the user's terms (their file and column beside the contract's)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb

from reconcile.db import quote_literal
from reconcile.logset.discover import relative_name
from reconcile.logset.sources import TableSource
from reconcile.mapping.bind import FILE, ROW, MappedTable, expression, reader
from reconcile.mapping.spec import ColumnSpec
from reconcile.problems import Problem


def _value(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool)) or value is None else str(value)


def uncovered_values(
    con: duckdb.DuckDBPyConnection, table: MappedTable, max_examples: int
) -> list[Problem]:
    """A problem per value-mapped column whose data holds a value its map lacks."""
    problems: list[Problem] = []
    for name, spec in table.spec.columns:
        if not spec.values:
            continue
        rows = reader(con, table.files, table.format, table.file_types, table.delimiter)
        if table.spec.filter is not None:
            rows = rows.filter(table.spec.filter)
        source = expression(ColumnSpec(column=spec.column, sql=spec.sql), None)
        keys = ", ".join(quote_literal(k) for k, _ in spec.values)
        text = f"CAST({source} AS VARCHAR)"
        missed = rows.filter(f"{source} IS NOT NULL AND {text} NOT IN ({keys})").select(
            f"{text} AS value, {FILE}, {ROW}"
        )
        per_file = missed.aggregate(f"{FILE}, count(*) AS n", FILE).fetchall()
        if not per_file:
            continue
        shown = spec.column or f"sql {spec.sql}"
        examples = tuple(
            {"file": relative_name(table.root, Path(file)), "row": row, shown: _value(value)}
            for value, file, row in missed.order(f"{FILE}, {ROW}").limit(max_examples).fetchall()
        )
        distinct = [
            r[0] for r in missed.aggregate("value", "value").order("value").limit(10).fetchall()
        ]
        covered = ", ".join(k for k, _ in spec.values)
        problems.append(
            Problem(
                check="unmapped_value",
                table=table.table,
                column=name,
                source=spec.label(),
                files=tuple(sorted(relative_name(table.root, Path(f)) for f, _ in per_file)),
                failing_rows=sum(n for _, n in per_file),
                message=f"{shown} holds values the mapping's value map does not cover"
                f" ({', '.join(map(repr, distinct))}); it covers {covered}: add them to"
                f" [{table.table}.columns] {name} values",
                examples=examples,
            )
        )
    return problems


def in_user_terms(problem: Problem, mapped: Mapping[str, TableSource]) -> Problem:
    """A problem of a table read from a source (a mapping's) with the user's
    column(s) behind the contract's."""
    table = mapped.get(problem.table or "")
    if table is None or not problem.column or problem.source is not None:
        return problem
    names = [n.strip() for n in problem.column.split(",")]
    source = ", ".join(table.source(n) for n in names)
    if source == problem.column:
        return problem  # read by the contract's own names
    message = problem.message
    if problem.check == "missing_column":
        message += f": map it in [{table.table}.columns] of the mapping"
    return replace(problem, source=source, message=message)
