"""report.html: the audit as one self-contained page (no fetches: it opens from a file).

Inline CSS, SVG and one small inline script: a summary; per scope, why the frontier
is where it is; a frontier timeline per scope (each shown partition's claimed and
proven certificates, the merged frontier on both bases and who holds it, epoch
changes, the findings marked where they happened, each mark a link to its finding);
and the findings table, filtered by severity, rule and scope, searched, sorted by a
click on a column, each row linked to its mark on the timeline. Without the script
the page still reads whole (the links and highlights work by anchors alone).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import polars as pl

from reconcile.audit import AuditResult, drawn_scopes
from reconcile.audit.findings import SEVERITIES
from reconcile.catalog import ACTIONS, RULES
from reconcile.mapping.spec import MappingError, load_mapping
from reconcile.render.exempt import not_applicable_lines
from reconcile.render.palette import PARTITION_COLORS, SEVERITY_COLORS
from reconcile.render.safe import html_text as _e
from reconcile.render.spans import lag_spans, stall_spans, vector_spans
from reconcile.render.timeaxis import TimeAxis, duration
from reconcile.render.validation import mapping_text
from reconcile.render.values import cert_text, times_as_text, value_text
from reconcile.render.why import SHOWN, why_panel

WIDTH, HEIGHT = 960, 375
LEFT, RIGHT, TOP, BOTTOM = 90, 50, 20, 55
COLORS = PARTITION_COLORS
MAX_FINDINGS = 2000

# Filters, sort, and the link from a finding to its mark: plain DOM, no fetches.
SCRIPT = """
(function(){
const rows=[...document.querySelectorAll('table.findings > tbody > tr')];
const count=document.getElementById('shown-count');
const get=id=>document.getElementById(id);
function apply(){
  const f={severity:get('filter-severity').value,rule:get('filter-rule').value,
           scope:get('filter-scope').value};
  const q=get('filter-search').value.trim().toLowerCase();
  let shown=0;
  for(const r of rows){
    const ok=(!f.severity||r.dataset.severity===f.severity)&&(!f.rule||r.dataset.rule===f.rule)
      &&(!f.scope||r.dataset.scope===f.scope)&&(!q||r.textContent.toLowerCase().includes(q));
    r.hidden=!ok; if(ok) shown++;
  }
  count.textContent=shown+' of '+rows.length+' shown';
}
function highlight(n){
  document.querySelectorAll('.finding-mark.hl,tr.hl').forEach(e=>e.classList.remove('hl'));
  const m=get('mark-'+n), r=get('finding-'+n);
  if(m) m.classList.add('hl');
  if(r) r.classList.add('hl');
  return m;
}
if(rows.length){
  for(const id of ['filter-severity','filter-rule','filter-scope','filter-search'])
    get(id).addEventListener('input',apply);
  for(const r of rows) r.addEventListener('click',e=>{
    if(e.target.closest('a,summary,details')) return;
    const m=highlight(r.dataset.n); if(m) m.scrollIntoView({block:'center'});
  });
  for(const a of document.querySelectorAll('a.to-mark')) a.addEventListener('click',e=>{
    highlight(a.closest('tr').dataset.n);
  });
  for(const a of document.querySelectorAll('a.mark-link')) a.addEventListener('click',e=>{
    const n=a.firstElementChild.dataset.finding; const r=get('finding-'+n);
    if(r&&r.hidden){for(const x of rows) x.hidden=false; apply();}
    highlight(n);
  });
  const body=document.querySelector('table.findings > tbody');
  const heads=document.querySelectorAll('table.findings th[data-sort]');
  heads.forEach(th=>th.addEventListener('click',()=>{
    const k=th.dataset.sort, up=th.dataset.dir!=='asc'; th.dataset.dir=up?'asc':'desc';
    const key=r=>k==='rank'?Number(r.dataset.rank):(k==='rule'||k==='at'?r.dataset[k]:
      r.children[k==='where'?2:4].textContent);
    rows.sort((a,b)=>{const x=key(a),y=key(b);return (x<y?-1:x>y?1:0)*(up?1:-1);});
    for(const r of rows) body.appendChild(r);
  }));
  apply();
}
})();
"""

STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#222;
max-width:1400px}
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
.finding-mark.hl,line.finding-mark:target{stroke-width:5;opacity:1}
tr.hl,tr:target{background:#fff3c4}
table.findings{width:100%}table.findings th[data-sort]{cursor:pointer}
table.findings .kv,table.findings .at{white-space:nowrap}
table.findings tbody tr{cursor:pointer}
.filters{margin:.5em 0;font-size:.9em}.filters label{margin-right:12px}
table.evidence{font-size:.9em;margin:.2em 0}table.evidence th{background:none;font-weight:600}
.why ul{margin:.2em 0 .8em}.why p{margin:.4em 0}
a.doc{font-size:.8em;text-decoration:none;border:1px solid #bbb;border-radius:8px;padding:0 4px}
"""


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
    return value_text(value)


