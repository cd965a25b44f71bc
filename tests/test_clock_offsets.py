"""Text whose offset from UTC no clock has (hours past 23, minutes or seconds past 59)
is no time, through every door that reads RFC 3339 text: a mapping's ``timestamp =
"rfc3339"``, the Singer reader's cursors, bookmarks and ``time_extracted``, the
Airbyte reader's cursors and states. DuckDB read ``+25:00`` as 25 hours and
``+02:99`` as 2 hours 99 minutes: an instant a day away from any the writer meant,
taken silently (found by a probe). ``--as-of`` refused it already."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from reconcile import sql
from reconcile.cli import main
from reconcile.logset.normalize import NO_CLOCK_OFFSET

MAPPING = """
[checkpoints]
files = "ck.csv"
[checkpoints.columns]
scope_id = { constant = "s" }
partition_id = "shard"
attempt_id = { constant = "a" }
owner_epoch = { constant = 1 }
expected_generation = { sql = "gen - 1" }
generation = "gen"
cas_result = { constant = "won" }
written_at = { column = "ts", timestamp = "rfc3339" }
watermark = "wm"
watermark_inclusive = { constant = true }
"""


def _said(capsys: Any) -> str:
    got = capsys.readouterr()
    return " ".join((got.out + got.err).split())


def test_the_readers_macro_holds_the_pattern_the_mapping_reads_by() -> None:
    (pattern,) = re.findall(r"'(\[0-9\]\{2\}:.*\$)'", sql.load("readers/clock"))
    assert pattern == NO_CLOCK_OFFSET


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("2026-01-01T00:00:00+25:00", True),
        ("2026-01-01T00:00:00+02:99", True),
        ("2026-01-01T00:00:00-30:00", True),
        ("2026-01-01 00:00:00+2500", True),
        ("2026-01-01T00:00:00.5+05:30:60", True),
        ("2026-01-01T00:00:00+23:59", False),
        ("2026-01-01T00:00:00.123-12:00", False),
        ("2026-01-01T00:00:00Z", False),
        ("2026-01-31", False),  # a date's day is no offset
        ("2026-01-01T00:00:00", False),
    ],
)
def test_the_pattern_names_offsets_no_clock_has(text: str, bad: bool) -> None:
    assert (re.search(NO_CLOCK_OFFSET, text) is not None) is bad


@pytest.mark.parametrize("offset", ["+25:00", "+02:99"])
def test_a_mapped_time_with_an_offset_of_no_clock_is_refused(
    tmp_path: Path, capsys: Any, offset: str
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "ck.csv").write_text(
        f"shard,gen,ts,wm\np0,1,2026-01-01T00:00:00{offset},5\np0,2,2026-01-01T00:00:00Z,6\n"
    )
    (tmp_path / "m.toml").write_text(MAPPING)
    code = main(
        ["audit", str(logs), "--mapping", str(tmp_path / "m.toml"), "--out", str(tmp_path / "out")]
    )
    said = _said(capsys)
    assert code == 2, said
    assert "ck.csv" in said and f"offset of no clock: 2026-01-01T00:00:00{offset}" in said


def _singer(tmp: Path, capsys: Any, cursor: str, bookmark: str, extracted: str) -> str:
    schema = {
        "type": "SCHEMA",
        "stream": "items",
        "schema": {"properties": {"id": {"type": "string"}, "u": {"type": "string"}}},
        "key_properties": ["id"],
        "bookmark_properties": ["u"],
    }
    record = {
        "type": "RECORD",
        "stream": "items",
        "record": {"id": "a", "u": cursor},
        "time_extracted": extracted,
    }
    bookmarks = {"items": {"replication_key": "u", "replication_key_value": bookmark}}
    state = {"type": "STATE", "value": {"bookmarks": bookmarks}}
    logs = tmp / "logs"
    logs.mkdir()
    (logs / "run-1.jsonl").write_text(
        "".join(json.dumps(m) + "\n" for m in (schema, record, state))
    )
    code = main(["audit", str(logs), "--source", "singer", "--out", str(tmp / "out")])
    said = _said(capsys)
    assert code == 2, said
    return said


GOOD = "2026-01-01T00:00:00Z"
BAD = "2026-01-01T00:00:00+25:00"


def test_a_singer_time_extracted_with_an_offset_of_no_clock_is_refused(
    tmp_path: Path, capsys: Any
) -> None:
    said = _singer(tmp_path, capsys, GOOD, GOOD, BAD)
    assert f'run-1.jsonl, line 2: time_extracted "{BAD}" is no RFC 3339 time' in said


def test_a_singer_bookmark_with_an_offset_of_no_clock_is_refused(
    tmp_path: Path, capsys: Any
) -> None:
    said = _singer(tmp_path, capsys, GOOD, BAD, GOOD)
    assert f'the STATE at run-1.jsonl line 3 bookmarks stream items at "{BAD}"' in said


def test_a_singer_cursor_with_an_offset_of_no_clock_is_refused(tmp_path: Path, capsys: Any) -> None:
    said = _singer(tmp_path, capsys, BAD, GOOD, GOOD)
    assert f'the RECORD at run-1.jsonl line 2 (stream items) has u "{BAD}"' in said


def test_an_airbyte_state_with_an_offset_of_no_clock_is_refused(
    tmp_path: Path, capsys: Any
) -> None:
    bad = "2026-01-01T00:00:00+02:99"
    logs = tmp_path / "logs"
    logs.mkdir()
    catalog = {
        "streams": [
            {
                "stream": {"name": "items"},
                "sync_mode": "incremental",
                "cursor_field": ["u"],
                "primary_key": [["id"]],
            }
        ]
    }
    (logs / "catalog.json").write_text(json.dumps(catalog))
    data = {"id": "a", "u": GOOD}
    lines = [
        {"type": "RECORD", "record": {"stream": "items", "data": data, "emitted_at": 1}},
        {
            "type": "STATE",
            "state": {
                "type": "STREAM",
                "stream": {"stream_descriptor": {"name": "items"}, "stream_state": {"u": bad}},
            },
        },
    ]
    (logs / "s1.jsonl").write_text("".join(json.dumps(m) + "\n" for m in lines))
    code = main(["audit", str(logs), "--source", "airbyte", "--out", str(tmp_path / "out")])
    said = _said(capsys)
    assert code == 2, said
    assert bad in said and "s1.jsonl" in said
