"""Pictures for notebooks, with matplotlib (offline).

Each function draws one picture from the engine's frames and returns the figure: a
:class:`matplotlib.figure.Figure` of its own, not registered with pyplot, so that
drawing changes nothing of the session's (its backend, its open figures). A notebook
shows it as a cell's value (Jupyter, marimo); :func:`save` writes it where
``RECONCILE_FIGURES`` points (when it is set), so that a notebook run headless leaves
its pictures behind.
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import polars as pl

from reconcile.errors import UsageError
from reconcile.frames import TableKind, check_table
from reconcile.render.palette import FRONTIER_COLOR, PARTITION_COLORS, SEVERITY_COLORS
from reconcile.render.timeaxis import TimeAxis, duration

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# ISO 8601 text for T: a date, a time to the second, a fraction, an offset (or Z)
_ISO_TEXT = re.compile(
    r"(?P<head>[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2})"
    r"(?:\.(?P<fraction>[0-9]{1,9}))?(?P<zone>Z|[+-][0-9]{2}:?[0-9]{2})?"
)

MISSING = (
    "reconcile.plots draws with matplotlib, which is not installed: install the"
    " notebooks extra, pip install 'reconcile[notebooks]' (or uv sync --extra notebooks)"
)


def _figure(width: float, height: float) -> tuple[Figure, Any]:
    """A figure of its own with one axes: never pyplot's, which would register it (it
    stays open, and is drawn again by an inline backend) and may need a backend
    chosen. matplotlib is an extra (``reconcile[notebooks]``), imported on first use;
    a clear error names it when missing."""
    try:
        # the package first: its modules may be loaded while it is not (a notebook
        # that removed it, a test that blocks it), and it would fail inside them
        import matplotlib  # noqa: F401, PLC0415
        from matplotlib.figure import Figure  # noqa: PLC0415
    except ImportError as error:
        raise ImportError(MISSING) from error
    fig = Figure(figsize=(width, height))
    return fig, fig.add_subplot()


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class _T(NamedTuple):
    """T as a picture takes it (:func:`_t`)."""

    seconds: float  # since the epoch, for the axis
    ns: int | None  # since the epoch, exact, for comparing with the tables' times
    unit: int  # the nanoseconds ``ns`` is given to: 1 (text), 1000 (a datetime)


def _instant(value: Any) -> float:
    """T as seconds since the epoch: a datetime (naive meaning UTC), ISO 8601 text
    (``Analysis.as_of_iso``: naive UTC, to the nanosecond; an offset is honoured) or
    a number of seconds."""
    return _t(value).seconds


def _ns(moment: datetime) -> int:
    """A datetime (naive meaning UTC) as nanoseconds since the epoch, exactly."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return (aware - _EPOCH) // timedelta(microseconds=1) * 1000


def _t(value: Any) -> _T:
    """T (as :func:`_instant` takes it) as seconds since the epoch, for the axis, and
    as nanoseconds, exact, for comparing it with the tables' times (a float second
    holds about 0.2 µs today): to the nanosecond from text, to the microsecond from a
    datetime, none from a number of seconds, which names no exact instant."""
    if isinstance(value, str):
        text = value.strip()
        match = _ISO_TEXT.fullmatch(text)
        if match is None:
            raise UsageError(
                f"as_of {value!r} is not ISO 8601 text: pass analysis.as_of_iso or analysis.as_of"
            )
        # a datetime holds microseconds: the digits past the sixth are added back
        head, digits, zone = match.group("head"), match.group("fraction") or "", match.group("zone")
        try:
            moment = datetime.fromisoformat(f"{head}.{digits[:6].ljust(6, '0')}{zone or ''}")
        except ValueError:
            raise UsageError(
                f"as_of {value!r} is not an instant: pass analysis.as_of_iso or analysis.as_of"
            ) from None
        seconds = _seconds([moment])[0]
        assert seconds is not None
        extra = int(digits[6:].ljust(3, "0"))
        return _T(seconds + extra / 1e9, _ns(moment) + extra, 1)
    if value is not None and (
        not isinstance(value, (datetime, int, float)) or isinstance(value, bool)
    ):
        raise UsageError(
            f"as_of {value!r} is a {type(value).__name__}: pass analysis.as_of_iso or"
            " analysis.as_of"
        )
    seconds = _seconds([value])[0]
    if seconds is None:
        raise UsageError("as_of is None: pass analysis.as_of_iso or analysis.as_of")
    return _T(seconds, _ns(value) if isinstance(value, datetime) else None, 1000)