def _with_text(frame: pl.DataFrame, *names: str) -> pl.DataFrame:
    """``frame`` with ``<name>_text`` beside each of ``names``: its times as exact text
    for labels (a Python datetime would cut nanoseconds off), the value itself kept
    for positions."""
    shown = times_as_text(frame.select(names), " ")
    return frame.with_columns(shown[name].alias(f"{name}_text") for name in names)


def _cert(through: Any, inclusive: Any) -> str:
    # a frontier's null value is +inf (docs/contract.md §2)
    return _e(cert_text(through, inclusive, null="+inf"))


def _ticks(lo: float, hi: float, most: int = 6) -> list[float]:
    """Whole-number gridline values within [lo, hi], a round step apart (1, 2 or 5
    times a power of ten): a gridline labelled 4 lies at 4, not at 3.75."""
    span = hi - lo
    if not span > 0 or not math.isfinite(span):
        return [lo]
    step = 1.0
    for power in range(0, 20):
        for m in (1, 2, 5):
            step = m * 10.0**power
            if span / step <= most - 1:
                break
        else:
            continue
        break
    first = math.ceil(lo / step) * step
    count = math.floor((hi - first) / step) + 1
    return [first + k * step for k in range(max(count, 0))] or [lo]


# partitions with findings but no line, named under a chart
SHOWN_UNDRAWN = 8


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
    x: TimeAxis,
    y: _Scale,
    **attrs: str,
) -> str:
    xy = np.asarray(line, dtype=float).reshape(-1, 2)
    px, py = _thinned_arrays(np.round(x.many(xy[:, 0]), 1), np.round(y.many(xy[:, 1]), 1))
    pts = " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(px.tolist(), py.tolist(), strict=True))
    # class_ is class (a Python keyword); stroke_width is stroke-width
    extra = " ".join(f'{k.rstrip("_").replace("_", "-")}="{v}"' for k, v in attrs.items())
    return f'<polyline points="{pts}" fill="none" {extra}/>'


# the column of a scope's findings that holds each one's place in the whole list
# (:func:`_by_scope`), the row of the findings table its mark links to
PLACE = "__place"


def _by_scope(result: AuditResult, scopes: Sequence[str]) -> dict[str, AuditResult]:
    """Each scope's result alone: every frame with a ``scope_id`` column split once,
    the findings with their place in the whole list (``PLACE``). A filter per scope
    and frame made the page quadratic in the scopes (1,000 scopes: 29 s of timelines)."""
    placed = result.findings.with_row_index(PLACE)
    split: dict[str, dict[str, Any]] = {s: {} for s in scopes}
    for name in (
        "watermarks",
        "frontiers",
        "frontier_history",
        "timelines",
        "anchors",
        "blocking_receipts",
    ):
        frame = getattr(result, name)
        if "scope_id" not in frame.columns:
            continue
        parts = frame.partition_by("scope_id", as_dict=True) if frame.height else {}
        for scope in scopes:
            split[scope][name] = parts.get((scope,), frame.clear())
    found = placed.partition_by("scope_id", as_dict=True) if placed.height else {}
    return {
        scope: dataclasses.replace(
            result, findings=found.get((scope,), placed.clear()), **split[scope]
        )
        for scope in scopes
    }


