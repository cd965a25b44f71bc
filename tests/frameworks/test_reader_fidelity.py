"""Each reader against the framework's own artifacts, read here independently: after
real runs of the Singer SDK tap, the Airbyte CDK source (and destination) and dlt
pipelines (tests/frameworks/*_pipeline.py), the test reads what the framework left
(the runs' STATE and RECORD messages, the raw tables' ``_airbyte_loaded_at``, dlt's
``_dlt_pipeline_state`` and ``_dlt_loads``) and checks that

- the reader's tables hold every bookmark (state) of every run, with its value, its
  endpoint and its time, and every row with its load time (docs/readers.md);
- the audit's claim (``watermarks``: ``claimed_through``, ``claimed_inclusive``) is the
  last bookmark of the last run, with the endpoint the framework's semantics give;
- a row that committed late at the source above the FIRST bookmark of the last run,
  under its last one, is named by key: only that later bookmark claims past it;
- a row that arrives later at the last bookmark's own value is named where the claim
  is inclusive, and not where dlt's closed range reads it again.

So a reader that drops a STATE or a bookmark, drops or changes a load time, or reads
a claim's endpoint wrongly fails here.
"""

from __future__ import annotations

import base64
import json
import math
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest

from reconcile.readers import SOURCES
from tests.frameworks import airbyte_pipeline, dlt_pipeline, singer_pipeline

pytestmark = pytest.mark.slow  # a framework's runs per test: seconds

# A message stream with no time at all is dated from here (docs/readers.md).
NO_TIME = datetime(2000, 1, 1)
US = timedelta(microseconds=1)

Row = tuple[Any, ...]


# ---------------------------------------------------------------- shared helpers


def _naive(instant: datetime) -> datetime:
    """An aware instant as the reader's tables hold it: naive UTC."""
    return instant.astimezone(UTC).replace(tzinfo=None)


def _iso(text: str) -> datetime:
    return _naive(datetime.fromisoformat(text))


def _ms(millis: float) -> datetime:
    """An Airbyte ``emitted_at`` (milliseconds since the epoch), to the microsecond."""
    return datetime(1970, 1, 1) + timedelta(microseconds=math.floor(millis * 1000 + 0.5))