def _seconds(values: Any) -> list[float | None]:
    """Instants (datetimes, naive meaning UTC) as seconds since the epoch."""
    out: list[float | None] = []
    for v in values:
        if v is None:
            out.append(None)
        elif isinstance(v, datetime):
            out.append((v if v.tzinfo else v.replace(tzinfo=UTC)).timestamp())
        else:
            out.append(float(v))
    return out


def _steps(
    ax: Any, x: TimeAxis, times: list[float], values: list[Any], end: float, **style: Any
) -> None:
    """A step function drawn on the compressed axis (a new segment after a null)."""
    xs: list[float] = []
    ys: list[Any] = []
    for i, (t, v) in enumerate(zip(times, values, strict=True)):
        nxt = times[i + 1] if i + 1 < len(times) else end
        if v is None:
            if xs:
                ax.plot(xs, ys, **style)
                style.pop("label", None)
                xs, ys = [], []
            continue
        xs += [x(t), x(nxt)]
        ys += [v, v]
    if xs:
        ax.plot(xs, ys, **style)


MAX_PARTITIONS = 8  # partitions drawn (and named in the legend) per figure

# The tables the pictures draw from (reconcile.frames.check_table)
_HISTORY: TableKind = (
    "frontier_history",
    "Analysis.frontier_history()",
    ("scope_id", "basis", "at", "kind", "frontier", "frontier_inclusive"),
)
_STEPS: TableKind = (
    "history", "Analysis.history()", ("scope_id", "partition_id", "basis", "valid_from", "through")
)  # fmt: skip
_FRONTIERS: TableKind = (
    "frontiers",
    "Analysis.frontiers()",
    ("as_of", "scope_id", "basis", "kind", "frontier", "frontier_inclusive"),
)
_WATERMARKS: TableKind = (
    "watermarks",
    "Analysis.watermarks()",
    ("scope_id", "partition_id", "claimed_through", "claimed_inclusive", "proven_through",
     "proven_inclusive"),
)  # fmt: skip
_FINDINGS: TableKind = (
    "findings", "reconcile.audit.audit(...).findings", ("rule", "severity", "scope_id", "at")
)  # fmt: skip
_FINDINGS_BY_RULE: TableKind = (
    "findings", "reconcile.audit.audit(...).findings", ("rule", "severity")
)  # fmt: skip


def _line_end(
    rows: pl.DataFrame,
    scope_id: str,
    basis: str,
    frontiers: pl.DataFrame | None,
    end: _T,
) -> tuple[float, bool, Any]:
    """Where a frontier's line ends, whether that is before T, and its value at T to
    mark there (None: none).

    The claimed frontier changes only at the history's evaluated instants (won writes,
    epoch changes): its line runs on to T. The proven one also moves between them, as
    receipts arrive, and the history records none of that: its line ends at its last
    evaluated instant, and ``frontiers`` (the table at T) gives the value at T. Whether
    that instant is T is decided to the nanosecond where T is an instant: as float
    seconds, a last row 100 ns before T was T, and the line ran on at a value that T
    no longer held."""
    times = rows["at"].drop_nulls()
    if basis == "claimed" or times.is_empty():
        return end.seconds, False, None
    last = _seconds(times.tail(1))[0]
    assert last is not None
    if end.ns is None:  # T as a number of seconds: compared as seconds
        reaches_t = last >= end.seconds
    else:
        last_ns = times.dt.epoch("ns").max()
        reaches_t = not isinstance(last_ns, int) or last_ns >= end.ns
    if reaches_t:
        return end.seconds, False, None
    if frontiers is None:
        return last, True, None
    now = frontiers.filter((pl.col("scope_id") == scope_id) & (pl.col("basis") == basis))
    return last, True, (now["frontier"][0] if now.height else None)


