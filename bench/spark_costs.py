"""What each kind of task of the Spark engine costs, measured in this process (no
Spark): the figures behind a cluster-size estimate.

    uv run python bench/spark_costs.py /tmp/reconcile-bench/logset-10M-1scopes --buckets 4

For a log set of one scope it times, on this machine, what the tasks do: cutting the
files into pieces (``scatter``), laying a bucket of partitions out and running its
partition phase, and the scope's task (laying the whole scope out, validating it, and
the scope phase with the buckets' tables given). Prints seconds per task and per
million receipts.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa

from reconcile.api import open_logset
from reconcile.audit import audit
from reconcile.spark.kernel import Job, lay_out, partition_phase
from reconcile.spark.listing import local_sources
from reconcile.spark.scatter import BUCKETED_ARROW, PIECES_ARROW, facts, from_ipc, pieces
from reconcile.validate import validate_logset


def batches(rows: list[dict[str, object]], schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    for row in rows:
        yield pa.RecordBatch.from_pylist([row], schema=schema)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logset", type=Path)
    parser.add_argument("--buckets", type=int, default=4)
    args = parser.parse_args()
    _, sources, _ = local_sources(str(args.logset))
    contents = {k: Path(s.uri.removeprefix("file://")).read_bytes() for k, s in sources.items()}
    tables: dict[str, tuple[str, bytes]] = {}
    ends = []
    for key, source in sorted(sources.items()):
        fact = facts(source, contents[key])
        tables.setdefault(source.table, (key, fact["blob"]))  # type: ignore[arg-type]
        if fact["end_ns"] is not None:
            ends.append(fact["end_ns"])
    job = Job("audit", tables, end_ns=max(ends))  # type: ignore[arg-type]
    started = time.perf_counter()
    whole = [p for k, s in sources.items() for p in pieces(s, contents[k])]
    bucketed = [p for k, s in sources.items() for p in pieces(s, contents[k], buckets=args.buckets)]
    print(f"scatter (both cuts): {time.perf_counter() - started:.1f} s")
    receipts = sum(
        from_ipc(p["blob"]).num_rows for p in whole if str(p["relpath"]).startswith("receipts")
    )
    presets: list[dict[str, object]] = []
    for bucket in range(args.buckets):
        mine = [p for p in bucketed if p["bucket"] == bucket]
        with tempfile.TemporaryDirectory() as folder:
            started = time.perf_counter()
            laid = lay_out(Path(folder), batches(mine, BUCKETED_ARROW), job)
            laid_s = time.perf_counter() - started
            started = time.perf_counter()
            out = partition_phase(laid, job, None)
            phase_s = time.perf_counter() - started
        presets += [{"scope_id": None, "relpath": k, "blob": v} for k, v in out.items()]
        print(f"bucket {bucket}: lay out {laid_s:.1f} s, partition phase {phase_s:.1f} s")
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        laid = lay_out(Path(folder), batches([*whole, *presets], PIECES_ARROW), job)
        laid_s = time.perf_counter() - started
        started = time.perf_counter()
        validate_logset(laid.root)
        valid_s = time.perf_counter() - started
        started = time.perf_counter()
        with open_logset(laid.root, validate=False) as logset:
            audit(logset, None, preset=laid.preset())
        scope_s = time.perf_counter() - started
    print(
        f"scope task: lay out {laid_s:.1f} s, validate {valid_s:.1f} s, scope phase {scope_s:.1f} s"
    )
    print(f"receipts: {receipts:,}")


if __name__ == "__main__":
    main()
