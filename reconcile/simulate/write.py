"""Simulated paginated ingestion runs, with faults injected on purpose.

``simulate(out, options)`` writes a full log set (every table of docs/contract.md §3)
and ``truth.json``: each injected fault, where it was injected, and the findings an
audit must report, including the benign ones (``replayed_events``). The same
options give byte-identical files. Rows stream to disk a partition at a time, so a
run of any size needs the memory of one partition.

The model and its faults are described in ``plan.py``, ``faults.py`` and
``scope.py``; the knobs in ``options.py``.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from reconcile.atomic import is_mount_point, swap_in
from reconcile.errors import UsageError
from reconcile.mapping.spec import MAPPING_FILE
from reconcile.simulate.faults import SimulationError, iso
from reconcile.simulate.foreign import FILES as FOREIGN_FILES
from reconcile.simulate.foreign import to_foreign
from reconcile.simulate.keys import NONE
from reconcile.simulate.options import FAULTS, SimOptions
from reconcile.simulate.render import (
    TIME,
    render_checkpoints,
    render_pages,
    render_receipts,
    render_snapshot,
)
from reconcile.simulate.scope import ScopeBuilder, ScopeRun
from reconcile.simulate.truth import Expected, Injected
from reconcile_schemas import TABLES

GENERATOR = "reconcile simulate"

ROW_GROUP = 1_000_000

__all__ = ["FAULTS", "SimOptions", "SimulationError", "SimulationResult", "simulate"]


@dataclass(frozen=True)
class SimulationResult:
    path: Path
    rows: dict[str, int]
    faults: int
    findings: int


class _TableWriter:
    """Appends Arrow tables to one Parquet file, a row group per ~million rows."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.buffer: list[pa.Table] = []
        self.buffered = 0
        self.writer: pq.ParquetWriter | None = None
        self.rows = 0

    def write(self, table: pa.Table) -> None:
        if table.num_rows == 0:
            return
        self.buffer.append(table)
        self.buffered += table.num_rows
        if self.buffered >= ROW_GROUP:
            self.flush()

    def flush(self) -> None:
        if not self.buffer:
            return
        table = pa.concat_tables(self.buffer)
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.path, table.schema, compression="zstd")
        self.writer.write_table(table, row_group_size=ROW_GROUP)
        self.rows += table.num_rows
        self.buffer, self.buffered = [], 0

    def close(self) -> None:
        self.flush()
        if self.writer is not None:
            self.writer.close()


def _replayed(receipts: pa.Table) -> int:
    durable = receipts.filter(
        pc.is_in(receipts["outcome"], pa.array(["committed", "dead_lettered"]))
    )
    counts = durable.group_by("event_id").aggregate([("event_id", "count")])
    return int(pc.sum(pc.greater(counts["event_id_count"], 1)).as_py() or 0)


def _coordinate_column(values: list[int | None], timestamp: bool) -> pa.Array:
    array = pa.array(values, pa.int64())
    return array.cast(TIME) if timestamp else array


def _decode(key: int | None) -> tuple[int | None, bool | None]:
    if key is None or key == NONE:
        return None, None
    return key >> 1, bool(key & 1)


