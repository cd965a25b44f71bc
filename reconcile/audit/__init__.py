"""The audit: every computation of docs/contract.md §4 and every rule of §5, as a report.

:func:`audit` evaluates a log set as of T and returns an :class:`AuditResult`
holding the four tables of §6 and the summary; :mod:`reconcile.audit.report`
writes them into a report directory, atomically.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import polars as pl
import pyarrow as pa

from reconcile.audit.findings import SEVERITIES, AuditSettings, findings
from reconcile.engine.analysis import Analysis
from reconcile.logset.load import LogSet

Step = Callable[[str], None]

# The receipts of a blocking event the report shows (the count is of all of them).
BLOCKING_RECEIPTS = 5


def no_exemptions() -> pl.DataFrame:
    """An empty ``not_applicable`` frame: every rule applies."""
    return pl.DataFrame(schema={"scope_id": pl.String, "rule": pl.String, "reason": pl.String})


@dataclass(frozen=True)
class AuditResult:
    """An audit's tables and what was read."""

    as_of: datetime
    watermarks: pl.DataFrame
    frontiers: pl.DataFrame
    frontier_history: pl.DataFrame
    findings: pl.DataFrame
    timelines: pl.DataFrame = field(default_factory=pl.DataFrame)
    inputs: dict[str, Any] = field(default_factory=dict)
    # (named query, seconds) for every query the engine ran, in order.
    timings: list[tuple[str, float]] = field(default_factory=list)
    # per blocked partition, the resume token to replay from (report/replay_anchors);
    # empty where the audit ran in pieces (Spark), which the report then says
    anchors: pl.DataFrame = field(default_factory=pl.DataFrame)
    # per partition blocked by an event with receipts, how many and the first few
    # (report/blocking_receipts); empty where the audit ran in pieces (Spark)
    blocking_receipts: pl.DataFrame = field(default_factory=pl.DataFrame)
    # (scope_id, rule, reason): the rules that do not apply to a scope, and why
    # (report/not_applicable: a scope without compare-and-swap); never a false finding
    not_applicable: pl.DataFrame = field(default_factory=no_exemptions)
    # T as ISO 8601 text to the nanosecond (as_of holds microseconds); empty: as_of's
    as_of_iso: str = ""

    def counts(self) -> dict[str, dict[str, int]]:
        """Findings by rule and by severity."""
        by_rule = self.findings.group_by("rule").len().sort("rule")
        by_severity = self.findings.group_by("severity").len()
        severity = dict.fromkeys(SEVERITIES, 0)
        severity.update(dict(zip(by_severity["severity"], by_severity["len"], strict=True)))
        return {
            "by_rule": dict(zip(by_rule["rule"], by_rule["len"], strict=True)),
            "by_severity": severity,
        }

    def worst(self) -> str | None:
        """The most severe severity among the findings, or None without any."""
        present = set(self.findings["severity"].to_list())
        return next((s for s in SEVERITIES if s in present), None)

    def at_or_above(self, severity: str) -> int:
        """How many findings are at or above a severity."""
        levels = SEVERITIES[: SEVERITIES.index(severity) + 1]
        return int(self.findings.filter(pl.col("severity").is_in(levels)).height)


def audit(
    logset: LogSet,
    as_of: datetime | str | None = None,
    settings: AuditSettings | None = None,
    step: Step | None = None,
    preset: Mapping[str, pa.Table] | None = None,
    timelines: bool = True,
    phase: str | None = None,
) -> AuditResult:
    """Run every computation and rule on a log set as of T (default: its end);
    ``preset`` working tables are taken as given (:meth:`Analysis.preset`), for the
    ``phase`` of the pipeline named (which checks what is given and what is read);
    without ``timelines``, the result's timelines are empty (drawn elsewhere: see
    :mod:`reconcile.audit.phases`)."""
    note = step or (lambda _: None)
    with Analysis(logset, as_of, settings) as analysis:
        if preset:
            analysis.preset(preset)
        if phase is not None:
            analysis.phase(phase)
        note("watermarks")
        marks = analysis.watermarks()
        note("frontiers")
        fronts = analysis.frontiers()
        note("frontier history")
        history = analysis.frontier_history()
        note("findings")
        found = findings(analysis)
        anchors = receipts = pl.DataFrame()
        if not preset and phase is None:
            anchors = analysis.query("report/replay_anchors", reads=("rc_watermarks", "rc_won"))
            receipts = analysis.query(
                "report/blocking_receipts", reads=("rc_watermarks",), shown=BLOCKING_RECEIPTS
            )
        exempt = analysis.query("report/not_applicable")
        drawn = pl.DataFrame()
        if timelines:
            note("timelines")
            drawn = analysis.timelines(shown_partitions(history, found))
        return AuditResult(
            as_of=analysis.as_of,
            as_of_iso=analysis.as_of_iso,
            watermarks=marks,
            frontiers=fronts,
            frontier_history=history,
            findings=found,
            timelines=drawn,
            inputs=_inputs(logset),
            timings=list(analysis.timings),
            anchors=anchors,
            blocking_receipts=receipts,
            not_applicable=exempt,
        )


