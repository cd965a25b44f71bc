"""The audit rules of CONTRACT.md §5, each a named query, run in one order."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from reconcile.engine.analysis import Analysis
from reconcile.sql import load

SEVERITIES = ("critical", "error", "warning", "info")

# (rule, query, tables the rule needs besides checkpoints). The partition rules read
# one partition's rows and the partition phase alone (so they can run on any split
# of the partitions, with the rest of the partition phase: PARTITION_RULES); the
# scope rules read the frontier, membership or publications of a whole scope.
PARTITION_RULES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("skipped_event", "audit/skipped_event", ()),
    ("overclaim", "audit/overclaim", ()),
    ("watermark_regressed", "audit/watermark_regressed", ()),
    ("cas_chain_broken", "audit/cas_chain_broken", ()),
    ("stale_owner_won", "audit/stale_owner_won", ()),
    ("mixed_checkpoint", "audit/mixed_checkpoint", ("pages",)),
    ("token_as_watermark", "audit/token_as_watermark", ()),
    ("empty_page_advanced", "audit/empty_page_advanced", ("pages",)),
    ("ordering_mutated", "audit/ordering_mutated", ()),
    ("late_insert", "audit/late_insert", ("snapshot",)),
    ("unknown_endpoint", "audit/unknown_endpoint", ()),
    ("replayed_events", "audit/replayed_events", ()),
)
SCOPE_RULES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("unproven_membership", "audit/unproven_membership", ("epochs",)),
    ("cutover_overclaim", "audit/cutover_overclaim", ("epochs",)),
    ("published_overclaim", "audit/published_overclaim", ("published",)),
    ("published_regressed", "audit/published_regressed", ("published",)),
    ("stalled_partition", "audit/stalled_partition", ()),
)

# The partition rules' findings as a working table, when computed elsewhere
# (Analysis.preset): then findings() runs the scope rules only.
PARTITION_FINDINGS = "rc_partition_findings"

PREPARE: tuple[tuple[str, str], ...] = (
    ("rc_won", "audit/won_writes"),
    ("rc_token_writes", "audit/token_writes"),
)

FINDING_SCHEMA: dict[str, pl.DataType] = {
    "rule": pl.String(),
    "severity": pl.String(),
    "scope_id": pl.String(),
    "partition_id": pl.String(),
    "epoch": pl.Int64(),
    "at": pl.Datetime("ns"),
    "event_id": pl.String(),
    "attempt_id": pl.String(),
    "generation": pl.Int64(),
    "page_id": pl.String(),
    "message": pl.String(),
    "evidence": pl.String(),
}


@dataclass(frozen=True)
class AuditSettings:
    """What the audit is asked: the stall threshold of `stalled_partition`."""

    stall_minutes: float = 10.0


def _evaluate_writes(analysis: Analysis) -> None:
    """The partitions' certificates at every won write (for overclaim and
    empty_page_advanced), with the exact evaluator."""
    analysis.build("rc_write_points", "audit/write_points", again=True)
    analysis.con.execute("CREATE OR REPLACE TEMP TABLE rc_points AS SELECT * FROM rc_write_points")
    analysis.evaluate_points()
    analysis.build("rc_write_certs", "audit/write_certs", again=True)


def _run_rules(
    analysis: Analysis, settings: AuditSettings, rules: tuple[tuple[str, str, tuple[str, ...]], ...]
) -> list[pl.DataFrame]:
    frames = []
    for _rule, query, needs in rules:
        if not all(analysis.logset.has(table) for table in needs):
            continue
        sql = load(query)
        params = {"stall_ns": int(settings.stall_minutes * 60e9)} if "$stall_ns" in sql else {}
        with analysis.timed(query):
            result = analysis.con.sql(sql, params=params).to_arrow_table()
        frame = pl.from_arrow(result)
        assert isinstance(frame, pl.DataFrame)
        frames.append(
            frame.select([pl.col(name).cast(dtype) for name, dtype in FINDING_SCHEMA.items()])
        )
    return frames


def partition_findings(analysis: Analysis, settings: AuditSettings) -> pl.DataFrame:
    """The findings of the partition rules (PARTITION_RULES) as of T, unsorted: for
    the partitions of the analysis' log set, whatever other partitions its scopes
    have (given their rc_scopes)."""
    analysis.prepare_history()
    for table, query in PREPARE:
        analysis.build(table, query, again=True)
    _evaluate_writes(analysis)
    frames = _run_rules(analysis, settings, PARTITION_RULES)
    return pl.concat(frames) if frames else pl.DataFrame(schema=FINDING_SCHEMA)


def findings(analysis: Analysis, settings: AuditSettings) -> pl.DataFrame:
    """Every finding as of T: one row per rule and key (CONTRACT.md §5). The partition
    rules' findings are PARTITION_FINDINGS where the analysis was given it."""
    if analysis.given(PARTITION_FINDINGS):
        given = analysis.con.sql(f"FROM {PARTITION_FINDINGS}").to_arrow_table()
        frame = pl.from_arrow(given)
        assert isinstance(frame, pl.DataFrame)
        local = frame.select([pl.col(n).cast(t) for n, t in FINDING_SCHEMA.items()])
    else:
        local = partition_findings(analysis, settings)
    frames = [local, *_run_rules(analysis, settings, SCOPE_RULES)]
    return sort_findings(pl.concat(frames))


def sort_findings(found: pl.DataFrame) -> pl.DataFrame:
    """Findings in report order: most severe first, then by rule and key."""
    rank = {s: i for i, s in enumerate(SEVERITIES)}
    return (
        found.with_columns(
            pl.col("severity").replace_strict(rank, return_dtype=pl.Int8).alias("_rank")
        )
        .sort(
            "_rank",
            "rule",
            "scope_id",
            "partition_id",
            "at",
            "event_id",
            "generation",
            nulls_last=True,
            maintain_order=True,
        )
        .drop("_rank")
    )
