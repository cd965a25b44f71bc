"""The Spark engine's driver: list the files, scatter them by scope, run the scope
kernel on every scope, and put the scopes' outputs together."""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

import duckdb
import polars as pl

from reconcile.audit import AuditResult
from reconcile.audit.findings import FINDING_SCHEMA, sort_findings
from reconcile.engine.analysis import PARTITION_INPUTS
from reconcile.errors import InputError, InvalidLogSet, ReconcileError, UsageError
from reconcile.logset.discover import _hidden, discover, relative_name
from reconcile.problems import Problem
from reconcile.spark.kernel import (
    FRAMES,
    OUTPUTS_SCHEMA,
    Job,
    bucket_kernel,
    evaluate,
    lay_out,
    scope_kernel,
    scopes_kernel,
)
from reconcile.spark.scatter import (
    BUCKETED_SCHEMA,
    FACTS_SCHEMA,
    PIECE_ROWS,
    PIECES_SCHEMA,
    SourceFile,
    footers,
    from_ipc,
    scatter,
)
from reconcile.validate.report import TableRead, ValidationReport
from reconcile_schemas import TABLES, load_rules, table_schema

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

Step = Callable[[str], None]

# Buckets of partitions per scope where Spark cannot say its parallelism.
DEFAULT_BUCKETS = 8


def is_remote(path: str) -> bool:
    """Whether a log set path is a URL (``hdfs://``, ``s3a://``, ``file://``), listed
    through Spark's file systems, rather than a local folder."""
    return len(urlparse(path).scheme) > 1


