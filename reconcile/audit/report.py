"""Writing an audit's report directory, atomically.

The report is written into a fresh folder beside the target and moved into place
only when complete; an earlier report is replaced in one rename, and a failed or
interrupted run leaves it as it was. A target that exists but is not a reconcile
report (or an empty folder) is never replaced.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from reconcile.audit import AuditResult
from reconcile.errors import UsageError

GENERATOR = "reconcile audit"
TABLES = ("watermarks", "frontiers", "frontier_history", "findings")


def summary(result: AuditResult, fail_on: str) -> dict[str, Any]:
    """summary.json: counts by rule and severity, the frontiers, the inputs read."""
    counts = result.counts()
    frontiers = [
        {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in row.items()}
        for row in result.frontiers.drop("vector").iter_rows(named=True)
    ]
    failing = result.at_or_above(fail_on)
    return {
        "generator": GENERATOR,
        "as_of": result.as_of.isoformat() + "Z",
        "inputs": result.inputs,
        "findings": {
            "total": result.findings.height,
            "by_severity": counts["by_severity"],
            "by_rule": counts["by_rule"],
        },
        "frontiers": frontiers,
        "fail_on": fail_on,
        "failing_findings": failing,
    }


def _is_report(path: Path) -> bool:
    if not path.exists():
        return True
    if not path.is_dir():
        return False
    entries = list(path.iterdir())
    if not entries:
        return True
    marker = path / "summary.json"
    try:
        facts = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(facts, dict) and facts.get("generator") == GENERATOR


def check_target(out: Path) -> None:
    """Refuse an --out that is not a report, before any work is done."""
    if not _is_report(out):
        raise UsageError(
            f"{out} exists and is not a reconcile report: choose another --out"
            " (an existing report there would be replaced; anything else is left alone)"
        )


def write_report(
    out: Path,
    result: AuditResult,
    fail_on: str,
    html: Callable[[AuditResult, dict[str, Any]], str] | None = None,
) -> dict[str, Any]:
    """Write the report into ``out`` atomically; return the summary written."""
    check_target(out)
    out = out.absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}.partial-{os.getpid()}"
    previous = out.parent / f".{out.name}.previous-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        frames: dict[str, pl.DataFrame] = {
            "watermarks": result.watermarks,
            "frontiers": result.frontiers,
            "frontier_history": result.frontier_history,
            "findings": result.findings,
        }
        for name, frame in frames.items():
            frame.write_parquet(staging / f"{name}.parquet")
        facts = summary(result, fail_on)
        (staging / "summary.json").write_text(
            json.dumps(facts, indent=2, default=str) + "\n", encoding="utf-8"
        )
        if html is not None:
            (staging / "report.html").write_text(html(result, facts), encoding="utf-8")
        if out.exists():
            out.rename(previous)
        staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if previous.exists() and not out.exists():
            previous.rename(out)
        raise
    shutil.rmtree(previous, ignore_errors=True)
    return facts
