"""A table read from the user's own files: what discovery and the loader need of it.

The contract's layout (``<table>.parquet`` or ``<table>/``) is found by discovery
itself; a table in another layout comes as a *table source*, made elsewhere (a
mapping, :mod:`reconcile.mapping.bind`) and handed to discovery. The log set layer
sees only this protocol, so that it does not depend on how the user's files are read
and the mapping may depend on it, not the other way round (issue 18).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

import duckdb
import pyarrow as pa


class TableSource(Protocol):
    """A contract table over the user's files, read by its own DuckDB relation."""

    @property
    def table(self) -> str:
        """The contract table it stands for."""
        ...

    @property
    def files(self) -> tuple[Path, ...]:
        """The user's files it reads, sorted (shown in problems, counted in reports)."""
        ...

    @property
    def hive(self) -> tuple[dict[str, str], ...]:
        """Each file's hive key values (empty where the files have none)."""
        ...

    @property
    def types(self) -> Mapping[str, pa.DataType]:
        """Its contract columns' types as its relation reads them: the files' schemas
        as validation checks them, without reading a footer."""
        ...

    def relation(self, con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyRelation:
        """Its rows on ``con``: the contract columns it has, ``__file`` and
        ``file_row_number`` (the row's number in the user's file); the loader
        normalizes them like a Parquet table's."""
        ...

    def source(self, column: str) -> str:
        """The user's words for where a contract column comes from, shown beside the
        contract's in problems."""
        ...

    def file_column(self, column: str) -> str | None:
        """The Parquet column of the user's files a contract column is read from, as
        one column (converted or not); None where it is not (an expression, a
        constant, another format). Validation reads a value back from it as written."""
        ...
