"""What the framework harnesses share: the audit of a framework's artifacts with its
reader, and the truth.json of a bundled example (one row lost under the cursor)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl

from reconcile.cli import main


def audit_source(folder: Path, source: str, tmp: Path) -> pl.DataFrame:
    """``reconcile audit FOLDER --source SOURCE`` into ``tmp/report``: its findings."""
    report = tmp / "report"
    code = main(["audit", str(folder), "--source", source, "--out", str(report)])
    assert code in (0, 1)
    summary = json.loads((report / "summary.json").read_text())
    assert summary["inputs"]["source"]["reader"] == source
    return pl.read_parquet(report / "findings.parquet")


def write_truth(target: Path, source: str, fault: dict[str, Any]) -> None:
    """truth.json of a bundled example whose one fault lost ``fault["key"]`` in the
    ``items`` stream: that row, and the skipped_event an audit must report."""
    truth = {
        "generator": f"tests/frameworks/make_{source}_example.py",
        "source": source,
        "faults": [{"fault": "late_row_under_cursor", **fault}],
        "lost": [fault["key"]],
        "findings": [
            {
                "rule": "skipped_event",
                "scope_id": "items",
                "partition_id": "items",
                "event_id": fault["key"],
            }
        ],
    }
    (target / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")
