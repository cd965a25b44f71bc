"""What the event level's pass over receipts costs, piece by piece, in DuckDB alone.

    uv run python bench/event_level.py LOGSET                 # every variant
    uv run python bench/event_level.py LOGSET scan agg_table  # some of them

On one slice of a log set's receipts (the first quarter of its partitions, as the
audit cuts 100 M receipts into four slices), with DuckDB at 2 threads and a 3 GB
memory limit, as ``bench/scale.py`` runs the audit. Each variant is one statement,
timed alone; every table it makes is dropped before the next. The SQL mirrors
``reconcile/sql/watermarks/`` without importing it, so that the engine's own steps
can change and this record still says what each formulation costs:

* ``scan``: read the columns the event aggregate reads, and nothing more;
* ``groups``: the distinct (partition, event) pairs, counted (DuckDB drops the
  aggregates a count does not read: this is grouping alone);
* ``groups_hashed``: the same with each event_id's 64-bit hash in its place;
* ``agg_hashed``: the event aggregate grouped by that hash, each group keeping an
  event_id and the least and greatest of a second hash (a collision shows as two):
  what a fixed-width key would save;
* ``agg_table``: the event aggregate as ``receipt_events`` made it before issue 20's
  second pass: every event grouped, into a table;
* ``agg_case``: the same aggregate with ``CASE`` in place of its ``FILTER`` clauses;
* ``agg_two``: the grouping with two aggregate states only (lowest position, first
  receipt): what the other four states cost;
* ``agg_unstored``: the event aggregate read by a count, never stored: what writing
  the table costs;
* ``keys``: over every receipt (not a slice), the 64-bit hashes of (scope,
  partition, event) with more than one receipt or one without a durable outcome
  (``watermarks/open_keys``);
* ``two_scans``: the slice's events as ``receipt_events`` makes them with those
  keys: a projection of the settled receipts and a grouping of the others, each
  branch its own scan;
* ``cte``: the same, the slice's receipts read once into a materialized CTE;
* ``slice_keys``: the keys found within the slice, from its receipts read once;
* ``page_settled``: over every receipt, the page pass (``watermarks/page_pass``) with,
  per page, the count, the lowest and highest position and the latest four times of
  its settled receipts (those whose key is not in ``keys``): what page status and the
  committed watermark would need of the settled events, instead of a row for each;
* ``open_events``: over every receipt, the exact aggregate of the events in ``keys``
  alone (a semi-join): the only per-event table such a design keeps.

Figures go to the terminal; ``bench/EVENT_LEVEL.md`` keeps the ones measured.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import duckdb

DURABLE = "outcome IN ('committed', 'dead_lettered')"
BITS = """CASE outcome WHEN 'committed' THEN 1 WHEN 'dead_lettered' THEN 1 WHEN 'failed' THEN 2
    WHEN 'ineligible' THEN CASE WHEN eligibility_stable THEN 12 ELSE 4 END ELSE 0 END"""
AGGREGATE = f"""hash(scope_id, partition_id) AS pk, event_id, min(position) AS sort_pos,
    min(recorded_at) AS first_at, min(recorded_at) FILTER (WHERE {DURABLE}) AS durable_at,
    CAST(bit_or({BITS})
         | CASE WHEN count(*) FILTER (WHERE {DURABLE}) > 1 THEN 16 ELSE 0 END
         | CASE WHEN min(position) <> max(position) THEN 32 ELSE 0 END AS UTINYINT) AS flags"""
AGGREGATE_CASE = f"""hash(scope_id, partition_id) AS pk, event_id, min(position) AS sort_pos,
    min(recorded_at) AS first_at, min(CASE WHEN {DURABLE} THEN recorded_at END) AS durable_at,
    CAST(bit_or({BITS})
         | CASE WHEN count(CASE WHEN {DURABLE} THEN 1 END) > 1 THEN 16 ELSE 0 END
         | CASE WHEN min(position) <> max(position) THEN 32 ELSE 0 END AS UTINYINT) AS flags"""
AGGREGATE_HASHED = AGGREGATE.replace(
    "event_id,",
    "any_value(event_id) AS event_id, min(hash(event_id || '#')) AS h_lo,"
    " max(hash(event_id || '#')) AS h_hi,",
    1,
)
SETTLED = """hash(scope_id, partition_id) AS pk, event_id, position AS sort_pos,
    recorded_at AS first_at, recorded_at AS durable_at, CAST(1 AS UTINYINT) AS flags"""
KEY = "hash(scope_id, partition_id, event_id)"


def variants(where: str) -> dict[str, str]:
    return {
        "scan": f"""SELECT count(*), max(event_id), max(position), max(recorded_at), max(outcome),
            bool_or(eligibility_stable), max(scope_id) FROM receipts WHERE {where}""",
        "groups": f"""SELECT count(*) FROM (SELECT hash(scope_id, partition_id), event_id
            FROM receipts WHERE {where} GROUP BY ALL)""",
        "agg_table": f"""CREATE TEMP TABLE out AS SELECT {AGGREGATE} FROM receipts WHERE {where}
            GROUP BY hash(scope_id, partition_id), event_id""",
        "agg_case": f"""CREATE TEMP TABLE out AS SELECT {AGGREGATE_CASE} FROM receipts
            WHERE {where} GROUP BY hash(scope_id, partition_id), event_id""",
        "groups_hashed": f"""SELECT count(*) FROM (SELECT hash(scope_id, partition_id),
            hash(event_id) FROM receipts WHERE {where} GROUP BY ALL)""",
        "agg_hashed": f"""CREATE TEMP TABLE out AS SELECT {AGGREGATE_HASHED} FROM receipts
            WHERE {where} GROUP BY hash(scope_id, partition_id), hash(event_id)""",
        "agg_two": f"""CREATE TEMP TABLE out AS SELECT hash(scope_id, partition_id) AS pk, event_id,
            min(position) AS sort_pos, min(recorded_at) AS first_at FROM receipts
            WHERE {where} GROUP BY hash(scope_id, partition_id), event_id""",
        "agg_unstored": f"""SELECT count(*), max(pk), max(sort_pos), max(first_at), max(durable_at),
            max(flags) FROM (SELECT {AGGREGATE} FROM receipts WHERE {where}
            GROUP BY hash(scope_id, partition_id), event_id)""",
        "keys": f"""CREATE TEMP TABLE keys AS SELECT {KEY} AS key FROM receipts GROUP BY {KEY}
            HAVING count(*) > 1 OR NOT bool_and(coalesce({DURABLE}, false))""",
        "two_scans": f"""CREATE TEMP TABLE out AS
            SELECT {SETTLED} FROM receipts ANTI JOIN keys ON keys.key = {KEY} WHERE {where}
            UNION ALL
            SELECT {AGGREGATE} FROM receipts SEMI JOIN keys ON keys.key = {KEY} WHERE {where}
            GROUP BY hash(scope_id, partition_id), event_id""",
        "cte": f"""CREATE TEMP TABLE out AS
            WITH r AS MATERIALIZED (
                SELECT receipts.*, keys.key IS NOT NULL AS open FROM receipts
                LEFT JOIN keys ON keys.key = {KEY} WHERE {where})
            SELECT {SETTLED} FROM r WHERE NOT open
            UNION ALL
            SELECT {AGGREGATE} FROM r WHERE open GROUP BY hash(scope_id, partition_id), event_id""",
        "slice_keys": f"""CREATE TEMP TABLE out AS
            WITH r AS MATERIALIZED (
                SELECT scope_id, partition_id, event_id, position, recorded_at, outcome,
                       eligibility_stable, {KEY} AS key
                FROM receipts WHERE {where}),
            open AS (
                SELECT key FROM r GROUP BY key
                HAVING count(*) > 1 OR NOT bool_and(coalesce({DURABLE}, false)))
            SELECT {SETTLED} FROM r ANTI JOIN open USING (key)
            UNION ALL
            SELECT {AGGREGATE} FROM r SEMI JOIN open USING (key)
            GROUP BY hash(scope_id, partition_id), event_id""",
        "page_settled": f"""CREATE TEMP TABLE out AS
            SELECT scope_id, partition_id, page_id, count(*) AS n_receipts,
                   min(recorded_at) AS first_at, max(recorded_at) AS last_at,
                   max({{'p': position, 'e': event_id}}) AS last_event,
                   min(position) AS own_min_pos,
                   count(*) FILTER (WHERE keys.key IS NULL) AS n_settled,
                   min(position) FILTER (WHERE keys.key IS NULL) AS settled_lo,
                   max(position) FILTER (WHERE keys.key IS NULL) AS settled_hi,
                   max(recorded_at, 4) FILTER (WHERE keys.key IS NULL) AS settled_latest
            FROM receipts LEFT JOIN keys ON keys.key = {KEY}
            GROUP BY ALL""",
        "open_events": f"""CREATE TEMP TABLE out AS
            SELECT {AGGREGATE} FROM receipts SEMI JOIN keys ON keys.key = {KEY}
            GROUP BY hash(scope_id, partition_id), event_id""",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("logset", type=Path)
    parser.add_argument("names", nargs="*", help="variants to run (default: all, in order)")
    args = parser.parse_args()
    con = duckdb.connect()
    con.execute("SET threads = 2; SET memory_limit = '3GB'; SET preserve_insertion_order = false")
    files = str(args.logset / "receipts" / "*.parquet")
    con.execute(f"CREATE VIEW receipts AS SELECT * FROM read_parquet('{files}')")
    first, last = con.execute(
        "SELECT min(partition_id), quantile_disc(partition_id, 0.25)"
        " FROM (SELECT DISTINCT partition_id FROM receipts)"
    ).fetchone() or (None, None)
    where = f"partition_id BETWEEN '{first}' AND '{last}'"
    queries = variants(where)
    names = args.names or list(queries)
    needs_keys = ("two_scans", "cte", "page_settled", "open_events")
    if any(n in needs_keys for n in names) and "keys" not in names:
        names.insert(0, "keys")
    for name in names:
        started = time.perf_counter()
        con.execute(queries[name])
        seconds = time.perf_counter() - started
        made = "keys" if name == "keys" else "out" if queries[name].startswith("CREATE") else None
        rows = con.execute(f"SELECT count(*) FROM {made}").fetchone()[0] if made else None  # type: ignore[index]
        print(f"{name:<10} {seconds:6.2f} s" + (f"  {rows:,} rows" if rows is not None else ""))
        con.execute("DROP TABLE IF EXISTS out")


if __name__ == "__main__":
    main()
