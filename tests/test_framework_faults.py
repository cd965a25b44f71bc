"""Faults common to the message-stream frameworks, against each real one: a Singer
tap built with Meltano's Singer SDK (tests/frameworks/singer_tap.py) and a source
built with the Airbyte Python CDK (tests/frameworks/airbyte_source.py, in its own
locked environment), each run here, offline, over a paginated source this test
controls. Each fault is injected into the source or the runs, the runs' real messages
and the source's final extract are audited with the framework's reader
(``--source singer``, ``--source airbyte``), and the audit must name exactly the rows
the fault lost, by key, and nothing on a run without fault. Each framework's own
faults are in tests/test_singer.py and tests/test_airbyte.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import polars as pl
import pytest

from tests.frameworks import airbyte_pipeline, singer_pipeline
from tests.frameworks.singer_pipeline import rows as _rows

pytestmark = pytest.mark.slow  # a framework's process per run: seconds


class Pipe(Protocol):
    logs: Path
    source: list[dict[str, Any]]

    def run(self, *, commit_state: bool = True) -> list[dict[str, Any]]: ...
    def audit(self, tmp: Path) -> pl.DataFrame: ...


FRAMEWORKS: dict[str, Callable[[Path, str], Pipe]] = {
    "singer": singer_pipeline.Pipeline,
    "airbyte": airbyte_pipeline.Pipeline,
}


@pytest.fixture(params=sorted(FRAMEWORKS))
def make(request: pytest.FixtureRequest) -> Callable[[Path, str], Pipe]:
    """A pipeline of the framework: ``make(folder, cursor)``."""
    return FRAMEWORKS[request.param]


def _skipped(findings: pl.DataFrame) -> set[str]:
    return set(findings.filter(pl.col("rule") == "skipped_event")["event_id"].to_list())


@pytest.mark.parametrize("cursor", [">=", ">"])
def test_a_late_row_under_the_cursor_is_named(
    make: Callable[[Path, str], Pipe], tmp_path: Path, cursor: str
) -> None:
    """A row commits at the source after the first run, with a cursor below the
    stored state: no later run reads it, with either reading of the cursor."""
    pipe = make(tmp_path, cursor)
    pipe.source = _rows(range(10))  # cursors 0..4
    pipe.run()
    pipe.source += [{"id": "late", "updated_at": 2, "value": "v"}, *_rows(range(10, 14))]
    delivered = pipe.run()
    assert "late" not in {r["id"] for r in delivered}
    findings = pipe.audit(tmp_path)
    assert _skipped(findings) == {"late"}


@pytest.mark.parametrize(("cursor", "lost"), [(">", {"tie"}), (">=", set())])
def test_a_tie_at_the_boundary_is_lost_with_a_strict_cursor(
    make: Callable[[Path, str], Pipe], tmp_path: Path, cursor: str, lost: set[str]
) -> None:
    """A row arrives at the state's own value after the run that stored it: '>'
    skips it, '>=' reads it again (with the boundary's rows, as replays)."""
    pipe = make(tmp_path, cursor)
    pipe.source = _rows(range(10))
    pipe.run()
    pipe.source += [{"id": "tie", "updated_at": 4, "value": "v"}, *_rows(range(10, 12))]
    pipe.run()
    findings = pipe.audit(tmp_path)
    assert _skipped(findings) == lost
    if cursor == ">=":
        replays = findings.filter(pl.col("rule") == "replayed_events")
        assert replays.height == 1  # the rows at the state's value, read twice


def test_a_crash_between_load_and_state_loses_nothing(
    make: Callable[[Path, str], Pipe], tmp_path: Path
) -> None:
    """The first run's records were loaded, its state never stored: the next run
    starts over from the start, so rows repeat and none is lost."""
    pipe = make(tmp_path, ">")
    pipe.source = _rows(range(8))
    pipe.run(commit_state=False)
    pipe.source += _rows(range(8, 12))
    pipe.run()
    findings = pipe.audit(tmp_path)
    assert _skipped(findings) == set()
    assert set(findings["rule"]) == {"replayed_events"}


def test_resumed_runs_without_fault_find_nothing(
    make: Callable[[Path, str], Pipe], tmp_path: Path
) -> None:
    pipe = make(tmp_path, ">")
    pipe.source = _rows(range(10))  # the boundary's rows (k8, k9 at 4) all there
    pipe.run()
    pipe.source += _rows(range(10, 16))
    pipe.run()
    pipe.run()  # nothing new
    findings = pipe.audit(tmp_path)
    assert findings.is_empty()


def test_a_reader_that_dropped_a_row_would_be_caught(
    make: Callable[[Path, str], Pipe], tmp_path: Path
) -> None:
    """The framework's own messages, one RECORD removed (what a reader dropping a row
    would do): the audit names that row, so these tests fail on such a reader."""
    pipe = make(tmp_path, ">")
    pipe.source = _rows(range(8))
    pipe.run()
    first = min(pipe.logs.glob("*.jsonl"))
    lines = first.read_text().splitlines(keepends=True)
    dropped = next(i for i, line in enumerate(lines) if "k3" in _ids(json.loads(line)))
    first.write_text("".join(lines[:dropped] + lines[dropped + 1 :]))
    findings = pipe.audit(tmp_path)
    assert _skipped(findings) == {"k3"}


def _ids(message: dict[str, Any]) -> set[str]:
    """The id of a RECORD's row, Singer's or Airbyte's."""
    record = message.get("record") or {}
    row = record.get("data", record)
    return {row["id"]} if message.get("type") == "RECORD" and "id" in row else set()