def _scope_tables(run: ScopeRun) -> dict[str, pa.Table]:
    """The scope-level tables: scopes, epochs, members, published."""
    ts = run.timestamp
    tables = {
        "scopes": pa.table(
            {
                "scope_id": [run.scope_id],
                "ordering": ["event_time" if ts else "seq"],
                "domain": ["dense" if ts else "discrete"],
            }
        )
    }
    change = run.membership
    if change is not None:
        cut, cut_incl = _decode(change.cutover)
        tables["epochs"] = pa.table(
            {
                "scope_id": [run.scope_id, run.scope_id],
                "epoch": pa.array([1, 2], pa.int64()),
                "effective_at": pa.array(
                    [change.first_effective, change.effective], pa.int64()
                ).cast(TIME),
                "cutover": _coordinate_column([None, cut], ts),
                "cutover_inclusive": pa.array([None, cut_incl], pa.bool_()),
            }
        )
        base = [s.partition_id for s in run.specs if s.index < 10_000]
        joining = dict(change.joining)
        rows: list[dict[str, Any]] = [
            {"epoch": 1, "partition_id": p, "role": "member", "coverage_from": None} for p in base
        ]
        for p in base + list(joining):
            if p == change.parent:
                seal, seal_incl = _decode(change.seal)
                rows.append(
                    {
                        "epoch": 2,
                        "partition_id": p,
                        "role": "retiring",
                        "sealed_through": seal,
                        "sealed_inclusive": seal_incl,
                    }
                )
                continue
            coverage = joining.get(p)
            if change.unproven and change.joining and p == change.joining[0][0]:
                coverage = None
            rows.append(
                {"epoch": 2, "partition_id": p, "role": "member", "coverage_from": coverage}
            )
        tables["members"] = pa.table(
            {
                "scope_id": [run.scope_id] * len(rows),
                "epoch": pa.array([r["epoch"] for r in rows], pa.int64()),
                "partition_id": [r["partition_id"] for r in rows],
                "role": [r["role"] for r in rows],
                "coverage_from": _coordinate_column([r.get("coverage_from") for r in rows], ts),
                "sealed_through": _coordinate_column([r.get("sealed_through") for r in rows], ts),
                "sealed_inclusive": pa.array([r.get("sealed_inclusive") for r in rows], pa.bool_()),
            }
        )
    published = run.published
    frontier = [_decode(p[3] if p[2] == "scalar" else None) for p in published]
    tables["published"] = pa.table(
        {
            "scope_id": [run.scope_id] * len(published),
            "epoch": pa.array([p[1] for p in published], pa.int64()),
            "published_at": pa.array([p[0] for p in published], pa.int64()).cast(TIME),
            "kind": [p[2] for p in published],
            "frontier": _coordinate_column([f[0] for f in frontier], ts),
            "frontier_inclusive": pa.array([f[1] for f in frontier], pa.bool_()),
        }
    )
    return tables


def simulate(
    out: str | Path,
    options: SimOptions,
    *,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
    foreign: bool = False,
) -> SimulationResult:
    """Write a simulated log set to ``out`` (a new directory), atomically; with
    ``foreign``, in the foreign layout with its mapping. ``force`` replaces ``out``
    only when it is a log set this command wrote (or an empty folder): anything else
    there is refused, never deleted."""
    options = options.check()
    target = Path(out)
    if os.path.lexists(target):
        if not force:
            raise UsageError(f"{target} exists; pass --force to replace it")
        why = why_not_simulated(target)
        if why is not None:
            raise UsageError(
                f"{target} exists and is not a log set written by reconcile simulate ({why}):"
                " --force replaces only those; choose another OUT"
            )
        if is_mount_point(target):
            raise UsageError(
                f"{target} is a mount point: the log set replaces its folder in one step,"
                " which cannot be done to a mount point; choose a folder inside it"
            )
    target = target.absolute()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.parent / f".{target.name}.partial-{os.getpid()}"
    aside = target.parent / f".{target.name}.previous-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        result = _write(staging, options, progress)
        if foreign:
            to_foreign(staging)
        swap_in(staging, target, aside)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if os.path.lexists(aside) and not os.path.lexists(target):
            aside.rename(target)
    return SimulationResult(Path(out), result[0], result[1], result[2])


# Every file a simulated log set holds, in either layout.
SIMULATED_FILES = frozenset(
    {f"{name}.parquet" for name in TABLES} | set(FOREIGN_FILES) | {MAPPING_FILE, "truth.json"}
)


