"""The engine's partition phase (PARTITION_PHASE) can be computed for any split of
the partitions: run on each bucket of partitions alone (with the scope's rc_scopes
given), the buckets' tables together make the same audit as the whole log set.

This is the boundary along which the engine can be spread over machines by
partition; the scope phase (frontiers, their history, the rules) runs on the union.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reconcile import open_logset
from reconcile.audit import AuditResult, AuditSettings, audit, phases
from reconcile.engine import Analysis
from reconcile.engine.registry import PARTITION_INPUTS, PARTITION_PHASE
from reconcile.errors import ReconcileError
from reconcile.simulate import SimOptions, simulate
from reconcile.simulate.options import Evidence, Membership
from reconcile_schemas import load_rules, table_schema
from tests.conftest import fast_tier
from tests.logsets import FRAMEWORK_EXAMPLES

DATA = Path(__file__).resolve().parents[1] / "data"
# in the contract's layout (foreign/ is read through its mapping: tests/test_mapping.py)
BUNDLED = sorted(
    p.name
    for p in DATA.iterdir()
    if p.is_dir() and not (p / "reconcile.toml").exists() and p.name not in FRAMEWORK_EXAMPLES
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


def _scopes_and_keys(logset: Any) -> tuple[pa.Table, list[tuple[str, str]], str]:
    """rc_scopes, the (scope, partition) keys, and T as text, of a whole log set."""
    with Analysis(logset) as analysis:
        scopes = analysis.arrow("rc_scopes")["rc_scopes"]
        keys = sorted(analysis.read("rc_partitions").select("scope_id", "partition_id").rows())
        return scopes, keys, analysis.as_of_text


def _split(source: Path, work: Path, buckets: int) -> tuple[AuditResult, dict[str, Any]]:
    """The whole audit, and the partition phase computed bucket by bucket."""
    with open_logset(source) as logset:
        whole = audit(logset)
        scopes, keys, as_of = _scopes_and_keys(logset)
    parts: dict[str, list[pa.Table]] = {}
    for number in range(buckets):
        folder = work / f"bucket-{number}"
        _bucket(source, folder, set(keys[number::buckets]))
        with open_logset(folder, validate=False) as logset:
            for name, table in phases.partition_tables(logset, as_of, scopes).items():
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


@pytest.mark.parametrize("name", fast_tier(BUNDLED, keep=[]))
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
@pytest.mark.slow
def test_partition_phase_in_buckets_on_simulated_log_sets(
    tmp_path: Path, options: SimOptions
) -> None:
    simulate(tmp_path / "logs", options)
    whole, parts = _split(tmp_path / "logs", tmp_path, buckets=4)
    with open_logset(tmp_path / "logs") as logset:
        assert _same(audit(logset, preset=_preset(parts)), whole)


def _scope_rows(source: Path, target: Path) -> None:
    """The log set without the rows that only the partitions' phases read."""
    target.mkdir(parents=True)
    for file in source.glob("*.parquet"):
        table = pq.read_table(file)
        if file.stem in phases.PARTITION_ONLY:
            table = table.slice(0, 0)
        pq.write_table(table, target / file.name)


def _of(frame: pl.DataFrame, keys: set[tuple[str, str]]) -> pl.DataFrame:
    """The rows of ``frame`` whose (scope_id, partition_id) is in ``keys``."""
    mask = [k in keys for k in zip(frame["scope_id"], frame["partition_id"], strict=True)]
    return frame.filter(pl.Series(mask, dtype=pl.Boolean))


def _concat(parts: list[dict[str, pa.Table]]) -> dict[str, pa.Table]:
    """The tables of several buckets, table by table."""
    tables: dict[str, list[pa.Table]] = {}
    for part in parts:
        for name, table in part.items():
            tables.setdefault(name, []).append(table)
    return {n: pa.concat_tables(t, promote_options="permissive") for n, t in tables.items()}


