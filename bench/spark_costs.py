"""What each kind of task of the Spark engine costs, measured in this process (no
Spark): the figures behind a cluster-size estimate.

    uv run python bench/spark_costs.py /tmp/reconcile-bench/logset-10M-1scopes --buckets 4

For a log set of one scope it cuts the files into pieces (``scatter``: the scope's,
without receipts, snapshot and snapshot_bounds; and by bucket of partitions), then
calls each kind of task of the phased audit (``reconcile/spark/tasks.py``) on them
in turn, as Spark would: the scope's rc_scopes; each bucket's validation and
partition phase; the scope's task; each bucket's timelines. Prints seconds per task, the
rows the tasks laid out or were sent, and seconds per million receipts for the
buckets' first phase.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from reconcile.audit.phases import PARTITION_ONLY
from reconcile.engine.registry import PARTITION_INPUTS
from reconcile.spark.kernel import FAILED, SHOWN, Job
from reconcile.spark.listing import local_sources
from reconcile.spark.scatter import (
    BUCKETED_ARROW,
    PIECES_ARROW,
    by_bucket,
    facts,
    from_ipc,
    pieces,
)
from reconcile.spark.tasks import (
    CHECKED,
    Grouped,
    bucket_kernel,
    scope_kernel,
    scopes_kernel,
    timelines_kernel,
)
from reconcile_schemas import TABLES

Piece = dict[str, Any]


def batches(rows: Iterable[Piece], schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    for row in rows:
        yield pa.RecordBatch.from_pylist([row], schema=schema)


def task(
    kernel: Grouped, key: tuple[Any, ...], rows: list[Piece], schema: pa.Schema
) -> list[Piece]:
    """One task, as Spark runs it: the group's pieces in, its rows out."""
    out: list[Piece] = []
    for batch in kernel(tuple(pa.scalar(k) for k in key), batches(rows, schema)):
        out.extend(batch.to_pylist())
    return out


def timed(label: str, work: Any) -> Any:
    started = time.perf_counter()
    result = work()
    print(f"{label}: {time.perf_counter() - started:.1f} s")
    return result


def laid_rows(rows: list[Piece]) -> int:
    return sum(from_ipc(p["blob"]).num_rows for p in rows if not str(p["relpath"]).startswith("__"))


def frames(blob: bytes, buckets: int) -> dict[int, pl.DataFrame]:
    frame = pl.from_arrow(from_ipc(blob))
    assert isinstance(frame, pl.DataFrame)
    return by_bucket(frame, buckets)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logset", type=Path)
    parser.add_argument("--buckets", type=int, default=4)
    args = parser.parse_args()
    _, sources, _ = local_sources(str(args.logset))
    contents = {k: Path(s.uri.removeprefix("file://")).read_bytes() for k, s in sources.items()}
    tables: dict[str, tuple[str, bytes]] = {}
    ends: list[int] = []
    for key, source in sorted(sources.items()):
        fact = facts(source, contents[key])
        tables.setdefault(source.table, (key, fact["blob"]))  # type: ignore[arg-type]
        if fact["end_ns"] is not None:
            ends.append(int(str(fact["end_ns"])))
    job = Job("audit", tables, end_ns=max(ends), phased=True, buckets=args.buckets)
    scoped_tables = [t for t in TABLES if t not in PARTITION_ONLY]

    def cut(wanted: Iterable[str], buckets: int = 0) -> list[Piece]:
        return [
            p
            for k, s in sources.items()
            if s.table in wanted
            for p in pieces(s, contents[k], buckets=buckets)
        ]

    scoped = timed("scatter, the scope's pieces", lambda: cut(scoped_tables))
    bucketed = timed("scatter, the buckets' pieces", lambda: cut(PARTITION_INPUTS, args.buckets))
    scope = next((p["scope_id"] for p in bucketed if p["scope_id"] is not None), None)
    receipts = sum(
        from_ipc(p["blob"]).num_rows for p in bucketed if str(p["relpath"]).startswith("receipts")
    )
    mine = {b: [p for p in bucketed if p["bucket"] == b] for b in range(args.buckets)}
    found = task(
        scopes_kernel(job),
        (scope,),
        [p for p in scoped if str(p["relpath"]).startswith(("checkpoints", "scopes"))],
        PIECES_ARROW,
    )
    rc_scopes = {r["scope_id"]: (r["output"], r["blob"]) for r in found}
    phase1: list[Piece] = []
    bucket_s = []
    for b in range(args.buckets):
        started = time.perf_counter()
        out = task(bucket_kernel(job, rc_scopes), (scope, b), mine[b], BUCKETED_ARROW)
        bucket_s.append(time.perf_counter() - started)
        print(f"bucket {b}: validate + partition phase + partition rules {bucket_s[-1]:.1f} s,"
              f" {laid_rows(mine[b]):,} rows")  # fmt: skip
        assert not any(r["relpath"] == FAILED for r in out), out
        phase1 += [r for r in out if r["relpath"] != CHECKED]
    inputs = [*scoped, *({k: v for k, v in r.items() if k != "bucket"} for r in phase1)]
    print(f"the scope's task lays out {laid_rows(scoped):,} rows (of {len(scoped)} pieces)")
    rows = timed(
        "scope: the scope's task",
        lambda: task(scope_kernel(job), (scope,), inputs, PIECES_ARROW),
    )
    shown_blob = next(r["blob"] for r in rows if r["output"] == SHOWN)
    shown = {(scope, b): f for b, f in frames(shown_blob, args.buckets).items()}
    for (_, b), frame in sorted(shown.items()):
        timed(
            f"bucket {b}: timelines of {frame.height} partitions",
            lambda b=b: task(
                timelines_kernel(job, rc_scopes, shown), (scope, b), mine[b], BUCKETED_ARROW
            ),
        )
    print(f"receipts: {receipts:,}")
    total = sum(bucket_s)
    print(
        f"buckets' first phase: {total:.1f} s in all,"
        f" {total / (receipts / 1e6):.2f} s per million receipts"
    )


if __name__ == "__main__":
    main()
