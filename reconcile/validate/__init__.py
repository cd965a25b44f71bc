"""Validating a log set against the contract (docs/contract.md §1, §3).

The run is a fixed sequence of steps, each collecting problems rather than stopping
at the first: layout and footers (no data read), then one scan per table for its
row checks, a uniqueness check where the table has a key, then the cross-table
rules. A table whose files or types are broken is not scanned, and rules that read
it are not run, so that one fault is not reported again as many.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from reconcile.config import EngineConfig
from reconcile.db import Engine
from reconcile.errors import classify_engine_error
from reconcile.logset.coordinate import coordinate_columns, infer_coordinate
from reconcile.logset.discover import LogSetFiles
from reconcile.logset.file_schemas import FileSchema, read_file_schemas
from reconcile.logset.load import LogSet
from reconcile.mapping import LogMapping
from reconcile.mapping.bind import MappedTable
from reconcile.mapping.check import in_user_terms, uncovered_values
from reconcile.mapping.discover import discover_with_mapping
from reconcile.problems import DEFAULT_EXAMPLES, Problem
from reconcile.validate.data import (
    check_rows,
    check_rule,
    check_unique,
    row_checks_query,
    unreadable_files,
    unreadable_mapped,
)
from reconcile.validate.report import TableRead, ValidationReport
from reconcile.validate.structure import check_structure
from reconcile_schemas import TABLES, load_rules


@contextmanager
def _query(name: str) -> Iterator[None]:
    """A DuckDB error in validation's query ``name`` as the reconciler's: for want of
    memory or spill space a ResourceError, else an InternalError (a file that cannot
    be read is found, and reported as a problem, where the files are read)."""
    try:
        yield
    except duckdb.Error as error:
        raise classify_engine_error(error, step="validate", query=name) from error


def validate_logset(
    path: str | Path,
    *,
    config: EngineConfig | None = None,
    max_examples: int = DEFAULT_EXAMPLES,
    mapping: LogMapping | str | Path | None = None,
) -> ValidationReport:
    """Check a log set and report every problem found.

    ``mapping`` (a :class:`~reconcile.mapping.LogMapping`, a mapping file, ``"auto"``
    for the log directory's own ``reconcile.toml`` or ``"none"``) says how the user's files
    stand for the contract's tables; problems in tables read through it name the
    user's files and columns too.

    Raises :class:`~reconcile.errors.InputError` only when there is no directory to
    read, or the mapping cannot be read or does not fit the files (a
    :class:`~reconcile.mapping.MappingError`); everything else wrong with the log set
    is a problem in the report.
    """
    files = discover_with_mapping(path, mapping)
    return validate_files(files, config=config, max_examples=max_examples)


def validate_files(
    files: LogSetFiles,
    *,
    config: EngineConfig | None = None,
    max_examples: int = DEFAULT_EXAMPLES,
    broken: frozenset[str] = frozenset(),
    scan: frozenset[str] | None = None,
) -> ValidationReport:
    """:func:`validate_logset` on a log set already discovered (and its mapping bound);
    ``broken`` tables, whose problems were found elsewhere, are not scanned. With
    ``scan``, only those tables' rows are checked (and counted), and only the rules
    that report one of them run: the others' rows are checked elsewhere (a task of
    the Spark engine holding a part of the log set)."""
    file_schemas: dict[str, list[FileSchema]] = {}
    read_problems: list[Problem] = []
    for name, table_files in files.tables.items():
        file_schemas[name], problems = read_file_schemas(files, table_files)
        read_problems.extend(problems)
    coordinate_cols = coordinate_columns(file_schemas)
    coordinate = infer_coordinate(coordinate_cols)
    structure = check_structure(files, file_schemas, read_problems, coordinate_cols, coordinate)
    problems = list(structure.problems)
    rows: dict[str, int] = {}
    with Engine(config, readable=files.all_files) as engine:
        skipped = set(structure.broken) | broken
        for name, mapped in files.mapped.items():
            # a value map that misses a value: a mapping's tables have them
            if name not in skipped and isinstance(mapped, MappedTable):
                try:
                    uncovered = uncovered_values(engine.con, mapped, max_examples)
                except duckdb.Error as error:
                    uncovered = unreadable_mapped(files, name, error, f"{name} value maps")
                problems.extend(uncovered)
                # a value the map lacks reads as null: not reported again as such
                skipped.update(p.table for p in uncovered if p.table)
        logset = LogSet(
            files, file_schemas, coordinate, engine, skip=frozenset(skipped), tolerate=True
        )
        for name, unbound in logset.unbound.items():
            problems.extend(unreadable_files(logset, name, unbound))
            skipped.add(name)
        scanned = [t for t in logset.present if t not in skipped and (scan is None or t in scan)]
        for table in scanned:
            with _query(row_checks_query(table)):
                table_problems, count = check_rows(logset, table, max_examples)
            problems.extend(table_problems)
            if count is None:
                continue
            rows[table] = count
            with _query(f"{table} unique keys"):
                problems.extend(check_unique(logset, table, max_examples))
        unreadable = {p.table for p in problems if p.check.startswith("unreadable")}
        for rule in load_rules():
            if not rule.requires <= set(logset.present):
                continue
            if rule.reads & (skipped | unreadable):
                continue
            if scan is not None and rule.table not in scan:
                continue
            with _query(f"rule {rule.name}"):
                problems.extend(check_rule(logset, rule, max_examples))
    return ValidationReport(
        logset=str(files.root),
        coordinate=coordinate.value,
        problems=tuple(in_user_terms(p, files.mapped) for p in problems),
        tables=tuple(
            TableRead(name, len(files.tables[name].files), rows.get(name))
            for name in TABLES
            if name in files.tables
        ),
        mapping=str(files.mapping) if files.mapping is not None else None,
    )


__all__ = ["ValidationReport", "validate_files", "validate_logset"]