def _at_t(
    result: AuditResult,
    scope: str,
    basis: str,
    rows: pl.DataFrame,
    xx: float,
    y: Callable[[float], float],
    clamp: Callable[[Any], float | None],
    lo: float,
    cut: bool,
) -> list[str]:
    """A hollow mark at T where the frontier at T (frontiers.parquet) is a scalar the
    history's last row does not hold, and for the proven frontier wherever its line
    ends before T (``cut``): the history has the frontier at §4.15's instants alone
    (won writes, epoch changes), and the proven frontier also moves between them as
    receipts arrive, so its line ends at the last of them."""
    now = result.frontiers.filter((pl.col("scope_id") == scope) & (pl.col("basis") == basis))
    keys = ["kind", "frontier", "frontier_inclusive"]
    last = rows.sort("at").tail(1)
    if not now.height or now["kind"][0] != "scalar" or now["frontier"][0] is None:
        return []
    # compared as exact text: as Python datetimes, times nanoseconds apart are equal
    same = (
        last.height > 0
        and times_as_text(last.select(keys)).rows() == times_as_text(now.select(keys)).rows()
    )
    if same and not cut:
        return []
    text = _with_text(now, "frontier").row(0, named=True)
    tip = f"{basis} frontier at T: {_cert(text['frontier_text'], text['frontier_inclusive'])}," + (
        " as at the last instant the history records (it records the frontier at won"
        " writes and epoch changes only; the proven frontier moves between them as"
        " receipts arrive)"
        if same
        else " reached after the last instant the history records (it records the"
        " frontier at won writes and epoch changes only)"
    )
    yy = y(clamp(now["frontier"][0]) or lo)
    return [
        f'<rect x="{xx - 3.5:.1f}" y="{yy - 3.5:.1f}" width="7" height="7" fill="#fff"'
        f' stroke="#000" stroke-width="1.5" class="at-t-{basis}"><title>{tip}</title></rect>'
    ]


