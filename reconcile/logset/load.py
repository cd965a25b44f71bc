"""A log set opened for reading: DuckDB views and Polars frames over its files.

Nothing is copied: each table is a DuckDB view over ``read_parquet`` of its files,
registered in the log set's own connection under the table's name, and a Polars
LazyFrame over the same files; both come from one discovery and one normalization.
An absent optional table is an empty view, so that queries need not ask. A table
read from a table source (:mod:`reconcile.logset.sources`, a mapping's) is its
source's relation, normalized the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import duckdb
import polars as pl
import pyarrow.parquet as pq

from reconcile.db import Engine, glob_literal
from reconcile.errors import InputError, UsageError
from reconcile.logset.discover import LogSetFiles
from reconcile.logset.file_schemas import FileSchema
from reconcile.logset.normalize import (
    FILE_COLUMN,
    duckdb_empty,
    duckdb_projection,
    polars_frame,
)
from reconcile.logset.overwrite import OVERWRITE_COLUMN, checkpoints_relation, without_cas
from reconcile_schemas import TABLES, CoordinateType, table_schema

_READ_PARQUET = (
    "SELECT * FROM read_parquet($files, hive_partitioning = $hive,"
    " hive_types_autocast = false, union_by_name = true,"
    " filename = $file_column, file_row_number = true)"
)


def free_name(taken: Iterable[str], wanted: str = FILE_COLUMN) -> str:
    """``wanted``, or ``wanted`` with a number, whichever no column of ``taken`` is
    (DuckDB compares names without case): the contract allows extra columns, a
    ``__file`` among them, and the reader's own column must not collide with one."""
    lowered = {name.lower() for name in taken}
    name, number = wanted, 0
    while name.lower() in lowered:
        number += 1
        name = f"{wanted}_{number}"
    return name


