"""Where an incomplete page blocks (§4.7): right after the last event, in order, with a
receipt on it. The page pass keeps only that event's position; page status names the
event from the known events at that position, or, where several share it, from the
page's own receipts there (watermarks/page_status.sql). Each case here fails when the
name is taken otherwise: the greatest event at the position, or the first."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from reconcile import Analysis, open_logset
from reconcile.engine import watermarks
from tests.conftest import fast_tier
from tests.logsets import checkpoint, page, receipt, write_logset

DATA = Path(__file__).resolve().parent.parent / "data"


def marks(tmp_path: Path, tables: dict[str, Any]) -> dict[str, Any]:
    path = write_logset(tmp_path / "ls", tables)
    with open_logset(path) as logset:
        rows = watermarks(logset).to_dicts()
    return {r["partition_id"]: r for r in rows}


def shared_position(y_page: str) -> dict[str, Any]:
    """Page g1 holds positions 1 to 4 and four events; three are known (e1 and x on
    g1, y on ``y_page``), x and y both at position 2, so g1 is incomplete."""
    return {
        "pages": [
            page("g1", 0, 4, 1, 4, finality_through=4, finality_inclusive=True),
            page("g2", 1, 1, 2, 2, finality_through=2, finality_inclusive=True),
        ],
        "receipts": [
            receipt("e1", 1, page_id="g1", recorded=1),
            receipt("x", 2, page_id="g1", recorded=2),
            receipt("y", 2, page_id=y_page, recorded=3),
        ],
        "checkpoints": [checkpoint("p0", 1, None, written=0.5)],
    }


def test_a_shared_position_names_the_event_on_the_page(tmp_path: Path) -> None:
    """y shares x's position but came on another page: g1 blocks right after x, so y,
    after x in order, is not committed (naming y would commit it)."""
    row = marks(tmp_path, shared_position("g2"))["p0"]
    assert (row["blocking_reason"], row["blocking_position"]) == ("incomplete_page", 2)
    assert (row["committed_position"], row["committed_event_id"]) == (2, "x")


def test_a_shared_position_on_one_page_names_the_last_of_them(tmp_path: Path) -> None:
    """x and y both came on g1 at position 2: it blocks right after y, the last of
    them in order, so both are committed."""
    row = marks(tmp_path, shared_position("g1"))["p0"]
    assert (row["blocking_reason"], row["blocking_position"]) == ("incomplete_page", 2)
    assert (row["committed_position"], row["committed_event_id"]) == (2, "y")


def test_one_event_at_the_position_is_named(tmp_path: Path) -> None:
    """Only x has a receipt at g1's last position: g1 blocks right after x, and y,
    at a later position on another page, is not committed."""
    tables = shared_position("g2")
    tables["pages"][1] = page("g2", 1, 1, 3, 3, finality_through=3, finality_inclusive=True)
    tables["receipts"][2] = receipt("y", 3, page_id="g2", recorded=3)
    row = marks(tmp_path, tables)["p0"]
    assert (row["blocking_reason"], row["blocking_position"]) == ("incomplete_page", 2)
    assert (row["committed_position"], row["committed_event_id"]) == (2, "x")


def _last_events(receipts: pl.DataFrame, as_of: datetime) -> pl.DataFrame:
    """Each page's last event at T from its receipts, as the contract states it: the
    greatest (position, event_id) among the page's receipts recorded by T."""
    return (
        receipts.filter(pl.col("recorded_at") <= as_of, pl.col("page_id").is_not_null())
        .sort("position", "event_id")
        .group_by("scope_id", "partition_id", "page_id")
        .agg(pl.col("position").last().alias("p"), pl.col("event_id").last().alias("e"))
        .with_columns(pl.col("p").dt.replace_time_zone(None))
    )


@pytest.mark.parametrize("tenth", fast_tier([1, 2, 3, 4, 5, 6], keep=[1, 6]))
def test_incomplete_pages_block_after_their_last_event(tenth: int) -> None:
    """data/timestamps, at points in its run where pages are incomplete: positions are
    times there, and 1,588 of them are shared by two events or more of a partition.
    Every incomplete page with receipts blocks right after its last event."""
    receipts = pl.read_parquet(DATA / "timestamps" / "receipts.parquet")
    start = receipts["recorded_at"].min()
    end = receipts["recorded_at"].max()
    assert isinstance(start, datetime) and isinstance(end, datetime)
    as_of = start + timedelta(seconds=(end - start).total_seconds() * tenth / 10)
    with open_logset(DATA / "timestamps") as logset, Analysis(logset, as_of) as analysis:
        status = analysis.read("rc_page_status")
    blocked = status.filter(pl.col("incomplete"), pl.col("n_receipts").is_not_null()).select(
        "scope_id",
        "partition_id",
        "page_id",
        pl.col("block").struct.field("p").dt.cast_time_unit("us").alias("p"),
        pl.col("block").struct.field("e"),
    )
    assert blocked.height > 0
    expected = _last_events(receipts, as_of).join(
        blocked.select("scope_id", "partition_id", "page_id"),
        on=["scope_id", "partition_id", "page_id"],
    )
    order = ["scope_id", "partition_id", "page_id"]
    assert blocked.sort(order).equals(expected.select(blocked.columns).sort(order))
