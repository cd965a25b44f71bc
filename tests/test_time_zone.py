"""Naive times are UTC (contract §1), whatever the machine's time zone.

DuckDB keeps TimeZone per cursor, and a new cursor starts from the machine's zone, not
from the connection it came from: the engine set UTC on its connection and worked
through a cursor, so on a machine in Tokyo a naive ``--as-of`` was read nine hours
early, and a time hive key (``recorded_at=2026-01-01 00:00:03/``) too: data/faults
audited at a naive T lost every finding (exit 0 instead of 1). Each test runs the
reconciler in a process of its own with ``TZ`` set, as a user's machine has it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

# a process of its own per case, seconds each: outside the fast tier, as tests that start
# processes are
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
FAULTS = ROOT / "data" / "faults"
ZONES = ("Asia/Tokyo", "America/New_York")
US = pa.timestamp("us")
T0 = datetime(2026, 1, 1)


def _reconcile(zone: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reconcile", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "TZ": zone},
        cwd=ROOT,
    )


def _watermarks(zone: str, logset: Path, as_of: str) -> list[dict[str, Any]]:
    done = _reconcile(zone, "watermarks", str(logset), "--as-of", as_of, "--json")
    assert done.returncode in (0, 1), done.stderr
    rows: list[dict[str, Any]] = json.loads(done.stdout)
    return rows


@pytest.mark.parametrize("zone", ZONES)
def test_a_naive_as_of_is_utc_on_a_machine_in_another_zone(zone: str) -> None:
    naive = "2026-01-01T00:20:00"
    expected = _watermarks("UTC", FAULTS, naive)
    assert {row["as_of"] for row in expected} == {naive + "Z"}
    assert _watermarks(zone, FAULTS, naive) == expected


def test_a_naive_as_of_in_the_library_is_utc_in_another_zone() -> None:
    """The notebook door: T given as a naive datetime, and a cursor of the log set's
    engine, in a process whose zone is Tokyo."""
    code = (
        "import datetime, reconcile\n"
        "from reconcile.engine import Analysis\n"
        f"with reconcile.open_logset({str(FAULTS)!r}) as logset:\n"
        "    analysis = Analysis(logset, datetime.datetime(2026, 1, 1, 0, 20))\n"
        "    print(analysis.as_of_iso)\n"
        "    cursor = logset.con.cursor()\n"
        "    print(cursor.sql(\"SELECT current_setting('TimeZone')\").fetchall()[0][0])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "TZ": "Asia/Tokyo"},
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2026-01-01T00:20:00", "UTC"]


def _table(columns: dict[str, pa.Array | list[Any]]) -> pa.Table:
    return pa.table(columns)


def _hive_logset(root: Path) -> Path:
    """e2's failed receipt came at 00:00:01 and its committed one at 00:00:03, each
    under a time hive key; the claim of 2 was written at 00:00:02: at that T, e2
    blocks and the claim is an overclaim."""
    receipts = {1: [("e1", 1, "committed"), ("e2", 2, "failed")], 3: [("e2", 2, "committed")]}
    for second, rows in receipts.items():
        folder = root / "receipts" / f"recorded_at=2026-01-01 00:00:0{second}"
        folder.mkdir(parents=True)
        n = len(rows)
        pq.write_table(
            _table(
                {
                    "scope_id": ["s"] * n,
                    "partition_id": ["p"] * n,
                    "event_id": [r[0] for r in rows],
                    "position": pa.array([r[1] for r in rows], pa.int64()),
                    "outcome": [r[2] for r in rows],
                    "eligibility_stable": pa.array([None] * n, pa.bool_()),
                    "attempt_id": ["a1"] * n,
                    "owner_epoch": pa.array([1] * n, pa.int64()),
                    "page_id": pa.array([None] * n, pa.string()),
                }
            ),
            folder / "r.parquet",
        )
    pq.write_table(
        _table(
            {
                "scope_id": ["s"],
                "partition_id": ["p"],
                "attempt_id": ["a1"],
                "owner_epoch": pa.array([1], pa.int64()),
                "expected_generation": pa.array([0], pa.int64()),
                "generation": pa.array([1], pa.int64()),
                "cas_result": ["won"],
                "written_at": pa.array([T0 + timedelta(seconds=2)], US),
                "resume_token": pa.array([None], pa.string()),
                "page_id": pa.array([None], pa.string()),
                "watermark": pa.array([2], pa.int64()),
                "watermark_inclusive": [True],
                "watermark_event_id": ["e2"],
            }
        ),
        root / "checkpoints.parquet",
    )
    return root


@pytest.mark.parametrize("zone", ZONES)
def test_a_time_hive_key_is_utc_on_a_machine_in_another_zone(tmp_path: Path, zone: str) -> None:
    logset = _hive_logset(tmp_path / "hive")
    (row,) = _watermarks(zone, logset, "2026-01-01T00:00:02Z")
    assert (row["blocking_event_id"], row["blocking_reason"]) == ("e2", "failed")
    assert (row["committed_position"], row["claim_status"]) == (1, "overclaim")