class LogSet:
    """The tables of one log set, normalized, in one DuckDB connection."""

    def __init__(
        self,
        files: LogSetFiles,
        file_schemas: Mapping[str, Sequence[FileSchema]],
        coordinate: CoordinateType,
        engine: Engine,
        *,
        skip: frozenset[str] = frozenset(),
        tolerate: bool = False,
        stamps: Mapping[Path, tuple[int, int, int] | None] | None = None,
    ) -> None:
        self.files = files
        # what each file was when the log set was opened (``stamps``: taken when its
        # files were found, before validation read them): a file rewritten or removed
        # since is refused (check_unchanged), never read half old, half new
        self._stamps = dict(stamps) if stamps is not None else file_stamps(files)
        self.file_schemas = dict(file_schemas)
        self.coordinate = coordinate
        self.engine = engine
        self.skipped = skip
        # row counts of tables read through a mapping: each a scan, made once
        self._mapped_counts: dict[str, int] = {}
        # with ``tolerate`` (validation), a table whose files DuckDB cannot bind (a
        # footer pyarrow reads and DuckDB does not) is kept here, its view empty, for
        # validation to name the file, rather than failing the whole log set
        self.unbound: dict[str, duckdb.Error] = {}
        for name in TABLES:
            if name in skip:
                continue
            try:
                self._register(name)
            except duckdb.Error as error:
                if not tolerate:
                    raise
                self.unbound[name] = error
                empty = self.con.sql(
                    duckdb_empty(table_schema(name, self.coordinate), self.coordinate)
                )
                if name == "checkpoints":
                    empty = checkpoints_relation(self.con, empty, [], mapped=False)
                empty.create_view(name, replace=True)

    @property
    def path(self) -> Path:
        return self.files.root

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        return self.engine.con

    @property
    def present(self) -> tuple[str, ...]:
        """The tables the log set has, in contract order."""
        return tuple(name for name in TABLES if name in self.files.tables)

    def has(self, table: str) -> bool:
        return table in self.files.tables

    def _register(self, name: str) -> None:
        schema = table_schema(name, self.coordinate)
        table = self.files.tables.get(name)
        schemas = self.file_schemas.get(name, [])
        mapped = self.files.mapped.get(name)
        if table is None or not schemas:
            relation = self.con.sql(duckdb_empty(schema, self.coordinate))
        elif mapped is not None:
            raw = mapped.relation(self.con)
            relation = raw.select(
                duckdb_projection(
                    schema,
                    self.coordinate,
                    dict(zip(raw.columns, (str(t) for t in raw.types), strict=True)),
                )
            )
        else:
            file_column = free_name(c for f in schemas for c in (*f.names, *f.hive))
            raw = self.con.sql(
                _READ_PARQUET,
                params={
                    "files": [glob_literal(f.path) for f in schemas],
                    "hive": bool(table.hive_keys),
                    "file_column": file_column,
                },
            )
            relation = raw.select(
                duckdb_projection(
                    schema,
                    self.coordinate,
                    dict(zip(raw.columns, (str(t) for t in raw.types), strict=True)),
                    table.hive_keys,
                    file_column,
                )
            )
        if name == "checkpoints":
            relation = checkpoints_relation(self.con, relation, schemas, mapped=mapped is not None)
        relation.create_view(name, replace=True)

    def check_unchanged(self) -> None:
        """Raise :class:`InputError` where a file of the log set was rewritten or
        removed since it was opened: its tables were planned from the files as they
        were (schemas, T), and an answer read from changed files would mix the two.
        A closed log set raises :class:`UsageError`."""
        if self.closed:
            raise UsageError(f"the log set {self.path} is closed: open it again to read it")
        for path, stamp in self._stamps.items():
            now = _stamp(path)
            if now != stamp:
                how = "removed" if now is None else "changed"
                raise InputError(
                    f"{self.files.relative(path)} was {how} after the log set {self.path}"
                    " was opened: open it again to read it as it is now"
                )

    def relation(self, table: str) -> duckdb.DuckDBPyRelation:
        """The normalized DuckDB view of a table."""
        if table not in TABLES:
            raise KeyError(f"no contract table {table!r}")
        self.check_unchanged()
        if table in self.skipped:
            raise InputError(f"table {table} of {self.path} could not be read")
        return self.con.table(table)

    def lazyframe(self, table: str) -> pl.LazyFrame:
        """The normalized Polars LazyFrame of a table (empty when absent)."""
        if table in self.skipped:
            raise InputError(f"table {table} of {self.path} could not be read")
        overwrite = table == "checkpoints" and any(
            without_cas(f) for f in self.file_schemas.get(table, [])
        )
        if table in self.files.mapped or overwrite:
            # checkpoints without compare-and-swap: as the view makes their columns
            frame: pl.LazyFrame = self.relation(table).pl(lazy=True)  # checks the files
            return frame
        self.check_unchanged()
        lazy = polars_frame(
            table_schema(table, self.coordinate), self.coordinate, self.file_schemas.get(table, [])
        )
        if table == "checkpoints":  # as the view: every write with compare-and-swap
            lazy = lazy.with_columns(pl.lit(False).alias(OVERWRITE_COLUMN))
        return lazy

    def row_count(self, table: str) -> int:
        """How many rows a table has, from its files' footers (no data read; a
        table read through a mapping is counted by DuckDB, once)."""
        if table in self.files.mapped:
            if table not in self._mapped_counts:
                rows = self.relation(table).aggregate("count(*)").fetchall()
                self._mapped_counts[table] = int(rows[0][0])
            return self._mapped_counts[table]
        return sum(
            pq.ParquetFile(file.path).metadata.num_rows for file in self.file_schemas.get(table, [])
        )

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called (its DuckDB connection is gone)."""
        return self.engine.spill_folder is None

    def close(self) -> None:
        """Close the log set's DuckDB connection (and remove its spill folder). While
        an analysis of it runs in another thread the connection is busy: a
        UsageError says so, and the log set stays open."""
        try:
            self.engine.close()
        except duckdb.ResourceInUseException:
            raise UsageError(
                f"the log set {self.path} is in use by an analysis running in another"
                " thread: close it once that call has returned"
            ) from None

    def __enter__(self) -> LogSet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def file_stamps(files: LogSetFiles) -> dict[Path, tuple[int, int, int] | None]:
    """What each file of a log set is now (size, modification time, inode)."""
    return {path: _stamp(path) for path in _watched(files)}


def _watched(files: LogSetFiles) -> tuple[Path, ...]:
    """Every file the log set's tables read, the mapped ones' included."""
    found = dict.fromkeys(files.all_files)
    for source in files.mapped.values():
        found.update(dict.fromkeys(source.files))
    return tuple(found)


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """A file's size, modification time and inode (None: no longer there)."""
    try:
        status = path.stat()
    except OSError:
        return None
    return (status.st_size, status.st_mtime_ns, status.st_ino)
