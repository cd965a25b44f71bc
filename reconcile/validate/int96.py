"""INT96 timestamps finer than a microsecond: refused.

Impala and Hive write timestamps as Parquet INT96, which holds nanoseconds. pyarrow
reads them exactly; DuckDB, the engine, reads them to the microsecond, so two times
less than a microsecond apart would become one and a claim could move past an event
(a wrong answer, not an error). A file whose INT96 column holds such a time is
refused, naming its rows; INT96 times in whole microseconds (Spark's) read exactly
and pass. The check reads only those columns of only those files, batch by batch, in
Arrow.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from reconcile.logset.discover import LogSetFiles
from reconcile.logset.file_schemas import FileSchema
from reconcile.problems import Problem
from reconcile.render.values import times_as_text
from reconcile_schemas import table_schema

_BATCH = 1 << 16


# the microseconds a nanosecond timestamp holds (int64 nanoseconds since 1970)
_NS_FIRST_US, _NS_LAST_US = -(2**63) // 1000 + 1, (2**63 - 1) // 1000


def _finer(column: pa.Array, micros: pa.Array) -> pa.Array:
    """Which values of an INT96 column, read as nanoseconds (``column``) and as
    microseconds (``micros``), are not whole microseconds. A time a nanosecond
    timestamp cannot hold (past 2262) wraps in ``column``: it is not finer, it is out
    of range (timestamp_in_range names it, from DuckDB's microseconds)."""
    us = pc.cast(micros, pa.int64())
    held = pc.and_(pc.greater_equal(us, _NS_FIRST_US), pc.less_equal(us, _NS_LAST_US))
    as_ns = pc.multiply(pc.if_else(held, us, 0), 1000)
    differs = pc.not_equal(as_ns, pc.cast(column, pa.int64()))
    return pc.fill_null(pc.and_(held, differs), False)


def _open(source: Path | bytes, unit: str) -> pq.ParquetFile:
    where = pa.BufferReader(source) if isinstance(source, bytes) else source
    return pq.ParquetFile(where, coerce_int96_timestamp_unit=unit)


def int96_finer(
    source: Path | bytes, stored: str, name: str, label: str, max_examples: int = 5
) -> tuple[int, list[dict[str, object]]]:
    """How many values of the INT96 column ``stored`` of a Parquet file (a path, or
    its bytes) are finer than a microsecond, and the first few as example rows (file
    ``label``, the contract column ``name``)."""
    count, examples = 0, list[dict[str, object]]()
    offset = 0
    micro_batches = _open(source, "us").iter_batches(batch_size=_BATCH, columns=[stored])
    for batch in _open(source, "ns").iter_batches(batch_size=_BATCH, columns=[stored]):
        column = batch.column(0)
        finer = _finer(column, next(micro_batches).column(0))
        found = pc.sum(finer).as_py() or 0
        if found and len(examples) < max_examples:
            # the first few only, as text to the nanosecond (the outputs' form)
            picked = pc.indices_nonzero(finer).slice(0, max_examples - len(examples))
            shown = times_as_text(pl.DataFrame({name: column.take(picked)}))
            for index, text in zip(picked.to_pylist(), shown[name], strict=True):
                examples.append({"file": label, "row": offset + index, name: text})
        count += found
        offset += batch.num_rows
    return count, examples


def int96_problem(
    table: str, name: str, label: str, count: int, examples: Sequence[dict[str, object]]
) -> Problem:
    """The problem of a file whose INT96 column ``name`` holds ``count`` times finer
    than a microsecond."""
    return Problem(
        check="int96_nanoseconds",
        table=table,
        column=name,
        files=(label,),
        failing_rows=count,
        message=(
            f"column {name} is stored as INT96 with times finer than a"
            " microsecond, which the engine would read to the microsecond:"
            " write it as an INT64 timestamp in nanoseconds (pyarrow's"
            " default; Impala and Hive write INT96)"
        ),
        examples=tuple(examples),
    )


def int96_problems(
    files: LogSetFiles, table: str, schemas: Sequence[FileSchema], max_examples: int = 5
) -> list[Problem]:
    """A problem per contract column of ``table`` whose INT96 values, in any file,
    hold a time finer than a microsecond."""
    contract = set(table_schema(table).columns)
    problems = []
    for file in schemas:
        label = files.relative(file.path)
        for name, stored in ((c, f) for c, f in file.int96 if c in contract):
            count, examples = int96_finer(file.path, stored, name, label, max_examples)
            if count:
                problems.append(int96_problem(table, name, label, count, examples))
    return problems
