"""The engine's declared pipeline (reconcile.engine.registry) holds to its word.

Every step is run on its own, in a fresh DuckDB database that holds only the tables
the step declares to read: a step reading anything undeclared fails there. What it
produces must have exactly the declared columns and types, and every declared read
must be needed (without it, the step fails). Replayed step by step that way, the
pipeline gives the same outputs as an analysis.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pytest

import reconcile.sql as sql_package
from reconcile import open_logset
from reconcile.engine import Analysis
from reconcile.engine.declare import Guard, Input, Producer, Sliced, Step, Union
from reconcile.engine.encodings import resolve
from reconcile.engine.namespace import Namespace
from reconcile.engine.plan import PlanError, applies, plan
from reconcile.engine.registry import (
    OUTPUTS,
    PARTITION_INPUTS,
    PARTITION_ONLY,
    PARTITION_PHASE,
    REGISTRY,
)
from reconcile.errors import InternalError
from reconcile.logset.load import LogSet
from reconcile.sql import load, parameters
from reconcile_schemas import TABLES, CoordinateType
from tests.conftest import fast_tier

DATA = Path(__file__).resolve().parents[1] / "data"
# int64 with every table; timestamps; membership without a snapshot
# example (every table, a few rows) in the fast tier; the simulated ones in CI
LOGSETS = ["example", "faults", "timestamps", "membership"]
TARGETS = (*OUTPUTS, "rc_timelines", "rc_asked_certificates")


def _steps(producer: Producer) -> tuple[Step, ...]:
    if isinstance(producer, Sliced):
        return producer.steps
    if isinstance(producer, Step):
        return (producer,)
    return ()


ALL_STEPS = [s for p in REGISTRY.producers for s in _steps(p)]


def test_every_table_has_one_producer_for_every_log_set() -> None:
    """Tables are unique by name; among alternatives exactly one applies to any log
    set; a fallback stands in for a step that produces the same table, declared the
    same; every table read is produced or a contract table."""
    main = [p for p in REGISTRY.producers if not getattr(p, "fallback", False)]
    products = [t.name for p in main for t in p.products]
    assert len(products) == len(set(products))
    declared = {t.name: t for p in main for t in p.products}
    fallbacks = [p for p in REGISTRY.producers if getattr(p, "fallback", False)]
    assert fallbacks, "the scope phase's receiving steps come from a fallback"
    for fallback in fallbacks:
        for product in fallback.products:
            assert declared[product.name] == product, fallback.name
    produced = set(products) | {s.name for s in ALL_STEPS}
    for producer in REGISTRY.producers:
        for name in producer.reads:
            assert name in produced or name in TABLES, (producer.name, name)
    for guard in REGISTRY.guards:
        assert guard.guards in produced
        assert set(guard.reads) <= produced | set(TABLES)
    # the alternatives inside the event level: one per log set, with or without snapshot
    for sliced in (p for p in REGISTRY.producers if isinstance(p, Sliced)):
        for present in (True, False):
            names = [s.name for s in sliced.each if s.when is None or s.when[1] == present]
            assert len(names) == len(set(names))


@pytest.mark.parametrize("step", ALL_STEPS, ids=[s.name for s in ALL_STEPS])
def test_each_step_binds_the_parameters_it_declares(step: Step) -> None:
    """A query's $parameters are those its step declares (or fixes), no more, no less."""
    sql = load(step.query)
    assert parameters(sql) == set(step.params) | {k for k, _ in step.fixed}


def test_the_sql_folder_holds_no_query_no_step_runs() -> None:
    """Every engine query under sql/ is some step's, guard's, or an investigation's."""
    folder = Path(sql_package.__file__).parent
    used = {s.query for s in ALL_STEPS} | {g.query for g in REGISTRY.guards}
    engine_folders = {"watermarks", "frontier", "history", "audit", "tree"}
    for file in folder.rglob("*.sql"):
        name = file.relative_to(folder).with_suffix("").as_posix()
        if name.split("/")[0] in engine_folders:
            assert name in used, f"{name}.sql is run by no step"


