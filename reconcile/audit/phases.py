"""The audit in phases, for an engine that spreads it over the partitions (the Spark
engine). Each phase runs on a log set restricted to some rows, and is a named slice
of the engine's pipeline (:data:`reconcile.engine.registry.PHASES`): what it is
given, what it produces, what it must never read. The partitions' phases see every
row of their partitions (checkpoints, receipts, pages, snapshot, snapshot_bounds,
members), the scope's phases every row of the scope but the receipts, snapshot and
snapshot_bounds (:data:`PARTITION_ONLY`), which only the partitions' phases read:

1. :func:`partition_tables`, per bucket of partitions: the partition phase
   (``PARTITION_PHASE``) and the partition rules' findings;
2. :func:`scope_audit`, per scope, given those: watermarks, frontiers, their
   history, the findings, and the partitions whose timelines are drawn;
3. :func:`timelines`, per bucket: those partitions' timelines.

Put together, they are the audit of the whole log set (``tests/test_phases.py``).
Each phase takes the scope's ``rc_scopes`` as computed on all its checkpoints and
scopes rows (:func:`scopes`), since a bucket sees only some of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import polars as pl
import pyarrow as pa

from reconcile.audit import AuditResult, audit, shown_partitions
from reconcile.audit.findings import PARTITION_FINDINGS, AuditSettings
from reconcile.engine.analysis import Analysis, frame
from reconcile.engine.registry import PARTITION_ONLY, PARTITION_PHASE, REGISTRY
from reconcile.logset.load import LogSet

AsOf = datetime | str | None


def _accepted(phase: str, preset: Mapping[str, pa.Table]) -> dict[str, pa.Table]:
    """The tables of ``preset`` the phase takes (its given and may-give tables)."""
    declared = REGISTRY.phase(phase)
    wanted = set(declared.given) | set(declared.may_give)
    return {name: table for name, table in preset.items() if name in wanted}


def _run(
    logset: LogSet,
    as_of: AsOf,
    phase: str,
    preset: Mapping[str, pa.Table],
    settings: AuditSettings | None = None,
) -> dict[str, pa.Table]:
    with Analysis(logset, as_of, settings) as analysis:
        analysis.preset(_accepted(phase, preset))
        return analysis.phase(phase)


def _scopes_preset(rc_scopes: pa.Table | None) -> dict[str, pa.Table]:
    return {} if rc_scopes is None else {"rc_scopes": rc_scopes}


def scopes(logset: LogSet, as_of: AsOf) -> pa.Table:
    """rc_scopes of the log set's scopes (from their checkpoints and scopes rows)."""
    return _run(logset, as_of, "scopes", {})["rc_scopes"]


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
    phase = "partition" if settings is None else "partition_audit"
    return _run(logset, as_of, phase, _scopes_preset(rc_scopes), settings)


def scope_audit(
    logset: LogSet,
    as_of: AsOf,
    settings: AuditSettings,
    preset: Mapping[str, pa.Table],
) -> tuple[AuditResult, pl.DataFrame]:
    """Phase 2: the audit without timelines, given the partition phase and the
    partition findings; and the partitions to draw. The receipts are never read
    here."""
    given = _accepted("scope", preset)
    result = audit(logset, as_of, settings, preset=given, timelines=False, phase="scope")
    return result, shown_partitions(result.frontier_history, result.findings)


def timelines(
    logset: LogSet, as_of: AsOf, rc_scopes: pa.Table | None, partitions: pl.DataFrame
) -> pl.DataFrame:
    """Phase 3: the timelines of ``partitions`` (scope_id, partition_id)."""
    with Analysis(logset, as_of) as analysis:
        analysis.preset(_scopes_preset(rc_scopes))
        analysis.put("rc_selected", partitions)
        return frame(analysis.phase("timelines")["rc_timelines"])


__all__ = [
    "PARTITION_FINDINGS",
    "PARTITION_ONLY",
    "PARTITION_PHASE",
    "partition_tables",
    "scope_audit",
    "scopes",
    "timelines",
]
