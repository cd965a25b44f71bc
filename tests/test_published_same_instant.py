"""Published rows that share one published_at: the key of published_overclaim and
published_regressed is the instant (docs/contract.md §5), and the finding kept must not
depend on the order of the rows in the files (§8: the first by message, then
evidence), with every field of it taken from one publication (and, for a regression,
from one epoch)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reconcile import open_logset
from reconcile.audit import audit

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "example"
SECOND = 1_000_000
START = 1767225600 * SECOND  # 2026-01-01T00:00:00Z; data/example ends at 00:00:12


def _findings(
    folder: Path, rows: list[tuple[int | None, int, int | None]], rule: str
) -> list[dict]:
    """data/example with ``published`` made of (epoch, second, frontier) rows, in
    this order."""
    shutil.copytree(EXAMPLE, folder)
    pq.write_table(
        pa.table(
            {
                "scope_id": pa.array(["s"] * len(rows), pa.string()),
                "epoch": pa.array([r[0] for r in rows], pa.int64()),
                "published_at": pa.array(
                    [START + r[1] * SECOND for r in rows], pa.timestamp("us", tz="UTC")
                ),
                "kind": pa.array(["scalar"] * len(rows), pa.string()),
                "frontier": pa.array([r[2] for r in rows], pa.int64()),
                "frontier_inclusive": pa.array([True] * len(rows), pa.bool_()),
            }
        ),
        folder / "published.parquet",
    )
    with open_logset(folder) as logset:
        found = audit(logset, timelines=False).findings
    return (
        found.filter(found["rule"] == rule).select("epoch", "at", "message", "evidence").to_dicts()
    )


# At 00:00:12 epoch 2 is in force and the proven frontier is the scalar 4 inclusive.
@pytest.mark.parametrize(
    "rows",
    [
        [(2, 12, 9), (1, 12, 3)],  # above the proven frontier / names epoch 1
        [(2, 12, None), (1, 12, 3)],  # +inf above it / names epoch 1
    ],
)
def test_published_overclaim_at_one_instant_is_one_row_whatever_the_order(
    tmp_path: Path, rows: list[tuple[int | None, int, int | None]]
) -> None:
    forward = _findings(tmp_path / "a", rows, "published_overclaim")
    backward = _findings(tmp_path / "b", rows[::-1], "published_overclaim")
    assert forward == backward
    (kept,) = forward
    evidence = json.loads(kept["evidence"])
    # one publication's fields: its value, its epoch and its own reason
    assert (kept["epoch"], evidence["published_frontier"]) in {(r[0], r[2]) for r in rows}
    if evidence["why"] == "above the proven frontier":
        assert evidence["published_frontier"] is None or evidence["published_frontier"] > 4


def test_published_regressed_never_pairs_two_epochs(tmp_path: Path) -> None:
    # epoch 1: 30 at :04, then 25 at :12; epoch 2: 20 at :07, then 15 at :12
    early = [(1, 4, 30), (2, 7, 20)]
    forward = _findings(tmp_path / "a", [*early, (1, 12, 25), (2, 12, 15)], "published_regressed")
    backward = _findings(tmp_path / "b", [*early, (2, 12, 15), (1, 12, 25)], "published_regressed")
    assert forward == backward
    (kept,) = forward
    pairs = {1: (25, 30), 2: (15, 20)}
    evidence = json.loads(kept["evidence"])
    assert (evidence["published_frontier"], evidence["earlier_highest"]) == pairs[kept["epoch"]]
