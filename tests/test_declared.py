"""The compiled declarations that the engine reads equal the Pandera schemas."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from reconcile_schemas import (
    TABLES,
    CoordinateType,
    logical_type,
    pandera_schema,
    polars_dtype,
    table_schema,
)
from reconcile_schemas.compile import render
from reconcile_schemas.declared import DECLARED_FILE


def test_declared_json_is_what_pandera_declares() -> None:
    shipped = resources.files("reconcile_schemas").joinpath(DECLARED_FILE).read_text("utf-8")
    assert json.loads(shipped) == json.loads(render()), (
        "declared.json is stale: run `uv run python -m reconcile_schemas.compile`"
    )
    assert list(json.loads(shipped)["tables"]) == list(TABLES)


@pytest.mark.parametrize("coordinate", list(CoordinateType))
@pytest.mark.parametrize("table", TABLES)
def test_compiled_schema_answers_as_pandera(table: str, coordinate: CoordinateType) -> None:
    compiled, pandera = table_schema(table, coordinate), pandera_schema(table, coordinate)
    assert list(compiled.columns) == list(pandera.columns)
    for name, column in pandera.columns.items():
        mine = compiled.columns[name]
        assert mine.nullable == column.nullable, name
        assert logical_type(mine) == logical_type(column), name
        # the Polars type each engine builds from the logical type is Pandera's
        assert polars_dtype(logical_type(mine), coordinate) == column.dtype.type, name
        assert [(c.name, c.error, dict(c.statistics)) for c in mine.checks] == [
            (c.name, c.error, _lists(c.statistics)) for c in column.checks
        ], name
    assert [(c.name, c.error) for c in compiled.checks] == [
        (c.name, c.error) for c in pandera.checks
    ]
    assert list(compiled.unique or ()) == list(pandera.unique or ())
    assert list(compiled.metadata["key_columns"]) == pandera.metadata["key_columns"]


def _lists(statistics: dict[str, object]) -> dict[str, object]:
    return {k: tuple(v) if isinstance(v, list) else v for k, v in statistics.items()}
