"""The one coordinate type of a log set, judged by column type (docs/contract.md §1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reconcile.logset.arrow_types import Kind, kind_of
from reconcile.logset.file_schemas import FileSchema
from reconcile_schemas import CoordinateType, Logical, logical_type, table_schema


@dataclass(frozen=True)
class CoordinateColumn:
    """A coordinate column as one file types it."""

    table: str
    file: FileSchema
    column: str
    kind: Kind


def coordinate_columns(
    file_schemas: Mapping[str, Sequence[FileSchema]],
) -> list[CoordinateColumn]:
    """Every typed (int or timestamp) coordinate column of every file; hive keys and
    columns of Parquet's null type have no type of their own and are left out."""
    found: list[CoordinateColumn] = []
    for table, files in file_schemas.items():
        schema = table_schema(table)
        names = [n for n, c in schema.columns.items() if logical_type(c) is Logical.COORDINATE]
        for file in files:
            for name in names:
                if name in file.columns and name not in file.hive:
                    kind = kind_of(file.columns[name])
                    if kind in (Kind.INT, Kind.TIMESTAMP):
                        found.append(CoordinateColumn(table, file, name, kind))
    return found


def infer_coordinate(columns: Sequence[CoordinateColumn]) -> CoordinateType:
    """The log set's coordinate type: the majority kind (int64 when there is none,
    and on a tie, which only an invalid log set can have)."""
    ints = sum(1 for c in columns if c.kind is Kind.INT)
    stamps = len(columns) - ints
    return CoordinateType.TIMESTAMP if stamps > ints else CoordinateType.INT64
