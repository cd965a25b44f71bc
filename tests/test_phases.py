"""The engine's partition phase (PARTITION_PHASE) can be computed for any split of
the partitions: run on each bucket of partitions alone (with the scope's rc_scopes
given), the buckets' tables together make the same audit as the whole log set.

This is the boundary along which the engine can be spread over machines by
partition; the scope phase (frontiers, their history, the rules) runs on the union.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reconcile import open_logset
from reconcile.audit import AuditResult, audit
from reconcile.engine.analysis import PARTITION_INPUTS, PARTITION_PHASE, Analysis
from reconcile.simulate import SimOptions, simulate
from reconcile.simulate.options import Evidence, Membership

DATA = Path(__file__).resolve().parents[1] / "data"
# in the contract's layout (foreign/ is read through its mapping: tests/test_mapping.py)
BUNDLED = sorted(
    p.name for p in DATA.iterdir() if p.is_dir() and not (p / "reconcile.toml").exists()
)


def _bucket(source: Path, target: Path, keys: set[tuple[str, str]]) -> None:
    """The log set with only the rows of these (scope, partition) keys."""
    target.mkdir(parents=True)
    for file in source.glob("*.parquet"):
        table = pq.read_table(file)
        if file.stem in PARTITION_INPUTS:
            rows = zip(
                table.column("scope_id").to_pylist(),
                table.column("partition_id").to_pylist(),
                strict=True,
            )
            table = table.filter(pa.array([row in keys for row in rows], pa.bool_()))
        else:
            table = table.slice(0, 0)
        pq.write_table(table, target / file.name)


def _split(source: Path, work: Path, buckets: int) -> tuple[AuditResult, dict[str, Any]]:
    """The whole audit, and the partition phase computed bucket by bucket."""
    with open_logset(source) as logset:
        whole = audit(logset)
        analysis = Analysis(logset)
        analysis.run(
            (("rc_scopes", "watermarks/scopes"), ("rc_partitions", "watermarks/partitions"))
        )
        scopes = analysis.con.sql("FROM rc_scopes").to_arrow_table()
        keys = sorted(
            analysis.con.sql("SELECT scope_id, partition_id FROM rc_partitions").fetchall()
        )
        as_of = analysis.as_of_text
    parts: dict[str, list[pa.Table]] = {}
    for number in range(buckets):
        folder = work / f"bucket-{number}"
        _bucket(source, folder, set(keys[number::buckets]))
        with open_logset(folder, validate=False) as logset:
            analysis = Analysis(logset, as_of)
            analysis.preset({"rc_scopes": scopes})
            for name, table in analysis.partition_phase().items():
                parts.setdefault(name, []).append(table)
    return whole, {"rc_scopes": scopes, **parts}


def _preset(parts: dict[str, Any], skip: int | None = None) -> dict[str, pa.Table]:
    tables = {"rc_scopes": parts["rc_scopes"]}
    for name in PARTITION_PHASE:
        pieces = [t for i, t in enumerate(parts[name]) if i != skip]
        tables[name] = pa.concat_tables(pieces, promote_options="permissive")
    return tables


def _same(first: AuditResult, second: AuditResult) -> bool:
    columns = [c for c, t in first.findings.schema.items() if not t.is_nested()]
    return (
        first.watermarks.equals(second.watermarks)
        and first.frontiers.equals(second.frontiers)
        and first.frontier_history.equals(second.frontier_history)
        and first.timelines.equals(second.timelines)
        and first.findings.sort(columns, nulls_last=True).equals(
            second.findings.sort(columns, nulls_last=True)
        )
    )


@pytest.mark.parametrize("name", BUNDLED)
def test_partition_phase_in_buckets_gives_the_same_audit(tmp_path: Path, name: str) -> None:
    whole, parts = _split(DATA / name, tmp_path, buckets=3)
    with open_logset(DATA / name) as logset:
        split = audit(logset, preset=_preset(parts))
    assert _same(split, whole)
    # and it is the buckets' tables that it reads: without one, the audit differs
    with open_logset(DATA / name) as logset:
        short = audit(logset, preset=_preset(parts, skip=0))
    assert not _same(short, whole)


@pytest.mark.parametrize(
    "options",
    [
        SimOptions(seed=5, scopes=2, partitions=5, events=5000, coordinate="timestamp",
                   evidence=Evidence.MIXED, membership=Membership.SPLIT,
                   faults=("ordering_mutation", "past_failed_event", "unproven_membership")),
        SimOptions(seed=6, scopes=3, partitions=4, events=4000, evidence=Evidence.SNAPSHOT,
                   membership=Membership.RETIRE, faults=("late_insert", "stale_owner")),
    ],
    ids=["timestamps-split", "snapshot-retire"],
)  # fmt: skip
def test_partition_phase_in_buckets_on_simulated_log_sets(
    tmp_path: Path, options: SimOptions
) -> None:
    simulate(tmp_path / "logs", options)
    whole, parts = _split(tmp_path / "logs", tmp_path, buckets=4)
    with open_logset(tmp_path / "logs") as logset:
        assert _same(audit(logset, preset=_preset(parts)), whole)
