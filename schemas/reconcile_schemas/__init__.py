"""Pandera schemas and validity rules of the reconciler's input tables.

This is its own top-level package, ``reconcile_schemas``, rather than a package
called ``schemas``: a generic name would collide with any other distribution that
installs one. The source lives in the repository's ``schemas/`` folder so that the
contract's declaration is found where the design puts it.

* :func:`table_schema` gives the Pandera schema of a table for a coordinate type;
* :data:`TABLES` lists the tables, :data:`REQUIRED_TABLES` those a log set needs;
* :func:`load_rules` gives the multi-row and cross-table rules, as SQL.
"""

from __future__ import annotations

import pandera.polars as pa

from reconcile_schemas.rules import Rule, load_rules
from reconcile_schemas.tables import REQUIRED_TABLES, ROW_RULE, ROW_TIME, TABLES
from reconcile_schemas.types import (
    TIMESTAMP_DTYPE,
    CoordinateType,
    Logical,
    duckdb_type,
    polars_dtype,
)


def table_schema(
    table: str, coordinate: CoordinateType = CoordinateType.INT64
) -> pa.DataFrameSchema:
    """The Pandera schema of a contract table, for a log set's coordinate type."""
    try:
        factory = TABLES[table]
    except KeyError:
        raise KeyError(f"no contract table {table!r}; tables: {', '.join(TABLES)}") from None
    return factory(coordinate)


def logical_type(column: pa.Column) -> Logical:
    """The logical type a schema column was declared with."""
    return Logical(column.metadata["logical"])


__all__ = [
    "REQUIRED_TABLES",
    "ROW_RULE",
    "ROW_TIME",
    "TABLES",
    "TIMESTAMP_DTYPE",
    "CoordinateType",
    "Logical",
    "Rule",
    "duckdb_type",
    "load_rules",
    "logical_type",
    "polars_dtype",
    "table_schema",
]
