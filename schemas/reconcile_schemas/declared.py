"""The contract tables' declarations as plain data, read without Pandera.

The Pandera schemas in :mod:`reconcile_schemas.tables` are the one declaration of
the input tables. Importing Pandera costs seconds (it brings pandas, and PySpark
where it is installed), more than a small audit takes, so the engine reads their
compiled form instead: ``declared.json``, written by ``python -m
reconcile_schemas.compile`` from the Pandera schemas, holding what the engine and
the validator read of them (each column's logical type, nullability and checks; each
table's row rules, unique and key columns). ``tests/test_declared.py`` checks that
the file equals what Pandera declares, so the two cannot drift apart.

:class:`Schema`, :class:`Column` and :class:`Check` answer to the attributes of
Pandera's ``DataFrameSchema``, ``Column`` and ``Check`` that the engine reads
(``columns``, ``checks``, ``unique``, ``name``, ``metadata``; ``nullable``;
``name``, ``error``, ``statistics``), so that code reading either reads both.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

DECLARED_FILE = "declared.json"


@dataclass(frozen=True)
class Check:
    """A check of a column, or a row rule of a table."""

    name: str
    error: str
    statistics: MappingProxyType[str, Any]


@dataclass(frozen=True)
class Column:
    """A contract column: its logical type (in ``metadata``), nullability, checks."""

    nullable: bool
    checks: tuple[Check, ...]
    metadata: MappingProxyType[str, Any]


@dataclass(frozen=True)
class Schema:
    """A contract table: its columns in order, row rules, unique and key columns."""

    name: str
    columns: MappingProxyType[str, Column]
    checks: tuple[Check, ...]
    unique: tuple[str, ...] | None
    metadata: MappingProxyType[str, Any]


def _frozen(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def _check(data: dict[str, Any]) -> Check:
    return Check(data["name"], data["error"], _frozen(data["statistics"]))


def _schema(name: str, data: dict[str, Any]) -> Schema:
    columns = {
        column: Column(
            nullable=spec["nullable"],
            checks=tuple(_check(c) for c in spec["checks"]),
            metadata=_frozen(spec["metadata"]),
        )
        for column, spec in data["columns"].items()
    }
    unique = data["unique"]
    return Schema(
        name=name,
        columns=MappingProxyType(columns),
        checks=tuple(_check(c) for c in data["checks"]),
        unique=None if unique is None else tuple(unique),
        metadata=_frozen(data["metadata"]),
    )


@cache
def declared() -> MappingProxyType[str, Schema]:
    """Every contract table's compiled declaration, in the contract's order."""
    text = resources.files(__package__).joinpath(DECLARED_FILE).read_text(encoding="utf-8")
    tables = json.loads(text)["tables"]
    return MappingProxyType({name: _schema(name, spec) for name, spec in tables.items()})
