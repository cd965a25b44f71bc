"""The colours every picture uses, the report's and the notebooks' alike.

The frontiers are black, proven solid and claimed dashed; the partitions' lines take
no warm colour, which the findings' marks use (by severity)."""

from __future__ import annotations

PARTITION_COLORS = (
    "#1f77b4",
    "#2ca02c",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#637939",
    "#17becf",
    "#393b79",
    "#aec7e8",
    "#98df8a",
    "#c5b0d5",
)
SEVERITY_COLORS = {
    "critical": "#b30000",
    "error": "#e6550d",
    "warning": "#d4a017",
    "info": "#6baed6",
}
FRONTIER_COLOR = "#000000"
