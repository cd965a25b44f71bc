"""Pictures for notebooks, with matplotlib (offline, headless on the Agg backend).

Each function draws one picture from the engine's frames and returns the figure;
:func:`save` writes it where ``RECONCILE_FIGURES`` points (when it is set), so that
a notebook run headless leaves its pictures behind.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

import polars as pl

if TYPE_CHECKING:
    from matplotlib.figure import Figure

MISSING = (
    "reconcile.plots draws with matplotlib, which is not installed: install the"
    " notebooks extra, pip install 'reconcile[notebooks]' (or uv sync --extra notebooks)"
)


def _pyplot() -> ModuleType:
    """matplotlib's pyplot on the Agg backend, imported on first use: matplotlib is
    an extra (``reconcile[notebooks]``), and a clear error names it when missing."""
    try:
        import matplotlib  # noqa: PLC0415
    except ImportError as error:
        raise ImportError(MISSING) from error
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    return plt


SEVERITY_COLORS = {
    "critical": "#b30000",
    "error": "#e6550d",
    "warning": "#d4a017",
    "info": "#6baed6",
}


def _steps(ax: Any, frame: pl.DataFrame, time: str, value: str, end: Any, **style: Any) -> None:
    if frame.is_empty():
        return
    times = [*frame[time].to_list(), end]
    values = frame[value].to_list()
    ax.step([*times[:-1], times[-1]], [*values, values[-1]], where="post", **style)


def frontier_timeline(
    history: pl.DataFrame,
    scope_id: str,
    as_of: Any,
    steps: pl.DataFrame | None = None,
    findings: pl.DataFrame | None = None,
    title: str | None = None,
) -> Figure:
    """The merged frontier on both bases over time, with chosen partitions' claimed
    (dashed) and proven (solid) certificates, findings as vertical marks, and grey
    bands where the proven frontier is a vector (no honest scalar)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(10, 4.5))
    mine = history.filter(pl.col("scope_id") == scope_id).sort("at")
    if steps is not None:
        part = steps.filter(pl.col("scope_id") == scope_id)
        first = mine["at"].min() if mine.height else None
        for n, pid in enumerate(sorted(set(part["partition_id"].to_list()))):
            color = plt.get_cmap("tab10")(n % 10)
            for basis, dash in (("claimed", "--"), ("proven", "-")):
                rows = part.filter((pl.col("partition_id") == pid) & (pl.col("basis") == basis))
                rows = rows.with_columns(pl.col("valid_from").fill_null(first)).drop_nulls(
                    "valid_from"
                )
                _steps(
                    ax,
                    rows,
                    "valid_from",
                    "through",
                    as_of,
                    color=color,
                    linestyle=dash,
                    linewidth=1,
                    alpha=0.8,
                    label=f"{pid} {basis}",
                )
    proven = mine.filter(pl.col("basis") == "proven")
    ends = [*proven["at"].to_list()[1:], as_of]
    for row, end in zip(proven.iter_rows(named=True), ends, strict=True):
        if row["kind"] == "vector":
            ax.axvspan(row["at"], end, color="#999999", alpha=0.12, linewidth=0)
    for basis, frontier_color in (("claimed", "#d62728"), ("proven", "black")):
        rows = mine.filter(pl.col("basis") == basis)
        _steps(
            ax,
            rows,
            "at",
            "frontier",
            as_of,
            color=frontier_color,
            linewidth=2.5,
            label=f"{basis} frontier",
        )
    if findings is not None:
        for row in findings.filter(
            (pl.col("scope_id") == scope_id) & pl.col("at").is_not_null()
        ).iter_rows(named=True):
            ax.axvline(row["at"], color=SEVERITY_COLORS[row["severity"]], alpha=0.35, linewidth=1)
    ax.set_title(title or f"frontier of {scope_id}")
    ax.set_xlabel("time")
    ax.set_ylabel("complete through")
    ax.legend(fontsize=7, ncol=3, loc="upper left")
    fig.autofmt_xdate()
    fig.tight_layout()
    return cast("Figure", fig)


def partition_lag(
    watermarks: pl.DataFrame, title: str = "claimed and proven, per partition"
) -> Figure:
    """Each partition's claimed and proven certificate side by side."""
    frame = watermarks.sort("scope_id", "partition_id")
    labels = [f"{s}/{p}" for s, p in zip(frame["scope_id"], frame["partition_id"], strict=True)]
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(10, max(2.5, 0.35 * len(labels))))
    ys = range(len(labels))
    ax.barh(
        [y + 0.2 for y in ys],
        frame["claimed_through"].fill_null(0).to_list(),
        height=0.4,
        color="#d62728",
        alpha=0.7,
        label="claimed",
    )
    ax.barh(
        [y - 0.2 for y in ys],
        frame["proven_through"].fill_null(0).to_list(),
        height=0.4,
        color="black",
        alpha=0.7,
        label="proven",
    )
    ax.set_yticks(list(ys), labels, fontsize=8)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return cast("Figure", fig)


def findings_by_rule(findings: pl.DataFrame) -> Figure:
    """How many findings of each rule, colored by severity."""
    counts = findings.group_by("rule", "severity").len().sort("len")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, max(2.5, 0.35 * counts.height)))
    ax.barh(
        counts["rule"].to_list(),
        counts["len"].to_list(),
        color=[SEVERITY_COLORS[s] for s in counts["severity"]],
    )
    ax.set_title("findings by rule (color: severity)")
    fig.tight_layout()
    return cast("Figure", fig)


def save(fig: Figure, name: str) -> Path | None:
    """Write ``fig`` as ``<name>.png`` into $RECONCILE_FIGURES, if it is set."""
    folder = os.environ.get("RECONCILE_FIGURES")
    if not folder:
        return None
    path = Path(folder) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return path
