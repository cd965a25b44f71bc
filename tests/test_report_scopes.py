"""report.html with more scopes than it draws timelines for (MAX_SCOPES_DRAWN): it
draws those with the most severe findings first, says how many it left out, and no
link leads to a timeline it did not draw; the audit computes the partitions'
timelines of the drawn scopes alone."""

from __future__ import annotations

import re
from pathlib import Path

from reconcile import open_logset
from reconcile.audit import MAX_SCOPES_DRAWN, audit
from reconcile.cli import main
from tests.logsets import checkpoint, write_logset


def _scopes(tmp_path: Path) -> Path:
    """MAX_SCOPES_DRAWN + 2 scopes, the last by name with a regressed watermark."""
    count = MAX_SCOPES_DRAWN + 2
    rows = [checkpoint("p0", 1, 10, scope=f"s{i:03d}", written=1) for i in range(count)]
    last = f"s{count - 1:03d}"
    rows.append(checkpoint("p0", 2, 5, scope=last, written=2))
    return write_logset(tmp_path / "ls", {"checkpoints": rows})


def test_the_report_draws_the_scopes_with_findings_first_and_says_how_many(
    tmp_path: Path,
) -> None:
    path = _scopes(tmp_path)
    out = tmp_path / "report"
    main(["audit", str(path), "--out", str(out)])
    html = (out / "report.html").read_text()
    count = MAX_SCOPES_DRAWN + 2
    drawn = re.findall(r'<h3 id="timeline-([^"]+)">', html)
    assert len(drawn) == MAX_SCOPES_DRAWN
    assert f"s{count - 1:03d}" in drawn  # its finding put it first
    assert "s040" not in drawn  # then by name
    assert f"{MAX_SCOPES_DRAWN} of {count} scopes drawn" in html
    # every link to a finding's mark leads to a mark on the page
    marks = set(re.findall(r'id="mark-(\d+)"', html))
    assert set(re.findall(r'href="#mark-(\d+)"', html)) <= marks
    # every scope is still in the frontier table and has its panel
    assert html.count('class="why" id="why-') == count


def test_the_audit_draws_the_partitions_of_the_drawn_scopes_alone(tmp_path: Path) -> None:
    path = _scopes(tmp_path)
    with open_logset(path) as logset:
        result = audit(logset)
    assert result.frontiers["scope_id"].n_unique() == MAX_SCOPES_DRAWN + 2
    assert result.timelines["scope_id"].n_unique() == MAX_SCOPES_DRAWN
