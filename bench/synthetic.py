"""Write a large synthetic, valid log set with DuckDB, for measuring validation.

    uv run python bench/synthetic.py OUT --receipts 10000000 --partitions 1000

Every partition gets receipts at positions 1..n (every tenth event replayed), one
page per 100 events and a won checkpoint per page. The rows are plain and valid;
the point is volume, not realism (the simulator, ``reconcile simulate``, makes
realistic runs).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import duckdb

RECEIPTS = """
COPY (
    SELECT
        's' AS scope_id,
        'p' || lpad(CAST(i % $partitions AS VARCHAR), 4, '0') AS partition_id,
        'e' || CAST(i // $partitions AS VARCHAR) AS event_id,
        CAST(i // $partitions AS BIGINT) AS position,
        CASE WHEN i % 97 = 0 THEN 'failed' ELSE 'committed' END AS outcome,
        CAST(NULL AS BOOLEAN) AS eligibility_stable,
        'a' || CAST((i // $partitions) // 5000 AS VARCHAR) AS attempt_id,
        CAST(1 AS BIGINT) AS owner_epoch,
        'g' || CAST(i % $partitions AS VARCHAR) || '-' || CAST((i // $partitions) // 100 AS VARCHAR)
            AS page_id,
        TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_microseconds(i) AS recorded_at
    FROM range($receipts) AS t(i)
) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)
"""

PAGES = """
COPY (
    SELECT
        's' AS scope_id,
        'p' || lpad(CAST(p AS VARCHAR), 4, '0') AS partition_id,
        'a' || CAST(k // 50 AS VARCHAR) AS attempt_id,
        'g' || CAST(p AS VARCHAR) || '-' || CAST(k AS VARCHAR) AS page_id,
        CAST(k AS BIGINT) AS page_seq,
        CASE WHEN k = 0 THEN NULL ELSE 't' || CAST(k AS VARCHAR) END AS request_token,
        't' || CAST(k + 1 AS VARCHAR) AS next_token,
        CAST(100 AS BIGINT) AS event_count,
        CAST(k * 100 AS BIGINT) AS min_position,
        CAST(k * 100 + 99 AS BIGINT) AS max_position,
        CAST(NULL AS BIGINT) AS finality_through,
        CAST(NULL AS BOOLEAN) AS finality_inclusive,
        TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_microseconds(k * 100 * $partitions) AS fetched_at
    FROM range($partitions) AS a(p), range($pages) AS b(k)
) TO '{path}' (FORMAT parquet)
"""

CHECKPOINTS = """
COPY (
    SELECT
        's' AS scope_id,
        'p' || lpad(CAST(p AS VARCHAR), 4, '0') AS partition_id,
        'a' || CAST(k // 50 AS VARCHAR) AS attempt_id,
        CAST(1 AS BIGINT) AS owner_epoch,
        CAST(k AS BIGINT) AS expected_generation,
        CAST(k + 1 AS BIGINT) AS generation,
        'won' AS cas_result,
        TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_microseconds((k + 1) * 100 * $partitions)
            AS written_at,
        't' || CAST(k + 1 AS VARCHAR) AS resume_token,
        'g' || CAST(p AS VARCHAR) || '-' || CAST(k AS VARCHAR) AS page_id,
        CAST(k * 100 + 99 AS BIGINT) AS watermark,
        true AS watermark_inclusive,
        'e' || CAST(k * 100 + 99 AS VARCHAR) AS watermark_event_id,
        CAST(NULL AS VARCHAR) AS ordering
    FROM range($partitions) AS a(p), range($pages) AS b(k)
) TO '{path}' (FORMAT parquet)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--receipts", type=int, default=10_000_000)
    parser.add_argument("--partitions", type=int, default=1000)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    per_partition = args.receipts // args.partitions
    params = {
        "receipts": args.receipts,
        "partitions": args.partitions,
        "pages": max(1, per_partition // 100),
    }
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    started = time.perf_counter()
    for name, query in (("receipts", RECEIPTS), ("pages", PAGES), ("checkpoints", CHECKPOINTS)):
        # COPY takes no bound file name; the path is ours and quoted.
        path = str(args.out / f"{name}.parquet").replace("'", "''")
        used = {k: v for k, v in params.items() if f"${k}" in query}
        con.execute(query.format(path=path), used)
    print(f"wrote {args.out} ({args.receipts:,} receipts) in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
