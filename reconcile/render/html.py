"""report.html: the audit as one self-contained page (no scripts, no fetches).

Inline CSS and SVG only: a summary, a frontier timeline per scope (each shown
partition's claimed and proven certificates, the merged frontier on both bases and
who holds it, the findings marked where they happened), and the findings table.
"""

from __future__ import annotations

import bisect
import html
import json
import math
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import polars as pl

from reconcile.audit import AuditResult
from reconcile.audit.findings import SEVERITIES
from reconcile.render.validation import mapping_text
from reconcile.render.why import SHOWN, why_panel

WIDTH, HEIGHT = 960, 360
LEFT, RIGHT, TOP, BOTTOM = 90, 50, 20, 40
COLORS = (
    "#1f77b4",
    "#2ca02c",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#ff7f0e",
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
MAX_FINDINGS = 2000

STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#222;
max-width:1100px}
h1{font-size:1.4em;margin-bottom:0}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #ddd}
.meta{color:#555;margin-top:.3em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border-bottom:1px solid #eee;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f6f6}
.sev{font-weight:600;color:#fff;border-radius:3px;padding:0 5px;font-size:.85em}
.critical{background:#b30000}.error{background:#e6550d}.warning{background:#d4a017}.info{background:#6baed6}
details summary{cursor:pointer;color:#555}
pre{white-space:pre-wrap;font-size:.85em;margin:.2em 0}
svg text{font-size:11px;fill:#444}
.legend span{display:inline-block;margin-right:14px;font-size:.85em}
.legend i{display:inline-block;width:18px;height:3px;vertical-align:middle;margin-right:4px}
"""


def _e(value: Any) -> str:
    text = "" if value is None else str(value)
    # a file name that is not UTF-8 holds surrogates, which no HTML file can: escaped
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return html.escape(text)


def _num(value: Any) -> float:
    """A coordinate or instant as a number (seconds since the epoch; naive is UTC)."""
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp()
    return float(value)


def _nums(series: pl.Series) -> list[float | None]:
    """``_num`` of every value of a column, nulls kept."""
    if isinstance(series.dtype, pl.Datetime):
        return (series.dt.epoch("us").cast(pl.Float64) / 1e6).to_list()
    return series.cast(pl.Float64).to_list()


def _label(value: Any) -> str:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    return f"{value:,}" if isinstance(value, int) else str(value)


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.1f} min"
    return f"{seconds:.1f} s"


def _cert(through: Any, inclusive: Any) -> str:
    if through is None:
        return "none"
    sign = "&lt;=" if inclusive else ("&lt;" if inclusive is False else "?")
    return f"{sign} {_e(_label(through))}"


class _TimeAxis:
    """Time to x, with long idle stretches shrunk so that the activity around them
    stays readable; each shrunk stretch is drawn as a break in the axis."""

    def __init__(self, times: Sequence[float], a: float, b: float) -> None:
        knots = np.unique(np.asarray(times, dtype=float))
        if len(knots) < 2:
            first = float(knots[0]) if len(knots) else 0.0
            knots = np.array([first, first + 1.0])
        gaps = np.diff(knots)
        ordered = np.sort(gaps)
        typical = float(ordered[int(0.9 * (len(ordered) - 1))]) or float(ordered[-1])
        small = float(gaps[gaps <= 20 * typical].sum()) or float(gaps.sum())
        cap = max(small * 0.08, typical)
        shown = np.r_[0.0, np.cumsum(np.minimum(gaps, cap))]
        wide = gaps > cap
        self._knots, self._shown = knots, shown
        self.knots: list[float] = knots.tolist()
        self.shown: list[float] = shown.tolist()
        self.breaks: list[tuple[float, float]] = list(
            zip(knots[:-1][wide].tolist(), gaps[wide].tolist(), strict=True)
        )
        self.a, self.b = a, b

    def __call__(self, t: float) -> float:
        knots, shown = self.knots, self.shown
        if t <= knots[0]:
            pos = shown[0]
        elif t >= knots[-1]:
            pos = shown[-1]
        else:
            i = bisect.bisect_right(knots, t) - 1
            span = knots[i + 1] - knots[i]
            pos = shown[i] + (shown[i + 1] - shown[i]) * (t - knots[i]) / span
        return self.a + (self.b - self.a) * pos / (shown[-1] or 1.0)

    def many(self, times: np.ndarray) -> np.ndarray:
        """The same as calling it on each time, for an array of them."""
        pos = np.asarray(np.interp(times, self._knots, self._shown), dtype=float)
        scaled: np.ndarray = self.a + (self.b - self.a) * pos / (self.shown[-1] or 1.0)
        return scaled


class _Scale:
    def __init__(self, lo: float, hi: float, a: float, b: float) -> None:
        if not hi > lo:
            hi = lo + 1
            if not hi > lo:
                # lo + 1 is lo itself near the int64 extremes: a few floats apart, inward
                step = 4 * math.ulp(lo)
                lo, hi = (lo - step, lo) if lo > 0 else (lo, lo + step)
        self.lo, self.hi, self.a, self.b = lo, hi, a, b

    def __call__(self, value: float) -> float:
        share = (value - self.lo) / (self.hi - self.lo)
        return self.a + share * (self.b - self.a)

    def many(self, values: np.ndarray) -> np.ndarray:
        """The same as calling it on each value, for an array of them."""
        return self.a + (values - self.lo) / (self.hi - self.lo) * (self.b - self.a)


def _steps(
    points: Sequence[tuple[float, float | None]], end: float
) -> list[list[tuple[float, float]]]:
    """Step-function polylines (a new one after every gap where there is no value)."""
    lines: list[list[tuple[float, float]]] = []
    current: list[tuple[float, float]] = []
    for i, (t, v) in enumerate(points):
        nxt = points[i + 1][0] if i + 1 < len(points) else end
        if v is None:
            if current:
                lines.append(current)
                current = []
            continue
        if current:
            current.append((t, current[-1][1]))
        current.extend([(t, v), (nxt, v)])
    if current:
        lines.append(current)
    return lines


def _thinned(points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The same picture with fewer points: of each run at one x, only the first,
    lowest, highest and last; of each run at one y, only the ends. A step function
    with a million steps draws as a few points per pixel column."""
    if not points:
        return []
    xy = np.asarray(points, dtype=float).reshape(-1, 2)
    kx, ky = _thinned_arrays(xy[:, 0], xy[:, 1])
    return list(zip(kx.tolist(), ky.tolist(), strict=True))


def _thinned_arrays(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``_thinned`` on the x and y arrays of a non-empty line."""
    n = len(xs)
    index = np.arange(n)
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
    ends = np.r_[starts[1:], n] - 1
    run = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, n]))
    # the first lowest and first highest point of each run
    low = np.minimum.reduceat(
        np.where(ys == np.minimum.reduceat(ys, starts)[run], index, n), starts
    )
    high = np.minimum.reduceat(
        np.where(ys == np.maximum.reduceat(ys, starts)[run], index, n), starts
    )
    keep = np.unique(np.concatenate([starts, low, high, ends]))
    kx, ky = xs[keep], ys[keep]
    # the same point twice in a row draws nothing
    new = np.r_[True, (kx[1:] != kx[:-1]) | (ky[1:] != ky[:-1])]
    kx, ky = kx[new], ky[new]
    # inside a run at one y, only its ends
    if len(ky) > 2:
        inner = np.r_[False, (ky[1:-1] == ky[:-2]) & (ky[1:-1] == ky[2:]), False]
        kx, ky = kx[~inner], ky[~inner]
    return kx, ky


def _polyline(
    line: Sequence[tuple[float, float]],
    x: _TimeAxis,
    y: _Scale,
    **attrs: str,
) -> str:
    xy = np.asarray(line, dtype=float).reshape(-1, 2)
    px, py = _thinned_arrays(np.round(x.many(xy[:, 0]), 1), np.round(y.many(xy[:, 1]), 1))
    pts = " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(px.tolist(), py.tolist(), strict=True))
    extra = " ".join(f'{k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return f'<polyline points="{pts}" fill="none" {extra}/>'


def _timeline(scope: str, result: AuditResult) -> str:
    history = result.frontier_history.filter(pl.col("scope_id") == scope).sort("at")
    parts = result.timelines.filter(pl.col("scope_id") == scope)
    found = result.findings.filter((pl.col("scope_id") == scope) & pl.col("at").is_not_null())
    end = _num(result.as_of)
    times = [t for t in _nums(history["at"]) + _nums(parts["valid_from"]) if t is not None]
    start = min(times) if times else end - 1
    frontier_values = [v for v in _nums(history["frontier"]) if v is not None]
    values = frontier_values + [v for v in _nums(parts["through"]) if v is not None]
    if not values:
        return "<p>No certificate to draw.</p>"
    ordered = sorted(values)
    cap = ordered[int(0.98 * (len(ordered) - 1))]
    lo, hi = (
        ordered[0],
        max(
            cap,
            max(frontier_values) if frontier_values else cap,
        ),
    )
    x = _TimeAxis([start, end, *times], LEFT, WIDTH - RIGHT)
    y = _Scale(lo, hi, HEIGHT - BOTTOM, TOP)

    def clamp(v: Any) -> float | None:
        return None if v is None else min(_num(v), hi)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'role="img" aria-label="frontier timeline of {_e(scope)}" class="timeline">',
        f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH - LEFT - RIGHT}" '
        f'height="{HEIGHT - TOP - BOTTOM}" fill="#fcfcfc" stroke="#ddd"/>',
    ]
    for i in range(5):
        value = lo + (hi - lo) * i / 4
        yy = y(value)
        shown: Any = (
            datetime.fromtimestamp(value, UTC).replace(tzinfo=None)
            if isinstance(history["frontier"].dtype, pl.Datetime)
            else round(value)
        )
        out.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{yy:.1f}" y2="{yy:.1f}" stroke="#eee"/>'
        )
        out.append(
            f'<text x="{LEFT - 6}" y="{yy + 4:.1f}" text-anchor="end">{_e(_label(shown))}</text>'
        )
    out.extend(_time_ticks(x))
    legend = []
    shown_parts = sorted(set(parts["partition_id"].to_list()))
    for n, pid in enumerate(shown_parts):
        color = COLORS[n % len(COLORS)]
        legend.append(f'<span><i style="background:{color}"></i>{_e(pid)}</span>')
        for basis, dash in (("claimed", "5,3"), ("proven", "")):
            rows = parts.filter((pl.col("partition_id") == pid) & (pl.col("basis") == basis))
            points = [
                (start if t is None else t, None if v is None else min(v, hi))
                for t, v in zip(_nums(rows["valid_from"]), _nums(rows["through"]), strict=True)
            ]
            for line in _steps(points, end):
                out.append(
                    _polyline(
                        line,
                        x,
                        y,
                        stroke=color,
                        stroke_width="1.2",
                        stroke_dasharray=dash or "none",
                        opacity="0.75",
                    )
                )
    for basis, color, width in (("claimed", "#d62728", "2.5"), ("proven", "#000", "2.5")):
        rows = history.filter(pl.col("basis") == basis)
        points = [
            (start if t is None else t, None if v is None else min(v, hi))
            for t, v in zip(_nums(rows["at"]), _nums(rows["frontier"]), strict=True)
        ]
        for line in _steps(points, end):
            out.append(
                _polyline(line, x, y, stroke=color, stroke_width=width, class_=f"frontier-{basis}")
            )
        # a mark per pixel column at most: the first scalar change drawn there, with
        # how many more the column holds (every one is in frontier_history)
        scalar = rows.filter(pl.col("kind") == "scalar")
        columns = x.many(np.asarray(_nums(scalar["at"]), dtype=float)).astype(np.int64)
        marks = (
            scalar.with_columns(pl.Series("column", columns))
            .group_by("column", maintain_order=True)
            .agg(pl.all().first(), (pl.len() - 1).alias("more"))
        )
        for r in marks.iter_rows(named=True):
            more = r["more"]
            tip = (
                f"{basis} frontier {_cert(r['frontier'], r['frontier_inclusive'])} "
                f"from {_e(_label(r['at']))}, held by {_e(', '.join(r['limiting_partitions']))}"
            )
            if more:
                tip += f" (and {more} more changes here: see frontier_history.parquet)"
            out.append(
                f'<circle cx="{x(_num(r["at"])):.1f}" cy="{y(clamp(r["frontier"]) or lo):.1f}" '
                f'r="2.5" fill="{color}"><title>{tip}</title></circle>'
            )
    for r in found.iter_rows(named=True):
        xx = x(max(min(_num(r["at"]), end), start))
        color = SEVERITY_COLORS[r["severity"]]
        out.append(
            f'<line class="finding-mark" x1="{xx:.1f}" x2="{xx:.1f}" y1="{TOP}" '
            f'y2="{HEIGHT - BOTTOM}" stroke="{color}" stroke-width="1" opacity="0.6">'
            f"<title>{_e(r['severity'])} {_e(r['rule'])}: {_e(r['message'])}</title></line>"
        )
    out.append("</svg>")
    legend.append('<span><i style="background:#000;height:4px"></i>proven frontier</span>')
    legend.append('<span><i style="background:#d62728;height:4px"></i>claimed frontier</span>')
    legend.append(
        "<span>dashed: a partition's claim, solid: its proven certificate; "
        "vertical marks: findings</span>"
    )
    return "\n".join(out) + f'<div class="legend">{"".join(legend)}</div>'


def _time_ticks(x: _TimeAxis) -> list[str]:
    """Labels along the time axis, at least 100 px apart, and the axis breaks."""
    knots = x.knots
    picks = sorted({knots[0], knots[-1], *(knots[int(i * (len(knots) - 1) / 6)] for i in range(7))})
    out: list[str] = []
    last = -1000.0
    for t in picks:
        xx = x(t)
        if xx - last < 100 and t != knots[-1]:
            continue
        if xx - last < 100:
            out.pop()
        last = xx
        stamp = datetime.fromtimestamp(t, UTC).strftime("%H:%M:%S.%f")[:-3]
        out.append(
            f'<text x="{xx:.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{_e(stamp)}</text>'
        )
    for t, gap in x.breaks:
        xx = (x(t) + x(t + gap)) / 2
        out.append(
            f'<line class="axis-break" x1="{xx:.1f}" x2="{xx:.1f}" y1="{TOP}" '
            f'y2="{HEIGHT - BOTTOM}" stroke="#999" stroke-dasharray="2,3"/>'
        )
        out.append(
            f'<text x="{xx:.1f}" y="{HEIGHT - BOTTOM + 30}" text-anchor="middle">'
            f"+{_e(_duration(gap))}</text>"
        )
    return out


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "") -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _finding_rows(result: AuditResult) -> Iterable[Sequence[str]]:
    for r in result.findings.head(MAX_FINDINGS).iter_rows(named=True):
        where = "/".join(_e(v) for v in (r["scope_id"], r["partition_id"]) if v)
        extra = [
            f"{k} {_e(r[k])}"
            for k in ("epoch", "event_id", "attempt_id", "generation", "page_id")
            if r[k] is not None
        ]
        evidence = json.dumps(json.loads(r["evidence"]), indent=1) if r["evidence"] else ""
        yield (
            f'<span class="sev {r["severity"]}">{_e(r["severity"])}</span>',
            _e(r["rule"]),
            where + ("<br>" + "<br>".join(extra) if extra else ""),
            _e(_label(r["at"])) if r["at"] is not None else "",
            _e(r["message"])
            + f"<details><summary>evidence</summary><pre>{_e(evidence)}</pre></details>",
        )


def render_html(result: AuditResult, facts: dict[str, Any]) -> str:
    counts = facts["findings"]
    severity_row = [
        [f'<span class="sev {s}">{s}</span>', str(counts["by_severity"].get(s, 0))]
        for s in SEVERITIES
    ]
    rule_rows = [[_e(rule), str(n)] for rule, n in sorted(counts["by_rule"].items())]
    frontier_rows = [
        [
            _e(r["scope_id"]),
            _e(r["basis"]),
            _e(r["epoch"]),
            _e(r["kind"]),
            _cert(r["frontier"], r["frontier_inclusive"]) if r["kind"] == "scalar" else "",
            _e(", ".join(r["limiting_partitions"][:SHOWN]))
            + (
                f" +{len(r['limiting_partitions']) - SHOWN} more"
                if len(r["limiting_partitions"]) > SHOWN
                else ""
            ),
            _e(", ".join(r["reasons"])),
            _e(r["members"]),
        ]
        for r in result.frontiers.iter_rows(named=True)
    ]
    inputs = ", ".join(f"{_e(k)} {v['rows']:,}" for k, v in facts["inputs"]["tables"].items())
    scopes = sorted(set(result.frontiers["scope_id"].to_list()))
    timelines = "".join(
        f'<h3 id="timeline-{_e(s)}">{_e(s)}</h3>{_timeline(s, result)}' for s in scopes
    )
    why = "".join(f"<h3>{_e(s)}</h3>{why_panel(result, s)}" for s in scopes)
    findings_table = (
        _table(["severity", "rule", "where", "at", "message"], _finding_rows(result), "findings")
        if result.findings.height
        else '<p class="none">No findings: every rule that applies to this log set passed.</p>'
    )
    more = result.findings.height - MAX_FINDINGS
    severity_table = _table(["severity", "findings"], severity_row, "severities")
    frontier_table = _table(
        ["scope", "basis", "epoch", "kind", "frontier", "limiting", "reasons", "members"],
        frontier_rows,
        "frontiers",
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>reconcile audit</title>
<style>{STYLE}</style></head><body>
<h1>reconcile audit</h1>
<p class="meta">{_e(facts["inputs"]["logset"])} &middot; mapping:
{_e(mapping_text(facts["inputs"].get("mapping")))} &middot; as of {_e(facts["as_of"])}
&middot; read: {inputs}</p>
<h2>Summary</h2>
<div style="display:flex;gap:40px;flex-wrap:wrap">
<div><b>{counts["total"]} finding(s)</b>{severity_table}</div>
<div>{_table(["rule", "findings"], rule_rows, "rules")}</div>
</div>
<h2>Why is the frontier here?</h2>
{why}
<h2>Frontier</h2>
{frontier_table}
<h2>Frontier timeline</h2>
{timelines}
<h2>Findings</h2>
{findings_table}
{f"<p>... and {more} more in findings.json</p>" if more > 0 else ""}
</body></html>
"""
