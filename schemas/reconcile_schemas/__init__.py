"""The schemas and validity rules of the reconciler's input tables.

This is its own top-level package, ``reconcile_schemas``, rather than a package
called ``schemas``: a generic name would collide with any other distribution that
installs one. The source lives in the repository's ``schemas/`` folder so that the
contract's declaration is found where the design puts it.

The tables are declared once, as Pandera schemas (:mod:`reconcile_schemas.tables`).
The engine reads their compiled form (:mod:`reconcile_schemas.declared`), which
needs no Pandera import:

* :func:`table_schema` gives a table's compiled declaration, :func:`pandera_schema`
  its Pandera schema for a coordinate type;
* :data:`TABLES` lists the tables, :data:`REQUIRED_TABLES` those a log set needs;
* :func:`load_rules` gives the multi-row and cross-table rules, as SQL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reconcile_schemas.declared import Column, Schema, declared
from reconcile_schemas.names import REQUIRED_TABLES, ROW_RULE, ROW_TIME, TABLES
from reconcile_schemas.rules import Rule, load_rules
from reconcile_schemas.types import (
    TIMESTAMP_DTYPE,
    CoordinateType,
    Logical,
    duckdb_type,
    polars_dtype,
)

if TYPE_CHECKING:
    import pandera.polars as pa


def _known(table: str) -> None:
    if table not in TABLES:
        raise KeyError(f"no contract table {table!r}; tables: {', '.join(TABLES)}")


def table_schema(table: str, coordinate: CoordinateType = CoordinateType.INT64) -> Schema:
    """The compiled declaration of a contract table. It is the same for both
    coordinate types (a coordinate column's type follows from ``coordinate`` by
    :func:`polars_dtype`); the argument stays for symmetry with
    :func:`pandera_schema`."""
    _known(table)
    del coordinate
    return declared()[table]


def pandera_schema(
    table: str, coordinate: CoordinateType = CoordinateType.INT64
) -> pa.DataFrameSchema:
    """The Pandera schema of a contract table, for a log set's coordinate type (it
    imports Pandera, which takes seconds)."""
    _known(table)
    from reconcile_schemas.tables import PANDERA_TABLES  # noqa: PLC0415 (seconds to import)

    return PANDERA_TABLES[table](coordinate)


def logical_type(column: Column | Any) -> Logical:
    """The logical type a schema column was declared with (compiled or Pandera)."""
    return Logical(column.metadata["logical"])


__all__ = [
    "REQUIRED_TABLES",
    "ROW_RULE",
    "ROW_TIME",
    "TABLES",
    "TIMESTAMP_DTYPE",
    "Column",
    "CoordinateType",
    "Logical",
    "Rule",
    "Schema",
    "duckdb_type",
    "load_rules",
    "logical_type",
    "pandera_schema",
    "polars_dtype",
    "table_schema",
]