def _hive(parts: Sequence[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    for part in parts[:-1]:
        key, sep, value = part.partition("=")
        if sep and key:
            values[key] = unquote(value)
    return values


def layout(root: str, relpaths: Iterable[str]) -> tuple[dict[str, SourceFile], list[Problem]]:
    """The contract tables among a log set's file names (relative, ``/``-separated),
    by the rules of :func:`reconcile.logset.discover.discover`."""
    sources: dict[str, SourceFile] = {}
    problems: list[Problem] = []
    names = sorted(set(relpaths))
    for table in TABLES:
        single = f"{table}.parquet"
        inside = [
            n
            for n in names
            if n.startswith(f"{table}/") and not any(_hidden(p) for p in n.split("/")[1:])
        ]
        if single in names and inside:
            problems.append(
                Problem(
                    check="ambiguous_table",
                    table=table,
                    files=(single, f"{table}/"),
                    message=f"table {table} is both {single} and a folder {table}/;"
                    " keep one of them",
                )
            )
            continue
        chosen = [single] if single in names else inside
        for name in chosen:
            parts = name.split("/")
            hive = _hive(parts[1:]) if len(parts) > 1 else {}
            sources[name] = SourceFile(table, name, f"{root.rstrip('/')}/{name}", hive)
    return sources, problems


def local_sources(path: str) -> tuple[str, dict[str, SourceFile], list[Problem]]:
    files = discover(path)
    sources: dict[str, SourceFile] = {}
    for table in files.tables.values():
        for file, hive in zip(table.files, table.hive, strict=True):
            name = relative_name(files.root, file)
            # not as_uri(): Hadoop reads the path as written, and would look for
            # "scope_id%3Ds0" where the folder is "scope_id=s0"
            sources[name] = SourceFile(table.name, name, f"file://{file.as_posix()}", dict(hive))
    return str(files.root), sources, list(files.problems)


def remote_sources(
    spark: SparkSession, path: str
) -> tuple[str, dict[str, SourceFile], list[Problem]]:
    """A log set on a Hadoop file system, listed by Spark (no data read)."""
    root = path.rstrip("/")
    try:
        listed = (
            spark.read.format("binaryFile")
            .option("recursiveFileLookup", "true")
            .option("pathGlobFilter", "*.parquet")
            .load(root)
            .select("path")
            .collect()
        )
    except Exception as error:
        raise InputError(f"log set {root}: cannot be listed: {error}") from None
    base = unquote(urlparse(root).path).rstrip("/")
    relpaths = []
    for row in listed:
        full = unquote(urlparse(row["path"]).path)
        if full.startswith(base + "/"):
            relpaths.append(full[len(base) + 1 :])
    sources, problems = layout(root, relpaths)
    return root, sources, problems


@dataclass
class Collected:
    """The scopes' outputs, put together."""

    coordinate: str = "int64"
    rows: dict[str, int] = field(default_factory=dict)
    # each scope's problems, in the order its validation reported them
    problems: list[list[dict[str, Any]]] = field(default_factory=list)
    frames: dict[str, list[pl.DataFrame]] = field(default_factory=dict)
    as_of: str | None = None
    timings: list[tuple[str, float]] = field(default_factory=list)

    def add(self, output: str, blob: bytes) -> None:
        if output != "meta":
            frame = pl.from_arrow(from_ipc(blob))
            assert isinstance(frame, pl.DataFrame)
            self.frames.setdefault(output, []).append(frame)
            return
        meta = json.loads(blob)
        self.coordinate = meta["coordinate"]
        for table, count in meta["rows"].items():
            if count is not None:
                self.rows[table] = self.rows.get(table, 0) + count
        self.problems.append(meta["problems"])
        self.as_of = meta.get("as_of", self.as_of)
        self.timings.extend((name, seconds) for name, seconds in meta.get("timings", []))

    def frame(self, name: str) -> pl.DataFrame:
        frames = self.frames.get(name, [])
        if not frames:
            return pl.DataFrame(schema=FINDING_SCHEMA) if name == "findings" else pl.DataFrame()
        return pl.concat(frames, how="diagonal_relaxed")


_NUMBER = re.compile(r"\d+")
_RULE_NAMES = frozenset(rule.name for rule in load_rules())


def _key(problem: dict[str, Any]) -> tuple[Any, ...]:
    return (
        problem["check"],
        problem["table"],
        problem["column"],
        _NUMBER.sub("#", problem["message"]),
    )


def _phase(problem: dict[str, Any]) -> tuple[int, int, int]:
    """Where validation reports a problem: layout and schemas first, then each table's
    rows (in contract order, column by column), then the rules between tables."""
    table, column = problem["table"], problem["column"]
    if problem["check"] in _RULE_NAMES:
        phase = 2
    elif problem["failing_rows"] is not None or problem["check"].startswith("unreadable"):
        phase = 1
    else:
        phase = 0
    columns = list(table_schema(table).columns) if table in TABLES else []
    return (
        phase,
        list(TABLES).index(table) if table in TABLES else -1,
        columns.index(column) if column in columns else len(columns),
    )


def _in_order(lists: Sequence[Sequence[dict[str, Any]]]) -> list[tuple[Any, ...]]:
    """Problem keys in the order validation reports them. Each scope's list is in
    that order, so a key goes after every key it follows in any list; between keys
    no list orders, by where validation reports them (:func:`_phase`)."""
    seen: dict[tuple[Any, ...], tuple[tuple[int, int, int], int]] = {}
    before: dict[tuple[Any, ...], set[tuple[Any, ...]]] = {}
    for problems in lists:
        keys = [_key(p) for p in problems]
        for i, (key, problem) in enumerate(zip(keys, problems, strict=True)):
            seen.setdefault(key, (_phase(problem), len(seen)))
            before.setdefault(key, set()).update(keys[:i])
    ordered: list[tuple[Any, ...]] = []
    placed: set[tuple[Any, ...]] = set()
    while len(ordered) < len(seen):
        ready = [k for k in seen if k not in placed and before[k] <= placed]
        # lists that disagree (a cycle) cannot happen; if they did, go by phase
        key = min(ready or [k for k in seen if k not in placed], key=seen.__getitem__)
        ordered.append(key)
        placed.add(key)
    return ordered


def merge_problems(found: Sequence[Sequence[dict[str, Any]]], max_examples: int) -> list[Problem]:
    """The scopes' problems (a list per scope) as one list, in validation's order: a
    problem found in several scopes (a file holding several scopes' rows) is one
    problem, its rows and examples added up."""
    order = _in_order(found)
    merged: dict[tuple[Any, ...], dict[str, Any]] = {}
    for problem in (p for problems in found for p in problems):
        key = _key(problem)
        seen = merged.get(key)
        if seen is None:
            merged[key] = {**problem, "files": list(problem["files"])}
            continue
        if seen == problem:
            continue
        seen["files"] = list(dict.fromkeys([*seen["files"], *problem["files"]]))
        if problem["failing_rows"] is not None:
            seen["failing_rows"] = (seen["failing_rows"] or 0) + problem["failing_rows"]
        seen["examples"] = sorted(
            [*seen["examples"], *problem["examples"]],
            key=lambda e: (str(e.get("file")), e.get("row") or 0),
        )[:max_examples]
        if seen["message"] != problem["message"]:
            # "(...) must be unique: 3 value(s) repeat": the counts add up
            first = _NUMBER.findall(seen["message"])
            other = _NUMBER.findall(problem["message"])
            if len(first) == len(other) == 1:
                total = str(int(first[0]) + int(other[0]))
                seen["message"] = _NUMBER.sub(total, seen["message"])
    return [
        Problem(
            check=p["check"],
            message=p["message"],
            table=p["table"],
            column=p["column"],
            files=tuple(p["files"]),
            failing_rows=p["failing_rows"],
            examples=tuple(p["examples"]),
        )
        for p in (merged[key] for key in order)
    ]


class SparkJobFailed(ReconcileError):
    """A Spark job of the engine failed (the cluster, not the log set)."""


_OOM_HINT = (
    " (raise the memory of Spark's executors, or of the driver in local mode:"
    " --spark-conf spark.executor.memory=8g, --spark-conf spark.driver.memory=8g)"
)


@contextmanager
def spark_errors(what: str) -> Iterator[None]:
    """Spark's failures as one clear error: what failed, and the cause's first line."""
    try:
        yield
    except ReconcileError:
        raise
    except Exception as error:
        if type(error).__module__.split(".")[0] not in ("pyspark", "py4j"):
            raise
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        causes = [line for line in lines if "Error" in line or "Exception" in line]
        cause = (causes[-1] if causes else lines[0] if lines else type(error).__name__)[:500]
        hint = _OOM_HINT if "OutOfMemoryError" in str(error) else ""
        raise SparkJobFailed(f"Spark could not {what}: {cause}{hint}") from None


class SparkEngine:
    """A log set read by Spark, and the engine's jobs on it."""

    def __init__(
        self,
        spark: SparkSession,
        path: str | Path,
        *,
        rows_per_piece: int = PIECE_ROWS,
        buckets: int | None = None,
    ) -> None:
        self.spark = spark
        self.rows_per_piece = rows_per_piece
        # buckets of partitions per scope for the partition phase (0: in the scope's
        # own task; None: see _buckets)
        self.buckets = buckets
        text = str(path)
        if is_remote(text):
            self.root, self.sources, self.layout_problems = remote_sources(spark, text)
        else:
            self.root, self.sources, self.layout_problems = local_sources(text)
        self._facts_read = False
        self.tables: dict[str, tuple[str, bytes]] = {}
        self.files: dict[str, int] = {}
        self.end_ns: int | None = None

    def read_facts(self) -> None:
        """Each file's schema, row count and latest timestamp (a first Spark job, which
        reads the footers and the end-of-log columns only)."""
        if self._facts_read:
            return
        uris = [s.uri for s in self.sources.values()]
        if uris:
            with spark_errors(f"read the log set {self.root}"):
                files = self.spark.read.format("binaryFile").load(uris)
                rows = (
                    files.select("path", "content")
                    .mapInArrow(footers(self.sources), FACTS_SCHEMA)
                    .collect()
                )
        else:
            rows = []
        ends = [row["end_ns"] for row in rows if row["end_ns"] is not None]
        self.end_ns = max(ends) if ends else None
        for row in sorted(rows, key=lambda r: str(r["relpath"])):
            table = self.sources[row["relpath"]].table
            self.files[table] = self.files.get(table, 0) + 1
            self.tables.setdefault(table, (row["relpath"], bytes(row["blob"])))
        self._facts_read = True

    def pieces(self, tables: Iterable[str] | None = None, buckets: int = 0) -> DataFrame:
        """The pieces of the files (of ``tables``; default all), by scope, and by
        bucket of partitions with ``buckets`` (a lazy DataFrame: read when a job runs)."""
        wanted = set(TABLES if tables is None else tables)
        sources = {k: s for k, s in self.sources.items() if s.table in wanted}
        schema = BUCKETED_SCHEMA if buckets else PIECES_SCHEMA
        if not sources:
            return self.spark.createDataFrame([], schema)
        uris = [s.uri for s in sources.values()]
        files = self.spark.read.format("binaryFile").load(uris).select("path", "content")
        return files.mapInArrow(scatter(sources, self.rows_per_piece, buckets), schema)

    def _buckets(self) -> int:
        """Buckets of partitions per scope: as asked; else none on one machine (a
        local master: one DuckDB per scope already uses every core, and buckets only
        add a second pass over the rows), Spark's default parallelism on a cluster."""
        if self.buckets is not None:
            return self.buckets
        try:
            if str(self.spark.conf.get("spark.master", "")).startswith("local"):
                return 0
            return max(1, int(self.spark.sparkContext.defaultParallelism))
        except Exception:  # Spark Connect: no SparkContext, and the master unknown
            return DEFAULT_BUCKETS

    def _scope_inputs(self, job: Job) -> DataFrame:
        """What each scope's task reads: the scope's pieces, and the partition phase
        of each bucket of its partitions (computed by tasks of their own, with the
        scope's rc_scopes from a first, small job over checkpoints and scopes)."""
        pieces = self.pieces()
        buckets = self._buckets()
        if job.command == "validate" or buckets == 0:
            return pieces
        with spark_errors(f"read the scopes of {self.root}"):
            found = (
                self.pieces(("checkpoints", "scopes"))
                .groupBy("scope_id")
                .applyInArrow(scopes_kernel(job), OUTPUTS_SCHEMA)
                .collect()
            )
        scopes = {r["scope_id"]: bytes(r["blob"]) for r in found if r["blob"] is not None}
        phases = (
            self.pieces(PARTITION_INPUTS, buckets)
            .groupBy("scope_id", "bucket")
            .applyInArrow(bucket_kernel(job, scopes), PIECES_SCHEMA)
        )
        return pieces.unionByName(phases)

    def run(self, job: Job) -> Collected:
        """Run ``job`` on every scope; a log set without rows runs as one empty scope."""
        self.read_facts()
        job = Job(**{**job.__dict__, "tables": self.tables, "end_ns": self.end_ns})
        inputs = self._scope_inputs(job)
        with spark_errors(f"run {job.command} on the scopes of {self.root}"):
            rows = (
                inputs.groupBy("scope_id").applyInArrow(scope_kernel(job), OUTPUTS_SCHEMA).collect()
            )
        collected = Collected()
        if not rows:
            with tempfile.TemporaryDirectory(prefix="reconcile-scope-") as folder:
                outputs = evaluate(lay_out(Path(folder), iter(()), job), job)
            for name, blob in outputs.items():
                collected.add(name, blob)
            return collected
        for row in sorted(rows, key=lambda r: (r["scope_id"] is None, r["scope_id"] or "")):
            collected.add(row["output"], bytes(row["blob"]))
        return collected

    def report(self, collected: Collected, max_examples: int) -> ValidationReport:
        layout_problems = [p.to_dict() for p in self.layout_problems]
        problems = merge_problems([layout_problems, *collected.problems], max_examples)
        return ValidationReport(
            logset=self.root,
            coordinate=collected.coordinate,
            problems=tuple(problems),
            tables=tuple(
                TableRead(name, self.files[name], collected.rows.get(name))
                for name in TABLES
                if name in self.files
            ),
        )

    def checked(self, job: Job) -> Collected:
        """``job``'s outputs; InvalidLogSet when any scope breaks the contract."""
        if job.as_of is not None:
            check_as_of(job.as_of)
        else:
            self.read_facts()
            if self.end_ns is None:
                raise UsageError(f"log set {self.root} has no timestamped rows")
        collected = self.run(job)
        report = self.report(collected, job.max_examples)
        if not report.ok:
            raise InvalidLogSet(report)
        return collected

    def close(self) -> None:
        """Nothing is cached between jobs: kept for the callers' try/finally."""


def check_as_of(text: str) -> None:
    """The DuckDB engine's error for a T that is not a timestamp, before any job."""
    with duckdb.connect(":memory:") as con:
        try:
            con.execute("SELECT CAST(CAST($t AS TIMESTAMPTZ) AS TIMESTAMP_NS)", {"t": text})
        except duckdb.Error as error:
            raise UsageError(f"--as-of {text!r} is not a timestamp: {error}") from None


def validate(engine: SparkEngine, job: Job) -> ValidationReport:
    job = Job(**{**job.__dict__, "command": "validate"})
    return engine.report(engine.run(job), job.max_examples)


def watermarks(engine: SparkEngine, job: Job) -> pl.DataFrame:
    frame = engine.checked(Job(**{**job.__dict__, "command": "watermarks"})).frame("watermarks")
    return frame.sort("scope_id", "partition_id") if frame.height else frame


def frontiers(engine: SparkEngine, job: Job) -> pl.DataFrame:
    frame = engine.checked(Job(**{**job.__dict__, "command": "frontiers"})).frame("frontiers")
    return frame.sort("scope_id", "basis") if frame.height else frame


def audit(engine: SparkEngine, job: Job, step: Step | None = None) -> AuditResult:
    """The audit of every scope; ``step`` hears "audit the scopes" once the files are
    read into pieces."""
    engine.read_facts()
    if step is not None:
        step("audit the scopes")
    collected = engine.checked(Job(**{**job.__dict__, "command": "audit"}))
    frames = {name: collected.frame(name) for name in FRAMES}
    history = frames["frontier_history"]
    timelines = frames["timelines"]
    marks = frames["watermarks"]
    fronts = frames["frontiers"]
    as_of = datetime.fromisoformat(collected.as_of) if collected.as_of else None
    if as_of is None:
        raise UsageError(f"log set {engine.root} has no scope to audit")
    return AuditResult(
        as_of=as_of,
        watermarks=marks.sort("scope_id", "partition_id") if marks.height else marks,
        frontiers=fronts.sort("scope_id", "basis") if fronts.height else fronts,
        # each scope's rows are in order: keep it, scopes by name
        frontier_history=history.sort("scope_id", maintain_order=True)
        if history.height
        else history,
        findings=sort_findings(frames["findings"]),
        timelines=timelines.sort(
            "scope_id", "partition_id", "basis", "valid_from", nulls_last=False
        )
        if timelines.height
        else timelines,
        inputs={
            "logset": engine.root,
            "coordinate": collected.coordinate,
            "tables": {
                name: {"files": engine.files[name], "rows": collected.rows.get(name, 0)}
                for name in TABLES
                if name in engine.files
            },
        },
        timings=collected.timings,
    )