class Replay:
    """The pipeline run step by step, each step in a database of its own holding
    only the tables it declares to read."""

    def __init__(self, logset: LogSet, analysis: Analysis) -> None:
        self.logset = logset
        self.coordinate = logset.coordinate
        self.as_of = analysis.as_of_text
        self.values: dict[str, Any] = {
            "default_domain": "discrete" if logset.coordinate is CoordinateType.INT64 else "dense",
            **analysis.settings.params(),
        }
        self.contract = {name: logset.relation(name).to_arrow_table() for name in TABLES}
        self.present = frozenset(logset.present)
        self.tables: dict[str, pa.Table] = {}
        self.checked: list[str] = []
        # (step, read) where the step ran without a table it declares to read
        self.unneeded: list[tuple[str, str]] = []

    def isolated(self, reads: tuple[str, ...]) -> Iterator[Namespace]:
        """A fresh database with the contract tables and working tables of ``reads``."""
        con = duckdb.connect(":memory:")
        try:
            con.execute("SET TimeZone = 'UTC'")
            for name in reads:
                if name in TABLES:
                    con.register("given", self.contract[name])
                    con.execute(f'CREATE TABLE "{name}" AS FROM given')
                    con.unregister("given")
            space = Namespace(con, self.coordinate)
            space.set_as_of(self.as_of, "replay")
            for name in reads:
                if name not in TABLES:
                    space.put(name, self.tables[name])
            yield space
        finally:
            con.close()

    def run(self, step: Step, values: dict[str, Any]) -> None:
        """Run ``step`` alone; check its product against its declaration; keep it."""
        for space in self.isolated(step.reads if applies(step, self.present) else ()):
            if applies(step, self.present):
                space.create(step, values)
            else:
                space.create_empty(step.produces)
            described = space.con.execute(f'DESCRIBE "{step.name}"').fetchall()
            got = [(row[0], row[1]) for row in described]
            want = [(c.name, resolve(c.type, self.coordinate)) for c in step.produces.columns]
            assert got == want, f"{step.name}: produced {got}, declared {want}"
            self.tables[step.name] = space.arrow(step.name)

    def needed(self, step: Step, values: dict[str, Any]) -> None:
        """Without any one of its declared reads, ``step`` fails (its query run even
        where ``only_if`` would skip it)."""
        step = dataclasses.replace(step, only_if=None)
        for missing in step.reads:
            reads = tuple(r for r in step.reads if r != missing)
            for space in self.isolated(reads):
                try:
                    space.create(step, values)
                except InternalError as error:
                    # the engine's error for DuckDB's: no such table
                    if isinstance(error.__cause__, duckdb.CatalogException):
                        continue
                    raise
                self.unneeded.append((step.name, missing))

    def producer(self, producer: Producer, check_reads: bool) -> None:
        if isinstance(producer, Input):
            return
        if isinstance(producer, Union):
            for space in self.isolated(producer.parts):
                space.union(producer)
                self.tables[producer.name] = space.arrow(producer.name)
            return
        if isinstance(producer, Sliced):
            values = {**self.values, "slices": 1, "slice": 0}
            for step in (producer.slices, producer.slice, producer.bounds):
                self.run(step, values)
            values.update(self.tables[producer.bounds.name].to_pylist()[0])
            steps = [
                s
                for s in (*producer.each, *producer.collect)
                if s.when is None or (s.when[0] in self.present) == s.when[1]
            ]
        else:
            steps = list(_steps(producer))
            values = self.values
        for step in steps:
            self.run(step, values)
            if check_reads and applies(step, self.present):
                self.needed(step, values)

    def guard(self, guard: Guard) -> None:
        for space in self.isolated(guard.reads):
            space.check(guard)
        self.checked.append(guard.name)


@pytest.fixture(params=fast_tier(LOGSETS, keep=["example"]))
def analysed(request: pytest.FixtureRequest) -> Iterator[tuple[LogSet, Analysis]]:
    with open_logset(DATA / request.param) as logset, Analysis(logset) as analysis:
        yield logset, analysis


def _inputs(analysis: Analysis) -> dict[str, pl.DataFrame]:
    partitions = analysis.read("rc_partitions").select("scope_id", "partition_id")
    points = (
        partitions.join(pl.DataFrame({"t": [analysis.as_of]}), how="cross")
        .with_columns(pl.int_range(pl.len(), dtype=pl.Int64).alias("point_id"))
        .select("point_id", "scope_id", "partition_id", pl.col("t").cast(pl.Datetime("ns")))
    )
    return {"rc_selected": partitions, "rc_asked_points": points}