def _timeline(scope: str, result: AuditResult) -> str:
    """The frontier timeline of ``scope``, from its own result (:func:`_by_scope`)."""
    history = result.frontier_history.filter(pl.col("scope_id") == scope).sort("at")
    parts = result.timelines.filter(pl.col("scope_id") == scope)
    found = (
        result.findings.rename({PLACE: "n"})
        .filter((pl.col("scope_id") == scope) & pl.col("at").is_not_null())
        .filter(pl.col("n") < MAX_FINDINGS)
    )
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
    x = TimeAxis([start, end, *times], LEFT, WIDTH - RIGHT)
    y = _Scale(lo, hi, HEIGHT - BOTTOM, TOP)

    def clamp(v: Any) -> float | None:
        return None if v is None else min(_num(v), hi)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'role="img" aria-label="frontier timeline of {_e(scope)}" class="timeline">',
        f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH - LEFT - RIGHT}" '
        f'height="{HEIGHT - TOP - BOTTOM}" fill="#fcfcfc" stroke="#ddd"/>',
    ]
    is_time = isinstance(history["frontier"].dtype, pl.Datetime)
    for value in [lo + (hi - lo) * i / 4 for i in range(5)] if is_time else _ticks(lo, hi):
        yy = y(value)
        shown: Any = (
            datetime.fromtimestamp(value, UTC).replace(tzinfo=None) if is_time else round(value)
        )
        out.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{yy:.1f}" y2="{yy:.1f}" stroke="#eee"/>'
        )
        if is_time:
            # a date and a clock time: two short lines that fit the margin
            day, _, clock = _label(shown).partition(" ")
            out.append(
                f'<text x="{LEFT - 6}" y="{yy - 2:.1f}" text-anchor="end" font-size="10">'
                f'<tspan x="{LEFT - 6}">{_e(day)}</tspan>'
                f'<tspan x="{LEFT - 6}" dy="11">{_e(clock or "00:00:00")}</tspan></text>'
            )
        else:
            out.append(
                f'<text x="{LEFT - 6}" y="{yy + 4:.1f}" text-anchor="end">'
                f"{_e(_label(shown))}</text>"
            )
    # what each axis is: the scope's ordering up, the log's own time across
    out.append(
        f'<text class="axis-title" x="{LEFT}" y="{TOP - 6}">frontier, in the scope\'s'
        f" ordering ({'event time' if is_time else 'position'})</text>"
        f'<text class="axis-title" x="{WIDTH - RIGHT}" y="{HEIGHT - 4}" text-anchor="end">'
        "when, by the logs' own times (long idle stretches shortened)</text>"
    )
    out.extend(_time_ticks(x))
    above = parts.filter(
        pl.Series([v is not None and v > hi for v in _nums(parts["through"])], dtype=pl.Boolean)
    )
    if above.height:
        # a value over the scale is drawn on its top edge: said there, never silently
        who = sorted(set(above["partition_id"].to_list()))
        names = ", ".join(who[:3]) + (f" +{len(who) - 3} more" if len(who) > 3 else "")
        top = _with_text(above.select(pl.col("through").max()), "through")["through_text"][0]
        out.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{TOP}" y2="{TOP}" stroke="#999"'
            ' stroke-dasharray="2,2"/>'
        )
        out.append(
            # above the plot, clear of the epoch labels inside it
            f'<text x="{WIDTH - RIGHT}" y="{TOP - 6}" text-anchor="end" class="offscale">'
            f"off scale, drawn on this edge: {_e(names)}, up to {_e(_label(top))}</text>"
        )
    # the stretches where they are drawn, and their ends as exact text for the labels
    scope_findings = result.findings.filter(pl.col("scope_id") == scope)
    stalls = stall_spans(scope_findings)
    until = (
        pl.col("evidence")
        .str.json_path_match("$.until")
        .str.to_datetime(format="%Y-%m-%d %H:%M:%S%.f", time_unit="ns", strict=False)
        .alias("until")
    )
    stall_labels = [
        (partition, a_text, _label(b) if b_text is None else b_text)
        for (partition, _, b), (_, a_text, b_text) in zip(
            stalls,
            stall_spans(
                _with_text(scope_findings.with_columns(until), "at", "until"),
                "at_text",
                "until_text",
            ),
            strict=True,
        )
    ]
    out.extend(_stall_bands(stalls, stall_labels, x, start, end))
    timed = _with_text(history, "at")
    lags = lag_spans(history)
    lag_labels = lag_spans(timed, "at_text")
    out.extend(_lag_strip(lags, lag_labels, x, start, end))
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
    for basis, dash in (("claimed", "7,4"), ("proven", "none")):
        color, width = "#000", "2.5"
        rows = history.filter(pl.col("basis") == basis)
        points = [
            (start if t is None else t, None if v is None else min(v, hi))
            for t, v in zip(_nums(rows["at"]), _nums(rows["frontier"]), strict=True)
        ]
        # the proven frontier moves between the history's instants, unrecorded: its
        # line ends at the last of them (the claimed one changes only there)
        stop = end
        if basis == "proven" and points and points[-1][0] < end:
            stop = points[-1][0]
        for line in _steps(points, stop):
            out.append(
                _polyline(
                    line,
                    x,
                    y,
                    stroke=color,
                    stroke_width=width,
                    stroke_dasharray=dash,
                    class_=f"frontier-{basis}",
                )
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
        for r in _with_text(marks, "at", "frontier").iter_rows(named=True):
            more = r["more"]
            tip = (
                f"{basis} frontier {_cert(r['frontier_text'], r['frontier_inclusive'])} "
                f"from {_e(_label(r['at_text']))},"
                f" held by {_e(_capped(r['limiting_partitions']))}"
            )
            if more:
                tip += f" (and {more} more changes here: see frontier_history.parquet)"
            out.append(
                f'<circle cx="{x(_num(r["at"])):.1f}" cy="{y(clamp(r["frontier"]) or lo):.1f}" '
                f'r="2.5" fill="{color}"><title>{tip}</title></circle>'
            )
        out.extend(_at_t(result, scope, basis, rows, x(end), y, clamp, lo, stop < end))
    out.extend(_epoch_changes(history, x, y))
    # marks that would share a pixel column (findings at one instant, often T) are
    # spread 3 px apart to the left, each still its own link; the title has the time
    taken: dict[int, int] = {}
    for r in _with_text(found, "at").iter_rows(named=True):
        xx = x(max(min(_num(r["at"]), end), start))
        column = round(xx)
        xx = max(LEFT, xx - 3 * taken.get(column, 0))
        taken[column] = taken.get(column, 0) + 1
        color = SEVERITY_COLORS[r["severity"]]
        n = r["n"]
        out.append(
            f'<a href="#finding-{n}" class="mark-link"><line id="mark-{n}" class="finding-mark"'
            f' data-finding="{n}" x1="{xx:.1f}" x2="{xx:.1f}" y1="{TOP}" y2="{HEIGHT - BOTTOM}"'
            f' stroke="{color}" stroke-width="1.5" opacity="0.6">'
            f"<title>#{n} {_e(r['severity'])} {_e(r['rule'])} at {_e(_label(r['at_text']))}:"
            f" {_e(r['message'])}</title>"
            "</line></a>"
        )
    out.append("</svg>")
    legend.append('<span><i style="background:#000;height:4px"></i>proven frontier</span>')
    legend.append(
        '<span><i style="background:repeating-linear-gradient(90deg,#000 0 7px,'
        'transparent 7px 11px);height:4px"></i>claimed frontier</span>'
    )
    # where a frontier is a vector it has no line: said, never a line that just stops
    for basis in ("proven", "claimed"):
        spans = vector_spans(timed, basis, "at_text")
        if spans:
            shown = "; ".join(
                ("from the start" if a is None else f"from {_e(_label(a))}")
                + (" on" if b is None else f" to {_e(_label(b))}")
                for a, b in spans[:3]
            )
            more = f" +{len(spans) - 3} more (frontier_history.parquet)" if len(spans) > 3 else ""
            legend.append(
                f'<span class="vector-note">no {basis} line {shown}{more}: the {basis}'
                " frontier is a vector there, no single value (see Why is the frontier"
                " here?)</span>"
            )
    if stalls:
        legend.append(
            '<span class="stall-note"><i style="background:#c6dbef;height:10px"></i>'
            + _e(
                _spans_text([(a, b) for _, a, b in stall_labels], "stalled_partition", stall_labels)
            )
            + "</span>"
        )
    vectors = bool(vector_spans(history, "proven") or vector_spans(history, "claimed"))
    if lags or vectors:
        legend.append(
            f'<span class="lag-note"><i style="background:{LAG_COLOR};height:6px"></i>'
            + _e(
                _spans_text(lag_labels, "frontier_history", None)
                if lags
                else "no orange strip: where both frontiers are single values, the claimed"
                " one never stood above the proven one"
            )
            + _e(
                "; none where a frontier is a vector: claimed and proven have no single"
                " values to compare there (the overclaim findings judge each partition)"
                if vectors
                else ""
            )
            + "</span>"
        )
    legend.append(
        "<span>dashed: a partition's claim, solid: its proven certificate; "
        "vertical marks: findings (click one for its row); purple dashes: epoch changes</span>"
    )
    # how many of the scope's partitions are drawn: said, so that none seems missing
    every = set(result.watermarks.filter(pl.col("scope_id") == scope)["partition_id"].to_list())
    if len(every) > len(shown_parts):
        legend.append(
            f'<span class="drawn-count">{len(shown_parts)} of {len(every)} partitions drawn:'
            " those that held the frontier most often, those with the most severe findings,"
            " and those holding it at T (watermarks.parquet has every one)</span>"
        )
    # partitions with findings whose lines are not drawn: named, never left out silently
    undrawn = sorted(set(found["partition_id"].drop_nulls().to_list()) - set(shown_parts))
    if undrawn:
        names = ", ".join(undrawn[:SHOWN_UNDRAWN])
        if len(undrawn) > SHOWN_UNDRAWN:
            names += f" +{len(undrawn) - SHOWN_UNDRAWN} more"
        legend.append(
            f'<span class="undrawn">not drawn, though they have findings: {_e(names)}'
            " (Analysis.history and reconcile.plots.frontier_timeline draw any)</span>"
        )
    return "\n".join(out) + f'<div class="legend">{"".join(legend)}</div>'


LAG_COLOR = "#e6550d"
TICK_SPACING = 130  # px between the time axis's labels, about
SHOWN_SPANS = 3


def _x_range(x: TimeAxis, a: Any, b: Any, start: float, end: float) -> tuple[float, float]:
    """A stretch's left and right x (a stretch without an end lasts to T)."""
    lo = x(max(_num(a), start))
    hi = x(end if b is None else min(_num(b), end))
    return lo, max(hi, lo + 1.0)


def _stall_bands(
    stalls: Sequence[tuple[str, Any, Any]],
    labels: Sequence[tuple[str, Any, Any]],
    x: TimeAxis,
    start: float,
    end: float,
) -> list[str]:
    """A pale band the plot's height per stall, with the partition and how long
    (``labels``: the same stalls, their ends as exact text)."""
    out = []
    for (partition, a, b), (_, a_text, b_text) in zip(stalls, labels, strict=True):
        lo, hi = _x_range(x, a, b, start, end)
        seconds = (b - a).total_seconds()
        out.append(
            f'<rect class="stall" x="{lo:.1f}" y="{TOP}" width="{hi - lo:.1f}"'
            f' height="{HEIGHT - TOP - BOTTOM}" fill="#c6dbef" opacity="0.45">'
            f"<title>{_e(partition)} stalled {_e(duration(seconds))}, from {_e(_label(a_text))}"
            f" to {_e(_label(b_text))}: it held the claimed"
            " frontier at one value"
            " (stalled_partition)</title></rect>"
            f'<text class="stall-label" x="{lo + 3:.1f}" y="{HEIGHT - BOTTOM - 12}"'
            f' fill="#08519c">{_e(partition)} stalled {_e(duration(seconds))}</text>'
        )
    return out


def _lag_strip(
    lags: Sequence[tuple[Any, Any]],
    labels: Sequence[tuple[Any, Any]],
    x: TimeAxis,
    start: float,
    end: float,
) -> list[str]:
    """A strip along the bottom of the plot where the claimed frontier stood above
    the proven one; stretches closer than a pixel are drawn as one (``labels``: the
    same stretches, their ends as exact text)."""
    merged: list[tuple[float, float, Any, Any]] = []
    for (a, b), (a_text, b_text) in zip(lags, labels, strict=True):
        lo, hi = _x_range(x, a, b, start, end)
        if merged and lo - merged[-1][1] < 1.0:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]), merged[-1][2], b_text)
        else:
            merged.append((lo, hi, a_text, b_text))
    return [
        f'<rect class="lag" x="{lo:.1f}" y="{HEIGHT - BOTTOM - 6}" width="{hi - lo:.1f}"'
        f' height="6" fill="{LAG_COLOR}" opacity="0.55"><title>claimed frontier above the'
        f" proven one from {_e(_label(a))}"
        + (" on" if b is None else f" to {_e(_label(b))}")
        + "</title></rect>"
        for lo, hi, a, b in merged
    ]


