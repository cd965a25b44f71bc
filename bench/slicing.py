"""The event level's slices on logs in time order: read the receipts once per slice,
or write them once by slice and read each slice's part.

    uv run python bench/slicing.py LOGSET [--slices 8] [--memory-limit 3GB]

The event level runs once per slice of partitions (``partition_id BETWEEN first AND
last``), so that one slice's hash aggregate stays in memory. Where the receipts are
clustered by partition, each slice's scan skips the row groups of other slices by
their statistics; where ingestion appended them in time order, every row group holds
every partition and each slice reads the whole table. This measures, on one log set:

* ``stats``: from the row groups' statistics alone, how many row groups each slice's
  filter must read (the scan amplification: 1 where clustered, the slice count where
  every row group spans every slice);
* ``filtered``: each slice's aggregate over the receipts as the engine reads them
  (a filter on partition_id), summed over slices;
* ``split``: one pass writing the receipts' columns by slice (DuckDB's partitioned
  COPY to Parquet in a scratch folder), then each slice's aggregate over its part;
* ``table``: one pass copying the receipts' columns, with each row's slice, into a
  DuckDB table (``--table temp``: a temporary table, which spills past the memory
  limit; ``--table file``: a database file in the scratch folder, compressed as it is
  written), then each slice's aggregate over its rows of that table.

The aggregate is the shape of ``watermarks/receipt_events`` (per event: lowest
position, first receipt, first durable receipt, outcome bits). Figures are printed;
nothing is asserted.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import duckdb

COLUMNS = "scope_id, partition_id, event_id, position, recorded_at, outcome, eligibility_stable"

AGGREGATE = """
SELECT scope_id, partition_id, event_id,
       min(position) AS sort_pos,
       min(recorded_at) AS first_at,
       min(recorded_at) FILTER (WHERE outcome IN ('committed', 'dead_lettered')) AS durable_at,
       bit_or(CASE outcome WHEN 'committed' THEN 1 WHEN 'failed' THEN 2 ELSE 4 END) AS bits
