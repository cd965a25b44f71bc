"""The Singer reader against a real Singer tap (Meltano's Singer SDK,
tests/frameworks/singer_tap.py) run here, offline, over a source this test controls.
Each fault is injected into the source or the runs, the runs' real message streams
and the source's final extract are audited with ``--source singer``, and the audit
must name exactly the rows the fault lost, by key, and nothing on a run without
fault."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from reconcile.cli import main

pytestmark = pytest.mark.slow  # a tap's process per run: seconds

ROOT = Path(__file__).resolve().parents[1]


def _rows(ids: range, step: int = 2) -> list[dict[str, Any]]:
    """Rows k0, k1, ... two to a cursor value."""
    return [{"id": f"k{i}", "updated_at": i // step, "value": "v"} for i in ids]


class Pipeline:
    """A source, a folder of runs, and the state the last run committed."""

    def __init__(self, folder: Path, cursor: str) -> None:
        self.folder, self.cursor = folder, cursor
        self.logs = folder / "logs"
        self.logs.mkdir(parents=True)
        self.source: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None
        self.runs = 0

    def run(self, *, commit_state: bool = True) -> list[dict[str, Any]]:
        """One sync of the real tap; without ``commit_state``, it crashed after the
        destination loaded its records and before the state was stored."""
        self.runs += 1
        source = self.folder / "source.json"
        source.write_text(json.dumps(self.source))
        argv = [sys.executable, "-m", "tests.frameworks.singer_tap", str(source), self.cursor]
        if self.state is not None:
            state = self.folder / "state.json"
            state.write_text(json.dumps(self.state))
            argv.append(str(state))
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=True)
        messages = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
        kept = [m for m in messages if commit_state or m["type"] != "STATE"]
        (self.logs / f"run-{self.runs:03d}.jsonl").write_text(
            "".join(json.dumps(m) + "\n" for m in kept)
        )
        states = [m for m in messages if m["type"] == "STATE"]
        if commit_state and states:
            self.state = states[-1]["value"]
        return [m["record"] for m in messages if m["type"] == "RECORD"]

    def audit(self, tmp: Path) -> pl.DataFrame:
        """The extract of the source as it is now, then the audit's findings."""
        with (self.logs / "source.csv").open("w", newline="") as handle:
            out = csv.writer(handle)
            out.writerow(["key", "cursor"])
            out.writerows([r["id"], r["updated_at"]] for r in self.source)
        report = tmp / "report"
        code = main(["audit", str(self.logs), "--source", "singer", "--out", str(report)])
        assert code in (0, 1)
        summary = json.loads((report / "summary.json").read_text())
        assert summary["inputs"]["source"]["reader"] == "singer"
        return pl.read_parquet(report / "findings.parquet")


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
