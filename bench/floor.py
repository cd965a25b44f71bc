"""The floor of the event level with a snapshot: the exact state of every event, in
DuckDB alone, nothing else of the audit.

    uv run python bench/floor.py LOGSET                 # both forms, 8 slices
    uv run python bench/floor.py LOGSET --forms split --slices 8

Where a log set has a snapshot (``snapshot.parquet``), every snapshot event must be
matched to its receipts one by one: whether an event is known, eligible, stably
ineligible, mutated or durable is a property of that event alone (CONTRACT §4.2–§4.6),
and a hole can be crossed only where the snapshot proves it ineligible. Any exact
reconciler therefore builds, at least once, each event's receipts aggregated, each
event's snapshot rows aggregated, and the two joined. This script times exactly that,
in the audit's slices of partitions and memory limit, with the aggregates' shapes of
``watermarks/receipt_events``, ``watermarks/snapshot_slice`` and
``watermarks/known_events``:

* ``split``: the two aggregates and their full outer join, per slice (the engine's
  form);
* ``combined``: receipts and snapshot rows in one ``UNION ALL``, aggregated once per
  slice (tried in the engine as a08937b and reverted).

Nothing here computes a watermark, a frontier or a finding: the figure is a floor for
the whole audit, not an estimate of it. Figures are printed; nothing is asserted.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import duckdb

PARTS = """
CREATE OR REPLACE TEMP TABLE parts AS
SELECT scope_id, partition_id,
       CAST(row_number() OVER (ORDER BY scope_id, partition_id) AS INTEGER) AS pk,
       CAST(floor((row_number() OVER (ORDER BY partition_id) - 1) * $slices / count(*) OVER ())
            AS INTEGER) AS slice
FROM (SELECT DISTINCT scope_id, partition_id FROM receipts)
"""

DURABLE = "outcome IN ('committed', 'dead_lettered')"
BITS = "CASE outcome WHEN 'committed' THEN 1 WHEN 'failed' THEN 2 ELSE 4 END"

RECEIPT_EVENTS = f"""
CREATE OR REPLACE TEMP TABLE r AS
SELECT p.pk, r.event_id, min(r.position) AS sort_pos, min(r.recorded_at) AS first_at,
       min(r.recorded_at) FILTER (WHERE {DURABLE}) AS durable_at,
       CAST(bit_or({BITS})
            | CASE WHEN count(*) FILTER (WHERE {DURABLE}) > 1 THEN 16 ELSE 0 END
            | CASE WHEN min(r.position) <> max(r.position) THEN 32 ELSE 0 END AS UTINYINT) AS flags
FROM receipts AS r JOIN parts AS p USING (scope_id, partition_id)
WHERE r.partition_id BETWEEN $lo AND $hi
GROUP BY p.pk, r.event_id
"""

SNAPSHOT_EVENTS = """
CREATE OR REPLACE TEMP TABLE s AS
SELECT p.pk, s.event_id, min(s.position) AS min_pos, max(s.position) AS max_pos,
       bool_or(s.eligible) AS eligible, bool_and(s.eligibility_stable) AS stable,
       min(s.visible_at) AS visible_at, bool_or(s.visible_at IS NULL) AS always_visible,
       min(s.position) FILTER (WHERE s.eligible AND s.visible_at IS NOT NULL) AS appeared_pos,
       min(s.visible_at) FILTER (WHERE s.eligible AND s.visible_at IS NOT NULL) AS appeared_at
FROM snapshot AS s JOIN parts AS p USING (scope_id, partition_id)
WHERE s.partition_id BETWEEN $lo AND $hi
GROUP BY p.pk, s.event_id
"""

KNOWN_EVENTS = """
CREATE OR REPLACE TEMP TABLE k AS
SELECT coalesce(s.pk, r.pk) AS pk, coalesce(s.event_id, r.event_id) AS event_id,
       s.event_id IS NOT NULL AS in_snapshot, least(s.min_pos, r.sort_pos) AS sort_pos,
       coalesce(s.min_pos <> s.max_pos, false) OR (r.flags & 32 <> 0)
           OR coalesce(s.min_pos <> r.sort_pos, false) AS mutated,
       s.eligible AS snap_eligible, s.stable AS snap_stable, s.visible_at,
       coalesce(s.always_visible, false) AS always_visible,
       r.first_at, r.durable_at, coalesce(r.flags, 0) AS flags