def why_not_simulated(path: Path) -> str | None:
    """None when ``path`` is an empty folder or a log set ``reconcile simulate``
    wrote (its files alone, and its truth.json); else why not."""
    if path.is_symlink() or not path.is_dir():
        return "not a folder"
    names = {entry.name for entry in path.iterdir()}
    if not names:
        return None
    others = sorted(names - SIMULATED_FILES)
    if others:
        return f"it holds {', '.join(others[:3])}" + (", ..." if len(others) > 3 else "")
    try:
        truth = json.loads((path / "truth.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "no truth.json written by reconcile simulate"
    if not (isinstance(truth, dict) and truth.get("generator") == GENERATOR):
        return "no truth.json written by reconcile simulate"
    return None


def _write(
    folder: Path, options: SimOptions, progress: Callable[[int, int], None] | None
) -> tuple[dict[str, int], int, int]:
    writers: dict[str, _TableWriter] = {}

    def writer(name: str) -> _TableWriter:
        if name not in writers:
            writers[name] = _TableWriter(folder / f"{name}.parquet")
        return writers[name]

    builders = [ScopeBuilder(options, i) for i in range(options.scopes)]
    runs = [b.plan() for b in builders]
    total = sum(len(r.specs) for r in runs)
    done = 0
    injected: list[Injected] = []
    expected: list[Expected] = []
    scope_rows: dict[str, list[pa.Table]] = {}
    for builder, run in zip(builders, runs, strict=True):
        injected.extend(run.injected)
        for name, table in _scope_tables(run).items():
            scope_rows.setdefault(name, []).append(table)
        for plan in builder.rows(run):
            ts = run.timestamp
            receipts = render_receipts(plan, ts)
            writer("checkpoints").write(render_checkpoints(plan, ts))
            writer("receipts").write(receipts)
            writer("pages").write(render_pages(plan, ts))
            if plan.snapshot:
                snapshot, bounds = render_snapshot(plan, ts)
                writer("snapshot").write(snapshot)
                writer("snapshot_bounds").write(bounds)
            replayed = _replayed(receipts)
            if replayed:
                expected.append(
                    Expected(
                        "replayed_events",
                        plan.scope_id,
                        plan.partition_id,
                        evidence={"events": replayed},
                    )
                )
            done += 1
            if progress:
                progress(done, total)
    for name, tables in scope_rows.items():
        writer(name).write(pa.concat_tables(tables))
    for w in writers.values():
        w.close()
    findings = [f for i in injected for f in i.findings] + expected
    truth = {
        "generator": GENERATOR,
        "options": _options_dict(options),
        "scopes": [
            {
                "scope_id": run.scope_id,
                "coordinate": "timestamp" if run.timestamp else "int64",
                "domain": "discrete" if run.discrete else "dense",
                "evidence": "snapshot" if builders[i].snapshot else "receipts",
                "partitions": [s.partition_id for s in run.specs],
                "bound": iso(run.bound) if run.timestamp else run.bound,
                "membership": None
                if run.membership is None
                else {
                    "kind": run.membership.kind.value,
                    "effective_at": iso(run.membership.effective),
                    "retiring": run.membership.parent,
                    "joining": [p for p, _ in run.membership.joining],
                },
            }
            for i, run in enumerate(runs)
        ],
        "faults": [i.to_dict() for i in injected],
        "findings": sorted(
            (f.to_dict() for f in findings),
            key=lambda d: json.dumps({k: d[k] for k in d if k != "evidence"}, sort_keys=True),
        ),
    }
    (folder / "truth.json").write_text(json.dumps(truth, indent=2) + "\n", encoding="utf-8")
    rows = {name: w.rows for name, w in writers.items()}
    return rows, len(injected), len(findings)


def _options_dict(options: SimOptions) -> dict[str, Any]:
    out = asdict(options)
    for name in ("evidence", "membership", "eligibility"):
        out[name] = str(out[name].value if hasattr(out[name], "value") else out[name])
    out["faults"] = list(options.faults)
    return out
