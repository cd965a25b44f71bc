"""The Spark engine gives what the DuckDB engine gives: on every bundled log set, on
seeded simulated ones (several scopes in one file, timestamps, membership, faults),
in a hive layout split by scope, and for invalid log sets (the same problems, with
the rows numbered as in the source files).

The tests run Spark in ``local[2]``; they need Java 17 or 21. Without it they are
skipped, except in CI (``CI`` set), where they must run.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from reconcile import open_logset
from reconcile.audit import AuditResult, audit
from reconcile.audit.phases import PARTITION_ONLY
from reconcile.cli import main
from reconcile.engine.registry import PARTITION_INPUTS, PARTITION_PHASE, REGISTRY
from reconcile.errors import InvalidLogSet, ResourceError, UsageError
from reconcile.simulate import FAULTS, SimOptions, simulate
from reconcile.simulate.options import (
    FINALITY_FAULTS,
    MEMBERSHIP_FAULTS,
    Eligibility,
    Evidence,
    Membership,
)
from reconcile.spark import run
from reconcile.spark.kernel import FAILED, Job
from reconcile.spark.listing import layout, local_sources
from reconcile.spark.local import work_dir
from reconcile.spark.merge import merge_problems
from reconcile.spark.run import SparkEngine
from reconcile.spark.scatter import (
    BUCKETED_ARROW,
    PIECES_ARROW,
    PROBLEM,
    SourceFile,
    end_ns,
    facts,
    from_ipc,
    pieces,
)
from reconcile.spark.session import spark_session
from reconcile.spark.tasks import (
    CHECKED,
    bucket_kernel,
    scope_kernel,
)
from reconcile.validate import validate_logset
from tests.logsets import FRAMEWORK_EXAMPLES, own_mapping

# Spark in local mode: minutes; outside the fast tier (pytest -m 'not slow').
pytestmark = pytest.mark.slow

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DATA = Path(__file__).resolve().parents[1] / "data"
# foreign/ is read through its reconcile.toml, on Spark as on DuckDB
BUNDLED = sorted(p.name for p in DATA.iterdir() if p.is_dir() and p.name not in FRAMEWORK_EXAMPLES)


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    try:
        session = spark_session("local[2]")
    except UsageError as error:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"no Spark here: {error}")
    yield session
    session.stop()


def _engine(spark: SparkSession, path: Path | str, rows_per_piece: int = 100_000) -> SparkEngine:
    # three buckets of partitions per scope: the partition phase in several tasks
    mapping = own_mapping(path) if isinstance(path, Path) else None
    return SparkEngine(spark, path, rows_per_piece=rows_per_piece, buckets=3, mapping=mapping)


def spark_audit(
    spark: SparkSession, path: Path | str, rows_per_piece: int = 100_000, **job: Any
) -> AuditResult:
    engine = _engine(spark, path, rows_per_piece)
    try:
        return run.audit(engine, Job("audit", {}, **job))
    finally:
        engine.close()


def duckdb_audit(path: Path, as_of: str | None = None) -> AuditResult:
    with open_logset(path, mapping=own_mapping(path)) as logset:
        return audit(logset, as_of)


def assert_same(spark_result: AuditResult, duck: AuditResult) -> None:
    """The four report tables equal, row for row, in the report's own order (the
    findings' order among ties is free in both engines: compared sorted)."""
    assert spark_result.as_of == duck.as_of
    for name in ("watermarks", "frontiers", "frontier_history", "timelines"):
        mine, theirs = getattr(spark_result, name), getattr(duck, name)
        assert mine.schema == theirs.schema, name
        assert mine.equals(theirs), name
    columns = [c for c, t in duck.findings.schema.items() if not t.is_nested()]
    assert spark_result.findings.schema == duck.findings.schema
    assert spark_result.findings.sort(columns, nulls_last=True).equals(
        duck.findings.sort(columns, nulls_last=True)
    )
    assert spark_result.inputs == {**duck.inputs}
    assert spark_result.not_applicable.equals(duck.not_applicable)


def test_checkpoints_without_cas_audit_the_same(spark: SparkSession, tmp_path: Path) -> None:
    """stuck's won writes without the compare-and-swap columns: each write wins, ranked
    in time, in the buckets' tasks as in one DuckDB; the rules that need it do not
    apply on either engine."""
    from reconcile_schemas.names import CAS_COLUMNS  # noqa: PLC0415

    folder = tmp_path / "overwrite"
    shutil.copytree(DATA / "stuck", folder)
    checkpoints = pl.read_parquet(folder / "checkpoints.parquet")
    checkpoints.filter(pl.col("cas_result") == "won").drop(*CAS_COLUMNS).write_parquet(
        folder / "checkpoints.parquet"
    )
    duck = duckdb_audit(folder)
    assert set(duck.not_applicable["rule"]) == {
        "cas_chain_broken",
        "stale_owner_won",
        "mixed_checkpoint",
    }
    assert_same(spark_audit(spark, folder), duck)


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_log_sets_audit_the_same(spark: SparkSession, name: str) -> None:
    mine = spark_audit(spark, DATA / name)
    assert_same(mine, duckdb_audit(DATA / name))
    # the scopes' tasks took the partition phase from the buckets' tasks
    ran = {query for query, _ in mine.timings}
    assert "frontier/frontiers" in ran
    partition_phase = {
        step.query
        for table in PARTITION_PHASE
        for producer in REGISTRY.producers_of(table)
        for step in getattr(producer, "steps", (producer,))
    }
    assert not ran & partition_phase
    assert "watermarks/scopes" in ran  # rc_scopes: per scope
    # and no query of theirs read receipts: the buckets' tasks stepped the pages'
    # blocks, ran the partition rules and drew the timelines
    assert "audit/published_regressed" in ran or "audit/stalled_partition" in ran
    assert not ran & {
        "history/moving_receipts",
        "history/change_points",
        "audit/overclaim",
        "audit/late_insert",
    }


def test_partition_phase_in_the_scope_task_audits_the_same(spark: SparkSession) -> None:
    """--spark-buckets 0: the scopes' tasks compute everything themselves."""
    engine = SparkEngine(spark, DATA / "membership", buckets=0)
    mine = run.audit(engine, Job("audit", {}))
    assert_same(mine, duckdb_audit(DATA / "membership"))
    assert "watermarks/receipt_events" in {query for query, _ in mine.timings}


def test_as_of_is_the_same(spark: SparkSession) -> None:
    as_of = "2026-01-01T00:12:00+00:00"
    mine = spark_audit(spark, DATA / "faults", as_of=as_of)
    theirs = duckdb_audit(DATA / "faults", as_of)
    assert_same(mine, theirs)


