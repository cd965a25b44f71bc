"""reconcile.plots draws what a reader can read (issue 21): the report's compressed
time axis, so a 30-minute stall does not squeeze the run into a pixel; claimed and
proven told apart; a legend that names few enough lines to fit beside the plot."""

from __future__ import annotations

from pathlib import Path

import polars as pl

import reconcile
from reconcile import plots

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
