"""The audit in phases, for an engine that spreads it over the partitions (the Spark
engine). Each phase runs on a log set restricted to some rows; the partitions'
phases see every row of their partitions (checkpoints, receipts, pages, snapshot,
snapshot_bounds, members), the scope's phases every row of the scope but the
receipts, snapshot and snapshot_bounds, which only the partitions' phases read:

1. :func:`partition_tables`, per bucket of partitions: the partition phase
   (``PARTITION_PHASE``) and the partition rules' findings;
2. :func:`proven_context`, per scope, given those: what the proven frontier's
   history needs of the scope to find where a partition's exact certificate could
   be below everything that holds still (its instants, its members' spans, the
   runs of that minimum);
3. :func:`exact_points`, per bucket, given that and its phase 1 (else computing it
   again): those points of its partitions, evaluated, and the partitions covered;
4. :func:`scope_audit`, per scope, given all of the above: watermarks, frontiers,
   their history, the findings, and the partitions whose timelines are drawn;
5. :func:`timelines`, per bucket: those partitions' timelines.

Put together, they are the audit of the whole log set (``tests/test_phases.py``).
Each phase takes the scope's ``rc_scopes`` as computed on all its checkpoints and
scopes rows (:data:`SCOPES_STEP`), since a bucket sees only some of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import polars as pl
import pyarrow as pa

from reconcile.audit import AuditResult, audit, shown_partitions
from reconcile.audit.findings import PARTITION_FINDINGS, AuditSettings, partition_findings
from reconcile.engine import frontier
from reconcile.engine.analysis import WATERMARK_STEPS, Analysis
from reconcile.engine.frontier import EXACT, EXACT_PARTITIONS, PROVEN_CONTEXT
from reconcile.errors import ReconcileError
from reconcile.logset.load import LogSet

# The tables only the partitions' phases read (and validate).
PARTITION_ONLY: tuple[str, ...] = ("receipts", "snapshot", "snapshot_bounds")

# rc_scopes: the step that a scope's partitions share.
SCOPES_STEP = WATERMARK_STEPS[:1]

AsOf = datetime | str | None


def scopes(logset: LogSet, as_of: AsOf) -> pa.Table:
    """rc_scopes of the log set's scopes (from their checkpoints and scopes rows)."""
    analysis = Analysis(logset, as_of)
    analysis.run(SCOPES_STEP)
    return analysis.con.sql("FROM rc_scopes").to_arrow_table()


def _analysis(logset: LogSet, as_of: AsOf, preset: Mapping[str, pa.Table]) -> Analysis:
    analysis = Analysis(logset, as_of)
    analysis.preset(preset)
    return analysis


def partition_tables(
    logset: LogSet,
    as_of: AsOf,
    rc_scopes: pa.Table | None,
    settings: AuditSettings | None = None,
) -> dict[str, pa.Table]:
    """Phase 1: the partition phase of the log set's partitions and, with
    ``settings``, the partition rules' findings (PARTITION_FINDINGS). ``rc_scopes``:
    None where the scope has neither checkpoints nor scopes rows (its defaults are
    then the same in every bucket)."""
    analysis = _analysis(logset, as_of, {} if rc_scopes is None else {"rc_scopes": rc_scopes})
    tables = analysis.partition_phase()
    if settings is not None:
        tables[PARTITION_FINDINGS] = partition_findings(analysis, settings).to_arrow()
    return tables


def proven_context(
    logset: LogSet, as_of: AsOf, preset: Mapping[str, pa.Table]
) -> dict[str, pa.Table]:
    """Phase 2: the scopes' PROVEN_CONTEXT, given the partition phase."""
    return frontier.proven_context(_analysis(logset, as_of, preset))


def exact_points(
    logset: LogSet, as_of: AsOf, preset: Mapping[str, pa.Table]
) -> dict[str, pa.Table]:
    """Phase 3: EXACT and EXACT_PARTITIONS of the log set's partitions, given
    rc_scopes, their scopes' PROVEN_CONTEXT and, where it was kept from phase 1,
    the partition phase (else it is computed again, for these partitions)."""
    return frontier.exact_points(_analysis(logset, as_of, preset))


def scope_audit(
    logset: LogSet,
    as_of: AsOf,
    settings: AuditSettings,
    preset: Mapping[str, pa.Table],
) -> tuple[AuditResult, pl.DataFrame]:
    """Phase 4: the audit without timelines, given the partition phase, the partition
    findings and the exact points (EXACT, EXACT_PARTITIONS; absent only where the
    log set has no partition); and the partitions to draw. The receipts are not
    read here: a partition whose points were not evaluated is an error."""
    partitions = preset.get("rc_partitions")
    if EXACT not in preset and partitions is not None and partitions.num_rows:
        raise ReconcileError(f"the scope's phase needs {EXACT} given (phase 3)")
    result = audit(logset, as_of, settings, preset=preset, timelines=False)
    return result, shown_partitions(result.frontier_history, result.findings)


def timelines(
    logset: LogSet, as_of: AsOf, rc_scopes: pa.Table | None, partitions: pl.DataFrame
) -> pl.DataFrame:
    """Phase 5: the timelines of ``partitions`` (scope_id, partition_id)."""
    analysis = _analysis(logset, as_of, {} if rc_scopes is None else {"rc_scopes": rc_scopes})
    return analysis.history(partitions)


__all__ = [
    "EXACT",
    "EXACT_PARTITIONS",
    "PARTITION_FINDINGS",
    "PARTITION_ONLY",
    "PROVEN_CONTEXT",
    "exact_points",
    "partition_tables",
    "proven_context",
    "scope_audit",
    "scopes",
    "timelines",
]
