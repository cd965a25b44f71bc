"""Write a large, valid, clean log set laid out the way a live ingestion system writes it.

    python bench/ingest.py OUT --receipts 10000000 [--partitions 1000]
        [--layout time|partition] [--snapshot] [--ineligible] [--uuid-ids] [--seed 0]

An independent generator for benchmarks: it shares nothing with ``reconcile simulate``
and imports nothing from ``reconcile``. Everything is computed by DuckDB from
``range()``: no Python loop touches a row, and the receipts are generated in chunks of
ticks so that memory stays bounded whatever ``--receipts`` is.

The story it writes (one scope, ``--partitions`` partitions, int64 positions):

* **Clock.** One global tick (100 µs) per receipt. The partition of tick ``i`` is drawn
  by a seeded hash of ``i``, so every row group mixes many partitions in an irregular,
  reproducible order; a partition's own receipts keep increasing positions in time.
* **Events and pages.** Each partition's events have dense positions 1..n, read in pages
  of 100. A page is fetched just before its first receipt, carries the provider's
  finality (``finality_through = max_position``, inclusive) and chains by token to the
  page before it. The partition's last page holds what the log caught of its tail.
* **Attempts.** A worker run (attempt) covers 50 pages and resumes from the token its
  predecessor checkpointed. The owner epoch (fencing token) is constant per partition.
* **Outcomes.** In every page one event is delivered a second time, a few events later,
  by a redelivery attempt (1 % replays). In every block of 100 pages one event fails and
  is retried, after two more events, by the same run (0.01 %). Both happen before the
  page's checkpoint, so no claim ever runs ahead of a durable outcome. (Where the end of
  the log would cut a retry off, the event simply commits at its first try.)
* **Checkpoints.** After the page's last receipt the run wins a compare-and-swap
  (expected = previous generation, generation + 1) claiming the page's max position,
  inclusive, with the page's next token as resume token. When a run takes over (every
  50 pages) its predecessor's retried final write arrives just after the takeover and
  loses: its expected generation is already consumed.
* ``--snapshot``: the source's enumeration of every event is written too, with about
  10 % of the events stably excluded by the bound filter (``eligible = false``,
  ``eligibility_stable = true``; the consumer records an ``ineligible`` receipt for each,
  stable), and ``snapshot_bounds`` (complete through n, inclusive).
* ``--ineligible``: the same 10 % of events stably ineligible, proven by their receipts
  alone (``ineligible``, ``eligibility_stable = true``), with no snapshot: the log set
  issue 20 is judged on.
* ``--uuid-ids``: event ids as UUID text (36 characters) instead of 16 hex digits.

Layouts: ``time`` writes receipts as rolling files in arrival order (``receipts/part-*``);
``partition`` writes the same rows sorted by (partition_id, recorded_at). Pages and
checkpoints follow the layout; the snapshot is in (partition, position) order in both.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

SCOPE = "orders-cdc"
PAGE_EVENTS = 100  # events per page
BLOCK_PAGES = 100  # one failed-then-retried event per block of pages
RUN_PAGES = 50  # pages per worker run (attempt)
SEGMENT = PAGE_EVENTS + 1  # a page's actions: its events and one redelivery
BLOCK_ACTIONS = BLOCK_PAGES * SEGMENT + 1  # and one retry per block
TICK_US = 100
BASE_US = 1_772_409_600_000_000  # 2026-03-02T00:00:00Z
FETCH_BEFORE_US = 40  # a page is fetched this long before its first receipt
WRITE_AFTER_US = 20  # a checkpoint is written this long after the page's last receipt
STALE_AFTER_US = 50  # the stale retry arrives this long after the page's last receipt
ROW_GROUP = 122_880
CHUNK_ROW_GROUPS = 40  # ticks per generation chunk (and per time-layout file), in row groups
INELIGIBLE_ONE_IN = 10

# Per-row pseudo-random draws and names. Integer constants (the seed, the partition count,
# the snapshot switch) are the only things formatted into them; they come typed from argparse.
# Names are plain concatenations and hex hashes: printf and lpad cost more than the rest
# of a receipt put together (a partition name is padded by cutting the 1 off 1000 + p).
# an event's id: 16 hex digits, or (--uuid-ids) UUID text of 36 characters, as many
# systems write them (longer than DuckDB keeps inline: 12 bytes)
HEX_NAME = "hex(hash({seed}, 'event', p, pos))"
UUID_NAME = (
    "lower(regexp_replace(hex(hash({seed}, 'event', p, pos)) || hex(hash({seed}, 'uuid', p, pos)),"
    " '^(.{{8}})(.{{4}})(.{{4}})(.{{4}})(.{{12}})$', '\\1-\\2-\\3-\\4-\\5'))"
)

MACROS = """
CREATE OR REPLACE TEMP MACRO tick_partition(i) AS CAST(hash(i, {seed}) % {partitions} AS BIGINT);
CREATE OR REPLACE TEMP MACRO fail_page(p, b) AS
    CAST(hash({seed}, 'fail-page', p, b) % {block_pages} AS BIGINT);