@pytest.mark.slow
def test_each_step_alone_gives_its_declared_table(analysed: tuple[LogSet, Analysis]) -> None:
    """Each step run with only its declared reads (faults: and each read is needed)
    produces its declared columns; the replay gives what the analysis gives."""
    logset, analysis = analysed
    inputs = _inputs(analysis)
    for name, data in inputs.items():
        analysis.put(name, data)
    replay = Replay(logset, analysis)
    for name, data in inputs.items():
        replay.tables[name] = data.to_arrow()
    order = plan(REGISTRY, TARGETS, available=set(inputs), present=replay.present, contract=TABLES)
    check_reads = logset.path.name == "faults"
    for item in order.items:
        if isinstance(item, Guard):
            replay.guard(item)
        else:
            replay.producer(item, check_reads)
    assert replay.checked == ["partition_keys"]
    assert replay.unneeded == [], replay.unneeded
    for target in TARGETS:
        want = analysis.read(target)
        got = pl.from_arrow(replay.tables[target])
        assert isinstance(got, pl.DataFrame)
        order_by = [c for c in want.columns if not want.schema[c].is_nested()]
        assert got.sort(order_by, nulls_last=True).equals(want.sort(order_by, nulls_last=True)), (
            target
        )


def test_the_planner_refuses_what_it_cannot_do_honestly() -> None:
    present = {"checkpoints", "receipts", "pages"}
    # an input nobody supplied
    with pytest.raises(PlanError, match="rc_selected is an input"):
        plan(REGISTRY, ["rc_timelines"], available=set(), present=present, contract=TABLES)
    # a table given while another table computed with it is not
    together = next(p for p in REGISTRY.producers if len(p.products) > 1)
    with pytest.raises(PlanError, match="cannot be computed apart"):
        plan(
            REGISTRY,
            ["rc_findings"],
            available={together.products[0].name},
            present=present,
            contract=TABLES,
        )
    # the scope's phase never reads the receipts: given the partition phase it
    # needs none; without a table of it, it would
    scope_phase = set(PARTITION_PHASE) | {"rc_partition_findings"}
    plan(
        REGISTRY,
        OUTPUTS,
        available=scope_phase,
        present=present,
        contract=TABLES,
        never_reads=PARTITION_ONLY,
    )
    with pytest.raises(PlanError, match="reads receipts, which this phase must never read"):
        plan(
            REGISTRY,
            OUTPUTS,
            available=scope_phase - {"rc_moving_steps"},
            present=present,
            contract=TABLES,
            never_reads=PARTITION_ONLY,
        )


def test_the_partition_phase_reads_only_the_partitions_rows() -> None:
    """Given rc_scopes, the partition phase (with the partition rules) reads no
    contract table but the partitions' own (PARTITION_INPUTS)."""
    phase = REGISTRY.phase("partition_audit")
    every = set(TABLES)
    order = plan(REGISTRY, phase.produces, available={"rc_scopes"}, present=every, contract=TABLES)
    assert order.reads(every) & every <= set(PARTITION_INPUTS)
    # and the scope's phase, given the partitions' tables, none of the rows only
    # buckets hold
    scope = REGISTRY.phase("scope")
    order = plan(
        REGISTRY,
        scope.produces,
        available={*scope.given, *scope.may_give},
        present=every,
        contract=TABLES,
        never_reads=scope.never_reads,
    )
    assert not order.reads(every) & set(PARTITION_ONLY)


def test_a_guard_stops_a_table_that_breaks_the_engine_s_assumptions() -> None:
    """Two partitions given under one 64-bit key: the guard on rc_partitions refuses
    them before any step reads them (never a watermark mixing their events)."""
    with open_logset(DATA / "faults") as logset, Analysis(logset) as analysis:
        partitions = analysis.arrow("rc_partitions")["rc_partitions"]
    pk = partitions.column("pk").to_pylist()
    clashing = partitions.set_column(
        partitions.schema.get_field_index("pk"), "pk", pa.array([pk[0]] * len(pk), pa.uint64())
    )
    with open_logset(DATA / "faults") as logset, Analysis(logset) as analysis:
        analysis.preset({"rc_partitions": clashing})
        with pytest.raises(InternalError, match="share a 64-bit partition key") as raised:
            analysis.watermarks()
    assert "please report it" in str(raised.value)
    assert raised.value.step == "partition_keys"
