"""Questions a person asks at a notebook, answered from an analysis.

Each function is a small query over the log set or a reshaping of the engine's
tables; notebooks call these instead of carrying logic in their cells.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import polars as pl

from reconcile.engine.analysis import Analysis
from reconcile.errors import UsageError
from reconcile.frames import check_table

# T as Analysis.as_of_iso writes it: naive UTC, to the nanosecond
_ISO = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?")


def _texts(**names: object) -> None:
    """Identifiers are text, as the contract's columns: another type is refused (it
    matched no row, or failed in DuckDB's cast)."""
    for key, value in names.items():
        if not isinstance(value, str):
            raise UsageError(f"{key} is text, not {type(value).__name__} ({value!r})")


# The columns each table a function reshapes must have, and where it comes from
# (reconcile.frames.check_table)
_HISTORY = (
    "frontier_history",
    "Analysis.frontier_history()",
    ("scope_id", "basis", "at", "kind", "frontier", "frontier_inclusive", "limiting_partitions"),
)
_WATERMARKS = (
    "watermarks",
    "Analysis.watermarks()",
    ("scope_id", "partition_id", "claimed_through", "claimed_inclusive", "proven_through",
     "proven_inclusive", "claim_status", "blocking_reason"),
)  # fmt: skip
_FRONTIERS = (
    "frontiers",
    "Analysis.frontiers()",
    ("as_of", "scope_id", "basis", "kind", "frontier", "frontier_inclusive"),
)
_FINDINGS = (
    "findings",
    "reconcile.audit.audit(...).findings",
    ("rule", "scope_id", "partition_id", "event_id", "at", "evidence"),
)


def event_trail(
    analysis: Analysis, scope_id: str, partition_id: str, event_id: str
) -> pl.DataFrame:
    """Every receipt of one event recorded up to the analysis's T, with the page and
    fetch it came from (as the analysis's other answers, nothing after T). A partition
    the log set does not hold is refused; an event of it without receipts has none."""
    _analysis("event_trail", analysis)
    _texts(scope_id=scope_id, partition_id=partition_id, event_id=event_id)
    _known(analysis, scope_id, partition_id)
    return analysis.query(
        "investigate/event_trail",
        scope_id=scope_id,
        partition_id=partition_id,
        event_id=event_id,
    )


def _analysis(function: str, analysis: object) -> Analysis:
    """Refuse what is not an analysis (a table, a log set, a path): an attribute
    error from deep inside said neither what was wanted nor how to make it."""
    if not isinstance(analysis, Analysis):
        raise UsageError(
            f"{function}: give an analysis, reconcile.Analysis(open_logset(PATH)), not"
            f" {type(analysis).__name__}"
        )
    return analysis


def _known(analysis: Analysis, scope_id: str, partition_id: str) -> None:
    """A partition the log set holds: another (a typo, "S0" for "s0") matched no row,
    and the answer came back empty, as if the partition had no pages."""
    partitions = analysis.read("rc_partitions").select("scope_id", "partition_id")
    if (scope_id, partition_id) in set(partitions.iter_rows()):
        return
    scopes = sorted(set(partitions["scope_id"].to_list()))
    if scope_id not in scopes:
        shown = ", ".join(scopes[:10]) or "none"
        raise UsageError(f"the log set has no scope {scope_id!r} (its scopes: {shown})")
    mine = sorted(p for s, p in partitions.iter_rows() if s == scope_id)
    raise UsageError(
        f"scope {scope_id} has no partition {partition_id!r} (its partitions:"
        f" {', '.join(mine[:10])}{', ...' if len(mine) > 10 else ''})"
    )


def partition_pages(analysis: Analysis, scope_id: str, partition_id: str) -> pl.DataFrame:
    """A partition's page fetches up to the analysis's T, in order, with their tokens
    and receipts (as the analysis's other answers, nothing after T). A partition the
    log set does not hold is refused (a typo would read as a partition without pages)."""
    _analysis("partition_pages", analysis)
    _texts(scope_id=scope_id, partition_id=partition_id)
    _known(analysis, scope_id, partition_id)
    return analysis.query(
        "investigate/partition_pages", scope_id=scope_id, partition_id=partition_id
    )


BASES = ("claimed", "proven")


def _basis(basis: object) -> None:
    """A basis is one of :data:`BASES`: another (a typo, "Claimed") matched no row, and
    the answer came back empty."""
    if basis not in BASES:
        raise UsageError(f"basis {basis!r} is not one of {', '.join(BASES)}")


