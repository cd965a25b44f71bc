"""A file read through the mapping inside a Spark task.

The task has the file's bytes (Spark's ``binaryFile``) and the mapping as bound on
the driver; it writes the bytes to the executor's disk and reads them with the
mapping's own relation (:func:`reconcile.mapping.bind.mapped_relation`): the
contract's columns with their mapped types, and each row's number in the user's
file. From there on the rows are pieces like any other; the scope's task lays them
out as a table in the contract's layout.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import duckdb
import pyarrow as pa

from reconcile.db import connect
from reconcile.mapping.bind import FILE, ROW, MappedTable, mapped_relation
from reconcile.spark.local import work_dir


@contextmanager
def _relation(
    table: MappedTable, user_file: str, content: bytes
) -> Iterator[duckdb.DuckDBPyRelation]:
    """The mapped relation over one of the user's files, given as bytes."""
    relative = Path(user_file)
    if relative.is_absolute() or ".." in relative.parts:
        relative = Path(relative.name)
    with tempfile.TemporaryDirectory(prefix="reconcile-map-", dir=work_dir()) as folder:
        # under its own relative path: hive folders (stream=s0/) still name columns
        path = Path(folder) / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        # a DuckDB that reads this file alone: the mapping's SQL runs in it
        with connect([path]) as con:
            yield mapped_relation(con, replace(table, files=(path,)))


def mapped_rows(table: MappedTable, user_file: str, content: bytes, source_row: str) -> pa.Table:
    """The rows of one of the user's files, as the mapping reads them, with each
    row's number in the file as ``source_row``. Raises ``duckdb.Error`` when the
    mapping's conversions fail on the file's values."""
    with _relation(table, user_file, content) as rows:
        items = [f'"{name}"' for name, _ in table.expressions]
        items.append(f'CAST("{ROW}" AS BIGINT) AS "{source_row}"')
        found = rows.order(f'"{ROW}"').select(", ".join(items)).to_arrow_table()
    assert FILE not in found.column_names
    return found


def mapped_count_and_end(
    table: MappedTable, user_file: str, content: bytes, column: str | None
) -> tuple[int, int | None]:
    """How many rows one of the user's files gives the table, and the latest value of
    its time ``column`` (ns since the epoch; None without one): DuckDB reads only the
    columns these need. Raises ``duckdb.Error`` as :func:`mapped_rows` does."""
    with _relation(table, user_file, content) as rows:
        mapped = dict(table.expressions)
        latest = f'epoch_ns(max("{column}"))' if column in mapped else "NULL::BIGINT"
        count, end = rows.aggregate(f"count(*), {latest}").fetchall()[0]
    return int(count), None if end is None else int(end)