def _spans_text(
    spans: Sequence[tuple[Any, Any]], where: str, stalls: Sequence[tuple[str, Any, Any]] | None
) -> str:
    """The legend's words for stalls (with their partitions) or lags: the first few
    stretches, and how many more."""
    items = []
    for n, (a, b) in enumerate(spans[:SHOWN_SPANS]):
        when = f"from {_label(a)}" + (" on" if b is None else f" to {_label(b)}")
        items.append(f"{stalls[n][0]} {when}" if stalls is not None else when)
    more = f" +{len(spans) - SHOWN_SPANS} more ({where})" if len(spans) > SHOWN_SPANS else ""
    if stalls is not None:
        return (
            "blue bands: a partition stalled, holding the claimed frontier: "
            + "; ".join(items)
            + more
        )
    return (
        "orange strip: the claimed frontier stood above the proven one (a claim the logs"
        " do not prove): " + "; ".join(items) + more
    )


def _capped(names: Sequence[str]) -> str:
    """At most SHOWN names, and how many more."""
    more = f" +{len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return ", ".join(names[:SHOWN]) + more


def _epoch_changes(history: pl.DataFrame, x: TimeAxis, y: _Scale) -> list[str]:
    """A dashed line and a label where the epoch in force changes (either basis)."""
    rows = _with_text(history.select("at", "epoch").unique().sort("at"), "at")
    out: list[str] = []
    previous: Any = None
    for at, epoch, at_text in rows.iter_rows():
        if epoch is None or epoch == previous:
            continue
        if previous is not None:
            xx = x(_num(at))
            out.append(
                f'<line class="epoch-change" x1="{xx:.1f}" x2="{xx:.1f}" y1="{TOP}"'
                f' y2="{HEIGHT - BOTTOM}" stroke="#7b3294" stroke-width="1.5"'
                f' stroke-dasharray="6,3"><title>epoch {_e(epoch)} in force from'
                f" {_e(_label(at_text))}</title></line>"
                f'<text class="epoch-label" x="{xx + 3:.1f}" y="{TOP + 12}"'
                f' fill="#7b3294">epoch {_e(epoch)}</text>'
            )
        previous = epoch
    return out


