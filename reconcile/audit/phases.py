"""The audit in phases, for an engine that spreads it over the partitions (the Spark
engine). Each phase runs on a log set restricted to some rows; the partitions'
phases see every row of their partitions (checkpoints, receipts, pages, snapshot,
snapshot_bounds, members), the scope's phases every row of the scope but the
receipts, snapshot and snapshot_bounds, which only the partitions' phases read:

1. :func:`partition_tables`, per bucket of partitions: the partition phase
   (``PARTITION_PHASE``) and the partition rules' findings;
2. :func:`candidates`, per scope, given those: the points where the proven
   frontier's history needs a partition's exact certificate;
3. :func:`point_certs`, per bucket: those points' certificates (given phase 1's
   tables, or computing them again);
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
from reconcile.engine.analysis import WATERMARK_STEPS, Analysis
from reconcile.engine.frontier import CANDIDATE_CERTS, candidate_points
from reconcile.logset.load import LogSet

# The tables only the partitions' phases read (and validate).
PARTITION_ONLY: tuple[str, ...] = ("receipts", "snapshot", "snapshot_bounds")

# rc_scopes: the step that a scope's partitions share.
SCOPES_STEP = WATERMARK_STEPS[:1]

AsOf = datetime | str | None

NO_POINTS = pl.DataFrame(
    schema={
        "point_id": pl.Int64,
        "scope_id": pl.String,
        "partition_id": pl.String,
        "t": pl.Datetime("ns"),
    }
)


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


def candidates(logset: LogSet, as_of: AsOf, preset: Mapping[str, pa.Table]) -> pl.DataFrame:
    """Phase 2: the candidate points (point_id, scope_id, partition_id, t), given the
    partition phase."""
    return candidate_points(_analysis(logset, as_of, preset))


def point_certs(
    logset: LogSet, as_of: AsOf, preset: Mapping[str, pa.Table], points: pl.DataFrame
) -> pa.Table:
    """Phase 3: the certificates of the points (of the log set's partitions), given
    rc_scopes and, where it was kept from phase 1, the partition phase (else it is
    computed again, for the log set's partitions)."""
    return _analysis(logset, as_of, preset).certs_of(points)


def scope_audit(
    logset: LogSet,
    as_of: AsOf,
    settings: AuditSettings,
    preset: Mapping[str, pa.Table],
) -> tuple[AuditResult, pl.DataFrame]:
    """Phase 4: the audit without timelines, given the partition phase, the partition
    findings and the candidate points' certificates (CANDIDATE_CERTS; absent where
    no scope has a candidate point); and the partitions to draw. The receipts are
    not read here: a candidate point without a certificate is an error."""
    given = dict(preset)
    if CANDIDATE_CERTS not in given:
        # no certificates of no points: the table, empty
        given[CANDIDATE_CERTS] = _analysis(logset, as_of, preset).certs_of(NO_POINTS)
    result = audit(logset, as_of, settings, preset=given, timelines=False)
    return result, shown_partitions(result.frontier_history, result.findings)


def timelines(
    logset: LogSet, as_of: AsOf, rc_scopes: pa.Table | None, partitions: pl.DataFrame
) -> pl.DataFrame:
    """Phase 5: the timelines of ``partitions`` (scope_id, partition_id)."""
    analysis = _analysis(logset, as_of, {} if rc_scopes is None else {"rc_scopes": rc_scopes})
    return analysis.history(partitions)


__all__ = [
    "CANDIDATE_CERTS",
    "PARTITION_FINDINGS",
    "PARTITION_ONLY",
    "candidates",
    "partition_tables",
    "point_certs",
    "scope_audit",
    "scopes",
    "timelines",
]
