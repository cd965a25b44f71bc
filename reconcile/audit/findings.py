"""The audit's findings (docs/contract.md §5): read from the engine, in report order.

The rules themselves are steps of the engine's pipeline
(:mod:`reconcile.engine.steps.rules`): one query and one declaration each.
"""

from __future__ import annotations

import polars as pl

from reconcile.catalog import RULES, SEVERITIES, key_fields
from reconcile.engine.analysis import Analysis
from reconcile.engine.settings import AuditSettings
from reconcile.engine.steps.rules import PARTITION_FINDINGS as _PARTITION_FINDINGS

# The partition rules' findings as a working table: computed by the partitions'
# phase where the audit is spread over partitions (reconcile.audit.phases).
PARTITION_FINDINGS = _PARTITION_FINDINGS.name

# Severity as an ordered type: sorting a frame (or a Parquet file read back with its
# dictionary's order) puts critical first, info last.
SEVERITY = pl.Enum(SEVERITIES)

FINDING_SCHEMA: dict[str, pl.DataType] = {
    "rule": pl.String(),
    "severity": SEVERITY,
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


def as_findings(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame``'s finding columns, in the findings' types."""
    return frame.select([pl.col(name).cast(dtype) for name, dtype in FINDING_SCHEMA.items()])


def findings(analysis: Analysis) -> pl.DataFrame:
    """Every finding as of T: one row per rule and key (docs/contract.md §5), in report
    order."""
    return sort_findings(as_findings(analysis.read("rc_findings")))


# every field some rule's key holds (docs/contract.md §5), scope_id first
_KEY_FIELDS = tuple(dict.fromkeys(f for rule in RULES for f in key_fields(rule)))


def _key(field: str) -> pl.Expr:
    """``field`` where the finding's rule keys on it, else null."""
    rules = [rule for rule in RULES if field in key_fields(rule)]
    return pl.when(pl.col("rule").is_in(rules)).then(pl.col(field)).alias(f"__key_{field}")


def sort_findings(found: pl.DataFrame) -> pl.DataFrame:
    """Findings in report order: most severe first, then by rule and key. A rule
    reports each key once (§5): where two of its findings share one (two won writes
    of one attempt with one generation), the earliest is kept, and of two at one
    instant the first by message and evidence: the same whatever order the rows
    came in."""
    ordered = found.with_columns(pl.col("severity").cast(SEVERITY)).sort(
        "severity",
        "rule",
        "scope_id",
        "partition_id",
        "at",
        "event_id",
        "generation",
        "attempt_id",
        "epoch",
        "page_id",
        "message",
        "evidence",
        nulls_last=True,
        maintain_order=True,
    )
    keys = [f"__key_{f}" for f in _KEY_FIELDS]
    return (
        ordered.with_columns(_key(f) for f in _KEY_FIELDS)
        .unique(subset=["rule", *keys], keep="first", maintain_order=True)
        .drop(keys)
    )


__all__ = [
    "FINDING_SCHEMA",
    "PARTITION_FINDINGS",
    "SEVERITIES",
    "SEVERITY",
    "AuditSettings",
    "as_findings",
    "findings",
    "sort_findings",
]