def _time_ticks(x: TimeAxis) -> list[str]:
    """Labels along the time axis, spread evenly over its width (at least 100 px apart,
    none inside a shortened stretch, whose length its break says), and the breaks."""
    knots = x.knots
    gaps = [(x(t), x(t + gap)) for t, gap in x.breaks]
    steps = max(1, int((x.b - x.a) // TICK_SPACING))
    inner = [
        x.time_at(x.a + (x.b - x.a) * i / steps)
        for i in range(1, steps)
        if not any(lo - 20 <= x.a + (x.b - x.a) * i / steps <= hi + 20 for lo, hi in gaps)
    ]
    picks = sorted({knots[0], knots[-1], *inner})
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
            f"+{_e(duration(gap))}</text>"
        )
    return out


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "") -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _evidence(text: str | None) -> str:
    """A finding's evidence as a small table of its fields."""
    if not text:
        return ""
    fields = json.loads(text)
    if not isinstance(fields, dict):
        return f"<pre>{_e(json.dumps(fields))}</pre>"
    rows = "".join(
        f"<tr><th>{_e(k)}</th><td>{_e(v if isinstance(v, str) else json.dumps(v))}</td></tr>"
        for k, v in fields.items()
    )
    return f'<table class="evidence">{rows}</table>'


WHERE_KEYS = ("epoch", "event_id", "attempt_id", "generation", "page_id")


