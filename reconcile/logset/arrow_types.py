"""Which Parquet (Arrow) column types the contract accepts for each logical type.

docs/contract.md §1: narrower integer types are accepted as int64, ms timestamps as
timestamps (any unit, zoned or naive), and a column of Parquet's null type reads as
all null. Everything else is the wrong type.
"""

from __future__ import annotations

from enum import StrEnum

import pyarrow as pa
import pyarrow.types as pat

from reconcile_schemas import Logical


class Kind(StrEnum):
    """The contract-relevant family of an Arrow type."""

    INT = "int"
    TIMESTAMP = "timestamp"
    STRING = "string"
    BOOL = "bool"
    NULL = "null"
    OTHER = "other"


_INTS = (pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32())


def kind_of(arrow_type: pa.DataType) -> Kind:
    """The family of an Arrow type; uint64 is OTHER, since it may not fit int64."""
    if pat.is_dictionary(arrow_type):
        return kind_of(arrow_type.value_type)
    if arrow_type in _INTS:
        return Kind.INT
    if pat.is_timestamp(arrow_type):
        return Kind.TIMESTAMP
    if (
        pat.is_string(arrow_type)
        or pat.is_large_string(arrow_type)
        or pat.is_string_view(arrow_type)
    ):
        return Kind.STRING
    if pat.is_boolean(arrow_type):
        return Kind.BOOL
    if pat.is_null(arrow_type):
        return Kind.NULL
    return Kind.OTHER


_ACCEPTED: dict[Logical, frozenset[Kind]] = {
    Logical.STRING: frozenset({Kind.STRING, Kind.NULL}),
    Logical.INT64: frozenset({Kind.INT, Kind.NULL}),
    Logical.BOOL: frozenset({Kind.BOOL, Kind.NULL}),
    Logical.TIMESTAMP: frozenset({Kind.TIMESTAMP, Kind.NULL}),
    Logical.COORDINATE: frozenset({Kind.INT, Kind.TIMESTAMP, Kind.NULL}),
}

EXPECTED_TEXT: dict[Logical, str] = {
    Logical.STRING: "string (UTF-8)",
    Logical.INT64: "int64 (or a narrower integer)",
    Logical.BOOL: "bool",
    Logical.TIMESTAMP: "timestamp",
    Logical.COORDINATE: "a coordinate: int64 or timestamp",
}


def accepts(logical: Logical, arrow_type: pa.DataType) -> bool:
    """Whether a file's column of this Arrow type can stand for the logical type."""
    return kind_of(arrow_type) in _ACCEPTED[logical]
