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


def _finer(column: pa.Array) -> pa.Array:
    """Which of a nanosecond timestamp array's values are not whole microseconds."""
    micros = pc.cast(column, pa.timestamp("us", column.type.tz), safe=False)
    return pc.fill_null(pc.not_equal(pc.cast(micros, column.type), column), False)


def int96_finer(
    parquet: pq.ParquetFile, stored: str, name: str, label: str, max_examples: int = 5
) -> tuple[int, list[dict[str, object]]]:
    """How many values of the INT96 column ``stored`` of ``parquet`` (read as
    nanoseconds: pyarrow's default) are finer than a microsecond, and the first few
    as example rows (file ``label``, the contract column ``name``)."""
    count, examples = 0, list[dict[str, object]]()
    offset = 0
    for batch in parquet.iter_batches(batch_size=_BATCH, columns=[stored]):
        column = batch.column(0)
        finer = _finer(column)
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
            parquet = pq.ParquetFile(file.path)
            count, examples = int96_finer(parquet, stored, name, label, max_examples)
            if count:
                problems.append(int96_problem(table, name, label, count, examples))
    return problems