def _phased(source: Path, work: Path, buckets: int) -> AuditResult:
    """The audit put together from its three phases (reconcile.audit.phases), each
    partition's phases on a bucket's rows alone, the scope's without the receipts."""
    settings = AuditSettings()
    with open_logset(source) as logset:
        _, keys, as_of = _scopes_and_keys(logset)
        scopes = phases.scopes(logset, as_of)
    groups = [set(keys[number::buckets]) for number in range(buckets)]

    def in_bucket(name: str, rows: set[tuple[str, str]], each: Any) -> list[Any]:
        """``each(logset, number, keys)`` on each bucket with some of ``rows``."""
        found = []
        for number, group in enumerate(groups):
            wanted = group & rows
            if not wanted:
                continue
            folder = work / f"{name}-{number}"
            _bucket(source, folder, wanted)
            with open_logset(folder, validate=False) as logset:
                found.append(each(logset, number, wanted))
        return found

    first = in_bucket(
        "phase1", set(keys), lambda ls, *_: phases.partition_tables(ls, as_of, scopes, settings)
    )
    preset = {"rc_scopes": scopes, **_concat(first)}
    _scope_rows(source, work / "scope")
    with open_logset(work / "scope", validate=False) as logset:
        result, shown = phases.scope_audit(logset, as_of, settings, preset)
    drawn = in_bucket(
        "phase3",
        set(zip(shown["scope_id"], shown["partition_id"], strict=True)),
        lambda ls, _, wanted: phases.timelines(ls, as_of, scopes, _of(shown, wanted)),
    )
    timelines = pl.concat(drawn) if drawn else result.timelines
    return dataclasses.replace(result, timelines=timelines)


def _sorted_timelines(result: AuditResult) -> AuditResult:
    frame = result.timelines
    if frame.height:
        frame = frame.sort("scope_id", "partition_id", "basis", "valid_from", nulls_last=False)
    return dataclasses.replace(result, timelines=frame)


@pytest.mark.parametrize("name", fast_tier(BUNDLED, keep=[]))
def test_the_audit_in_phases_is_the_audit(tmp_path: Path, name: str) -> None:
    with open_logset(DATA / name) as logset:
        whole = audit(logset)
    phased = _phased(DATA / name, tmp_path, buckets=3)
    assert _same(_sorted_timelines(phased), _sorted_timelines(whole))


@pytest.mark.parametrize(
    "options",
    [
        SimOptions(seed=7, scopes=2, partitions=5, events=5000, coordinate="timestamp",
                   evidence=Evidence.MIXED, membership=Membership.SPLIT,
                   faults=("ordering_mutation", "past_failed_event", "empty_page_no_finality")),
        # mixed: inflated_watermark needs receipts evidence (the first scope's)
        SimOptions(seed=8, scopes=2, partitions=5, events=4000, evidence=Evidence.MIXED,
                   membership=Membership.RETIRE,
                   faults=("late_insert", "inflated_watermark", "stale_owner")),
    ],
    ids=["timestamps-split", "snapshot-retire"],
)  # fmt: skip
@pytest.mark.slow
def test_the_audit_in_phases_on_simulated_log_sets(tmp_path: Path, options: SimOptions) -> None:
    simulate(tmp_path / "logs", options)
    with open_logset(tmp_path / "logs") as logset:
        whole = audit(logset)
    phased = _phased(tmp_path / "logs", tmp_path, buckets=4)
    assert _same(_sorted_timelines(phased), _sorted_timelines(whole))
    assert whole.findings.height and whole.timelines.height


@pytest.mark.slow
def test_the_scope_phase_never_reads_the_receipts() -> None:
    """The scope's phase reads no receipts: given the partition phase it audits as
    the whole log set does; without one of its tables (the pages' blocks step by
    step, made from receipts) it is the engine's error, never a frontier computed
    without it."""
    with open_logset(DATA / "faults") as logset:
        whole = audit(logset)
        first = phases.partition_tables(logset, None, None, AuditSettings())
        assert first["rc_moving_steps"].num_rows
        phased, _ = phases.scope_audit(logset, None, AuditSettings(), first)
        assert phased.frontier_history.equals(whole.frontier_history)
        short = {k: v for k, v in first.items() if k != "rc_moving_steps"}
        with pytest.raises(ReconcileError, match="phase scope needs rc_moving_steps given"):
            phases.scope_audit(logset, None, AuditSettings(), short)


def test_the_rows_only_buckets_hold_are_validated_there_alone() -> None:
    """What a bucket of partitions validates (its rows of PARTITION_ONLY) needs no
    row of another partition: every rule reporting one of those tables reads only
    partition inputs, and their uniqueness keys hold partition_id; every other rule
    reads none of them (the scope's task has none)."""
    for rule in load_rules():
        if rule.table in phases.PARTITION_ONLY:
            assert rule.reads <= set(PARTITION_INPUTS), rule.name
        else:
            assert not rule.reads & set(phases.PARTITION_ONLY), rule.name
    for table in phases.PARTITION_ONLY:
        unique = table_schema(table).unique or []
        assert not unique or "partition_id" in unique, table
