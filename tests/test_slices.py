"""The event level in slices of partitions gives what it gives in one piece."""

from __future__ import annotations

from pathlib import Path

import pytest

import reconcile.engine.analysis as analysis_module
from reconcile import open_logset
from reconcile.audit import audit
from reconcile.engine import Analysis

DATA = Path(__file__).resolve().parents[1] / "data"


# faults and timestamps hold snapshots; membership does not
@pytest.mark.parametrize("name", ["faults", "membership", "timestamps"])
def test_slices_change_nothing(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    with open_logset(DATA / name) as logset:
        whole = audit(logset)
    monkeypatch.setattr(analysis_module, "EVENTS_PER_SLICE", 1_000)
    with open_logset(DATA / name) as logset:
        sliced_analysis = Analysis(logset)
        sliced_analysis.watermarks()
        slices = sliced_analysis.con.execute("SELECT count(DISTINCT slice) FROM rc_slices")
        assert (slices.fetchone() or (0,))[0] > 1
    with open_logset(DATA / name) as logset:
        sliced = audit(logset)
    assert sliced.watermarks.equals(whole.watermarks)
    assert sliced.frontiers.equals(whole.frontiers)
    assert sliced.frontier_history.equals(whole.frontier_history)
    assert sliced.findings.equals(whole.findings)
    assert sliced.timelines.equals(whole.timelines)