def _read_by(facts: dict[str, Any]) -> str:
    """How the log set was read: a framework's reader, and what it can prove; else
    the mapping in use (or the contract's own layout)."""
    source = facts["inputs"].get("source")
    if source:
        return f"read by the {_e(source['reader'])} reader: {_e(source['proves'])}"
    return "mapping:\n" + _e(mapping_text(facts["inputs"].get("mapping")))


def _mapped_names(facts: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Where the audit read through a mapping: per contract table, each contract
    column the mapping takes from a column of another name, and the user's words for
    it (``run``, ``ts_ms (epoch_ms)``). Empty for the contract's own layout."""
    path = facts["inputs"].get("mapping")
    if not path:
        return {}
    try:
        mapping = load_mapping(path)
    except MappingError:  # read by the audit a moment ago; gone since: names unshown
        return {}
    return {
        t.table: {name: spec.label() for name, spec in t.columns if spec.label() != name}
        for t in mapping.tables
    }


def _user_words(names: dict[str, dict[str, str]]) -> dict[str, str]:
    """The user's name for each key a finding's 'where' shows, where every mapped
    table that has that column names it alike (else the contract's name stays)."""
    words: dict[str, str] = {}
    for key in WHERE_KEYS:
        said = {columns[key] for columns in names.values() if key in columns}
        if len(said) == 1:
            words[key] = said.pop()
    return words


def _names_table(names: dict[str, dict[str, str]]) -> str:
    """The mapping's renames, as a table: findings and tables below use the
    contract's names, and this says what each is called in the user's logs."""
    rows = [
        [_e(table), f"<code>{_e(column)}</code>", f"<code>{_e(label)}</code>"]
        for table, columns in names.items()
        for column, label in columns.items()
    ]
    if not rows:
        return ""
    return (
        '<details class="names"><summary>Names in your logs: the findings\' keys'
        " (attempt, generation, page, event, epoch) are in your column names where your"
        " mapping names them alike in every table; messages, evidence, the why panel and"
        " the Parquet tables use the contract's names, which your mapping reads from"
        " these</summary>"
        + _table(["table", "contract column", "in your logs"], rows, "names")
        + "</details>"
    )


def _not_drawn(drawn: int, scopes: int) -> str:
    """What the page says where it draws fewer timelines than there are scopes."""
    if drawn == scopes:
        return ""
    return (
        f'<p class="drawn-count">{drawn} of {scopes:,} scopes drawn: those with the most'
        " severe findings, then the most findings, then by name. Every scope's frontier is"
        " in the table above and in frontier_history.parquet; draw one with"
        " reconcile.plots.frontier_timeline.</p>"
    )


def _findings_table(
    result: AuditResult, words: dict[str, str] | None = None, drawn: set[str] | None = None
) -> str:
    """The findings, one row each with what the filters and the sort read; the keys
    of 'where' in the user's words where a mapping renames them."""
    words = words or {}
    rank = {s: i for i, s in enumerate(SEVERITIES)}
    head = "".join(
        f'<th data-sort="{k}" title="sort">{_e(h)}</th>'
        for k, h in (
            ("rank", "severity"),
            ("rule", "rule"),
            ("where", "where"),
            ("at", "at"),
            ("message", "message"),
        )
    )
    body = []
    listed = _with_text(result.findings.head(MAX_FINDINGS), "at")
    for n, r in enumerate(listed.iter_rows(named=True)):
        where = "/".join(_e(v) for v in (r["scope_id"], r["partition_id"]) if v)
        extra = [
            f'<span class="kv" title="{k}">{_e(words.get(k, k))} {_e(r[k])}</span>'
            for k in WHERE_KEYS
            if r[k] is not None
        ]
        at = _label(r["at_text"]) if r["at"] is not None else ""
        marked = r["at"] is not None and (drawn is None or r["scope_id"] in drawn)
        link = f' <a href="#mark-{n}" class="to-mark">timeline</a>' if marked else ""
        attrs = (
            f'id="finding-{n}" data-n="{n}" data-rank="{rank[r["severity"]]}"'
            f' data-severity="{r["severity"]}" data-rule="{_e(r["rule"])}"'
            f' data-scope="{_e(r["scope_id"])}" data-partition="{_e(r["partition_id"])}"'
            f' data-at="{_e(at)}"'
        )
        cells = (
            f'<span class="sev {r["severity"]}">{_e(r["severity"])}</span>',
            f'{_e(r["rule"])} <a href="#rule-{_e(r["rule"])}" class="doc"'
            ' title="what it means">?</a>',
            where + ("<br>" + "<br>".join(extra) if extra else ""),
            f'<span class="at">{_e(at)}</span>' + link,
            _e(r["message"])
            + f"<details><summary>evidence</summary>{_evidence(r['evidence'])}</details>",
        )
        body.append(f"<tr {attrs}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return (
        f'<table class="findings"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _inline_code(text: str) -> str:
    """Markdown text with `code` spans, as escaped HTML."""
    parts = text.split("`")
    return "".join(
        f"<code>{_e(part)}</code>" if n % 2 else _e(part) for n, part in enumerate(parts)
    )


def _rules_found(result: AuditResult) -> str:
    """What each rule found means, and what to do about it (the text of
    docs/rules.md, carried in the package: the report travels without the docs)."""
    items = "".join(
        f'<li id="rule-{_e(rule)}"><b>{_e(rule)}</b> ({_e(RULES[rule].severity)}):'
        f" {_e(RULES[rule].meaning)}. <b>What to do.</b> {_inline_code(ACTIONS[rule])}"
        f" (docs/rules.md#{_e(rule)})</li>"
        for rule in sorted(set(result.findings["rule"].to_list()))
        if rule in RULES
    )
    return f'<ul class="rules-found">{items}</ul>' if items else ""


def _filters(result: AuditResult) -> str:
    """The controls above the findings: severity, rule, scope, and a search box."""

    def select(name: str, label: str, values: Iterable[str]) -> str:
        options = "".join(f'<option value="{_e(v)}">{_e(v)}</option>' for v in values)
        return (
            f'<label>{label} <select id="filter-{name}" data-filter="{name}">'
            f'<option value="">all</option>{options}</select></label>'
        )

    rules = sorted(set(result.findings["rule"].to_list()))
    scopes = sorted(set(result.findings["scope_id"].to_list()))
    return (
        '<div class="filters">'
        + select("severity", "severity", SEVERITIES)
        + select("rule", "rule", rules)
        + select("scope", "scope", scopes)
        + '<label>search <input id="filter-search" type="search"'
        ' placeholder="partition, event, message"></label>'
        ' <span id="shown-count"></span></div>'
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
            _cert(r["frontier"], r["frontier_inclusive"])
            if r["kind"] == "scalar"
            else f'vector (<a href="#why-{_e(r["scope_id"])}">why</a>)',
            _e(", ".join(r["limiting_partitions"][:SHOWN]))
            + (
                f" +{len(r['limiting_partitions']) - SHOWN} more"
                if len(r["limiting_partitions"]) > SHOWN
                else ""
            ),
            _e(", ".join(r["reasons"])),
            _e(r["members"]),
        ]
        for r in times_as_text(result.frontiers, " ").iter_rows(named=True)
    ]
    inputs = ", ".join(f"{_e(k)} {v['rows']:,}" for k, v in facts["inputs"]["tables"].items())
    names = _mapped_names(facts)
    scopes = sorted(set(result.frontiers["scope_id"].to_list()))
    drawn = set(drawn_scopes(scopes, result.findings))
    alone = _by_scope(result, scopes)
    timelines = _not_drawn(len(drawn), len(scopes)) + "".join(
        f'<h3 id="timeline-{_e(s)}">{_e(s)}</h3>{_timeline(s, alone[s])}'
        for s in scopes
        if s in drawn
    )
    why = "".join(f"<h3>{_e(s)}</h3>{why_panel(alone[s], s)}" for s in scopes)
    findings_table = (
        _filters(result) + _findings_table(result, _user_words(names), drawn)
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
<p class="meta">{_e(facts["inputs"]["logset"])} &middot; {_read_by(facts)}
 &middot; as of {_e(facts["as_of"])}
&middot; read: {inputs}</p>
{_names_table(names)}
<h2>Summary</h2>
<div style="display:flex;gap:40px;flex-wrap:wrap">
<div><b>{counts["total"]} finding(s)</b>{severity_table}</div>
<div>{_table(["rule", "findings"], rule_rows, "rules")}</div>
</div>
{"".join(f'<p class="not-applicable">{_e(line)}</p>' for line in not_applicable_lines(facts))}
<h2>Why is the frontier here?</h2>
{why}
<h2>Frontier</h2>
{frontier_table}
<h2>Frontier timeline</h2>
{timelines}
<h2>Findings</h2>
{findings_table}
{f"<p>... and {more} more in findings.json</p>" if more > 0 else ""}
{"<h2>Rules found</h2>" + _rules_found(result) if result.findings.height else ""}
<script>{SCRIPT}</script>
</body></html>
"""