def test_as_of_before_every_write_is_the_same(spark: SparkSession) -> None:
    """An instant before the first won write, the partitions in buckets: no partition
    is drawn, and the timelines are an empty table of their columns (Spark gave a
    table without columns, and the report failed with exit 3)."""
    as_of = "2026-01-01T00:00:00.000001+00:00"
    mine = spark_audit(spark, DATA / "faults", as_of=as_of)
    theirs = duckdb_audit(DATA / "faults", as_of)
    assert theirs.timelines.is_empty() and theirs.timelines.width
    assert_same(mine, theirs)


CONNECT_AUDIT = """
import sys
from pathlib import Path
from reconcile.spark import run
from reconcile.spark.kernel import Job
from reconcile.spark.local import work_dir
from reconcile.spark.session import connect_session

remote = connect_session("local[2]")
engine = run.SparkEngine(remote, sys.argv[1], rows_per_piece=5_000)
result = run.audit(engine, Job("audit", {}))
for name in ("watermarks", "frontiers", "frontier_history", "findings", "timelines"):
    getattr(result, name).write_parquet(Path(sys.argv[2]) / f"{name}.parquet")
engine.close()
remote.stop()
"""


def test_spark_connect_audits_the_same(spark: SparkSession, tmp_path: Path) -> None:
    """Through Spark Connect (a local Connect server, in a process of its own: a
    classic session and a Connect one cannot share a process), the same audit."""
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run(
        [sys.executable, "-c", CONNECT_AUDIT, str(DATA / "faults"), str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    duck = duckdb_audit(DATA / "faults")
    for name in ("watermarks", "frontiers", "frontier_history", "timelines"):
        assert pl.read_parquet(tmp_path / f"{name}.parquet").equals(getattr(duck, name)), name
    findings = pl.read_parquet(tmp_path / "findings.parquet")
    columns = [c for c, t in findings.schema.items() if not t.is_nested()]
    assert findings.sort(columns, nulls_last=True).equals(
        duck.findings.sort(columns, nulls_last=True)
    )


def _options(seed: int) -> SimOptions:
    """A random small simulated run: 2-3 scopes, either coordinate, membership,
    snapshots, faults."""
    rng = random.Random(seed)
    membership = rng.choice(list(Membership))
    faults = [f for f in FAULTS if f not in MEMBERSHIP_FAULTS]
    if membership is not Membership.NONE:
        faults.extend(MEMBERSHIP_FAULTS)
    scopes = rng.randint(2, 3)
    coordinate = rng.choice(["int64", "timestamp"])
    evidence = rng.choice(list(Evidence))
    eligibility = rng.choice(list(Eligibility))
    drawn = rng.sample(faults, 3)
    # faults the simulator refuses here (SimOptions.check) are left out of the draw:
    # stalled_partition with several scopes, finality faults with a snapshot
    refused = {"stalled_partition"} | (FINALITY_FAULTS if evidence is Evidence.SNAPSHOT else set())
    return SimOptions(
        seed=seed,
        scopes=scopes,
        partitions=6,
        events=6000,
        coordinate=coordinate,
        evidence=evidence,
        membership=membership,
        eligibility=eligibility,
        faults=tuple(f for f in drawn if f not in refused),
    )


# seeds whose random options the simulator can run (11 cannot: a retiring partition
# without a claim by the change); between them both coordinates, every membership
@pytest.mark.parametrize("seed", [12, 13, 15, 18, 33])
def test_simulated_log_sets_audit_the_same(spark: SparkSession, tmp_path: Path, seed: int) -> None:
    options = _options(seed)
    simulate(tmp_path / "logs", options)
    # pieces of 1,000 rows: a scope's rows of one file come in many pieces
    mine = spark_audit(spark, tmp_path / "logs", rows_per_piece=1_000)
    assert_same(mine, duckdb_audit(tmp_path / "logs"))


def _split_by_scope(source: Path, target: Path) -> None:
    """The log set again, each table a folder with a hive folder per scope and two
    files in each (and an empty file)."""
    target.mkdir()
    for file in sorted(source.glob("*.parquet")):
        table = pq.read_table(file)
        if "scope_id" not in table.column_names:
            shutil.copy(file, target / file.name)
            continue
        for scope in pc.unique(table.column("scope_id")).to_pylist():
            rows = table.filter(pc.equal(table.column("scope_id"), scope))
            rows = rows.drop_columns(["scope_id"])
            folder = target / file.stem / f"scope_id={scope}"
            folder.mkdir(parents=True)
            half = rows.num_rows // 2
            pq.write_table(rows.slice(0, half), folder / "part-0.parquet")
            pq.write_table(rows.slice(half), folder / "part-1.parquet")
            pq.write_table(rows.schema.empty_table(), folder / "part-2.parquet")


def test_hive_layout_by_scope_audits_the_same(spark: SparkSession, tmp_path: Path) -> None:
    simulate(tmp_path / "logs", _options(21))
    _split_by_scope(tmp_path / "logs", tmp_path / "hive")
    duck = duckdb_audit(tmp_path / "hive")
    assert duck.watermarks["scope_id"].n_unique() > 1
    assert_same(spark_audit(spark, tmp_path / "hive"), duck)


def test_a_uri_is_listed_by_spark(spark: SparkSession, tmp_path: Path) -> None:
    """A log set named by URL is listed through Spark's file systems (here file://)."""
    _split_by_scope(DATA / "membership", tmp_path / "hive")
    engine = _engine(spark, (tmp_path / "hive").as_uri())
    _, local, _, _ = local_sources(str(tmp_path / "hive"))
    assert sorted(engine.sources) == sorted(local)
    assert {n: s.hive for n, s in engine.sources.items()} == {n: s.hive for n, s in local.items()}
    assert_same(
        spark_audit(spark, (tmp_path / "hive").as_uri()) | _no_path(),
        duckdb_audit(tmp_path / "hive") | _no_path(),
    )


class _no_path:
    """``result | _no_path()``: the result without the log set's path in its inputs
    (a URL and a folder name the same files)."""

    def __ror__(self, result: AuditResult) -> AuditResult:
        inputs = {k: v for k, v in result.inputs.items() if k != "logset"}
        return AuditResult(
            result.as_of,
            result.watermarks,
            result.frontiers,
            result.frontier_history,
            result.findings,
            result.timelines,
            inputs,
            result.timings,
        )


def _break_pages(target: Path) -> None:
    """A page_id repeated in another partition of its scope (pages are unique by
    scope and page_id: no bucket of partitions sees both rows)."""
    pages = pq.read_table(target / "pages.parquet")
    ids = pages.column("page_id").to_pylist()
    scopes = pages.column("scope_id").to_pylist()
    partitions = pages.column("partition_id").to_pylist()
    other = next(
        i for i in range(1, len(ids)) if scopes[i] == scopes[0] and partitions[i] != partitions[0]
    )
    ids[other] = ids[0]
    pages = pages.set_column(
        pages.column_names.index("page_id"), "page_id", pa.array(ids, pa.string())
    )
    pq.write_table(pages, target / "pages.parquet")


def _break(source: Path, target: Path, receipts_too: bool = True) -> None:
    """Two scopes in one file with broken rows in both, and a row without a scope
    (receipts, which buckets of partitions validate); a page_id repeated across
    partitions (pages, which the scopes' tasks validate)."""
    shutil.copytree(source, target)
    _break_pages(target)
    if not receipts_too:
        return
    receipts = pq.read_table(target / "receipts.parquet")
    owner = receipts.column("owner_epoch").to_pylist()
    scopes = receipts.column("scope_id").to_pylist()
    first = {s: scopes.index(s) for s in set(scopes)}
    for row in first.values():
        owner[row] = -5
    owner[len(owner) - 1] = -7
    scopes[3] = None
    receipts = receipts.set_column(
        receipts.column_names.index("owner_epoch"), "owner_epoch", pa.array(owner, pa.int64())
    )
    receipts = receipts.set_column(
        receipts.column_names.index("scope_id"), "scope_id", pa.array(scopes, pa.string())
    )
    pq.write_table(receipts, target / "receipts.parquet")


@pytest.mark.parametrize("receipts_too", [True, False], ids=["receipts-and-pages", "pages"])
def test_invalid_log_set_reports_the_same_problems(
    spark: SparkSession, tmp_path: Path, receipts_too: bool
) -> None:
    simulate(tmp_path / "logs", _options(31))
    _break(tmp_path / "logs", tmp_path / "bad", receipts_too)
    duck = validate_logset(tmp_path / "bad")
    assert not duck.ok
    engine = _engine(spark, tmp_path / "bad", rows_per_piece=500)
    try:
        mine = run.validate(engine, Job("validate", {}))
    finally:
        engine.close()
    assert [p.to_dict() for p in mine.problems] == [p.to_dict() for p in duck.problems]
    broken = {"receipts", "pages"} if receipts_too else {"pages"}
    assert {p.table for p in mine.problems} == broken
    assert mine.tables == duck.tables
    assert mine.coordinate == duck.coordinate
    with pytest.raises(InvalidLogSet) as raised:
        spark_audit(spark, tmp_path / "bad")
    found = raised.value.report.problems
    assert [p.to_dict() for p in found] == [p.to_dict() for p in duck.problems]


def test_cli_audit_on_spark(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``reconcile audit --engine spark`` writes the report DuckDB writes; invalid
    input exits 2 and leaves no report."""
    code = main(["audit", str(DATA / "faults"), "--out", str(tmp_path / "duck")])
    assert code == main(
        [
            "audit",
            str(DATA / "faults"),
            "--out",
            str(tmp_path / "spark"),
            "--engine",
            "spark",
            "--spark-master",
            "local[2]",
        ]
    )
    for table in ("watermarks", "frontiers", "frontier_history", "findings"):
        mine = pl.read_parquet(tmp_path / "spark" / f"{table}.parquet")
        theirs = pl.read_parquet(tmp_path / "duck" / f"{table}.parquet")
        assert mine.height == theirs.height, table
        if table != "findings":
            assert mine.equals(theirs), table
    out = capsys.readouterr().out
    assert "findings" in out
    _break(DATA / "membership", tmp_path / "bad")
    code = main(["audit", str(tmp_path / "bad"), "--out", str(tmp_path / "r"), "--engine", "spark"])
    assert code == 2
    assert not (tmp_path / "r").exists()
    assert "owner_epoch" in capsys.readouterr().err


@pytest.mark.parametrize("buckets", ["0", "3"])
def test_cli_frontier_and_watermarks_on_spark(
    spark: SparkSession, tmp_path: Path, capsys: pytest.CaptureFixture[str], buckets: str
) -> None:
    """The same output, byte for byte, and the same exit status, with the scopes'
    tasks doing everything or in buckets."""
    _break(DATA / "faults", tmp_path / "bad")
    for command, logset, code in [
        ("frontier", DATA / "timestamps", 0),
        ("watermarks", DATA / "timestamps", 0),
        ("validate", DATA / "timestamps", 0),
        ("validate", tmp_path / "bad", 2),
    ]:
        assert main([command, str(logset), "--json"]) == code
        theirs = capsys.readouterr().out
        spark_args = ["--engine", "spark", "--spark-buckets", buckets]
        assert main([command, str(logset), "--json", *spark_args]) == code
        assert capsys.readouterr().out == theirs, command


def test_a_log_set_without_rows_fails_as_on_duckdb(spark: SparkSession, tmp_path: Path) -> None:
    path = tmp_path / "empty"
    path.mkdir()
    empty = pq.read_table(DATA / "faults" / "checkpoints.parquet").schema.empty_table()
    pq.write_table(empty, path / "checkpoints.parquet")
    with pytest.raises(UsageError, match="no timestamped rows") as duck:
        duckdb_audit(path)
    with pytest.raises(UsageError, match="no timestamped rows") as mine:
        spark_audit(spark, path)
    assert str(mine.value) == str(duck.value)
    engine = _engine(spark, path)
    assert run.validate(engine, Job("validate", {})) == validate_logset(path)


def _problem(check: str, column: str | None, rows: int | None, **extra: Any) -> dict[str, Any]:
    return {
        "table": "receipts",
        "file": "receipts.parquet",
        "files": ["receipts.parquet"],
        "column": column,
        "check": check,
        "message": extra.get("message", f"{column} breaks {check}"),
        "failing_rows": rows,
        "examples": extra.get("examples", []),
    }


def test_scope_problems_merge_in_validation_order() -> None:
    """No Spark needed: problems of several scopes become one list, in validation's
    order, their rows, examples and repeated values added up."""
    layout = _problem("missing_column", "page_id", None)
    nulls = _problem("not_nullable", "scope_id", 1, examples=[{"file": "x", "row": 3}])
    owner_a = _problem("ge", "owner_epoch", 2, examples=[{"file": "x", "row": 9}])
    owner_b = _problem("ge", "owner_epoch", 1, examples=[{"file": "x", "row": 0}])
    unique_a = _problem("unique", None, 4, message="(scope_id, page_id) must be unique: 2 value(s)")
    unique_b = _problem("unique", None, 2, message="(scope_id, page_id) must be unique: 1 value(s)")
    merged = merge_problems(
        [[layout], [layout, owner_a, unique_a], [layout, owner_b, unique_b], [layout, nulls]],
        max_examples=5,
    )
    assert [(p.check, p.failing_rows) for p in merged] == [
        ("missing_column", None),
        ("not_nullable", 1),
        ("ge", 3),
        ("unique", 6),
    ]
    assert merged[2].examples == ({"file": "x", "row": 0}, {"file": "x", "row": 9})
    assert merged[3].message == "(scope_id, page_id) must be unique: 3 value(s)"


def test_tasks_lay_out_under_the_executors_local_dirs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No Spark needed: a task's folder goes where Spark or YARN keeps local files."""
    for name in ("RECONCILE_TEMP_DIR", "SPARK_LOCAL_DIRS", "LOCAL_DIRS"):
        monkeypatch.delenv(name, raising=False)
    assert work_dir() is None
    monkeypatch.setenv("LOCAL_DIRS", f"{tmp_path},/elsewhere")
    assert work_dir() == str(tmp_path)
    (tmp_path / "spark").mkdir()
    monkeypatch.setenv("SPARK_LOCAL_DIRS", str(tmp_path / "spark"))
    assert work_dir() == str(tmp_path / "spark")
    monkeypatch.setenv("RECONCILE_TEMP_DIR", str(tmp_path / "missing"))
    assert work_dir() == str(tmp_path / "spark")


def test_pieces_route_rows_by_scope_and_bucket_without_spark(tmp_path: Path) -> None:
    """No Spark needed. A scope_id that is not text sends the whole file to the task
    of rows without a scope (whose validation reports it); the end of the log is
    exact in any unit, seconds far from 1970 included."""
    table = pa.table(
        {
            "scope_id": pa.array(["a", "b", "a", None]).dictionary_encode(),
            "partition_id": ["p1", "p2", "p1", "p3"],
            "recorded_at": pa.array([0, 5_000_000_000, 2, 1], pa.timestamp("s")),
        }
    )
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    source = SourceFile("receipts", "receipts.parquet", "file:///x/receipts.parquet")
    found = list(pieces(source, sink.getvalue().to_pybytes(), buckets=2))
    rows = {(p["scope_id"], p["bucket"]): from_ipc(p["blob"])["__source_row"].to_pylist()
            for p in found}  # fmt: skip
    assert sorted(r for rs in rows.values() for r in rs) == [0, 1, 2, 3]
    assert {scope for scope, _ in rows} == {"a", "b", None}
    assert [r for (scope, _), rs in rows.items() if scope == "a" for r in rs] == [0, 2]
    assert end_ns(source, table) == 5_000_000_000 * 1_000_000_000

    numbers = table.set_column(0, "scope_id", pa.array([1, 2, 1, 2]))
    sink = pa.BufferOutputStream()
    pq.write_table(numbers, sink)
    found = list(pieces(source, sink.getvalue().to_pybytes()))
    assert [(p["scope_id"], from_ipc(p["blob"]).num_rows) for p in found] == [(None, 4)]


def test_a_file_that_does_not_read_is_a_problem_piece_without_spark() -> None:
    """No Spark needed. Not Parquet: its facts say why (no schema, no rows). Its
    footer read and its rows not: the pieces end in one problem for the task of rows
    without a scope (in bucket 0 with buckets), named as validation names it."""
    source = SourceFile("receipts", "receipts.parquet", "file:///x/receipts.parquet")
    found = facts(source, b"garbage\n")
    assert found["problem"] and "rows" not in found and "blob" not in found
    table = pa.table({"scope_id": ["a"] * 3, "event_id": ["e1", "e2", "e3"]})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="none")
    content = bytearray(sink.getvalue().to_pybytes())
    chunk = pq.ParquetFile(pa.BufferReader(bytes(content))).metadata.row_group(0).column(1)
    start = chunk.dictionary_page_offset or chunk.data_page_offset
    content[start : start + chunk.total_compressed_size] = b"\xff" * chunk.total_compressed_size
    assert facts(source, bytes(content)).get("problem") is None  # its footer reads
    for buckets in (0, 2):
        *_, last = pieces(source, bytes(content), buckets=buckets)
        assert (last["scope_id"], last["relpath"], last.get("bucket", 0)) == (None, PROBLEM, 0)
        problem = json.loads(last["blob"])
        assert (problem["check"], problem["table"], problem["files"]) == (
            "unreadable_file",
            "receipts",
            ["receipts.parquet"],
        )
        assert problem["message"].startswith("cannot be read as Parquet: ")


def _mapped_csv(tmp_path: Path) -> Path:
    """A small mapped log set (CSV in two files, a constant scope, an SQL expression,
    a value map, a text time) with two problems: a negative owner epoch, and a value
    the map lacks."""
    logs = tmp_path / "logs"
    (logs / "cp").mkdir(parents=True)
    (logs / "cp" / "a.csv").write_text(
        "shard,run,lease,expected,gen,cas,written\n"
        "p0,a1,1,0,1,Y,01/01/2026 00:00:00\n"
        "p1,a1,-4,0,1,Y,01/01/2026 00:00:01\n"
    )
    (logs / "cp" / "b.csv").write_text(
        "shard,run,lease,expected,gen,cas,written\n"
        "p0,a1,1,1,2,N,01/01/2026 00:00:10\n"
        "p1,a1,1,1,2,MAYBE,01/01/2026 00:00:11\n"
    )
    (logs / "reconcile.toml").write_text(
        '[checkpoints]\nfiles = "cp/*.csv"\n[checkpoints.columns]\n'
        'scope_id = { constant = "s" }\npartition_id = "shard"\nattempt_id = "run"\n'
        'owner_epoch = { sql = "CAST(lease AS BIGINT)" }\nexpected_generation = "expected"\n'
        'generation = "gen"\n'
        'cas_result = { column = "cas", values = { Y = "won", N = "lost" } }\n'
        'written_at = { column = "written", timestamp = "%d/%m/%Y %H:%M:%S" }\n'
    )
    return logs


def test_mapped_log_sets_report_the_same_problems(spark: SparkSession, tmp_path: Path) -> None:
    """Read through a mapping, Spark reports what DuckDB reports, in the user's
    terms: the value the map lacks (found on the driver), and, once it is mapped,
    the negative owner epoch in the user's file and row."""
    logs = _mapped_csv(tmp_path)
    for _ in range(2):
        duck = validate_logset(logs, mapping="auto")
        engine = _engine(spark, logs, rows_per_piece=1)
        try:
            mine = run.validate(engine, Job("validate", {}))
        finally:
            engine.close()
        assert [p.to_dict() for p in mine.problems] == [p.to_dict() for p in duck.problems]
        assert mine.mapping == duck.mapping == str(logs / "reconcile.toml")
        toml = logs / "reconcile.toml"
        toml.write_text(toml.read_text().replace('N = "lost"', 'N = "lost", MAYBE = "lost"'))
    assert [(p.check, p.source, p.files) for p in duck.problems] == [
        ("greater_than_or_equal_to", "sql CAST(lease AS BIGINT)", ("cp/a.csv",))
    ]
    assert duck.problems[0].examples[0]["row"] == 1


def test_a_mapping_is_for_local_log_sets(capsys: pytest.CaptureFixture[str]) -> None:
    mapping = str(DATA / "foreign" / "reconcile.toml")
    url = f"file://{DATA / 'clean'}"
    assert main(["validate", url, "--engine", "spark", "--mapping", mapping]) == 2
    assert "reads a local log set only" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("command", "framework"),
    [("audit", "airbyte"), ("validate", "dlt"), ("watermarks", "singer")],
)
def test_a_framework_folder_on_spark_is_refused_naming_its_reader(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, framework: str
) -> None:
    """A folder of a framework's artifacts is read by its reader, on DuckDB alone (the
    DuckDB engine finds the reader by itself). On Spark it was read as contract
    tables and refused as a log set without timestamped rows; now the refusal says
    what the folder holds and what reads it, before Spark starts."""
    argv = [command, str(DATA / framework), "--engine", "spark"]
    if command == "audit":
        argv += ["--out", str(tmp_path / "report")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"the {framework} reader reads on the DuckDB engine only" in err
    assert "leave out --engine spark" in err
    assert not (tmp_path / "report").exists()


def test_a_folder_of_two_frameworks_on_spark_is_refused_for_both_reasons(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Singer runs beside a dlt destination: the refusal asks for --source, which
    Spark would then refuse; it says both at once."""
    folder = tmp_path / "both"
    shutil.copytree(DATA / "singer", folder)
    shutil.copytree(DATA / "dlt" / "shop", folder / "shop")
    argv = ["audit", str(folder), "--out", str(tmp_path / "report"), "--engine", "spark"]
    assert main(argv) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "holds a dlt destination and Singer message streams: name the one" in said
    assert "the readers run on the DuckDB engine only: leave out --engine spark" in said
    assert not (tmp_path / "report").exists()


def test_a_mapped_file_that_does_not_convert(spark: SparkSession, tmp_path: Path) -> None:
    """A value the mapping's conversion rejects: a problem naming the table (and on
    Spark the file), as on DuckDB; not a failed Spark job."""
    logs = _mapped_csv(tmp_path)
    toml = logs / "reconcile.toml"
    toml.write_text(toml.read_text().replace('N = "lost"', 'N = "lost", MAYBE = "lost"'))
    bad = logs / "cp" / "b.csv"
    bad.write_text(bad.read_text().replace("01/01/2026 00:00:10", "31/02/2026 00:00:10"))
    duck = validate_logset(logs, mapping="auto")
    engine = _engine(spark, logs)
    try:
        mine = run.validate(engine, Job("validate", {}))
    finally:
        engine.close()
    for report in (duck, mine):
        assert [(p.check, p.table) for p in report.problems][-1] == (
            "unreadable_table",
            "checkpoints",
        )
        assert "cannot be read through the mapping" in report.problems[-1].message
    assert mine.problems[-1].files == ("cp/b.csv",)


def test_a_mapped_hive_layout(spark: SparkSession, tmp_path: Path) -> None:
    """A mapping that takes the scope from a hive folder (stream=s0/) reads the same
    on Spark, where each file is read on its own in a task."""
    logs = tmp_path / "logs"
    for scope in ("s0", "s1"):
        rows = pl.DataFrame(
            {
                "shard": ["p0", "p0"],
                "run": ["a", "a"],
                "owner_epoch": [1, 1],
                "expected_generation": [0, 1],
                "generation": [1, 2],
                "cas_result": ["won", "won"],
                "written_at": [datetime(2026, 1, 1), datetime(2026, 1, 1, 0, 1)],
                "watermark": [3, 5],
                "watermark_inclusive": [True, True],
            }
        )
        (logs / "cp" / f"stream={scope}").mkdir(parents=True)
        rows.write_parquet(logs / "cp" / f"stream={scope}" / "part.parquet")
    (logs / "reconcile.toml").write_text(
        '[checkpoints]\nfiles = "cp/**/*.parquet"\n[checkpoints.columns]\n'
        'scope_id = "stream"\npartition_id = "shard"\nattempt_id = "run"\n'
    )
    mine = spark_audit(spark, logs)
    assert_same(mine, duckdb_audit(logs))
    assert sorted(mine.watermarks["scope_id"].to_list()) == ["s0", "s1"]


def _task(kernel: Any, key: tuple[Any, ...], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One task as Spark runs it (no Spark needed): the group's pieces in, rows out."""
    schema = BUCKETED_ARROW if "bucket" in rows[0] else PIECES_ARROW
    batches = (pa.RecordBatch.from_pylist([row], schema=schema) for row in rows)
    return [r for b in kernel(tuple(pa.scalar(k) for k in key), batches) for r in b.to_pylist()]


def test_a_bucket_whose_partition_phase_failed_passes_the_failure_on() -> None:
    """No Spark needed. A bucket whose partition phase failed says so to the scope's
    task instead of failing the job; the scope's task, finding its rows valid,
    raises it (the engine's fault), and never audits without that phase; given the
    phase, it audits."""
    _, sources, _, _ = local_sources(str(DATA / "faults"))
    contents = {k: Path(s.uri.removeprefix("file://")).read_bytes() for k, s in sources.items()}
    tables = {}
    for key, source in sorted(sources.items()):
        tables.setdefault(source.table, (key, facts(source, contents[key])["blob"]))
    job = Job("audit", tables, as_of="2026-01-01T01:00:00+00:00", phased=True, buckets=1)
    bucketed = [
        p for k, s in sources.items() if s.table in PARTITION_INPUTS
        for p in pieces(s, contents[k], buckets=1)
    ]  # fmt: skip
    scope = bucketed[0]["scope_id"]
    mine = [p for p in bucketed if p["scope_id"] == scope]
    first = _task(bucket_kernel(job, {}), (scope, 0), mine)
    kept = [r for r in first if r["relpath"] != CHECKED]
    assert kept and not any(r["relpath"] == FAILED for r in kept)
    scoped = [
        p for k, s in sources.items() if s.table not in PARTITION_ONLY
        for p in pieces(s, contents[k]) if p["scope_id"] == scope
    ]  # fmt: skip
    given = [{k: v for k, v in r.items() if k != "bucket"} for r in kept]
    failed = {"scope_id": scope, "relpath": FAILED, "blob": b"RuntimeError: a bucket died"}
    with pytest.raises(RuntimeError, match="a bucket died"):
        _task(scope_kernel(job), (scope,), [*scoped, *given[1:], failed])
    out = _task(scope_kernel(job), (scope,), [*scoped, *given])
    assert FAILED not in {r["output"] for r in out}


def test_the_listing_refuses_a_hive_key_named_twice_on_a_path() -> None:
    """No Spark needed: the remote listing reads hive folders as discovery does."""
    sources, problems = layout(
        "s3a://bucket/logs",
        ["checkpoints.parquet", "receipts/partition_id=a/partition_id=b/x.parquet"],
    )
    assert [p.check for p in problems] == ["hive_key_repeated"]
    assert problems[0].files == ("receipts/partition_id=a/partition_id=b/x.parquet",)
    assert sources["receipts/partition_id=a/partition_id=b/x.parquet"].hive == {"partition_id": "b"}


def test_the_listing_refuses_a_hive_value_holding_an_equals_sign() -> None:
    """No Spark needed: as discovery does (tests/test_value_range.py)."""
    _, problems = layout(
        "s3a://bucket/logs", ["checkpoints.parquet", "receipts/page_id=g1=x/x.parquet"]
    )
    assert [(p.check, p.files) for p in problems] == [
        ("hive_value_unencoded", ("receipts/page_id=g1=x/x.parquet",))
    ]


def test_the_listing_refuses_a_name_holding_a_backslash() -> None:
    """No Spark needed: as discovery does (tests/test_glob_names.py)."""
    sources, problems = layout(
        "s3a://bucket/logs", ["checkpoints.parquet", "receipts/a.parquet", "receipts/x\\y.parquet"]
    )
    assert [(p.check, p.table, p.files) for p in problems] == [
        ("backslash_in_name", "receipts", ("receipts/x\\y.parquet",))
    ]
    assert sorted(sources) == ["checkpoints.parquet", "receipts/a.parquet"]


def test_a_url_whose_folder_is_named_as_a_pattern(spark: SparkSession, tmp_path: Path) -> None:
    """``run[1]`` beside ``run1``: Hadoop listed run1 for the pattern, and the log set
    came out without files (and no problem said)."""
    shutil.copytree(DATA / "stuck", tmp_path / "run[1]")
    shutil.copytree(DATA / "clean", tmp_path / "run1")
    url = "file://" + str(tmp_path / "run[1]")
    engine = _engine(spark, url)
    try:
        assert sorted(engine.sources) == sorted(p.name for p in (DATA / "stuck").glob("*.parquet"))
    finally:
        engine.close()


# --- layouts and files the Spark door once misread (a probe of the Spark engine) ---


def _copy(name: str, target: Path) -> Path:
    shutil.copytree(DATA / name, target)
    (target / "truth.json").unlink(missing_ok=True)
    return target


def _dot_parquet_folders(target: Path) -> None:
    """receipts in three files under receipts.parquet/, checkpoints in one under
    checkpoints.parquet/: the folders Spark writes (the first file of each was lost)."""
    receipts = pq.read_table(target / "receipts.parquet")
    (target / "receipts.parquet").unlink()
    (target / "receipts.parquet").mkdir()
    third = receipts.num_rows // 3 + 1
    for i in range(3):
        pq.write_table(
            receipts.slice(i * third, third), target / f"receipts.parquet/part-{i}.parquet"
        )
    checkpoints = pq.read_table(target / "checkpoints.parquet")
    (target / "checkpoints.parquet").unlink()
    (target / "checkpoints.parquet").mkdir()
    pq.write_table(checkpoints, target / "checkpoints.parquet/part-00000.parquet")


def _glob_names(target: Path) -> None:
    """receipts in x1, x2 and a file named x{1,2}.parquet (Hadoop read the last as
    the pattern: x1 and x2 twice, itself never)."""
    receipts = pq.read_table(target / "receipts.parquet")
    (target / "receipts.parquet").unlink()
    (target / "receipts").mkdir()
    third = receipts.num_rows // 3 + 1
    for i, name in enumerate(("x1", "x2", "x{1,2}")):
        pq.write_table(receipts.slice(i * third, third), target / f"receipts/{name}.parquet")


def _published_by_time(target: Path) -> None:
    """published in hive folders by published_at, with a late scalar publication of
    +inf after every other row: the end of the log set is in a folder's name (it was
    left out, and T came before that publication)."""
    published = pq.read_table(target / "published.parquet")
    (target / "published.parquet").unlink()
    late = {
        "scope_id": ["s0"],
        "epoch": pa.array([None], pa.int64()),
        "published_at": pa.array(
            [datetime(2026, 1, 1, 0, 0, 30)], published.schema.field("published_at").type
        ),
        "kind": ["scalar"],
        "frontier": pa.array([None], pa.int64()),
        "frontier_inclusive": pa.array([None], pa.bool_()),
    }
    published = pa.concat_tables([published, pa.table(late, schema=published.schema)])
    for value in pc.unique(published["published_at"]).to_pylist():
        rows = published.filter(pc.equal(published["published_at"], value))
        folder = target / f"published/published_at={value.strftime('%Y-%m-%dT%H:%M:%S.%fZ')}"
        folder.mkdir(parents=True)
        pq.write_table(rows.drop_columns(["published_at"]), folder / "part.parquet")


def _scope_without_partitions(target: Path) -> None:
    """A second scope declared by its scopes row alone: no bucket holds a row of it
    (its task crashed, 'phase scope needs rc_partition_scopes')."""
    scopes = pq.read_table(target / "scopes.parquet")
    extra = pa.table({"scope_id": ["s9"], "ordering": ["seq"], "domain": ["dense"]})
    pq.write_table(pa.concat_tables([scopes, extra.cast(scopes.schema)]), target / "scopes.parquet")


def _empty_folders(target: Path) -> None:
    """checkpoints and pages as folders without a file: present, without rows (§1:
    a folder holding any number of Parquet files). Spark took an empty folder for
    a missing table: checkpoints missing (exit 2), pages left out of the inputs."""
    (target / "checkpoints.parquet").unlink()
    (target / "checkpoints").mkdir()
    (target / "pages.parquet").unlink()
    (target / "pages" / "scope_id=s0").mkdir(parents=True)


@pytest.mark.parametrize(
    "layout",
    [
        _dot_parquet_folders,
        _glob_names,
        _published_by_time,
        _scope_without_partitions,
        _empty_folders,
    ],
    ids=lambda f: f.__name__,
)
def test_layouts_audit_the_same(spark: SparkSession, tmp_path: Path, layout: Any) -> None:
    folder = _copy("clean", tmp_path / "logs")
    layout(folder)
    duck = duckdb_audit(folder)
    assert_same(spark_audit(spark, folder), duck)
    if layout is _published_by_time:
        assert "published_overclaim" in set(duck.findings["rule"])


def _empty_file_of_wrong_type(target: Path) -> None:
    """A receipts file with no rows whose position is text (no task saw it)."""
    receipts = pq.read_table(target / "receipts.parquet")
    (target / "receipts.parquet").unlink()
    (target / "receipts").mkdir()
    pq.write_table(receipts, target / "receipts/a.parquet")
    schema = receipts.schema
    bad = schema.set(schema.get_field_index("position"), pa.field("position", pa.string()))
    pq.write_table(bad.empty_table(), target / "receipts/z.parquet")


def _mixed_coordinates(target: Path) -> None:
    """Scope int of clean (int64 positions) beside the scopes of timestamps (times):
    each scope's task saw one coordinate type, the log set has two."""
    shutil.rmtree(target)
    target.mkdir()
    for origin, prefix in (("clean", "int-"), ("timestamps", "ts-")):
        for file in sorted((DATA / origin).glob("*.parquet")):
            if file.name.startswith("snapshot"):
                continue
            table = pq.read_table(file)
            ids = pc.binary_join_element_wise(prefix, table["scope_id"], "")
            table = table.set_column(table.schema.get_field_index("scope_id"), "scope_id", ids)
            (target / file.stem).mkdir(exist_ok=True)
            pq.write_table(table, target / file.stem / f"{origin}.parquet")


def _int96_past_2262(target: Path) -> None:
    """timestamps' receipts as INT96, one position in 2300 (pyarrow's nanoseconds wrap
    it into 1715)."""
    receipts = pq.read_table(target / "receipts.parquet")
    positions = receipts["position"].to_pylist()
    positions[0] = datetime(2300, 1, 1, tzinfo=positions[1].tzinfo)
    column = pa.array(positions, receipts.schema.field("position").type)
    receipts = receipts.set_column(receipts.schema.get_field_index("position"), "position", column)
    pq.write_table(receipts, target / "receipts.parquet", use_deprecated_int96_timestamps=True)


def _written_at_past_2262(target: Path) -> None:
    """clean's checkpoints, one written_at in 2300 (microseconds): the latest time of
    the file, which Spark's reading of the footers took in int64 nanoseconds
    (an internal error, exit 3, where DuckDB names the row)."""
    checkpoints = pq.read_table(target / "checkpoints.parquet")
    times = checkpoints["written_at"].to_pylist()
    times[0] = datetime(2300, 1, 1, tzinfo=times[1].tzinfo)
    column = pa.array(times, checkpoints.schema.field("written_at").type)
    checkpoints = checkpoints.set_column(
        checkpoints.schema.get_field_index("written_at"), "written_at", column
    )
    pq.write_table(checkpoints, target / "checkpoints.parquet")


def _written_at_past_2262_in_one_of_two_scopes(target: Path) -> None:
    """clean's tables again as a second scope, s1, one of its written_at in 2300: the
    first scope is valid, and its task computed as of the log set's end, 2300, a T
    outside the range the engine computes in (an internal error, exit 3)."""
    for file in sorted(target.glob("*.parquet")):
        table = pq.read_table(file)
        if "scope_id" not in table.schema.names:
            continue
        index = table.schema.get_field_index("scope_id")
        second = table.set_column(
            index, table.schema.field(index), pa.array(["s1"] * len(table), pa.string())
        )
        if file.stem == "checkpoints":
            times = second["written_at"].to_pylist()
            times[0] = datetime(2300, 1, 1, tzinfo=times[1].tzinfo)
            column = pa.array(times, second.schema.field("written_at").type)
            second = second.set_column(
                second.schema.get_field_index("written_at"), "written_at", column
            )
        pq.write_table(pa.concat_tables([table, second.cast(table.schema)]), file)


def _int96_nanoseconds(target: Path) -> None:
    """timestamps' receipts as INT96, one recorded_at 123 ns past a microsecond."""
    receipts = pq.read_table(target / "receipts.parquet")
    ns = pa.timestamp("ns", tz=receipts.schema.field("recorded_at").type.tz)
    times = pc.cast(receipts["recorded_at"], ns).cast(pa.int64()).to_pylist()
    times[0] += 123
    column = pa.array(times, pa.int64()).cast(ns)
    receipts = receipts.set_column(
        receipts.schema.get_field_index("recorded_at"), "recorded_at", column
    )
    pq.write_table(receipts, target / "receipts.parquet", use_deprecated_int96_timestamps=True)


def _not_parquet(target: Path) -> None:
    """receipts.parquet that is not Parquet (Spark failed reading its footer: exit 3)."""
    (target / "receipts.parquet").write_bytes(b"garbage\n")


def _text_beside_parquet(target: Path) -> None:
    """A text file among the receipts' Parquet files, and checkpoints not Parquet."""
    (target / "receipts").mkdir()
    (target / "receipts.parquet").rename(target / "receipts" / "part-0.parquet")
    (target / "receipts" / "notes.txt").write_text("hi\n")
    (target / "checkpoints.parquet").write_bytes(b"PAR1" + b"\0" * 12 + b"PAR1")


def _unreadable_column(target: Path) -> None:
    """receipts whose footer and times read and whose event ids do not: the pages of
    event_id overwritten (Spark read the footer and the times in one job, the rows in
    another, which failed: exit 3)."""
    path = target / "receipts.parquet"
    metadata = pq.ParquetFile(path).metadata
    data = bytearray(path.read_bytes())
    column = metadata.schema.names.index("event_id")
    for group in range(metadata.num_row_groups):
        chunk = metadata.row_group(group).column(column)
        start = chunk.dictionary_page_offset or chunk.data_page_offset
        data[start : start + chunk.total_compressed_size] = b"\xff" * chunk.total_compressed_size
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("origin", "breaks"),
    [
        ("clean", _empty_file_of_wrong_type),
        ("clean", _mixed_coordinates),
        ("timestamps", _int96_past_2262),
        ("timestamps", _int96_nanoseconds),
        ("clean", _written_at_past_2262),
        ("clean", _written_at_past_2262_in_one_of_two_scopes),
    ],
    ids=lambda v: v.__name__ if callable(v) else v,
)
def test_invalid_files_are_refused_as_on_duckdb(
    spark: SparkSession, tmp_path: Path, origin: str, breaks: Any
) -> None:
    """Each was audited on Spark (exit 0 or 1, with a wrong report); DuckDB refuses
    it. Spark names at least DuckDB's problems (past 2262, also the range it reads)."""
    folder = _copy(origin, tmp_path / "logs")
    breaks(folder)
    duck = validate_logset(folder)
    assert not duck.ok
    with pytest.raises(InvalidLogSet) as raised:
        spark_audit(spark, folder)
    found = {(p.check, p.table, p.column) for p in raised.value.report.problems}
    assert {(p.check, p.table, p.column) for p in duck.problems} <= found


def _empty_file(target: Path) -> None:
    """receipts.parquet of 0 bytes: Spark's file source never reads it (it said the
    file was not read as listed)."""
    (target / "receipts.parquet").write_bytes(b"")


def _unreadable_in_a_hive_folder(target: Path) -> None:
    """pages in a hive folder, its one file not Parquet (a stand-in at its place
    brought the folder's key in: a hive_key_shadows_column problem of Spark's own)."""
    (target / "pages.parquet").unlink()
    (target / "pages" / "scope_id=s0").mkdir(parents=True)
    (target / "pages" / "scope_id=s0" / "part-0.parquet").write_bytes(b"garbage\n")


@pytest.mark.parametrize(
    "breaks",
    [
        _not_parquet,
        _text_beside_parquet,
        _unreadable_column,
        _unreadable_in_a_hive_folder,
        _empty_file,
    ],
    ids=lambda f: f.__name__,
)
def test_unreadable_files_are_named_as_on_duckdb(
    spark: SparkSession, tmp_path: Path, breaks: Any
) -> None:
    """A file that is not Parquet, or whose rows do not read: Spark failed (exit 3);
    now the same problems as DuckDB's, file for file (the reason in each message is
    pyarrow's words on Spark, DuckDB's on one machine), and the audit refused."""
    folder = _copy("clean", tmp_path / "logs")
    breaks(folder)
    duck = validate_logset(folder)
    assert not duck.ok
    engine = _engine(spark, folder)
    try:
        mine = run.validate(engine, Job("validate", {}))
    finally:
        engine.close()

    def named(problems: Any) -> list[tuple[Any, ...]]:
        return [(p.check, p.table, p.column, p.files) for p in problems]

    assert named(mine.problems) == named(duck.problems)
    assert {p.check for p in mine.problems} == {"unreadable_file"}
    with pytest.raises(InvalidLogSet):
        spark_audit(spark, folder)


def _empty_file_beside_a_readable_one(target: Path) -> None:
    """receipts in a folder: its rows in one file, and a second file of 0 bytes."""
    (target / "receipts").mkdir()
    (target / "receipts.parquet").rename(target / "receipts" / "part-0.parquet")
    (target / "receipts" / "part-1.parquet").write_bytes(b"")


@pytest.mark.parametrize(
    "breaks", [_empty_file, _empty_file_beside_a_readable_one], ids=lambda f: f.__name__
)
def test_an_empty_file_at_a_url_is_named_as_on_duckdb(
    spark: SparkSession, tmp_path: Path, breaks: Any
) -> None:
    """A log set named by URL lists files of 0 bytes too: the listing was a scan of the
    files, which skips them, so a table whose only file was empty was absent (here
    receipts, and the log set then audited from pages alone), and an empty file
    beside others went unnoticed. Now each is ``unreadable_file``, as on DuckDB."""
    folder = _copy("clean", tmp_path / "logs")
    breaks(folder)
    duck = validate_logset(folder)
    assert {p.check for p in duck.problems} == {"unreadable_file"}
    engine = _engine(spark, folder.as_uri())
    try:
        mine = run.validate(engine, Job("validate", {}))
    finally:
        engine.close()
    assert [(p.check, p.table, p.files) for p in mine.problems] == [
        (p.check, p.table, p.files) for p in duck.problems
    ]
    with pytest.raises(InvalidLogSet):
        spark_audit(spark, folder.as_uri())


def test_running_out_of_memory_reading_a_file_is_a_resource_error() -> None:
    """pyarrow's ArrowMemoryError (or Python's MemoryError) in a task: exit 4 with
    the hint, not an internal error (exit 3), nor the file's fault (exit 2)."""
    for text in (
        "PythonException: pyarrow.lib.ArrowMemoryError: malloc of size 2147483648 failed",
        "PythonException: MemoryError",
    ):
        found = run.spark_failure("read the log set", Exception(text))
        assert isinstance(found, ResourceError) and found.resource == "memory"
    assert not isinstance(run.spark_failure("x", Exception("ValueError: no")), ResourceError)


def assert_same_problems(spark: SparkSession, folder: Path, duck: Any) -> None:
    """Spark's validation of ``folder`` reports DuckDB's problems (``duck``), in order."""
    engine = _engine(spark, folder)
    try:
        mine = run.validate(engine, Job("validate", {}))
    finally:
        engine.close()
    assert [p.to_dict() for p in mine.problems] == [p.to_dict() for p in duck.problems]


def test_mapped_int96_times_are_refused_as_on_duckdb(spark: SparkSession, tmp_path: Path) -> None:
    """foreign's receipts read through its mapping with recorded_at from an INT96
    column, one time 123 ns past a microsecond: DuckDB refuses it (int96_nanoseconds);
    Spark read it through the mapping, cut to the microsecond, and audited it."""
    folder = _copy("foreign", tmp_path / "logs")
    mapping = folder / "reconcile.toml"
    old = 'recorded_at = { column = "recorded_ms", timestamp = "epoch_ms" }'
    assert old in mapping.read_text()
    mapping.write_text(mapping.read_text().replace(old, 'recorded_at = "rec"'))
    events = pq.read_table(folder / "events.parquet")
    ns = pc.multiply(events["recorded_ms"].cast(pa.int64()), 1_000_000).to_pylist()
    ns[0] += 123
    rec = pa.array(ns, pa.int64()).cast(pa.timestamp("ns", tz="UTC"))
    pq.write_table(
        events.append_column("rec", rec),
        folder / "events.parquet",
        use_deprecated_int96_timestamps=True,
    )
    duck = validate_logset(folder, mapping="auto")
    assert ("int96_nanoseconds", "recorded_at") in {(p.check, p.column) for p in duck.problems}
    assert_same_problems(spark, folder, duck)


def test_a_mapped_time_out_of_range_is_shown_as_written_on_both_engines(
    spark: SparkSession, tmp_path: Path
) -> None:
    """foreign's checkpoints, ts_ms (epoch milliseconds) of one row in the year 5138:
    both engines name it with the user's column as the file holds it."""
    folder = _copy("foreign", tmp_path / "logs")
    progress = pq.read_table(folder / "progress.parquet")
    values = progress["ts_ms"].to_pylist()
    values[0] = 99_999_999_999_999
    column = pa.array(values, progress.schema.field("ts_ms").type)
    progress = progress.set_column(progress.schema.get_field_index("ts_ms"), "ts_ms", column)
    pq.write_table(progress, folder / "progress.parquet")
    duck = validate_logset(folder, mapping="auto")
    (problem,) = [p for p in duck.problems if p.check == "timestamp_in_range"]
    assert problem.examples[0]["ts_ms"] == "99999999999999 (as written)"
    assert_same_problems(spark, folder, duck)


def test_a_log_set_without_checkpoints_reports_the_same_problems(
    spark: SparkSession, tmp_path: Path
) -> None:
    """receipts alone: the missing table is reported once, naming the log set, as on
    DuckDB (the driver's check of the files' schemas leaves the layout to the tasks)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(DATA / "clean" / "receipts.parquet", folder / "receipts.parquet")
    duck = validate_logset(folder)
    assert not duck.ok
    assert_same_problems(spark, folder, duck)