def _read(source: str, path: Path, tmp: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The reader's checkpoints and receipts of ``path``."""
    out = tmp / "tables"
    out.mkdir()
    SOURCES[source](path, out)
    return pl.read_parquet(out / "checkpoints.parquet"), pl.read_parquet(out / "receipts.parquet")


def _audit(pipe: Any, tmp: Path) -> tuple[pl.DataFrame, dict[str, dict[str, Any]]]:
    """The audit of the runs with the source's extract as it is now: its findings, and
    its watermarks by partition."""
    findings = pipe.audit(tmp)
    marks = pl.read_parquet(tmp / "report" / "watermarks.parquet")
    return findings, {m["partition_id"]: m for m in marks.to_dicts()}


def _through(claim: dict[str, Any]) -> int:
    """The highest integer cursor a claim covers: an exclusive claim through n covers
    n - 1 (the audit may say either of a discrete cursor)."""
    through: int = claim["claimed_through"]
    return through if claim["claimed_inclusive"] else through - 1


def _skipped(findings: pl.DataFrame) -> set[tuple[str, str]]:
    named = findings.filter(pl.col("rule") == "skipped_event")
    return set(named.select("partition_id", "event_id").rows())


def _by_partition(marks: list[Row]) -> dict[str, list[Any]]:
    """Each partition's bookmark values, in the order they were written."""
    out: dict[str, list[Any]] = {}
    for _, partition, value, *_rest in marks:
        out.setdefault(partition, []).append(value)
    return out


def _dated(runs: list[tuple[str, list[dict[str, Any]]]], time_of: Any) -> list[list[datetime]]:
    """Each message's time, as docs/readers.md dates them: at the time it carries
    (``time_of``: None where it carries none), no earlier than the message before it,
    and a microsecond after it where either of the two is a STATE; before the first
    message that carries a time, from a second before the earliest one (NO_TIME where
    none carries one)."""
    carried = [t for _, messages in runs for m in messages if (t := time_of(m)) is not None]
    previous = min(carried) - timedelta(seconds=1) if carried else NO_TIME
    was_state = False
    out: list[list[datetime]] = []
    for _, messages in runs:
        out.append([])
        for m in messages:
            is_state = m.get("type") == "STATE"
            at = previous + (US if is_state or was_state else timedelta(0))
            own = time_of(m)
            previous = max(at, own) if own is not None else at
            was_state = is_state
            out[-1].append(previous)
    return out


def _runs(logs: Path) -> list[tuple[str, list[dict[str, Any]]]]:
    return [
        (run.name, [json.loads(line) for line in run.read_text().splitlines() if line.strip()])
        for run in sorted(logs.glob("*.jsonl"))
    ]


# ---------------------------------------------------------------- Singer


def _singer_artifacts(logs: Path) -> tuple[list[Row], list[Row]]:
    """From the runs' own messages: each bookmark of each STATE (run, partition, value,
    time) and each RECORD (run, partition, key, cursor, time), dated as _dated says."""
    marks: list[Row] = []
    records: list[Row] = []
    runs = _runs(logs)
    times = _dated(runs, lambda m: _iso(m["time_extracted"]) if m.get("time_extracted") else None)
    for (run, messages), dated in zip(runs, times, strict=True):
        for m, at in zip(messages, dated, strict=True):
            if m["type"] == "RECORD":
                row = m["record"]
                part = f"region={row['region']}" if row.get("region") else m["stream"]
                records.append((run, part, row["id"], row["updated_at"], at))
            elif m["type"] == "STATE":
                for stream, mark in m["value"]["bookmarks"].items():
                    for entry in mark.get("partitions", [mark]):
                        context = entry.get("context") or {}
                        part = ",".join(f"{k}={v}" for k, v in sorted(context.items()))
                        marks.append((run, part or stream, entry["replication_key_value"], at))
    return marks, records


@pytest.mark.parametrize("partitioned", [False, True])
def test_singer_reader_keeps_every_bookmark_and_time(tmp_path: Path, partitioned: bool) -> None:
    """Two runs of the Singer SDK tap, each writing a STATE every four records as well
    as its last one; the second run is resumed from the first's state ('>')."""
    pipe = singer_pipeline.Pipeline(tmp_path, ">", partitioned=partitioned, state_every=4)

    def region(i: int) -> dict[str, str]:
        return {"region": ("eu", "us")[i % 2]} if partitioned else {}

    pipe.source = [{**r, **region(i)} for i, r in enumerate(singer_pipeline.rows(range(12)))]
    pipe.run()
    pipe.source += [
        {**r, **region(i)} for i, r in enumerate(singer_pipeline.rows(range(12, 28)), 12)
    ]
    pipe.run()
    marks, records = _singer_artifacts(pipe.logs)
    last_run = [m for m in marks if m[0] == "run-002.jsonl"]

    # the reader's tables: every bookmark of every STATE, every RECORD, at their times
    checkpoints, receipts = _read("singer", pipe.logs, tmp_path)
    got = checkpoints.select("attempt_id", "partition_id", "watermark", "written_at").rows()
    assert sorted(got) == sorted(marks)
    assert checkpoints["watermark_inclusive"].all()
    columns = ["attempt_id", "partition_id", "event_id", "position", "recorded_at"]
    assert sorted(receipts.select(columns).rows()) == sorted(records)
    assert set(receipts["outcome"]) == {"committed"}

    # the audit: no fault, and each partition claims through its last bookmark, inclusive
    findings, claims = _audit(pipe, tmp_path / "clean")
    assert findings.is_empty()
    last = {p: values[-1] for p, values in _by_partition(last_run).items()}
    assert {p: _through(c) for p, c in claims.items()} == last

    # rows the source holds that no run read: one late above the first bookmark of the
    # last run and under its last (in each partition), one at the last bookmark itself
    lost: set[tuple[str, str]] = set()
    for part, values in _by_partition(last_run).items():
        first, final = values[0], values[-1]
        assert first + 1 < final  # several bookmarks, the late row between them
        fields = {"region": part.split("=")[1]} if partitioned else {}
        pipe.source += [
            {"id": f"late-{part}", "updated_at": first + 1, "value": "v", **fields},
            {"id": f"tie-{part}", "updated_at": final, "value": "v", **fields},
        ]
        lost |= {(part, f"late-{part}"), (part, f"tie-{part}")}
    findings, _ = _audit(pipe, tmp_path / "lost")
    assert _skipped(findings) == lost


# ---------------------------------------------------------------- Airbyte


def _airbyte_artifacts(logs: Path, raw: bool) -> tuple[list[Row], list[Row]]:
    """From the syncs' own messages: each STATE (sync, stream, value, time) and each
    RECORD (sync, stream, key, cursor, time), dated as _dated says. With raw tables, the receipts
    are the raw rows (sync id, stream, key, cursor, time, outcome: committed at
    ``_airbyte_loaded_at``, else failed at ``_airbyte_extracted_at``), and a state is
    dated no earlier than the loading of the raw rows of the RECORDs its sync emitted
    before it (a row is a RECORD's where key, cursor and the millisecond of
    ``_airbyte_extracted_at`` are the RECORD's), plus a microsecond per state of the
    stream."""
    states: list[Row] = []
    records: list[Row] = []
    before: list[set[tuple[Any, Any, int]]] = []  # per state: the RECORDs before it

    def emitted(m: dict[str, Any]) -> datetime | None:
        body = m.get("record") or m.get("trace") or {}
        return _ms(body["emitted_at"]) if body.get("emitted_at") is not None else None

    runs = _runs(logs)
    for (sync, messages), dated in zip(runs, _dated(runs, emitted), strict=True):
        emitted_so_far: set[tuple[Any, Any, int]] = set()
        for m, at in zip(messages, dated, strict=True):
            if m["type"] == "RECORD":
                data = m["record"]["data"]
                records.append((sync, m["record"]["stream"], data["id"], data["updated_at"], at))
                emitted_so_far.add((data["id"], data["updated_at"], m["record"]["emitted_at"]))
            elif m["type"] == "STATE":
                stream = m["state"]["stream"]
                value = stream["stream_state"].get("updated_at")
                name = stream["stream_descriptor"]["name"]
                states.append((sync, name, value, at))
                before.append(set(emitted_so_far))
    if not raw:
        return [s[:4] for s in states if s[2] is not None], records
    table = (logs / "raw" / "items.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in table]
    receipts = [
        (
            r["_airbyte_meta"]["sync_id"],
            "items",
            r["_airbyte_data"]["id"],
            r["_airbyte_data"]["updated_at"],
            _iso(r["_airbyte_loaded_at"] or r["_airbyte_extracted_at"]),
            "committed" if r["_airbyte_loaded_at"] else "failed",
        )
        for r in rows
    ]

    def extracted_ms(row: dict[str, Any]) -> int:
        return (_iso(row["_airbyte_extracted_at"]) - datetime(1970, 1, 1)) // timedelta(
            milliseconds=1
        )

    dated = []
    placed = 0  # states some loaded raw row of a RECORD before them dates
    for nth, ((sync, stream, value, emitted), emitted_before) in enumerate(
        zip(states, before, strict=True), 1
    ):
        loads = [
            _iso(r["_airbyte_loaded_at"])
            for r in rows
            if r["_airbyte_loaded_at"]
            and (r["_airbyte_data"]["id"], r["_airbyte_data"]["updated_at"], extracted_ms(r))
            in emitted_before
        ]
        placed += bool(loads)
        floor = max(loads) + nth * US if loads else emitted
        if value is not None:
            dated.append((sync, stream, value, max(emitted, floor)))
    assert placed, "no raw row is a RECORD's: the floor would go untested"
    return dated, receipts


@pytest.mark.parametrize("raw", [False, True], ids=["messages", "raw_tables"])
def test_airbyte_reader_keeps_every_state_and_time(tmp_path: Path, raw: bool) -> None:
    """Two syncs of the Airbyte CDK source, each emitting a state every four records
    and one at its end; the second resumed from the first's state ('>'). With
    ``raw``, the messages also go through the CDK destination's raw tables."""
    pipe = airbyte_pipeline.Pipeline(tmp_path, ">", checkpoint_every=4, raw=raw)
    pipe.source[:] = airbyte_pipeline.rows(range(8))
    pipe.run()
    pipe.source += airbyte_pipeline.rows(range(8, 20))
    pipe.run()
    states, receipts_expected = _airbyte_artifacts(pipe.logs, raw)
    last_sync = [s[2] for s in states if s[0] == "sync-002.jsonl"]

    # the reader's tables: every state of every sync, every record (or raw row), at
    # their times
    checkpoints, receipts = _read("airbyte", pipe.logs, tmp_path)
    got = checkpoints.select("attempt_id", "partition_id", "watermark", "written_at").rows()
    assert sorted(got) == sorted(states)
    assert checkpoints["watermark_inclusive"].all()
    columns = ["attempt_id", "partition_id", "event_id", "position", "recorded_at"]
    got = receipts.select(*columns, *(["outcome"] if raw else [])).rows()
    assert sorted(got) == sorted(receipts_expected)
    if not raw:
        assert set(receipts["outcome"]) == {"committed"}

    # the audit: no fault, and the claim is through the last state, inclusive
    findings, claims = _audit(pipe, tmp_path / "clean")
    assert findings.is_empty()
    assert _through(claims["items"]) == last_sync[-1]

    # rows the source holds that no sync read: one late above the first state of the
    # last sync and under its last, one at the last state's value itself
    first, final = last_sync[0], last_sync[-1]
    assert first + 1 < final
    pipe.source += [
        {"id": "late", "updated_at": first + 1, "value": "v"},
        {"id": "tie", "updated_at": final, "value": "v"},
    ]
    findings, _ = _audit(pipe, tmp_path / "lost")
    assert _skipped(findings) == {("items", "late"), ("items", "tie")}


# ---------------------------------------------------------------- dlt


def _dlt_state(blob: str) -> dict[str, Any]:
    """A stored state as dlt keeps it: base64 of zlib-compressed JSON."""
    state: dict[str, Any] = json.loads(zlib.decompress(base64.b64decode(blob)))
    return state


def _dlt_artifacts(pipe: dlt_pipeline.Pipeline) -> tuple[list[Row], list[Row]]:
    """From the destination, read here: each stored state's cursor (load id, value,
    inclusive: no boundary hashes kept, time: when its load completed, else when the
    state was made) where dlt would restore it, and each row of the table (key, cursor,
    load id, committed at its load's completion, else failed at its load id's time)."""
    if pipe.kind == "duckdb":
        with duckdb.connect(str(pipe.dest / "pipeline.duckdb"), read_only=True) as con:
            loads = con.sql("SELECT load_id, inserted_at FROM shop._dlt_loads WHERE status = 0")
            done = {k: _naive(t) for k, t in loads.fetchall()}
            stored = con.sql("SELECT _dlt_load_id, created_at, state FROM shop._dlt_pipeline_state")
            states = [(k, _naive(t), s) for k, t, s in stored.fetchall()]
            rows = con.sql("SELECT id, updated_at, _dlt_load_id FROM shop.items").fetchall()
    else:
        folder = pipe.dest / dlt_pipeline.DATASET

        def lines(table: str) -> list[dict[str, Any]]:
            files = sorted((folder / table).glob("*.jsonl"))
            return [json.loads(x) for f in files for x in f.read_text().splitlines() if x]

        done = {
            x["load_id"]: _iso(x["inserted_at"]) for x in lines("_dlt_loads") if not x["status"]
        }
        states = [
            (x["_dlt_load_id"], _iso(x["created_at"]), x["state"])
            for x in lines("_dlt_pipeline_state")
        ]
        table = pl.read_parquet(folder / "items" / "*.parquet")
        rows = table.select("id", "updated_at", "_dlt_load_id").rows()
    marks = []
    for load_id, created, blob in states:
        resource = _dlt_state(blob)["sources"]["shop_sync"]["resources"]["items"]
        cursor = resource["incremental"]["updated_at"]
        if load_id in done or pipe.kind == "filesystem":
            at = done.get(load_id, created)
            marks.append((load_id, cursor["last_value"], not cursor["unique_hashes"], at))
    receipts = [
        (key, value, load_id, "committed", done[load_id])
        if load_id in done
        else (key, value, load_id, "failed", _epoch(load_id))
        for key, value, load_id in rows
    ]
    return marks, receipts


def _epoch(load_id: str) -> datetime:
    """The time a dlt load id names: the Unix time its package was made, to the
    microsecond (a half rounded up, not to even)."""
    return datetime(1970, 1, 1) + timedelta(microseconds=math.floor(float(load_id) * 1e6 + 0.5))


def _check_dlt_tables(pipe: dlt_pipeline.Pipeline, tmp: Path) -> tuple[list[Row], list[Row]]:
    """The reader's checkpoints and receipts are the destination's own; those, the
    checkpoints in the order they were written."""
    marks, rows = _dlt_artifacts(pipe)
    checkpoints, receipts = _read("dlt", pipe.dest, tmp)
    columns = ["attempt_id", "watermark", "watermark_inclusive", "written_at"]
    assert sorted(checkpoints.select(columns).rows()) == sorted(marks)
    columns = ["event_id", "position", "attempt_id", "outcome", "recorded_at"]
    assert sorted(receipts.select(columns).rows()) == sorted(rows)
    return sorted(marks, key=lambda m: m[3]), rows


@pytest.mark.parametrize("destination", ["duckdb", "filesystem"])
@pytest.mark.parametrize("range_start", ["closed", "open"])
def test_dlt_reader_keeps_every_state_its_endpoint_and_load_time(
    tmp_path: Path, destination: str, range_start: str
) -> None:
    """Two loads of a dlt pipeline, the second resumed from the first's state. The
    default closed range keeps the boundary's row hashes (the claim is exclusive of
    last_value: the next run reads it again); an open range keeps none (inclusive)."""
    pipe = dlt_pipeline.Pipeline(tmp_path, range_start=range_start, destination=destination)
    pipe.api.rows = dlt_pipeline.rows(range(10))  # cursors 0..4
    pipe.run()
    pipe.api.rows += dlt_pipeline.rows(range(10, 16))  # 5..7
    pipe.run()

    # the reader's tables: every stored state and row, with its endpoint and load time
    marks, rows = _check_dlt_tables(pipe, tmp_path)
    assert [m[1] for m in marks] == [4, 7]
    assert len(rows) == 16
    assert {m[2] for m in marks} == {range_start == "open"}

    # the audit: no fault, and the claim is the last state's, exclusive where the
    # state kept the boundary's hashes (through 7 exclusive: 6 of an integer cursor)
    findings, claims = _audit(pipe, tmp_path / "clean")
    assert findings.is_empty()
    assert _through(claims["items"]) == (7 if range_start == "open" else 6)

    # a row late above the first state's last_value, under the last one's; a tie at
    # the last one's, which only an open range never reads
    pipe.api.rows += [
        {"id": "late", "updated_at": 6, "value": "v"},
        {"id": "tie", "updated_at": 7, "value": "v"},
    ]
    findings, _ = _audit(pipe, tmp_path / "lost")
    lost = {"late", "tie"} if range_start == "open" else {"late"}
    assert _skipped(findings) == {("items", key) for key in lost}


@pytest.mark.parametrize("destination", ["duckdb", "filesystem"])
def test_dlt_reader_dates_a_crashed_load_by_its_own_artifacts(
    tmp_path: Path, destination: str
) -> None:
    """A load that never completed: its rows are failed receipts at the time its load
    id names, and (on a filesystem, which restores it) its state is a claim dated when
    it was made; the completed load's rows and state are at its completion."""
    pipe = dlt_pipeline.Pipeline(tmp_path, destination=destination)
    pipe.api.rows = dlt_pipeline.rows(range(8))
    pipe.run(crash=True)
    pipe.api.rows += dlt_pipeline.rows(range(8, 12))
    pipe.run(new_worker=True)
    marks, rows = _check_dlt_tables(pipe, tmp_path)
    assert len(marks) == (2 if destination == "filesystem" else 1)
    assert sorted(r[0] for r in rows if r[3] == "failed") == [f"k{i}" for i in range(8)]
