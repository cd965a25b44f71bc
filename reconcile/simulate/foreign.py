"""A log set rewritten in a foreign layout, with the mapping that reads it back.

What a user's own logs tend to look like: other column names, timestamps as epoch
milliseconds, other spellings of the outcomes, checkpoints and pages in one file told
apart by a ``kind`` column, the snapshot as CSV and the published frontiers as JSON
Lines. The tables a system rarely writes itself (scopes, snapshot_bounds, epochs,
members) stay in the contract's layout beside them.

Epoch milliseconds keep less than the simulator's microseconds: :func:`floor_to_ms`
gives the contract log set that the foreign one stands for exactly (every timestamp
floored to the millisecond), and the audit of one equals the audit of the other
(``tests/test_mapping.py``).
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from reconcile.mapping.spec import MAPPING_FILE, RFC3339, ColumnSpec, TableSpec
from reconcile.mapping.toml_text import mapping_text, table_text

CHECKPOINTS = {
    "scope_id": "stream",
    "partition_id": "shard",
    "attempt_id": "run",
    "owner_epoch": "lease_epoch",
    "expected_generation": "expected_gen",
    "generation": "gen",
    "page_id": "page",
    "watermark": "wm",
    "watermark_inclusive": "wm_inclusive",
    "watermark_event_id": "wm_event_id",
}
PAGES = {
    "scope_id": "stream",
    "partition_id": "shard",
    "attempt_id": "run",
    "page_id": "page",
    "event_count": "n_events",
    "min_position": "min_pos",
    "max_position": "max_pos",
}
RECEIPTS = {
    "scope_id": "stream",
    "partition_id": "shard",
    "event_id": "evt_id",
    "position": "seq",
    "eligibility_stable": "stable",
    "attempt_id": "run",
    "owner_epoch": "lease_epoch",
    "page_id": "page",
}
SNAPSHOT = {
    "scope_id": "stream",
    "partition_id": "shard",
    "event_id": "evt_id",
    "position": "seq",
    "eligibility_stable": "stable",
}
PUBLISHED = {"scope_id": "stream"}
# (contract column, foreign column) of the timestamps, as epoch milliseconds
TIMES = {
    "checkpoints": ("written_at", "ts_ms"),
    "pages": ("fetched_at", "ts_ms"),
    "receipts": ("recorded_at", "recorded_ms"),
    "snapshot": ("visible_at", "visible_ms"),
    "published": ("published_at", "published_ms"),
}
CAS = {"won": "OK", "lost": "CONFLICT"}
OUTCOMES = {"committed": "OK", "failed": "ERR", "dead_lettered": "DLQ", "ineligible": "SKIP"}
# the foreign files: file name -> the contract tables in it
FILES = {
    "progress.parquet": ("checkpoints", "pages"),
    "events.parquet": ("receipts",),
    "listing.csv": ("snapshot",),
    "published.jsonl": ("published",),
}
RENAMES = {
    "checkpoints": CHECKPOINTS,
    "pages": PAGES,
    "receipts": RECEIPTS,
    "snapshot": SNAPSHOT,
    "published": PUBLISHED,
}
VALUE_MAPS = {
    ("checkpoints", "cas_result"): ("cas", CAS),
    ("receipts", "outcome"): ("status", OUTCOMES),
}
KINDS = {"checkpoints": "checkpoint", "pages": "page"}


_STAMP = re.compile(r'("(?:at|effective_at)": "[0-9-]+T[0-9:]+)(\.[0-9]+)?Z"')


def _floor_text(match: re.Match[str]) -> str:
    fraction = (match.group(2) or ".")[1:4].ljust(3, "0")
    return f'{match.group(1)}.{fraction}000Z"'


def floor_to_ms(folder: Path) -> None:
    """Floor every timestamp of a contract log set's top-level tables to the ms, and
    the times its truth.json names (``at``, ``effective_at``) with them."""
    for path in sorted(folder.glob("*.parquet")):
        frame = pl.read_parquet(path, glob=False)
        stamps = [n for n, t in frame.schema.items() if isinstance(t, pl.Datetime)]
        if stamps:
            frame = frame.with_columns(pl.col(n).dt.truncate("1ms") for n in stamps)
            frame.write_parquet(path)
    truth = folder / "truth.json"
    if truth.exists():
        text = truth.read_text(encoding="utf-8")
        truth.write_text(_STAMP.sub(_floor_text, text), encoding="utf-8")


# how other times (timestamp coordinates) are read back from text in CSV and JSON
# Lines (they are written as RFC 3339 without an offset, to the microsecond)
TEXT_TIME = RFC3339


def _text_times(file: str, frame: pl.DataFrame, table: str) -> list[str]:
    """The columns written as text times: in a text file, the timestamps other than
    the row's time (the coordinates of a log set with timestamp coordinates)."""
    if file.endswith(".parquet"):
        return []
    time_column, _ = TIMES[table]
    return [n for n, t in frame.schema.items() if isinstance(t, pl.Datetime) and n != time_column]


