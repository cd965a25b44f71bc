"""How cheaply can one pass over the receipts find the events that are not settled by
their first receipt? The question behind issue 20's proposed design.

    uv run python bench/candidates.py LOGSET [--memory-limit 3GB]

Most events have one receipt, durable (or stably ineligible). Only the others can
block a watermark, be replayed or be mutated; a design that finds them in one pass
could run every later step on a small table.
This measures, on one log set, each as its own query in one DuckDB process:

* ``scan``: one pass over the columns the event level reads (count and maxima per
  partition): the floor of any design that reads every receipt;
* ``exact``: the event level's aggregate as the engine runs it today (per event:
  lowest position, first receipt, first durable receipt, outcome bits), in one
  query (DuckDB spills what does not fit);
* ``candidates``: the events with more than one receipt, or with one that is
  neither durable nor a proof that the event is ineligible, found by a hash
  aggregate on a 64-bit hash of the event's key (fixed-size keys and no other
  state), then the exact aggregate over those events' receipts alone (a semi join
  on the hash; a hash collision only adds an event, never loses one).

Figures are printed; nothing is asserted.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import duckdb

COLUMNS = "scope_id, partition_id, event_id, position, recorded_at, outcome, eligibility_stable"
DURABLE = "outcome IN ('committed', 'dead_lettered')"
# a receipt that settles its event when it is the only one: durable, or proven
# ineligible (stably)
SETTLING = f"({DURABLE} OR coalesce(outcome = 'ineligible' AND eligibility_stable, false))"

EXACT = f"""
SELECT scope_id, partition_id, event_id,
       min(position) AS sort_pos,
       min(recorded_at) AS first_at,
       min(recorded_at) FILTER (WHERE {DURABLE}) AS durable_at,
       bit_or(CASE outcome WHEN 'committed' THEN 1 WHEN 'failed' THEN 2 ELSE 4 END) AS bits,
       count(*) AS receipts,
       bool_and({SETTLING}) AS settling
FROM {{source}}
GROUP BY scope_id, partition_id, event_id
"""

STEPS = {
    "scan": """
        CREATE OR REPLACE TEMP TABLE scan AS
        SELECT scope_id, partition_id, count(*) AS n, max(position) AS top,
               max(recorded_at) AS last_at, max(event_id) AS last_event,
               count(*) FILTER (WHERE outcome <> 'committed') AS other
        FROM receipts GROUP BY scope_id, partition_id
    """,
    "exact": "CREATE OR REPLACE TEMP TABLE exact AS " + EXACT.format(source="receipts"),
    "candidate keys": f"""
        CREATE OR REPLACE TEMP TABLE keys AS
        SELECT h FROM (
            SELECT hash(scope_id, partition_id, event_id) AS h, {SETTLING} AS settling
            FROM receipts
        )
        GROUP BY h
        HAVING count(*) > 1 OR NOT bool_and(settling)
    """,
    "candidate events": "CREATE OR REPLACE TEMP TABLE candidates AS "
    + EXACT.format(
        source="(SELECT * FROM receipts"
        " SEMI JOIN keys ON hash(receipts.scope_id, receipts.partition_id, receipts.event_id)"
        " = keys.h)"
    ),
}


def files_of(logset: Path) -> list[str]:
    folder = logset / "receipts"
    if folder.is_dir():
        return sorted(str(p) for p in folder.rglob("*.parquet"))
    return [str(logset / "receipts.parquet")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logset", type=Path)
    parser.add_argument("--memory-limit", default="3GB")
    args = parser.parse_args()

    con = duckdb.connect()
    for setting in (
        f"SET memory_limit = '{args.memory_limit}'",
        "SET preserve_insertion_order = false",
        "SET TimeZone = 'UTC'",
    ):
        con.execute(setting)
    listed = ", ".join("'" + f.replace("'", "''") + "'" for f in files_of(args.logset))
    con.execute(f"CREATE VIEW receipts AS SELECT {COLUMNS} FROM read_parquet([{listed}])")
    (rows,) = con.execute("SELECT count(*) FROM receipts").fetchone() or (0,)
    print(f"log set {args.logset}: {rows:,} receipts")
    seconds: dict[str, float] = {}
    for name, sql in STEPS.items():
        started = time.perf_counter()
        con.execute(sql)
        seconds[name] = time.perf_counter() - started
        print(f"{name:18s} {seconds[name]:6.1f} s", flush=True)
    (events,) = con.execute("SELECT count(*) FROM exact").fetchone() or (0,)
    unsettled_sql = "SELECT count(*) FROM exact WHERE receipts > 1 OR NOT settling"
    (unsettled,) = con.execute(unsettled_sql).fetchone() or (0,)
    (found,) = con.execute("SELECT count(*) FROM candidates").fetchone() or (0,)
    (missed,) = con.execute(
        "SELECT count(*) FROM exact AS e WHERE (receipts > 1 OR NOT settling) AND NOT EXISTS"
        " (SELECT 1 FROM candidates AS c WHERE c.scope_id = e.scope_id"
        " AND c.partition_id = e.partition_id AND c.event_id = e.event_id)"
    ).fetchone() or (0,)
    print(
        f"events {events:,}; not settled by their first receipt {unsettled:,}"
        f" ({unsettled / max(events, 1):.2%}); candidates found {found:,}; missed {missed}"
    )
    two_pass = seconds["candidate keys"] + seconds["candidate events"]
    print(
        f"exact / scan {seconds['exact'] / seconds['scan']:.1f}x;"
        f" candidates (both passes) / scan {two_pass / seconds['scan']:.1f}x"
    )


if __name__ == "__main__":
    main()
