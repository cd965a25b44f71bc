"""The Singer reader against a real Singer tap (Meltano's Singer SDK,
tests/frameworks/singer_tap.py) run here, offline, over a source this test controls.
Each fault is injected into the source or the runs, the runs' real message streams
and the source's final extract are audited with ``--source singer``, and the audit
must name exactly the rows the fault lost, by key, and nothing on a run without
fault."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from tests.frameworks.singer_pipeline import Pipeline
from tests.frameworks.singer_pipeline import rows as _rows

pytestmark = pytest.mark.slow  # a tap's process per run: seconds


def _skipped(findings: pl.DataFrame) -> set[str]:
    return set(findings.filter(pl.col("rule") == "skipped_event")["event_id"].to_list())


@pytest.mark.parametrize("cursor", [">=", ">"])
def test_a_late_row_under_the_cursor_is_named(tmp_path: Path, cursor: str) -> None:
    """A row commits at the source after the first run, with a cursor below the
    bookmark: no later run reads it, with either reading of the cursor."""
    pipe = Pipeline(tmp_path, cursor)
    pipe.source = _rows(range(10))  # cursors 0..4
    pipe.run()
    pipe.source += [{"id": "late", "updated_at": 2, "value": "v"}, *_rows(range(10, 14))]
    delivered = pipe.run()
    assert "late" not in {r["id"] for r in delivered}
    findings = pipe.audit(tmp_path)
    assert _skipped(findings) == {"late"}


@pytest.mark.parametrize(("cursor", "lost"), [(">", {"tie"}), (">=", set())])
def test_a_tie_at_the_boundary_is_lost_with_a_strict_cursor(
    tmp_path: Path, cursor: str, lost: set[str]
) -> None:
    """A row arrives at the bookmark's own value after the run that wrote it: '>'
    skips it, '>=' reads it again (with the boundary's rows, as replays)."""
    pipe = Pipeline(tmp_path, cursor)
    pipe.source = _rows(range(10))
    pipe.run()
    pipe.source += [{"id": "tie", "updated_at": 4, "value": "v"}, *_rows(range(10, 12))]
    pipe.run()
    findings = pipe.audit(tmp_path)
    assert _skipped(findings) == lost
    if cursor == ">=":
        replays = findings.filter(pl.col("rule") == "replayed_events")
        assert replays.height == 1  # the rows at the bookmark, read twice


def test_a_crash_between_load_and_state_loses_nothing(tmp_path: Path) -> None:
    """The first run's records were loaded, its state never stored: the next run
    starts over from the start, so rows repeat and none is lost."""
    pipe = Pipeline(tmp_path, ">")
    pipe.source = _rows(range(8))
    pipe.run(commit_state=False)
    pipe.source += _rows(range(8, 12))
    pipe.run()
    findings = pipe.audit(tmp_path)
    assert _skipped(findings) == set()
    assert set(findings["rule"]) == {"replayed_events"}


def test_resumed_runs_without_fault_find_nothing(tmp_path: Path) -> None:
    pipe = Pipeline(tmp_path, ">")
    pipe.source = _rows(range(10))  # the boundary's rows (k8, k9 at 4) all there
    pipe.run()
    pipe.source += _rows(range(10, 16))
    pipe.run()
    pipe.run()  # nothing new
    findings = pipe.audit(tmp_path)
    assert findings.is_empty()


@pytest.mark.parametrize("cursor", [">=", ">"])
def test_a_late_row_in_one_partition_is_named_there(tmp_path: Path, cursor: str) -> None:
    """A stream the SDK partitions by region (a bookmark per region, in the state's
    partitions): a row that commits late under the eu bookmark is named in eu; the
    us partition, whose bookmark it is not under, is whole."""
    pipe = Pipeline(tmp_path, cursor, partitioned=True)
    pipe.source = [{**r, "region": ("eu", "us")[i % 2]} for i, r in enumerate(_rows(range(12)))]
    pipe.run()
    pipe.source += [
        {"id": "late", "updated_at": 1, "value": "v", "region": "eu"},
        *({**r, "region": "us"} for r in _rows(range(12, 14))),
    ]
    pipe.run()
    findings = pipe.audit(tmp_path)
    skipped = findings.filter(pl.col("rule") == "skipped_event")
    assert skipped.select("partition_id", "event_id").rows() == [("region=eu", "late")]
    assert (
        not findings.filter(pl.col("partition_id") == "region=us")
        .filter(pl.col("severity").is_in(["critical", "error"]))
        .height
    )


def test_a_reader_that_dropped_a_row_would_be_caught(tmp_path: Path) -> None:
    """The framework's own stream, one RECORD removed (what a reader dropping a row
    would do): the audit names that row, so these tests fail on such a reader."""
    pipe = Pipeline(tmp_path, ">")
    pipe.source = _rows(range(8))
    pipe.run()
    run = pipe.logs / "run-001.jsonl"
    lines = run.read_text().splitlines(keepends=True)
    dropped = next(i for i, line in enumerate(lines) if '"id": "k3"' in line)
    run.write_text("".join(lines[:dropped] + lines[dropped + 1 :]))
    findings = pipe.audit(tmp_path)
    assert _skipped(findings) == {"k3"}
