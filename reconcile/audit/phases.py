"""The audit in phases, for an engine that spreads it over the partitions (the Spark
engine). Each phase runs on a log set restricted to some rows, and is a named slice
of the engine's pipeline (:data:`reconcile.engine.registry.PHASES`): what it is
given, what it produces, what it must never read. The partitions' phases see every
row of their partitions (checkpoints, receipts, pages, snapshot, snapshot_bounds,
members), the scope's phases every row of the scope but the receipts, snapshot and
snapshot_bounds (:data:`PARTITION_ONLY`), which only the partitions' phases read:

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
from reconcile.engine.registry import (
    EXACT_TABLES,
    PARTITION_ONLY,
    PARTITION_PHASE,
    PROVEN_CONTEXT,
    REGISTRY,
)
from reconcile.logset.load import LogSet

AsOf = datetime | str | None
EXACT, EXACT_PARTITIONS = EXACT_TABLES


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


def proven_context(
    logset: LogSet, as_of: AsOf, preset: Mapping[str, pa.Table]
) -> dict[str, pa.Table]:
    """Phase 2: the scopes' PROVEN_CONTEXT, given the partition phase."""
    return _run(logset, as_of, "proven_context", preset)


def exact_points(
    logset: LogSet, as_of: AsOf, preset: Mapping[str, pa.Table]
) -> dict[str, pa.Table]:
    """Phase 3: EXACT and EXACT_PARTITIONS of the log set's partitions, given
    rc_scopes, their scopes' PROVEN_CONTEXT and, where it was kept from phase 1, the
    partition phase (else it is computed again, for these partitions)."""
    return _run(logset, as_of, "exact", preset)


def scope_audit(
    logset: LogSet,
    as_of: AsOf,
    settings: AuditSettings,
    preset: Mapping[str, pa.Table],
) -> tuple[AuditResult, pl.DataFrame]:
    """Phase 4: the audit without timelines, given the partition phase, the partition
    findings and the exact points (EXACT; where the log set has no partition, none
    are needed); and the partitions to draw. The receipts are never read here."""
    given = _accepted("scope", preset)
    partitions = given.get("rc_partitions")
    if EXACT not in given and partitions is not None and not partitions.num_rows:
        # no partition: no point to evaluate
        with Analysis(logset, as_of, settings) as analysis:
            given.update({name: analysis.empty(name) for name in EXACT_TABLES})
    result = audit(logset, as_of, settings, preset=given, timelines=False, phase="scope")
    return result, shown_partitions(result.frontier_history, result.findings)


def timelines(
    logset: LogSet, as_of: AsOf, rc_scopes: pa.Table | None, partitions: pl.DataFrame
) -> pl.DataFrame:
    """Phase 5: the timelines of ``partitions`` (scope_id, partition_id)."""
    with Analysis(logset, as_of) as analysis:
        analysis.preset(_scopes_preset(rc_scopes))
        analysis.put("rc_selected", partitions)
        return frame(analysis.phase("timelines")["rc_timelines"])


__all__ = [
    "EXACT",
    "EXACT_PARTITIONS",
    "PARTITION_FINDINGS",
    "PARTITION_ONLY",
    "PARTITION_PHASE",
    "PROVEN_CONTEXT",
    "exact_points",
    "partition_tables",
    "proven_context",
    "scope_audit",
    "scopes",
    "timelines",
]
