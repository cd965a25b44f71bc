"""Pandera and DuckDB run the same declared checks and find the same rows.

The schemas in ``reconcile_schemas`` are run two ways: by Pandera on in-memory
Polars frames, and by ``reconcile validate``, which translates them to DuckDB SQL so
that logs larger than memory can be checked. On random small tables full of nulls,
negative numbers and unknown enumeration values, both must flag exactly the same
(check, column, row) triples, and the same number of rows with a repeated key.
"""

from __future__ import annotations

import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pandera.polars as pa
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconcile import validate_logset
from reconcile_schemas import (
    TABLES,
    CoordinateType,
    Logical,
    logical_type,
    pandera_schema,
    table_schema,
)
from reconcile_schemas.types import polars_dtype
from tests.conftest import examples, fast_tier

T0 = datetime(2026, 1, 1)


def values_for(name: str, column: pa.Column) -> st.SearchStrategy[Any]:
    logical = logical_type(column)
    allowed = [c.statistics["allowed_values"] for c in column.checks if c.name == "isin"]
    if allowed:
        return st.sampled_from([*allowed[0], "bogus", None])
    if logical is Logical.STRING:
        return st.sampled_from(["a", "b", None])
    if logical in (Logical.INT64, Logical.COORDINATE):
        return st.one_of(st.none(), st.integers(min_value=-1, max_value=2))
    if logical is Logical.BOOL:
        return st.one_of(st.none(), st.booleans())
    return st.one_of(st.none(), st.integers(0, 3).map(lambda s: T0 + timedelta(seconds=s)))


@st.composite
def frames(draw: st.DrawFn, table: str) -> pl.DataFrame:
    schema = table_schema(table)
    n = draw(st.integers(min_value=1, max_value=8))
    data = {
        name: draw(st.lists(values_for(name, column), min_size=n, max_size=n))
        for name, column in schema.columns.items()
    }
    dtypes = {
        name: polars_dtype(logical_type(column), CoordinateType.INT64)
        for name, column in schema.columns.items()
    }
    return pl.DataFrame(data, schema=dtypes)


def pandera_failures(table: str, frame: pl.DataFrame) -> tuple[set[tuple[str, str, int]], int]:
    """(check, column, row) triples Pandera reports, and rows with a repeated key."""
    try:
        pandera_schema(table).validate(frame, lazy=True)
    except pa.errors.SchemaErrors as errors:
        cases = errors.failure_cases
    else:
        return set(), 0
    found: set[tuple[str, str, int]] = set()
    duplicates = 0
    # Pandera names a table-level check by its error message where it has one.
    names = {str(c.error): str(c.name) for c in pandera_schema(table).checks}
    for row in cases.iter_rows(named=True):
        check = names.get(str(row["check"]), str(row["check"]).split("(")[0])
        if check.startswith("multiple_fields_unique"):
            duplicates += 1
            continue
        column = "" if check in names.values() else row["column"] or ""
        found.add((check, column, int(row["index"])))
    return found, duplicates


def duckdb_failures(table: str, frame: pl.DataFrame) -> tuple[set[tuple[str, str, int]], int]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder)
        frame.write_parquet(path / f"{table}.parquet")
        report = validate_logset(path, max_examples=100)
    found: set[tuple[str, str, int]] = set()
    duplicates = 0
    schema = table_schema(table)
    row_rules = {c.name: c for c in schema.checks}
    for problem in report.problems:
        if problem.table != table:
            continue
        if problem.check == "unique":
            duplicates = problem.failing_rows or 0
            continue
        if problem.check not in {"not_nullable", "isin", "greater_than_or_equal_to", *row_rules}:
            continue
        column = "" if problem.check in row_rules else str(problem.column)
        assert problem.failing_rows == len(problem.examples)
        found.update((problem.check, column, int(e["row"])) for e in problem.examples)
    return found, duplicates


@pytest.mark.parametrize("table", fast_tier(TABLES, keep=["checkpoints"]))
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_pandera_and_duckdb_agree(table: str, data: st.DataObject) -> None:
    frame = data.draw(frames(table))
    duck, pandera = duckdb_failures(table, frame), pandera_failures(table, frame)
    assert duck[1] == pandera[1], "rows with a repeated key"
    assert sorted(duck[0] - pandera[0]) == [], "found by DuckDB only"
    assert sorted(pandera[0] - duck[0]) == [], "found by Pandera only"