def _holders_source(function: str, source: object) -> Analysis:
    """The analysis ``function`` reads who held the frontier from. A frontier_history
    frame is refused: it keeps a row only where the frontier's value, kind or epoch
    changes, not where its holders do, so a partition that had stopped holding the
    frontier read as holding it until the value next changed."""
    if isinstance(source, pl.DataFrame) and "limiting_partitions" in source.columns:
        raise UsageError(
            f"{function}: the frontier_history table cannot say who held the frontier"
            " between its rows (a holder changes without a row where the value stays):"
            f" give the analysis, {function}(analysis, ...)"
        )
    return _analysis(function, source)


def limiting_spans(analysis: Analysis, basis: str = "claimed") -> pl.DataFrame:
    """Who held the frontier when, up to the analysis's T: one row per stay of a
    partition among the limiting partitions of the scalar frontier at one value,
    measured over every §4.15 evaluation instant (a row of frontier_history or not),
    as the audit's stalled_partition measures it. ``at``: its first instant;
    ``last``: its last; ``until``: the next instant, where it no longer held (null:
    it held at the scope's last instant); ``epoch``: in force at ``at``. ``basis`` is
    ``"claimed"`` or ``"proven"``; another is refused, and so is a frontier_history
    frame (its rows do not say when the holders change)."""
    _basis(basis)
    return _holders_source("limiting_spans", analysis).query(
        "investigate/limiting_spans", basis=basis
    )


def holders(analysis: Analysis, basis: str = "claimed") -> pl.DataFrame:
    """How often each partition held the frontier (its stays, :func:`limiting_spans`),
    most often first, with the first and the last instant it held it."""
    _basis(basis)
    return (
        limiting_spans(_holders_source("holders", analysis), basis)
        .group_by("scope_id", "partition_id")
        .agg(
            pl.len().alias("times"),
            pl.col("at").min().alias("first"),
            pl.col("last").max().alias("last"),
        )
        .sort("times", "scope_id", "partition_id", descending=[True, False, False])
    )


DOMAINS = ("discrete", "dense")


def lag(watermarks: pl.DataFrame, domain: str | None = None) -> pl.DataFrame:
    """Per partition: its claimed and proven certificates, how far the claim runs
    ahead of what is proven, and whether it runs ahead at all.

    Certificates compare in docs/contract.md §2's order: by value, and at an equal
    value exclusive below inclusive. Two columns say it, read together:

    * ``claim_ahead``: ``claimed_through - proven_through``, the distance in value
      (positive: the claim's value is beyond the proof's). It is 0 where both name
      the same value, even when the claim is the higher certificate;
    * ``claim_beyond_proof``: whether the claim is above the proof in that order
      (claimed beyond the evidence): true where ``claim_ahead`` is positive, and
      also where both name the same value with the claim inclusive and the proof
      exclusive (a dense claim through x inclusive against a proof through x
      exclusive: x itself is claimed, not proven, a ``claim_ahead`` of 0); null
      where the order cannot be told (either certificate absent or ``+inf``, both
      written as a null through, or an unknown endpoint). Filter on it, not on
      ``claim_ahead > 0``, to find every claim beyond its proof.

    The ``watermarks`` table states discrete certificates normalized (exclusive
    ``v`` as inclusive ``v - 1``, §2), so it compares as given. For a frame that
    does not, pass ``domain="discrete"`` to normalize first (``"dense"``: never
    normalized; timestamps are always dense)."""
    if domain not in (None, *DOMAINS):
        raise UsageError(f"lag: domain {domain!r} is not one of {', '.join(DOMAINS)}")
    check_table("lag", watermarks, _WATERMARKS)
    frame = watermarks
    if domain == "discrete":
        if isinstance(frame.schema["claimed_through"], pl.Datetime):
            raise UsageError("lag: timestamps are always dense: give domain='dense' or none")
        for basis in ("claimed", "proven"):
            through, inclusive = pl.col(f"{basis}_through"), pl.col(f"{basis}_inclusive")
            exclusive = inclusive.not_().fill_null(False)
            frame = frame.with_columns(
                pl.when(exclusive).then(through - 1).otherwise(through).alias(f"{basis}_through"),
                (inclusive | exclusive).alias(f"{basis}_inclusive"),
            )
    claimed, proven = pl.col("claimed_through"), pl.col("proven_through")
    claimed_inclusive, proven_inclusive = pl.col("claimed_inclusive"), pl.col("proven_inclusive")
    unknown = pl.any_horizontal(
        claimed.is_null(), proven.is_null(), claimed_inclusive.is_null(), proven_inclusive.is_null()
    )
    beyond = (
        pl.when(unknown)
        .then(None)
        .when(claimed != proven)
        .then(claimed > proven)
        .otherwise(claimed_inclusive & proven_inclusive.not_())
    )
    return frame.select(
        "scope_id",
        "partition_id",
        "claimed_through",
        "claimed_inclusive",
        "proven_through",
        "proven_inclusive",
        "claim_status",
        "blocking_reason",
        (claimed - proven).alias("claim_ahead"),
        beyond.alias("claim_beyond_proof"),
    ).sort("scope_id", "partition_id")