FROM {source}
WHERE partition_id BETWEEN $first AND $last
GROUP BY scope_id, partition_id, event_id
"""


def files_of(logset: Path) -> list[str]:
    folder = logset / "receipts"
    if folder.is_dir():
        return sorted(str(p) for p in folder.rglob("*.parquet"))
    return [str(logset / "receipts.parquet")]


def slice_bounds(con: duckdb.DuckDBPyConnection, source: str, count: int) -> list[tuple[str, str]]:
    rows = con.execute(
        f"""
        WITH parts AS (
            SELECT partition_id, ntile({count}) OVER (ORDER BY partition_id) AS s
            FROM (SELECT DISTINCT partition_id FROM {source})
        )
        SELECT min(partition_id), max(partition_id) FROM parts GROUP BY s ORDER BY s
        """
    ).fetchall()
    return [(str(a), str(b)) for a, b in rows]


def amplification(
    con: duckdb.DuckDBPyConnection, files: list[str], bounds: list[tuple[str, str]]
) -> tuple[int, int]:
    """Row groups in all, and row groups the slices' filters read, summed."""
    con.execute(
        "CREATE OR REPLACE TEMP TABLE groups AS"
        " SELECT file_name, row_group_id, stats_min_value AS lo, stats_max_value AS hi"
        " FROM parquet_metadata($files) WHERE path_in_schema = 'partition_id'",
        {"files": files},
    )
    (total,) = con.execute("SELECT count(*) FROM groups").fetchone() or (0,)
    read = 0
    for first, last in bounds:
        (n,) = con.execute(
            "SELECT count(*) FROM groups WHERE lo <= $last AND hi >= $first",
            {"first": first, "last": last},
        ).fetchone() or (0,)
        read += n
    return int(total), read


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logset", type=Path)
    parser.add_argument("--slices", type=int, default=8)
    parser.add_argument("--memory-limit", default="3GB")
    parser.add_argument("--scratch", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--no-split", action="store_true", help="leave out the split variant")
    parser.add_argument(
        "--table",
        choices=("temp", "file", "none"),
        default="file",
        help="where the table variant copies the receipts (default: a database file)",
    )
    args = parser.parse_args()

    files = files_of(args.logset)
    # spills (the temp table variant's, past the memory limit) go to the scratch folder
    spill = Path(tempfile.mkdtemp(prefix="reconcile-slicing-spill-", dir=args.scratch))
    con = duckdb.connect(config={"temp_directory": str(spill)})
    for setting in (
        f"SET memory_limit = '{args.memory_limit}'",
        "SET preserve_insertion_order = false",
        "SET TimeZone = 'UTC'",
    ):
        con.execute(setting)
    try:
        listed = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
        con.execute(f"CREATE VIEW receipts AS SELECT {COLUMNS} FROM read_parquet([{listed}])")
        bounds = slice_bounds(con, "receipts", args.slices)
        total, read = amplification(con, files, bounds)
        print(
            f"log set {args.logset}: {len(files)} files, {total} row groups, {len(bounds)} slices"
        )
        share = read / max(total, 1)
        print(f"stats: the slices' filters read {read} row groups: {share:.2f}x the table")

        started = time.perf_counter()
        for first, last in bounds:
            con.execute(
                "CREATE OR REPLACE TEMP TABLE agg AS " + AGGREGATE.format(source="receipts"),
                {"first": first, "last": last},
            )
        filtered = time.perf_counter() - started
        print(f"filtered: {filtered:.1f} s for {len(bounds)} slices")
        con.execute(
            "CREATE OR REPLACE TEMP TABLE bounds AS SELECT * FROM (VALUES "
            + ", ".join(f"({i}, '{a}', '{b}')" for i, (a, b) in enumerate(bounds))
            + ") AS b(s, lo, hi)"
        )
        if not args.no_split:
            split(con, bounds, args.scratch)
        if args.table != "none":
            copied(con, bounds, args.table, args.scratch)
    finally:
        con.close()
        shutil.rmtree(spill, ignore_errors=True)


def aggregate_parts(
    con: duckdb.DuckDBPyConnection, bounds: list[tuple[str, str]], part_of: Callable[[int], str]
) -> None:
    """Each slice's aggregate over its own part, ``part_of(slice)``."""
    for i, (first, last) in enumerate(bounds):
        con.execute(
            "CREATE OR REPLACE TEMP TABLE agg AS " + AGGREGATE.format(source=part_of(i)),
            {"first": first, "last": last},
        )


def split(con: duckdb.DuckDBPyConnection, bounds: list[tuple[str, str]], scratch: Path) -> None:
    """The ``split`` variant: the receipts written once by slice to Parquet, then each
    slice aggregated from its own part."""
    folder = Path(tempfile.mkdtemp(prefix="reconcile-slicing-", dir=scratch))
    try:
        started = time.perf_counter()
        con.execute(
            f"COPY (SELECT r.*, b.s FROM receipts AS r"
            f" JOIN bounds AS b ON r.partition_id BETWEEN b.lo AND b.hi)"
            f" TO '{folder}' (FORMAT parquet, PARTITION_BY (s), COMPRESSION uncompressed)"
        )
        written = time.perf_counter() - started
        aggregate_parts(con, bounds, lambda i: f"read_parquet('{folder}/s={i}/*.parquet')")
        split = time.perf_counter() - started
        size = sum(p.stat().st_size for p in folder.rglob("*.parquet"))
        print(
            f"split: {split:.1f} s ({written:.1f} s writing {size / 1e9:.1f} GB by slice,"
            f" {split - written:.1f} s for the slices)"
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def copied(
    con: duckdb.DuckDBPyConnection, bounds: list[tuple[str, str]], where: str, scratch: Path
) -> None:
    """The ``table`` variant: the receipts copied once into a DuckDB table with each
    row's slice, then each slice aggregated from its rows there."""
    folder = Path(tempfile.mkdtemp(prefix="reconcile-slicing-", dir=scratch))
    try:
        if where == "file":
            con.execute("ATTACH $path AS copy", {"path": str(folder / "copy.duckdb")})
            name = "copy.receipts_by_slice"
        else:
            name = "receipts_by_slice"
        started = time.perf_counter()
        con.execute(
            f"CREATE {'TEMP ' if where == 'temp' else ''}TABLE {name} AS"
            " SELECT r.*, b.s FROM receipts AS r"
            " JOIN bounds AS b ON r.partition_id BETWEEN b.lo AND b.hi"
        )
        written = time.perf_counter() - started
        aggregate_parts(con, bounds, lambda i: f"(SELECT * FROM {name} WHERE s = {i})")
        total = time.perf_counter() - started
        size = sum(p.stat().st_size for p in folder.rglob("*"))
        print(
            f"table ({where}): {total:.1f} s ({written:.1f} s copying"
            f"{f', {size / 1e9:.1f} GB' if where == 'file' else ''},"
            f" {total - written:.1f} s for the slices)"
        )
        if where == "file":
            con.execute("DETACH copy")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