def _written(table: str, name: str, text_times: list[str]) -> pl.Expr:
    """One contract column as the foreign file holds it (what _spec reads back)."""
    renames = RENAMES[table]
    time_column, ms_column = TIMES[table]
    if (table, name) in VALUE_MAPS:
        foreign, values = VALUE_MAPS[(table, name)]
        return pl.col(name).replace_strict(values).alias(foreign)
    if name == time_column:
        return pl.col(name).dt.epoch("ms").alias(ms_column)
    if name in text_times:
        return pl.col(name).dt.strftime("%Y-%m-%dT%H:%M:%S%.6f").alias(renames.get(name, name))
    return pl.col(name).alias(renames.get(name, name))


def _foreign(table: str, frame: pl.DataFrame, text_times: list[str]) -> pl.DataFrame:
    """A contract table's rows in the foreign layout's columns (the row's time last)."""
    time_column, _ = TIMES[table]
    names = [n for n in frame.columns if n != time_column] + [time_column]
    columns = [_written(table, n, text_times) for n in names]
    if table in KINDS:
        columns.insert(0, pl.lit(KINDS[table]).alias("kind"))
    return frame.select(columns)


def _spec(table: str, file: str, columns: list[str], text_times: list[str]) -> TableSpec:
    """The mapping's section that reads a table back from its foreign file."""
    renames = RENAMES[table]
    specs: list[tuple[str, ColumnSpec]] = []
    time_column, ms_column = TIMES[table]
    for name in columns:
        if (table, name) in VALUE_MAPS:
            foreign, values = VALUE_MAPS[(table, name)]
            spec = ColumnSpec(column=foreign, values=tuple((v, k) for k, v in values.items()))
        elif name == time_column:
            spec = ColumnSpec(column=ms_column, timestamp="epoch_ms")
        elif name in text_times:
            spec = ColumnSpec(column=renames.get(name, name), timestamp=TEXT_TIME)
        elif name in renames:
            spec = ColumnSpec(column=renames[name])
        else:
            continue
        specs.append((name, spec))
    condition = f"kind = '{KINDS[table]}'" if table in KINDS else None
    return TableSpec(table, (file,), None, condition, tuple(specs))


def to_foreign(folder: Path) -> None:
    """Rewrite a contract log set in place in the foreign layout, with its mapping
    (``reconcile.toml``); its timestamps are floored to the millisecond first."""
    floor_to_ms(folder)
    sections: list[str] = []
    for file, tables in FILES.items():
        frames = []
        for table in tables:
            source = folder / f"{table}.parquet"
            if not source.exists():
                continue
            frame = pl.read_parquet(source, glob=False)
            text_times = _text_times(file, frame, table)
            frames.append(_foreign(table, frame, text_times))
            sections.append(table_text(_spec(table, file, frame.columns, text_times)))
            source.unlink()
        if not frames:
            continue
        rows = pl.concat(frames, how="diagonal")
        target = folder / file
        if file.endswith(".parquet"):
            rows.write_parquet(target)
        elif file.endswith(".csv"):
            rows.write_csv(target)
        else:
            rows.write_ndjson(target)
    header = (
        "How this folder's logs read as the reconciler's contract tables.",
        "scopes, snapshot_bounds, epochs and members are in the contract's own layout.",
    )
    (folder / MAPPING_FILE).write_text(mapping_text(sections, header), encoding="utf-8")
