"""Measure how the row checks of a table scale on each engine.

    uv run python bench/validate_engines.py LOGSET TABLE {duckdb,pandera-lazy,pandera-batches}

Run each engine in its own process under ``/usr/bin/time -v`` to compare wall time
and peak memory. ``duckdb`` is what ``reconcile validate`` does: the Pandera schema
translated to one SQL aggregate. ``pandera-lazy`` hands Pandera the LazyFrame of the
table with data checks switched on. ``pandera-batches`` runs Pandera on the table a
million rows at a time.
"""

from __future__ import annotations

import os
import sys
import time

import pandera.polars as pa
import polars as pl
import pyarrow.parquet as pq

from reconcile import validate_logset
from reconcile.api import open_logset
from reconcile_schemas import pandera_schema


def main() -> None:
    logset, table, engine = sys.argv[1:4]
    started = time.perf_counter()
    if engine == "duckdb":
        report = validate_logset(logset)
        print(f"problems: {len(report.problems)}")
    elif engine == "pandera-lazy":
        os.environ["PANDERA_VALIDATION_DEPTH"] = "SCHEMA_AND_DATA"
        with open_logset(logset, validate=False) as opened:
            frame = opened.lazyframe(table).drop("__file", "__row")
            schema = pandera_schema(table, opened.coordinate)
        try:
            schema.validate(frame, lazy=True).collect()
            print("problems: 0")
        except pa.errors.SchemaErrors as errors:
            print(f"problems: {errors.failure_cases.height}")
    elif engine == "pandera-batches":
        schema = pandera_schema(table)
        failures = 0
        source = pq.ParquetFile(f"{logset}/{table}.parquet")
        for batch in source.iter_batches(batch_size=1_000_000):
            batch_frame = pl.DataFrame(pl.from_arrow(batch)).with_columns(
                pl.col(pl.Datetime).dt.replace_time_zone(None).cast(pl.Datetime("ns"))
            )
            try:
                schema.validate(batch_frame, lazy=True)
            except pa.errors.SchemaErrors as errors:
                failures += errors.failure_cases.height
        print(f"problems: {failures}")
    print(f"{engine}: {time.perf_counter() - started:.2f} s")


if __name__ == "__main__":
    main()