CREATE OR REPLACE TEMP MACRO fail_event(p, b) AS
    CAST(hash({seed}, 'fail-event', p, b) % ({page_events} - 3) AS BIGINT);
CREATE OR REPLACE TEMP MACRO replay_target(p, g) AS
    CAST(hash({seed}, 'replay', p, g) % {page_events} AS BIGINT);
CREATE OR REPLACE TEMP MACRO replay_after(p, g) AS
    least(replay_target(p, g) + 1 + CAST(hash({seed}, 'replay-lag', p, g) % 8 AS BIGINT),
          {page_events} - 1);
CREATE OR REPLACE TEMP MACRO ineligible(p, pos) AS
    {ineligible}
    AND hash({seed}, 'filter', p, pos) % {ineligible_one_in} = 0
    AND (pos - 1) % {page_events} <> replay_target(p, (pos - 1) // {page_events})
    AND NOT (
        (pos - 1) // {page_events} % {block_pages}
            = fail_page(p, (pos - 1) // ({page_events} * {block_pages}))
        AND (pos - 1) % {page_events} = fail_event(p, (pos - 1) // ({page_events} * {block_pages}))
    );
CREATE OR REPLACE TEMP MACRO partition_name(p) AS
    'shard-' || substr(CAST(p + {name_base} AS VARCHAR), 2);
CREATE OR REPLACE TEMP MACRO event_name(p, pos) AS {event_name};
CREATE OR REPLACE TEMP MACRO page_name(p, g) AS partition_name(p) || '/page-' || CAST(g AS VARCHAR);
CREATE OR REPLACE TEMP MACRO cursor_token(p, g) AS 'cur_' || hex(hash({seed}, 'cursor', p, g));
CREATE OR REPLACE TEMP MACRO run_name(p, g) AS
    partition_name(p) || '/run-' || CAST(g // {run_pages} AS VARCHAR);
CREATE OR REPLACE TEMP MACRO redelivery_name(p, g) AS
    partition_name(p) || '/redelivery-' || CAST(g // {run_pages} AS VARCHAR);
CREATE OR REPLACE TEMP MACRO lease(p) AS CAST(1 + hash({seed}, 'lease', p) % 7 AS BIGINT);
CREATE OR REPLACE TEMP MACRO ts(us) AS make_timestamptz(us);
"""

# How many ticks each partition gets in all (one cheap pass), so that a retry cut off by
# the end of the log can be known when its failed receipt is written.
TOTALS = """
CREATE OR REPLACE TEMP TABLE progress AS
SELECT tick_partition(i) AS p,
       CAST(0 AS BIGINT) AS done,
       count(*) AS total
FROM range($receipts) AS t(i)
GROUP BY ALL
"""

# The ticks of one chunk, each with its partition and its action index k in the partition.
CHUNK = """
CREATE OR REPLACE TEMP TABLE chunk AS
WITH ticks AS (
    SELECT i, tick_partition(i) AS p
    FROM range($start, $stop) AS t(i)
)
SELECT ticks.i, ticks.p, progress.total,
       progress.done + row_number() OVER (PARTITION BY ticks.p ORDER BY ticks.i) - 1 AS k
FROM ticks JOIN progress USING (p)
"""

# Action k of a partition, in closed form. A block of 100 pages holds 100 segments of 101
# actions (the page's 100 events in order and one redelivery) and, in its failing page,
# one more (the retry). In a segment, the redelivery of event r comes right after event
# q = r + lag, and the retry of event f right after event f + 2 (retry first on a tie).
ITEMS = f"""
CREATE OR REPLACE TEMP TABLE items AS
WITH blocks AS (
    SELECT i, p, k, total,
           k // {BLOCK_ACTIONS} AS b,
           k % {BLOCK_ACTIONS} AS kb,
           fail_page(p, k // {BLOCK_ACTIONS}) AS fj
    FROM chunk
), pages AS (
    SELECT *,
           CASE WHEN kb < (fj + 1) * {SEGMENT} + 1 THEN least(kb // {SEGMENT}, fj)
                ELSE (kb - 1) // {SEGMENT} END AS j
    FROM blocks
), slots AS (
    SELECT *,
           b * {BLOCK_PAGES} + j AS g,
           kb - j * {SEGMENT} - CASE WHEN j > fj THEN 1 ELSE 0 END AS s,
           j = fj AS failing,
           fail_event(p, b) AS f
    FROM pages
), plans AS (
    SELECT *,
           replay_target(p, g) AS r,
           replay_after(p, g) AS q,
           CASE WHEN failing THEN f + 2 ELSE 100000 END AS qf
    FROM slots
), inserts AS (
    SELECT *,
           q + 1 + CASE WHEN qf <= q THEN 1 ELSE 0 END AS at_replay,
           CASE WHEN failing THEN qf + 1 + CASE WHEN q < qf THEN 1 ELSE 0 END
                ELSE 100000 END AS at_retry
    FROM plans
), kinds AS (
    SELECT *,
           CASE WHEN s = at_replay THEN 1 WHEN s = at_retry THEN 2 ELSE 0 END AS kind
    FROM inserts
), events AS (
    SELECT *,
           CASE kind WHEN 1 THEN r WHEN 2 THEN f
                ELSE s - CASE WHEN s > at_replay THEN 1 ELSE 0 END
                       - CASE WHEN s > at_retry THEN 1 ELSE 0 END END AS e
    FROM kinds
)
SELECT i, p, g, kind,
       g * {PAGE_EVENTS} + e + 1 AS position,
       CASE WHEN kind = 0 AND failing AND e = f AND k - s + at_retry < total THEN 'failed'
            WHEN kind = 0 AND ineligible(p, g * {PAGE_EVENTS} + e + 1) THEN 'ineligible'
            ELSE 'committed' END AS outcome
FROM events
ORDER BY i
"""

RECEIPTS = f"""
COPY (
    SELECT '{SCOPE}' AS scope_id,
           partition_name(p) AS partition_id,
           event_name(p, position) AS event_id,
           position,
           outcome,
           CASE WHEN outcome = 'ineligible' THEN true END AS eligibility_stable,
           CASE WHEN kind = 1 THEN redelivery_name(p, g) ELSE run_name(p, g) END AS attempt_id,
           lease(p) AS owner_epoch,
           page_name(p, g) AS page_id,
           ts({BASE_US} + i * {TICK_US}) AS recorded_at
    FROM {{source}}
) TO '{{path}}' (FORMAT parquet, ROW_GROUP_SIZE {ROW_GROUP}, COMPRESSION zstd{{options}})
"""

# Receipts in time order: the chunk's items were stored in tick order, a plain scan keeps it.
TIME_ORDER = "items"
# Receipts by (partition_id, recorded_at): partition names are zero-padded, so sorting the
# narrow integer rows by (p, i) is that order; the strings are made after the sort.
PARTITION_ORDER = "(SELECT * FROM read_parquet('{staging}') ORDER BY p, i)"

PAGE_PARTS = """
INSERT INTO page_parts
SELECT p, g, min(i), max(i),
       count(*) FILTER (WHERE kind = 0),
       min(position) FILTER (WHERE kind = 0),
       max(position) FILTER (WHERE kind = 0)
FROM items
GROUP BY p, g
"""

PAGE_TABLE = f"""
CREATE OR REPLACE TEMP TABLE page_rows AS
SELECT p, g,
       {BASE_US} + min(first_i) * {TICK_US} - {FETCH_BEFORE_US} AS fetched_us,
       {BASE_US} + max(last_i) * {TICK_US} AS last_us,
       sum(events) AS event_count,
       min(min_position) AS min_position,
       max(max_position) AS max_position
FROM page_parts
GROUP BY p, g
"""

PAGES = f"""
COPY (
    SELECT '{SCOPE}' AS scope_id,
           partition_name(p) AS partition_id,
           run_name(p, g) AS attempt_id,
           page_name(p, g) AS page_id,
           g % {RUN_PAGES} AS page_seq,
           CASE WHEN g > 0 THEN cursor_token(p, g) END AS request_token,
           cursor_token(p, g + 1) AS next_token,
           CAST(event_count AS BIGINT) AS event_count,
           min_position,
           max_position,
           max_position AS finality_through,
           true AS finality_inclusive,
           ts(fetched_us) AS fetched_at
    FROM page_rows
    ORDER BY {{order}}
) TO '{{path}}' (FORMAT parquet, ROW_GROUP_SIZE {ROW_GROUP}, COMPRESSION zstd)
"""

# One won write per page; at each run takeover, the previous run's retried final write,
# which loses because the generation it expects is already consumed.
CHECKPOINTS = f"""
COPY (
    WITH writes AS (
        SELECT p, g, g AS expected, true AS won,
               last_us + {WRITE_AFTER_US} AS written_us, max_position
        FROM page_rows
        UNION ALL
        SELECT cur.p, prev.g, prev.g AS expected, false AS won,
               cur.last_us + {STALE_AFTER_US} AS written_us, prev.max_position
        FROM page_rows AS cur
        JOIN page_rows AS prev ON prev.p = cur.p AND prev.g = cur.g - 1
        WHERE cur.g % {RUN_PAGES} = 0
    )
    SELECT '{SCOPE}' AS scope_id,
           partition_name(p) AS partition_id,
           run_name(p, g) AS attempt_id,
           lease(p) AS owner_epoch,
           CAST(expected AS BIGINT) AS expected_generation,
           CAST(expected + 1 AS BIGINT) AS generation,
           CASE WHEN won THEN 'won' ELSE 'lost' END AS cas_result,
           ts(written_us) AS written_at,
           cursor_token(p, g + 1) AS resume_token,
           page_name(p, g) AS page_id,
           max_position AS watermark,
           true AS watermark_inclusive,
           event_name(p, max_position) AS watermark_event_id,
           CAST(NULL AS VARCHAR) AS ordering
    FROM writes
    ORDER BY {{order}}
) TO '{{path}}' (FORMAT parquet, ROW_GROUP_SIZE {ROW_GROUP}, COMPRESSION zstd)
"""

# Every event of every page, visible at the source a few milliseconds before its page
# was fetched (in position order within a partition).
SNAPSHOT = f"""
COPY (
    WITH events AS (
        SELECT p, fetched_us, max_position,
               unnest(range(min_position, max_position + 1)) AS position
        FROM page_rows
    ), ordered AS (
        SELECT * FROM events ORDER BY p, position  -- sort the integers, not the strings
    )
    SELECT '{SCOPE}' AS scope_id,
           partition_name(p) AS partition_id,
           event_name(p, position) AS event_id,
           position,
           NOT ineligible(p, position) AS eligible,
           true AS eligibility_stable,
           ts(fetched_us - 2000 - (max_position - position) * 40) AS visible_at
    FROM ordered
) TO '{{path}}' (FORMAT parquet, ROW_GROUP_SIZE {ROW_GROUP}, COMPRESSION zstd)
"""

SNAPSHOT_BOUNDS = f"""
COPY (
    SELECT '{SCOPE}' AS scope_id,
           partition_name(p) AS partition_id,
           max(max_position) AS complete_through,
           true AS complete_inclusive
    FROM page_rows
    GROUP BY p
    ORDER BY p
) TO '{{path}}' (FORMAT parquet)
"""

SCOPES = f"""
COPY (
    SELECT '{SCOPE}' AS scope_id, 'offset' AS ordering, 'discrete' AS domain
) TO '{{path}}' (FORMAT parquet)
"""


def sql_path(path: Path) -> str:
    """A path as the inside of a SQL string literal (COPY takes no bound file name)."""
    return str(path).replace("'", "''")


@contextmanager
def step(label: str) -> Iterator[None]:
    """Print how long one stage took."""
    started = time.perf_counter()
    print(f"  {label} ...", end="", flush=True)
    yield
    print(f" {time.perf_counter() - started:.1f} s", flush=True)


def connect(spill: Path, memory: str) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute(f"SET memory_limit = '{memory}'")
    con.execute(f"SET temp_directory = '{sql_path(spill)}'")
    con.execute("SET preserve_insertion_order = true")
    con.execute("SET enable_progress_bar = false")
    return con


def generate_receipts(
    con: duckdb.DuckDBPyConnection, folder: Path, receipts: int, *, staged: bool
) -> dict[str, int]:
    """Write the receipts chunk by chunk of ticks; return the counts by kind.

    Final receipt files in time order, one per chunk, or (``staged``) the chunks' bare
    integer rows, to be sorted and written out by ``write_partition_layout``.
    """
    folder.mkdir(parents=True)
    with step("counting ticks per partition"):
        con.execute(TOTALS, {"receipts": receipts})
    con.execute(
        "CREATE OR REPLACE TEMP TABLE page_parts (p BIGINT, g BIGINT, first_i BIGINT, "
        "last_i BIGINT, events BIGINT, min_position BIGINT, max_position BIGINT)"
    )
    chunk = ROW_GROUP * CHUNK_ROW_GROUPS
    chunks = max(1, -(-receipts // chunk))
    counts: dict[str, int] = {}
    started = time.perf_counter()
    for n, start in enumerate(range(0, receipts, chunk)):
        stop = min(start + chunk, receipts)
        con.execute(CHUNK, {"start": start, "stop": stop})
        con.execute(ITEMS)
        path = sql_path(folder / f"part-{n:05d}.parquet")
        if staged:
            con.execute(f"COPY items TO '{path}' (FORMAT parquet)")
        else:
            con.execute(RECEIPTS.format(source=TIME_ORDER, path=path, options=""))
        con.execute(PAGE_PARTS)
        rows = con.execute(
            "SELECT CASE kind WHEN 1 THEN 'replayed' WHEN 2 THEN 'retried' ELSE outcome END, "
            "count(*) FROM items GROUP BY ALL"
        ).fetchall()
        for name, count in rows:
            counts[str(name)] = counts.get(str(name), 0) + int(count)
        con.execute(
            "UPDATE progress SET done = done + c.n "
            "FROM (SELECT p, count(*) AS n FROM chunk GROUP BY p) AS c WHERE progress.p = c.p"
        )
        elapsed = time.perf_counter() - started
        print(
            f"  receipts: chunk {n + 1}/{chunks}, {stop:,} of {receipts:,} ticks "
            f"({100 * stop / receipts:.0f} %), {elapsed:.1f} s",
            flush=True,
        )
    con.execute("DROP TABLE chunk")
    con.execute("DROP TABLE items")
    return counts


def count_rows(con: duckdb.DuckDBPyConnection, out: Path) -> dict[str, int]:
    """Row counts per table, from the Parquet footers."""
    counts: dict[str, int] = {}
    for table in ("scopes", "receipts", "pages", "checkpoints", "snapshot", "snapshot_bounds"):
        files = sorted([*out.glob(f"{table}.parquet"), *out.glob(f"{table}/*.parquet")])
        if files:
            listing = ", ".join(f"'{sql_path(f)}'" for f in files)
            row = con.execute(
                f"SELECT sum(num_rows) FROM parquet_file_metadata([{listing}])"
            ).fetchone()
            counts[table] = int(row[0]) if row else 0
    return counts


def build(args: argparse.Namespace) -> None:
    out: Path = args.out
    if out.exists() and any(out.iterdir()):
        sys.exit(f"{out} exists and is not empty; choose another OUT or remove it")
    work = out.with_name(f".{out.name}.partial")
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    spill = work / ".spill"
    con = connect(spill, args.memory_limit)
    con.execute(
        MACROS.format(
            seed=args.seed,
            partitions=args.partitions,
            name_base=10 ** len(str(args.partitions - 1)),
            ineligible="true" if args.snapshot or args.ineligible else "false",
            page_events=PAGE_EVENTS,
            block_pages=BLOCK_PAGES,
            run_pages=RUN_PAGES,
            ineligible_one_in=INELIGIBLE_ONE_IN,
            event_name=UUID_NAME.format(seed=args.seed)
            if args.uuid_ids
            else HEX_NAME.format(seed=args.seed),
        )
    )
    started = time.perf_counter()
    print(
        f"writing {args.receipts:,} receipts over {args.partitions:,} partitions "
        f"({args.layout} layout{', with snapshot' if args.snapshot else ''}"
        f"{', 10 % ineligible' if args.ineligible and not args.snapshot else ''}) to {out}",
        flush=True,
    )
    if args.layout == "time":
        kinds = generate_receipts(con, work / "receipts", args.receipts, staged=False)
    else:
        staging = work / ".staging"
        kinds = generate_receipts(con, staging, args.receipts, staged=True)
        with step("sorting receipts by (partition_id, recorded_at)"):
            source = PARTITION_ORDER.format(staging=sql_path(staging / "*.parquet"))
            options = f", ROW_GROUPS_PER_FILE {CHUNK_ROW_GROUPS}"
            path = sql_path(work / "receipts")
            con.execute(RECEIPTS.format(source=source, path=path, options=options))
        shutil.rmtree(staging)
    with step("pages and checkpoints"):
        con.execute(PAGE_TABLE)
        con.execute("DROP TABLE page_parts")
        by_time = args.layout == "time"
        con.execute(
            PAGES.format(
                path=sql_path(work / "pages.parquet"),
                order="fetched_at" if by_time else "partition_id, fetched_at",
            )
        )
        con.execute(
            CHECKPOINTS.format(
                path=sql_path(work / "checkpoints.parquet"),
                order="written_at" if by_time else "partition_id, written_at",
            )
        )
        con.execute(SCOPES.format(path=sql_path(work / "scopes.parquet")))
    if args.snapshot:
        with step("snapshot and snapshot_bounds"):
            con.execute(SNAPSHOT.format(path=sql_path(work / "snapshot.parquet")))
            con.execute(SNAPSHOT_BOUNDS.format(path=sql_path(work / "snapshot_bounds.parquet")))
    elapsed = time.perf_counter() - started
    shutil.rmtree(spill, ignore_errors=True)
    if out.exists():
        out.rmdir()
    work.rename(out)
    counts = count_rows(con, out)
    con.close()
    print(f"done in {elapsed:.1f} s")
    for table, rows in counts.items():
        print(f"  {table:<16}{rows:>14,}")
    print("  receipts by kind: " + ", ".join(f"{k} {v:,}" for k, v in sorted(kinds.items())))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("out", type=Path, help="log set directory to create")
    parser.add_argument("--receipts", type=int, required=True, help="receipt rows (ticks)")
    parser.add_argument("--partitions", type=int, default=1000)
    parser.add_argument("--layout", choices=("time", "partition"), default="time")
    parser.add_argument("--snapshot", action="store_true", help="also write snapshot tables")
    parser.add_argument(
        "--ineligible",
        action="store_true",
        help="about 10 %% of events stably ineligible by their receipts (implied by --snapshot)",
    )
    parser.add_argument(
        "--uuid-ids",
        action="store_true",
        help="event ids as 36-character UUID text (default: 16 hex digits)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--memory-limit", default="3GB", help="DuckDB memory limit")
    args = parser.parse_args()
    if args.receipts < 1 or args.partitions < 1:
        parser.error("--receipts and --partitions must be positive")
    if not re.fullmatch(r"\d+(\.\d+)?\s*[KMGT]i?B", args.memory_limit):
        parser.error("--memory-limit takes a size such as 3GB or 1500MiB")
    build(args)


if __name__ == "__main__":
    main()