def _same_t(frontiers: pl.DataFrame, end: _T) -> _T:
    """Refuse a frontiers table of another T than the picture's, to the nanosecond
    where T is text (``Analysis.as_of_iso``), to the microsecond where it is a
    datetime or a number of seconds; T, to the nanosecond as the table gives it."""
    given = frontiers["as_of"].drop_nulls().unique()
    exact = given.dt.epoch("ns").to_list()
    if end.ns is None:
        other = any(t is not None and abs(t - end.seconds) > 1e-6 for t in _seconds(given))
    else:
        other = any(t // end.unit != end.ns // end.unit for t in exact)
    if not other:
        return end._replace(ns=exact[0], unit=1) if len(exact) == 1 else end
    raise UsageError(
        "frontier_timeline: frontiers is the table at another T than as_of: give"
        " the frontiers of the analysis whose T is drawn"
    )


def frontier_timeline(
    history: pl.DataFrame,
    scope_id: str,
    as_of: Any,
    steps: pl.DataFrame | None = None,
    findings: pl.DataFrame | None = None,
    title: str | None = None,
    *,
    frontiers: pl.DataFrame | None = None,
) -> Figure:
    """The merged frontier on both bases over time, with chosen partitions' claimed
    (dashed) and proven (solid) certificates, findings as vertical marks, and grey
    bands where the proven frontier is a vector (no honest scalar).

    Time runs on the report's compressed axis (:class:`TimeAxis`): a long idle
    stretch is drawn narrow and marked with its length, so that the activity around
    it stays readable. The claimed frontier (black, dashed, thin) is drawn over the
    proven one (black, solid, wider), so that both show where they are equal. The legend names
    the frontiers and at most ``MAX_PARTITIONS`` partitions, beside the plot.

    The history holds the frontier at its evaluated instants only (won writes, epoch
    changes). The claimed frontier changes only there, and its line runs on to T. The
    proven frontier also moves between them as receipts arrive (a failed event lowers
    it, its retry raises it), which the history does not record: its line is the
    history's steps, drawn from one evaluated instant to the next, and it ends at the
    last of them (a dot); a hollow square marks its value at T, given ``frontiers``
    (the table at T, ``Analysis.frontiers()``; none for a vector).

    A line's height is its certificate's value; whether the endpoint is inclusive is
    not drawn (on a dense coordinate a frontier through x and one just before x look
    alike): the tables' ``frontier_inclusive`` columns tell them apart."""
    check_table("frontier_timeline", history, _HISTORY)
    for given, kind in ((steps, _STEPS), (frontiers, _FRONTIERS), (findings, _FINDINGS)):
        if given is not None:
            check_table("frontier_timeline", given, kind)
    scopes = set(history["scope_id"].to_list())
    if scopes and scope_id not in scopes:
        # a typo ("S0") drew an empty chart, titled as if the scope had no history
        named = ", ".join(sorted(scopes)[:10])
        raise UsageError(f"frontier_timeline: the history has no scope {scope_id!r} ({named})")
    fig, ax = _figure(11, 4.8)
    mine = history.filter(pl.col("scope_id") == scope_id).sort("at")
    part = (
        steps.filter(pl.col("scope_id") == scope_id)
        if steps is not None
        else pl.DataFrame(schema={"partition_id": pl.String, "valid_from": pl.Datetime("ns")})
    )
    end_at = _t(as_of)
    end = end_at.seconds
    if frontiers is not None:
        end_at = _same_t(frontiers, end_at)
    times = [t for t in _seconds([*mine["at"], *part["valid_from"]]) if t is not None]
    start = min(times) if times else end - 1
    x = TimeAxis([start, end, *times], 0.0, 1.0)
    partitions = sorted(set(part["partition_id"].to_list()))[:MAX_PARTITIONS]
    for n, pid in enumerate(partitions):
        color = PARTITION_COLORS[n % len(PARTITION_COLORS)]
        for basis, dash in (("claimed", "--"), ("proven", "-")):
            rows = part.filter((pl.col("partition_id") == pid) & (pl.col("basis") == basis))
            at = [start if t is None else t for t in _seconds(rows["valid_from"])]
            _steps(
                ax,
                x,
                at,
                rows["through"].to_list(),
                end,
                color=color,
                linestyle=dash,
                linewidth=1,
                alpha=0.7,
                label=pid if basis == "proven" else None,
            )
    ends = {
        basis: _line_end(mine.filter(pl.col("basis") == basis), scope_id, basis, frontiers, end_at)
        for basis in ("proven", "claimed")
    }
    proven = mine.filter(pl.col("basis") == "proven")
    begins = [start if t is None else t for t in _seconds(proven["at"])]
    for i, row in enumerate(proven.iter_rows(named=True)):
        if row["kind"] == "vector":
            stop = begins[i + 1] if i + 1 < len(begins) else ends["proven"][0]
            ax.axvspan(x(begins[i]), x(stop), color="#999999", alpha=0.15, linewidth=0)
    frontier_styles: tuple[tuple[str, str, float, Any, int], ...] = (
        ("proven", FRONTIER_COLOR, 3.5, "-", 3),
        ("claimed", FRONTIER_COLOR, 1.8, (0, (5, 3)), 4),
    )
    for basis, color, width, dash, z in frontier_styles:
        rows = mine.filter(pl.col("basis") == basis)
        stop, early, at_t = ends[basis]
        _steps(
            ax,
            x,
            [t or start for t in _seconds(rows["at"])],
            rows["frontier"].to_list(),
            stop,
            color=color,
            linewidth=width,
            linestyle=dash,
            zorder=z,
            label=f"{basis} frontier",
        )
        if early and rows.height and rows["frontier"][-1] is not None:
            ax.plot([x(stop)], [rows["frontier"][-1]], "o", color=color, markersize=4, zorder=z)
        if early and at_t is not None:
            ax.plot(
                [x(end)],
                [at_t],
                "s" if basis == "proven" else "D",
                markerfacecolor="none",
                color=color,
                markersize=8 if basis == "proven" else 5,
                zorder=z + 2,
                label=f"{basis} frontier at T",
            )
    if findings is not None:
        marks = findings.filter((pl.col("scope_id") == scope_id) & pl.col("at").is_not_null())
        for t, severity in zip(
            _seconds(marks["at"]), marks["severity"].cast(pl.String), strict=True
        ):
            ax.axvline(x(t or start), color=SEVERITY_COLORS[severity], alpha=0.4, linewidth=1)
    for t, gap in x.breaks:
        middle = (x(t) + x(t + gap)) / 2
        ax.axvline(middle, color="#777777", linestyle=":", linewidth=1)
        ax.annotate(
            f"+{duration(gap)}",
            (middle, 1.0),
            xycoords=("data", "axes fraction"),
            ha="center",
            va="bottom",
            fontsize=8,
            color="#555555",
        )
    ticks = sorted({x.knots[int(i * (len(x.knots) - 1) / 6)] for i in range(7)})
    shown = [x(t) for t in ticks]
    keep: list[int] = []
    for i, v in enumerate(shown):  # labels at least an eighth of the width apart
        if keep and v - shown[keep[-1]] < 0.125:
            if i != len(shown) - 1:
                continue
            keep.pop()  # the last instant (T) is always labelled
        keep.append(i)
    ax.set_xticks(
        [shown[i] for i in keep],
        [datetime.fromtimestamp(ticks[i], UTC).strftime("%H:%M:%S.%f")[:-3] for i in keep],
        fontsize=8,
    )
    ax.set_xlim(0.0, 1.0)
    # a partition's wild claim (a token taken for a watermark) would flatten the rest:
    # as in the report, the axis stops at the 98th percentile or the frontiers' top
    values = sorted(
        v
        for v in [
            *mine["frontier"].to_list(),
            *part.get_column("through", default=pl.Series([])).to_list(),
        ]
        if v is not None
    )
    if values:
        tops = [v for v in mine["frontier"].to_list() if v is not None]
        top = max(values[int(0.98 * (len(values) - 1))], max(tops) if tops else values[0])
        if top < values[-1]:
            margin = (top - values[0]) * 0.05
            ax.set_ylim(values[0] - margin, top + margin)
            ax.annotate(
                "above the top: clipped",
                (1.0, 1.0),
                xycoords="axes fraction",
                ha="right",
                va="top",
                fontsize=7,
                color="#777777",
            )
    ax.set_title(title or f"frontier of {scope_id}")
    ax.set_xlabel("time (UTC; dotted: an idle stretch, drawn short)")
    ax.set_ylabel("complete through")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    return fig


def partition_lag(
    watermarks: pl.DataFrame, title: str = "claimed and proven, per partition"
) -> Figure:
    """Each partition's claimed and proven certificate side by side: bars from 0 on
    integer positions, marks on a time axis for timestamp positions. A partition
    without a certificate shows none, and says so ("no claim", "no proof"), never a
    bar at 0 (a claim through 0 is a claim)."""
    check_table("partition_lag", watermarks, _WATERMARKS)
    frame = watermarks.sort("scope_id", "partition_id")
    labels = [f"{s}/{p}" for s, p in zip(frame["scope_id"], frame["partition_id"], strict=True)]
    fig, ax = _figure(10, max(2.5, 0.35 * len(labels)))
    timed = isinstance(frame.schema["claimed_through"], pl.Datetime)
    for basis, offset, style in (
        ("claimed", 0.2, {"facecolor": "none", "edgecolor": FRONTIER_COLOR, "hatch": "//"}),
        ("proven", -0.2, {"color": FRONTIER_COLOR, "alpha": 0.8}),
    ):
        values = frame[f"{basis}_through"].to_list()
        rows = [(y + offset, v) for y, v in enumerate(values) if v is not None]
        ys, xs = [r[0] for r in rows], [r[1] for r in rows]
        if timed:
            ax.plot(
                xs,
                ys,
                linestyle="none",
                marker="o" if basis == "proven" else "D",
                markersize=6,
                markerfacecolor=FRONTIER_COLOR if basis == "proven" else "none",
                markeredgecolor=FRONTIER_COLOR,
                label=basis,
            )
        else:
            ax.barh(ys, xs, height=0.4, label=basis, **style)
        for y, v in enumerate(values):
            if v is None:  # said at the axis's left edge, in the row
                ax.annotate(
                    "no claim" if basis == "claimed" else "no proof",
                    (0.005, y + offset),
                    xycoords=("axes fraction", "data"),
                    va="center",
                    fontsize=7,
                    color="#777777",
                )
    ax.set_yticks(list(range(len(labels))), labels, fontsize=8)
    ax.set_ylim(-0.6, len(labels) - 0.4)
    if timed:
        from matplotlib.dates import AutoDateLocator, ConciseDateFormatter  # noqa: PLC0415

        locator = AutoDateLocator()  # type: ignore[no-untyped-call]
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]
        ax.set_xlabel("complete through (UTC)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def findings_by_rule(findings: pl.DataFrame) -> Figure:
    """How many findings of each rule, colored by severity."""
    check_table("findings_by_rule", findings, _FINDINGS_BY_RULE)
    counts = findings.group_by("rule", "severity").len().sort("len")
    fig, ax = _figure(8, max(2.5, 0.35 * counts.height))
    ax.barh(
        counts["rule"].to_list(),
        counts["len"].to_list(),
        color=[SEVERITY_COLORS[s] for s in counts["severity"]],
    )
    ax.set_title("findings by rule (color: severity)")
    fig.tight_layout()
    return fig


def save(fig: Figure, name: str) -> Path | None:
    """Write ``fig`` as ``<name>.png`` into $RECONCILE_FIGURES, if it is set."""
    folder = os.environ.get("RECONCILE_FIGURES")
    if not folder:
        return None
    path = Path(folder) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return path