def findings_on_timeline(
    findings: pl.DataFrame, history: pl.DataFrame, frontiers: pl.DataFrame | None = None
) -> pl.DataFrame:
    """Each finding with the claimed and the proven frontier at its instant, where the
    engine's tables say what they were.

    The claimed frontier changes only at the history's evaluated instants (won writes,
    epoch changes), so it is the history's value at the last of its rows at or before
    the finding (§4.15). The proven frontier also moves between them, as receipts
    arrive (a failed event lowers it, its retry raises it), which the history does not
    record: it is given only at an instant the history has a row for, and at T where
    ``frontiers`` (the table at T, ``Analysis.frontiers()``) is given; elsewhere null
    (not evaluated there; see a finding's own evidence). A null frontier is also a
    vector, or +inf, as in the history."""
    check_table("findings_on_timeline", findings, _FINDINGS)
    check_table("findings_on_timeline", history, _HISTORY)
    marks = (
        findings.filter(pl.col("at").is_not_null())
        .with_columns(pl.col("at").cast(pl.Datetime("ns")).alias("_at"))
        .sort("scope_id", "_at")
    )
    rows = history.with_columns(pl.col("at").cast(pl.Datetime("ns")).alias("_at")).sort(
        "scope_id", "_at"
    )
    marks = marks.join_asof(
        rows.filter(pl.col("basis") == "claimed").select(
            "scope_id", "_at", pl.col("frontier").alias("claimed_frontier")
        ),
        on="_at",
        by="scope_id",
        strategy="backward",
        check_sortedness=False,
    )
    proven = rows.filter(pl.col("basis") == "proven").select(
        "scope_id", "_at", pl.col("frontier").alias("proven_frontier")
    )
    if frontiers is not None:
        check_table("findings_on_timeline", frontiers, _FRONTIERS)
        _after_history(frontiers, history)
        at_t = frontiers.filter(pl.col("basis") == "proven").select(
            "scope_id",
            pl.col("as_of").cast(pl.Datetime("ns")).alias("_at"),
            pl.col("frontier").alias("proven_frontier"),
        )
        proven = pl.concat([proven, at_t.join(proven, on=["scope_id", "_at"], how="anti")])
    marks = marks.join(proven, on=["scope_id", "_at"], how="left")
    return marks.sort("_at").drop("_at")


def _after_history(frontiers: pl.DataFrame, history: pl.DataFrame) -> None:
    """Refuse a frontiers table of a T before the history's last row (of another
    analysis): its values are not the frontier at the end of this history."""
    t: Any = frontiers["as_of"].min()
    last: Any = history["at"].max()
    # compared to the nanosecond: as Python datetimes, a T 100 ns before the last
    # row is that row's instant
    t_ns: Any = frontiers["as_of"].dt.epoch("ns").min()
    last_ns: Any = history["at"].dt.epoch("ns").max()
    if t_ns is not None and last_ns is not None and t_ns < last_ns:
        raise UsageError(
            f"findings_on_timeline: frontiers is the table at {t}, before the history's last"
            f" row ({last}): give the frontiers and the history of one analysis"
        )


def skipped_versus_replayed(findings: pl.DataFrame) -> pl.DataFrame:
    """Per partition: events lost (skipped_event) beside events only delivered twice."""
    check_table("skipped_versus_replayed", findings, _FINDINGS)
    skipped = (
        findings.filter(pl.col("rule") == "skipped_event")
        .group_by("scope_id", "partition_id")
        .agg(pl.len().alias("skipped"), pl.col("event_id").sort().alias("skipped_events"))
    )
    replayed = findings.filter(pl.col("rule") == "replayed_events").select(
        "scope_id",
        "partition_id",
        pl.col("evidence").str.json_path_match("$.events").cast(pl.Int64).alias("replayed"),
    )
    return (
        skipped.join(replayed, on=["scope_id", "partition_id"], how="full", coalesce=True)
        .with_columns(pl.col("skipped").fill_null(0), pl.col("replayed").fill_null(0))
        .sort("scope_id", "partition_id")
    )