FROM s FULL OUTER JOIN r ON r.pk = s.pk AND r.event_id = s.event_id
"""

COMBINED = f"""
CREATE OR REPLACE TEMP TABLE c AS
WITH event_rows AS (
    SELECT p.pk, r.event_id, r.position, r.recorded_at, r.outcome, r.eligibility_stable,
           CAST(NULL AS BOOLEAN) AS eligible, CAST(NULL AS TIMESTAMPTZ) AS visible_at,
           false AS snap
    FROM receipts AS r JOIN parts AS p USING (scope_id, partition_id)
    WHERE r.partition_id BETWEEN $lo AND $hi
    UNION ALL
    SELECT p.pk, s.event_id, s.position, NULL, NULL, s.eligibility_stable, s.eligible,
           s.visible_at, true
    FROM snapshot AS s JOIN parts AS p USING (scope_id, partition_id)
    WHERE s.partition_id BETWEEN $lo AND $hi
)
SELECT pk, event_id, count(*) FILTER (WHERE snap) > 0 AS in_snapshot,
       min(position) FILTER (WHERE snap) AS min_pos,
       max(position) FILTER (WHERE snap) AS max_pos,
       bool_or(eligible) FILTER (WHERE snap) AS eligible,
       bool_and(eligibility_stable) FILTER (WHERE snap) AS stable,
       min(visible_at) FILTER (WHERE snap) AS visible_at,
       bool_or(visible_at IS NULL) FILTER (WHERE snap) AS always_visible,
       min(position) FILTER (WHERE snap AND eligible AND visible_at IS NOT NULL) AS appeared_pos,
       min(visible_at) FILTER (WHERE snap AND eligible AND visible_at IS NOT NULL) AS appeared_at,
       min(position) FILTER (WHERE NOT snap) AS receipt_min_pos,
       min(recorded_at) AS first_at,
       min(recorded_at) FILTER (WHERE {DURABLE}) AS durable_at,
       CAST(coalesce(bit_or({BITS}) FILTER (WHERE NOT snap), 0)
            | CASE WHEN count(*) FILTER (WHERE {DURABLE}) > 1 THEN 16 ELSE 0 END
            | CASE WHEN min(position) FILTER (WHERE NOT snap)
                        <> max(position) FILTER (WHERE NOT snap) THEN 32 ELSE 0 END
            AS UTINYINT) AS flags
FROM event_rows
GROUP BY pk, event_id
"""

FORMS = {
    "split": [
        ("receipt events", RECEIPT_EVENTS),
        ("snapshot events", SNAPSHOT_EVENTS),
        ("their join", KNOWN_EVENTS),
    ],
    "combined": [("one aggregate", COMBINED)],
}


def files(logset: Path, table: str) -> list[str]:
    single = logset / f"{table}.parquet"
    if single.is_file():
        return [str(single)]
    return sorted(str(p) for p in (logset / table).rglob("*.parquet"))


def run(logset: Path, form: str, slices: int, memory_limit: str, scratch: Path) -> None:
    con = duckdb.connect(
        config={
            "memory_limit": memory_limit,
            "threads": 2,
            "temp_directory": str(scratch),
            "preserve_insertion_order": False,
        }
    )
    con.execute("SET TimeZone = 'UTC'")
    for table in ("receipts", "snapshot"):
        con.read_parquet(files(logset, table)).create_view(table)
    con.execute(PARTS, {"slices": slices})
    spent = {name: 0.0 for name, _ in FORMS[form]}
    started = time.perf_counter()
    for number in range(slices):
        row = con.execute(
            "SELECT min(partition_id), max(partition_id) FROM parts WHERE slice = $s", {"s": number}
        ).fetchone()
        assert row is not None
        for name, sql in FORMS[form]:
            began = time.perf_counter()
            con.execute(sql, {"lo": row[0], "hi": row[1]} if "$lo" in sql else {})
            spent[name] += time.perf_counter() - began
    total = time.perf_counter() - started
    parts = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in spent.items())
    print(f"{form}: {total:.1f} s in {slices} slices ({parts})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logset", type=Path)
    parser.add_argument(
        "--forms", default="split,combined", help="comma-separated: split, combined"
    )
    parser.add_argument("--slices", type=int, default=8)
    parser.add_argument("--memory-limit", default="3GB")
    parser.add_argument("--scratch", type=Path, default=Path(tempfile.gettempdir()))
    args = parser.parse_args()
    if not files(args.logset, "snapshot"):
        parser.error(f"{args.logset} has no snapshot: the floor measured here is the snapshot's")
    for form in args.forms.split(","):
        if form not in FORMS:
            parser.error(f"unknown form {form!r}: one of {', '.join(FORMS)}")
        with tempfile.TemporaryDirectory(prefix="reconcile-floor-", dir=args.scratch) as tmp:
            run(args.logset, form, args.slices, args.memory_limit, Path(tmp))


if __name__ == "__main__":
    main()
