"""The log-set loader: one discovery, DuckDB views and Polars frames that agree."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reconcile import InvalidLogSet, open_logset, validate_logset
from reconcile.logset.normalize import FILE_COLUMN, ROW_COLUMN
from tests.logsets import checkpoint, receipt, table, write_logset

NS = 1_767_225_600_123_456_789  # 2026-01-01T00:00:00.123456789Z


def duck(logset_path: Path, name: str) -> pl.DataFrame:
    with open_logset(logset_path) as logset:
        frame = pl.from_arrow(logset.relation(name).to_arrow_table())
        assert isinstance(frame, pl.DataFrame)
        return frame


def polars_frame(logset_path: Path, name: str) -> pl.DataFrame:
    with open_logset(logset_path) as logset:
        return logset.lazyframe(name).collect()


def same(a: pl.DataFrame, b: pl.DataFrame) -> None:
    order = list(a.columns)
    a = a.select(order).sort(FILE_COLUMN, ROW_COLUMN)
    b = b.select(order).sort(FILE_COLUMN, ROW_COLUMN)
    assert a.schema == b.schema
    assert a.equals(b), (a, b)


def test_accepted_narrow_types_are_widened(tmp_path: Path) -> None:
    """int32/uint16 as int64, ms and zoned timestamps, null-typed columns (§1)."""
    path = tmp_path / "ls"
    path.mkdir()
    cp = pa.table(
        {
            "scope_id": ["s", "s"],
            "partition_id": ["p0", "p0"],
            "attempt_id": ["a", "a"],
            "owner_epoch": pa.array([0, 1], pa.int32()),
            "expected_generation": pa.array([0, 1], pa.uint16()),
            "generation": pa.array([1, 2], pa.int8()),
            "cas_result": ["won", "won"],
            "written_at": pa.array([NS // 1_000_000, NS // 1_000_000 + 5], pa.timestamp("ms")),
            "watermark": pa.array([3, 4], pa.int16()),
            "watermark_inclusive": pa.nulls(2),
        }
    )
    pq.write_table(cp, path / "checkpoints.parquet")
    rc = pa.table(
        {
            "scope_id": ["s"],
            "partition_id": ["p0"],
            "event_id": ["e"],
            "position": pa.array([3], pa.int64()),
            "outcome": ["committed"],
            "attempt_id": ["a"],
            "recorded_at": pa.array([NS], pa.timestamp("ns", tz="Asia/Tokyo")),
        }
    )
    pq.write_table(rc, path / "receipts.parquet")
    assert validate_logset(path).ok
    d = duck(path, "checkpoints")
    assert d.schema["owner_epoch"] == pl.Int64
    assert d.schema["written_at"] == pl.Datetime("ns")
    assert d["watermark_inclusive"].null_count() == 2
    assert d["ordering"].null_count() == 2  # absent nullable column reads as null
    same(d, polars_frame(path, "checkpoints"))
    r = duck(path, "receipts")
    assert r["recorded_at"].dt.epoch("ns").to_list() == [NS]  # zoned, ns kept, as UTC
    assert r["page_id"].null_count() == 1
    same(r, polars_frame(path, "receipts"))


def test_folder_of_files_with_hive_keys(tmp_path: Path) -> None:
    path = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)]})
    rows = [receipt(f"e{i}", i, partition=f"p{i % 2}") for i in range(6)]
    for part in ("p0", "p1"):
        folder = path / "receipts" / "scope_id=s" / f"partition_id={part}"
        folder.mkdir(parents=True)
        mine = [
            {k: v for k, v in r.items() if k not in ("scope_id", "partition_id")}
            for r in rows
            if r["partition_id"] == part
        ]
        pq.write_table(table("receipts", mine), folder / "data.parquet")
    (path / "receipts" / "_SUCCESS").write_text("")
    report = validate_logset(path)
    assert report.ok, report.problems
    d = duck(path, "receipts")
    assert sorted(d["partition_id"].to_list()) == ["p0", "p0", "p0", "p1", "p1", "p1"]
    assert set(d["scope_id"]) == {"s"}
    same(d, polars_frame(path, "receipts"))


def test_hive_key_of_wrong_type_is_reported(tmp_path: Path) -> None:
    path = write_logset(tmp_path / "ls", {})
    folder = path / "checkpoints" / "generation=first"
    folder.mkdir(parents=True)
    row = {k: v for k, v in checkpoint("p0", 1, 5).items() if k != "generation"}
    pq.write_table(table("checkpoints", [row]), folder / "x.parquet")
    report = validate_logset(path)
    assert [(p.check, p.column) for p in report.problems] == [("wrong_type", "generation")]
    assert report.problems[0].file == "checkpoints/generation=first/x.parquet"


def test_timestamp_coordinates(tmp_path: Path) -> None:
    t = datetime(2026, 3, 1, tzinfo=UTC)
    path = write_logset(
        tmp_path / "ls",
        {
            "checkpoints": [checkpoint("p0", 1, t)],
            "receipts": [receipt("e", t - timedelta(seconds=1))],
        },
        coordinate="timestamp",
    )
    with open_logset(path) as logset:
        assert logset.coordinate == "timestamp"
        value = logset.con.sql("SELECT watermark FROM checkpoints").fetchall()[0][0]
        assert value == t.replace(tzinfo=None)
    same(duck(path, "receipts"), polars_frame(path, "receipts"))


def test_zoned_timestamp_is_converted_to_utc(tmp_path: Path) -> None:
    local = datetime(2026, 3, 1, 9, 0, tzinfo=timezone(timedelta(hours=9)))
    path = tmp_path / "ls"
    path.mkdir()
    cp = table("checkpoints", [checkpoint("p0", 1, 5)])
    cp = cp.set_column(
        cp.schema.get_field_index("written_at"),
        "written_at",
        # the instant as microseconds since the epoch, then zoned: pyarrow reads a
        # zoned datetime's wall time in the target zone when pandas is installed
        pa.array([int(local.timestamp() * 1e6)], pa.int64()).cast(pa.timestamp("us", tz="+09:00")),
    )
    pq.write_table(cp, path / "checkpoints.parquet")
    expected = datetime(2026, 3, 1, 0, 0)
    assert duck(path, "checkpoints")["written_at"].to_list() == [expected]
    assert polars_frame(path, "checkpoints")["written_at"].to_list() == [expected]


def test_absent_tables_are_empty(tmp_path: Path) -> None:
    path = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint()]})
    with open_logset(path) as logset:
        assert logset.present == ("checkpoints",)
        assert logset.relation("pages").fetchall() == []
        assert logset.lazyframe("snapshot").collect().height == 0
        assert "finality_through" in logset.relation("pages").columns


def test_open_refuses_invalid_log_set(tmp_path: Path) -> None:
    path = write_logset(tmp_path / "ls", {"receipts": [receipt("e", 1)]})
    with pytest.raises(InvalidLogSet) as caught:
        open_logset(path)
    assert caught.value.report.problems[0].check == "missing_table"