def membership(analysis: Analysis) -> pl.DataFrame:
    """Every membership change of an epoch in force at the analysis's T, with its
    cutover and the epoch where its proof first stands, if that epoch is in force at T
    too (null: unproven at T, as the audit's ``unproven_membership`` says)."""
    _analysis("membership", analysis)
    return analysis.query("investigate/membership", reads=("rc_changes", "rc_epochs"))


def longest_hold(
    analysis: Analysis, as_of: object = None, basis: str = "claimed"
) -> dict[str, object]:
    """The longest stay of one partition among the frontier's holders at one value
    (:func:`limiting_spans`; on the claimed basis, the stay of the audit's
    stalled_partition): scope, partition, since, until, frontier, minutes (the
    earliest of equally long ones). A claimed stay held at the scope's last instant
    lasts to T (the claims change only at won writes, which are instants); a proven
    one to that instant, the last at which it is known to hold (the proven frontier
    moves between instants, unrecorded: its stays are measured over the evaluated
    instants alone). ``as_of``, if given, is the analysis's T
    (``Analysis.as_of_iso``, or ``Analysis.as_of``): another T is refused, as a number
    is (an epoch's unit would be a guess). ``basis`` is ``"claimed"`` or ``"proven"``;
    another is refused, and so is a frontier_history frame."""
    _basis(basis)
    source = _holders_source("longest_hold", analysis)
    if as_of is not None:
        _same_t(source, as_of)
    spans = _to_t(source, limiting_spans(source, basis), basis)
    if spans.is_empty():
        return {}
    row = spans.row(0, named=True)
    return {
        "scope_id": row["scope_id"],
        "partition_id": row["partition_id"],
        "since": row["at"],
        "until": row["until"],
        "frontier": row["frontier"],
        "minutes": round(row["minutes"], 1),
    }


def _same_t(analysis: Analysis, as_of: object) -> None:
    """``as_of`` names the analysis's T: a number (an epoch's unit would be a guess),
    text in another form or another T is refused (the answer is the analysis's)."""
    if not isinstance(as_of, (str, datetime)):
        raise UsageError(
            f"longest_hold: as_of is T, analysis.as_of_iso (text) or a datetime, not"
            f" {type(as_of).__name__} ({as_of!r})"
        )
    if isinstance(as_of, str) and not _ISO.fullmatch(as_of):
        raise UsageError(
            f"longest_hold: as_of {as_of!r} is not in Analysis.as_of_iso's form"
            " (naive UTC, 2026-01-01T00:00:05.000000500): pass analysis.as_of_iso"
        )
    if isinstance(as_of, datetime) and as_of.tzinfo is not None:
        as_of = as_of.astimezone(UTC).replace(tzinfo=None)  # naive means UTC, as T's
    same = (
        as_of == analysis.as_of
        if isinstance(as_of, datetime)
        else _nanoseconds(as_of) == _nanoseconds(analysis.as_of_iso)
    )
    if not same:
        raise UsageError(
            f"longest_hold: as_of {as_of!r} is not the analysis's T ({analysis.as_of_iso}):"
            " the stays are the analysis's; open an Analysis at that T, or leave as_of out"
        )


def _nanoseconds(text: str) -> str:
    """Text in Analysis.as_of_iso's form with its fraction written to nine digits."""
    whole, _, fraction = text.partition(".")
    return f"{whole}.{fraction:0<9}"


def _to_t(analysis: Analysis, spans: pl.DataFrame, basis: str) -> pl.DataFrame:
    """Each stay with its end and length in minutes, longest first (the earliest of
    equally long ones). A claimed stay held at the scope's last instant ends at T (the
    claims change only at the history's instants); a proven one at that instant, the
    last at which it is known to hold (the proven frontier moves between instants)."""
    t = pl.lit(analysis.as_of_iso).str.to_datetime("%Y-%m-%dT%H:%M:%S%.f", time_unit="ns")
    end = t if basis == "claimed" else pl.col("last")
    return (
        spans.with_columns(pl.col("until").fill_null(end))
        .with_columns(
            ((pl.col("until") - pl.col("at")).dt.total_nanoseconds() / 6e10).alias("minutes")
        )
        .sort(["minutes", "at", "scope_id", "partition_id"], descending=[True, False, False, False])
    )
