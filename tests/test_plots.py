"""reconcile.plots draws what a reader can read (issue 21): the report's compressed
time axis, so a 30-minute stall does not squeeze the run into a pixel; claimed and
proven told apart; a legend that names few enough lines to fit beside the plot."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import reconcile
from reconcile import investigate, plots
from reconcile.audit import audit
from reconcile.errors import UsageError

DATA = Path(__file__).resolve().parents[1] / "data"


def test_stuck_timeline_keeps_the_activity_readable() -> None:
    with (
        reconcile.open_logset(DATA / "stuck") as logset,
        reconcile.Analysis(logset) as analysis,
    ):
        history = analysis.frontier_history()
        steps = analysis.history(
            pl.DataFrame({"scope_id": ["s0"] * 4, "partition_id": [f"p000{i}" for i in range(4)]})
        )
        fig = plots.frontier_timeline(history, "s0", analysis.as_of, steps=steps)
    ax = fig.axes[0]
    assert ax.get_xlim() == (0.0, 1.0)
    texts = [t.get_text() for t in ax.texts]
    assert "+30.0 min" in texts  # the stall, drawn short and said
    proven = next(line for line in ax.lines if line.get_label() == "proven frontier")
    claimed = next(line for line in ax.lines if line.get_label() == "claimed frontier")
    xs = [float(v) for v in proven.get_xdata()]
    # the first 5 seconds of activity fill most of the axis, not one pixel of it
    assert max(xs) > 0.9 and sorted(set(xs))[-2] > 0.5
    # claimed drawn dashed over proven, which is wider: both show where they are equal
    assert claimed.get_zorder() > proven.get_zorder()
    assert proven.get_linewidth() > claimed.get_linewidth()
    assert claimed.get_linestyle() != proven.get_linestyle()
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["p0000", "p0001", "p0002", "p0003", "proven frontier", "claimed frontier"]


def _watermarks(name: str) -> pl.DataFrame:
    with reconcile.open_logset(DATA / name) as logset:
        return reconcile.watermarks(logset)


def test_drawing_leaves_the_session_s_matplotlib_alone() -> None:
    """plots switched the user's backend to Agg (a notebook's inline or widget one)
    and left every figure open in pyplot, drawn again and never freed."""
    import matplotlib  # noqa: PLC0415
    import matplotlib.pyplot as plt  # noqa: PLC0415

    before = matplotlib.get_backend()
    plt.switch_backend("svg")  # stands for a notebook's own backend
    try:
        open_before = plt.get_fignums()
        fig = plots.partition_lag(_watermarks("stuck"))
        assert matplotlib.get_backend() == "svg"
        assert plt.get_fignums() == open_before
        assert fig.axes  # drawn all the same
    finally:
        plt.switch_backend(before)


def test_no_certificate_is_drawn_as_missing_not_as_zero() -> None:
    """On timestamp positions partition_lag crashed (fill_null(0) on a datetime); on
    integer positions a partition without a claim was drawn as a claim through 0."""
    ints = _watermarks("faults")
    ints = ints.with_columns(
        pl.when(pl.col("partition_id") == "p0001")
        .then(None)
        .otherwise(pl.col("claimed_through"))
        .alias("claimed_through")
    )
    ax = plots.partition_lag(ints).axes[0]
    claimed = next(c for c in ax.containers if c.get_label() == "claimed")
    assert len(claimed) == ints.height - 1  # no bar where there is no claim
    assert [t.get_text() for t in ax.texts] == ["no claim"]
    times = _watermarks("timestamps")
    times = times.with_columns(
        pl.when(pl.col("partition_id") == "p0001")
        .then(None)
        .otherwise(pl.col("proven_through"))
        .alias("proven_through")
    )
    missing = times["proven_through"].null_count()
    assert missing > 0
    ax = plots.partition_lag(times).axes[0]
    proven = next(line for line in ax.lines if line.get_label() == "proven")
    assert len(proven.get_xdata()) == times.height - missing
    assert [t.get_text() for t in ax.texts] == ["no proof"] * missing


def test_the_timeline_takes_t_as_iso_text() -> None:
    """The docs pass analysis.as_of_iso for T; the timeline failed on text."""
    with (
        reconcile.open_logset(DATA / "stuck") as logset,
        reconcile.Analysis(logset) as analysis,
    ):
        history = analysis.frontier_history()
        by_text = plots.frontier_timeline(history, "s0", analysis.as_of_iso)
        by_datetime = plots.frontier_timeline(history, "s0", analysis.as_of)
    ticks = [t.get_text() for t in by_text.axes[0].get_xticklabels()]
    assert ticks == [t.get_text() for t in by_datetime.axes[0].get_xticklabels()]
    assert ticks[-1] == analysis.as_of.strftime("%H:%M:%S.%f")[:-3]


@pytest.mark.parametrize(
    "as_of",
    [
        date(2026, 1, 1),
        pytest.param(np.datetime64("2026-01-01T00:00:00"), marks=pytest.mark.slow),
        pytest.param(True, marks=pytest.mark.slow),
    ],
    ids=str,
)
def test_a_t_of_another_kind_is_refused_plainly(as_of: Any) -> None:
    """A date, a numpy datetime64 or a bool for T was a bare TypeError (or read as a
    number of seconds)."""
    with (
        reconcile.open_logset(DATA / "stuck") as logset,
        reconcile.Analysis(logset) as analysis,
    ):
        history = analysis.frontier_history()
    with pytest.raises(UsageError, match=r"pass analysis\.as_of_iso or analysis\.as_of"):
        plots.frontier_timeline(history, "s0", as_of)


def test_a_table_of_another_kind_is_refused_plainly() -> None:
    """Each picture, and the helpers that take an analysis, name the table (or the
    analysis) they take and where it comes from, rather than failing deep inside
    Polars or pandas."""
    with reconcile.open_logset(DATA / "stuck") as logset:
        analysis = reconcile.Analysis(logset)
        history, watermarks = analysis.frontier_history(), analysis.watermarks()
        findings = audit(logset).findings
        as_of = analysis.as_of
        calls: dict[str, Any] = {
            "frontier_history table": lambda: plots.frontier_timeline(watermarks, "s0", as_of),
            "Analysis.frontier_history": lambda: plots.frontier_timeline(
                history.to_pandas(), "s0", as_of
            ),
            "Analysis.history()": lambda: plots.frontier_timeline(
                history, "s0", as_of, steps=watermarks
            ),
            "findings table": lambda: plots.frontier_timeline(
                history, "s0", as_of, findings=watermarks
            ),
            "Analysis.frontiers()": lambda: plots.frontier_timeline(
                history, "s0", as_of, frontiers=watermarks
            ),
            "watermarks table": lambda: plots.partition_lag(history),
            "Analysis.watermarks()": lambda: plots.partition_lag(watermarks.to_pandas()),
            "audit(...).findings": lambda: plots.findings_by_rule(findings.to_pandas()),
            "membership: give an analysis": lambda: investigate.membership(history),
            "event_trail: give an analysis": lambda: investigate.event_trail(
                history, "s0", "p0002", "e1"
            ),
            "partition_pages: give an analysis": lambda: investigate.partition_pages(
                None, "s0", "p0002"
            ),
        }
        for said, call in calls.items():
            with pytest.raises(UsageError, match=said.replace("(", r"\(").replace(")", r"\)")):
                call()