def _most_frequent(rows: pl.DataFrame, each: int) -> pl.DataFrame:
    """Per scope, the ``each`` partitions with the most rows (ties by partition_id)."""
    return (
        rows.group_by("scope_id", "partition_id")
        .len()
        .sort("len", "partition_id", descending=[True, False])
        .group_by("scope_id", maintain_order=True)
        .head(each)
        .select("scope_id", "partition_id")
    )


# the scopes whose frontier timeline the report draws, at most (each is a chart of
# its own: a thousand scopes made a 42 MB page); every scope is in the frontier table
MAX_SCOPES_DRAWN = 40


def drawn_scopes(scopes: Iterable[str], found: pl.DataFrame) -> list[str]:
    """The scopes whose timeline the report draws, in order: every one, or, past
    ``MAX_SCOPES_DRAWN``, those with the most severe findings, then the most
    findings, then by name."""
    every = sorted(set(scopes))
    if len(every) <= MAX_SCOPES_DRAWN:
        return every
    rank = {s: i for i, s in enumerate(SEVERITIES)}
    worst: dict[str, tuple[int, int]] = {}
    for row in found.group_by("scope_id", "severity").len().iter_rows(named=True):
        key = (rank[str(row["severity"])], -int(row["len"]))
        worst[row["scope_id"]] = min(worst.get(row["scope_id"], key), key)
    none = (len(SEVERITIES), 0)
    return sorted(sorted(every, key=lambda s: (*worst.get(s, none), s))[:MAX_SCOPES_DRAWN])


def shown_partitions(history: pl.DataFrame, found: pl.DataFrame, each: int = 6) -> pl.DataFrame:
    """The partitions worth drawing per scope drawn (:func:`drawn_scopes`): those that
    held the frontier most often, those with the most severe findings, and those
    holding it at the end (at most ``each`` of each)."""
    drawn = drawn_scopes(history["scope_id"].to_list(), found)
    history = history.filter(pl.col("scope_id").is_in(drawn))
    found = found.filter(pl.col("scope_id").is_in(drawn))
    holders = _most_frequent(
        history.select("scope_id", pl.col("limiting_partitions").alias("partition_id"))
        .explode("partition_id")
        .drop_nulls(),
        each,
    )
    faulty = _most_frequent(
        found.filter(
            pl.col("severity").is_in(["critical", "error"]) & pl.col("partition_id").is_not_null()
        ),
        each,
    )
    # those holding the frontier at the end, on either basis: the reader asks about them
    current = (
        history.sort("at")
        .group_by("scope_id", "basis", maintain_order=True)
        .last()
        .select("scope_id", pl.col("limiting_partitions").list.head(each).alias("partition_id"))
        .explode("partition_id")
        .drop_nulls()
    )
    return pl.concat([holders, faulty, current]).unique().sort("scope_id", "partition_id")


def _inputs(logset: LogSet) -> dict[str, Any]:
    tables = {
        name: {"files": len(logset.files.tables[name].files), "rows": logset.row_count(name)}
        for name in logset.present
    }
    # the mapping in use, always said: null for the contract's own layout (issue 19)
    mapping = logset.files.mapping
    return {
        "logset": str(logset.path),
        "mapping": str(mapping) if mapping is not None else None,
        "coordinate": logset.coordinate.value,
        "tables": tables,
    }


__all__ = [
    "MAX_SCOPES_DRAWN",
    "AuditResult",
    "AuditSettings",
    "audit",
    "drawn_scopes",
    "no_exemptions",
    "shown_partitions",
]
