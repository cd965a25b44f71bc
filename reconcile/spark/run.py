"""The Spark engine's driver: the jobs (each file's facts; each scope's rc_scopes;
the buckets' partition phase and the scopes' tasks) and the commands on them."""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import polars as pl
import pyarrow.parquet as pq

from reconcile.audit import AuditResult, no_exemptions
from reconcile.audit.findings import sort_findings
from reconcile.audit.phases import PARTITION_ONLY
from reconcile.db import connect, quote_identifier
from reconcile.engine.analysis import frame
from reconcile.engine.encodings import resolve
from reconcile.engine.namespace import parse_as_of
from reconcile.engine.registry import PARTITION_INPUTS
from reconcile.engine.steps.history import TIMELINES
from reconcile.errors import (
    InputError,
    InvalidLogSet,
    ReconcileError,
    ResourceError,
    UsageError,
)
from reconcile.logset.discover import discover
from reconcile.mapping import NONE, LogMapping, resolve_mapping
from reconcile.mapping.check import in_user_terms, uncovered_values
from reconcile.problems import Problem
from reconcile.spark.kernel import FRAMES, OUTPUTS_SCHEMA, SHOWN, Job, evaluate, lay_out
from reconcile.spark.listing import hadoop_literal, is_remote, local_sources, remote_sources
from reconcile.spark.merge import Collected, merge_problems
from reconcile.spark.scatter import (
    BUCKETED_SCHEMA,
    FACTS_SCHEMA,
    PIECE_ROWS,
    PIECES_SCHEMA,
    STANDIN,
    SourceFile,
    by_bucket,
    footers,
    from_ipc,
    scatter,
    standin,
    unreadable_problem,
)
from reconcile.spark.tasks import (
    CHECKED,
    bucket_kernel,
    scope_kernel,
    scopes_kernel,
    timelines_kernel,
)
from reconcile.validate import validate_files
from reconcile.validate.report import TableRead, ValidationReport
from reconcile_schemas import TABLES, CoordinateType

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, Row, SparkSession

Step = Callable[[str], None]

# Buckets of partitions per scope where Spark cannot say its parallelism.
DEFAULT_BUCKETS = 8


class SparkJobFailed(ReconcileError):
    """A Spark job of the engine failed (the cluster, not the log set): exit 3."""


_OOM_HINT = (
    "raise the memory of Spark's executors, or of the driver in local mode:"
    " --spark-conf spark.executor.memory=8g, --spark-conf spark.driver.memory=8g"
)
_TASK_MEMORY_HINT = (
    "each task's DuckDB ran out of memory: raise --memory-limit (it applies to each"
    " task) within the executors' memory (--spark-conf spark.executor.memory=8g, or"
    " spark.driver.memory in local mode), lower --threads, or split each scope into"
    " more tasks with --spark-buckets"
)
_TASK_DISK_HINT = (
    "each task's DuckDB spills into its executor's temporary folder: give it one with"
    " more free space (--spark-conf spark.executorEnv.RECONCILE_TEMP_DIR=/a/big/disk),"
    " or raise --memory-limit so that less spills"
)
# How a task's want of memory or spill space reads in the text of the worker's
# exception that Spark passes on: DuckDB's exception, or the reconciler's for it.
_TASK_MEMORY_MARKS = (
    "OutOfMemoryException",
    "Out of Memory Error",
    "ResourceError: out of memory",
    # Python's, or pyarrow's ArrowMemoryError, reading a file
    "MemoryError",
)
_TASK_DISK_MARKS = (
    "max_temp_directory_size",
    "No space left on device",
    "Disk quota exceeded",
    "ResourceError: disk full or not writable",
)


def spark_failure(what: str, error: Exception) -> ReconcileError:
    """The reconciler's error for a Spark job that failed (``error``, from PySpark or
    py4j): a :class:`ResourceError` when the JVM or a task's DuckDB ran out of memory
    or spill space, else :class:`SparkJobFailed`; with the cause's first line."""
    text = str(error)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    causes = [line for line in lines if "Error" in line or "Exception" in line]
    cause = causes[-1] if causes else lines[0] if lines else type(error).__name__
    if "ResourceError: " in cause:
        # a task's own ResourceError: its words, without its hint (the one below is
        # the Spark engine's)
        cause = cause.split("ResourceError: ", 1)[1].split("; ", 1)[0]
    message = f"Spark could not {what}: {cause[:500]}"
    if "OutOfMemoryError" in text:  # the JVM's
        return ResourceError(message, resource="memory", hint=_OOM_HINT)
    if any(mark in text for mark in _TASK_DISK_MARKS):
        return ResourceError(message, resource="disk", hint=_TASK_DISK_HINT)
    if any(mark in text for mark in _TASK_MEMORY_MARKS):
        return ResourceError(message, resource="memory", hint=_TASK_MEMORY_HINT)
    return SparkJobFailed(message)


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
        raise spark_failure(what, error) from error


class SparkEngine:
    """A log set read by Spark, and the engine's jobs on it."""

    def __init__(
        self,
        spark: SparkSession,
        path: str | Path,
        *,
        rows_per_piece: int = PIECE_ROWS,
        buckets: int | None = None,
        mapping: LogMapping | str | Path | None = None,
    ) -> None:
        self.spark = spark
        self.rows_per_piece = rows_per_piece
        # buckets of partitions per scope for the partition phase (0: in the scope's
        # own task; None: see _buckets)
        self.buckets = buckets
        text = str(path)
        if is_remote(text):
            if mapping is not None and mapping != NONE:
                raise UsageError(
                    "a mapping reads a local log set only (a folder the driver and the"
                    f" executors read): {text} is a URL"
                )
            self.mapping = None
            # (a Hadoop listing shows files, not folders: a table's folder without a
            # file is not seen there, and the table is absent)
            self.root, self.sources, self.layout_problems = remote_sources(spark, text)
            empty: tuple[str, ...] = ()
        else:
            chosen = resolve_mapping(text, mapping)
            self.mapping = str(chosen.path) if chosen is not None else None
            self.root, self.sources, self.layout_problems, empty = local_sources(text, chosen)
        # the tables read through a mapping, as bound here, on the driver
        self.mapped = {s.table: s.mapped for s in self.sources.values() if s.mapped is not None}
        self._facts_read = False
        self.tables: dict[str, tuple[str, bytes]] = {}
        self.files: dict[str, int] = {}
        for table in empty:
            # there without a file: the tasks get a stand-in without rows, so that
            # the table is present for them too (checkpoints among them: not missing)
            self.files[table] = 0
            self._stand_in(table)
        # every file's schema (an empty IPC table), by its relpath
        self.schemas: dict[str, bytes] = {}
        # the files that cannot be read as Parquet, by relpath: validation's problems,
        # kept out of the tasks (whose reading of them would fail)
        self.unreadable: dict[str, Problem] = {}
        self.end_ns: int | None = None

    def _stand_in(self, table: str) -> None:
        """``table`` present for the tasks without rows: a stand-in of its columns
        under a name discovery leaves out (no file of the table is read)."""
        self.tables[table] = (f"{table}/{STANDIN}", standin(table))

    def _files(self, uris: list[str]) -> DataFrame:
        """The files at ``uris``, (path, content) each, read as named: Hadoop reads a
        path as a glob pattern, so its pattern characters are escaped (a file named
        ``x{1,2}.parquet`` was read as x1 and x2, and itself never)."""
        literal = [hadoop_literal(uri) for uri in uris]
        return self.spark.read.format("binaryFile").load(literal).select("path", "content")

    def read_facts(self) -> None:
        """Each file's schema, row count and latest timestamp (a first Spark job, which
        reads the footers and the end-of-log columns only)."""
        if self._facts_read:
            return
        uris = list(dict.fromkeys(s.uri for s in self.sources.values()))
        if uris:
            with spark_errors(f"read the log set {self.root}"):
                rows = self._files(uris).mapInArrow(footers(self.sources), FACTS_SCHEMA).collect()
        else:
            rows = []
        read = [str(row["relpath"]) for row in rows]
        # Spark's file sources never read a file of 0 bytes (no split of it is made):
        # such a file is no Parquet file, named as on one machine, not "not read". A
        # local one is seen to be empty; a URL's listed and unread file is either that
        # or one removed since the listing, and cannot be read either way.
        seen = set(read)
        remote = is_remote(str(self.root))
        empty = {
            k: (
                "Parquet file size is 0 bytes"
                if _empty_local(s)
                else "Spark read nothing of it (a file of 0 bytes, or one gone since listed)"
            )
            for k, s in sorted(self.sources.items())
            if k not in seen and (remote or _empty_local(s))
        }
        _read_once(self.root, [*read, *empty], self.sources)
        for relpath, reason in empty.items():
            source = self.sources[relpath]
            self.files[source.table] = self.files.get(source.table, 0) + 1
            self.unreadable[relpath] = unreadable_problem(source, reason)
        ends = [row["end_ns"] for row in rows if row["end_ns"] is not None]
        self.end_ns = max(ends) if ends else None
        for row in sorted(rows, key=lambda r: str(r["relpath"])):
            source = self.sources[row["relpath"]]
            self.files[source.table] = self.files.get(source.table, 0) + 1
            if row["problem"] is not None:
                self.unreadable[source.relpath] = unreadable_problem(source, row["problem"])
                continue
            self.tables.setdefault(source.table, (row["relpath"], bytes(row["blob"])))
            self.schemas[str(row["relpath"])] = bytes(row["blob"])
        for problem in self.unreadable.values():
            # a table none of whose files reads is there all the same (not missing),
            # without rows: a stand-in under a name discovery leaves out, so that the
            # tasks see the table's folder and no file of it (no hive key of the
            # unreadable file's folders, no column)
            if problem.table is not None and problem.table not in self.tables:
                self._stand_in(problem.table)
        self._facts_read = True

    def pieces(self, tables: Iterable[str] | None = None, buckets: int = 0) -> DataFrame:
        """The pieces of the files (of ``tables``; default all), by scope, and by
        bucket of partitions with ``buckets`` (a lazy DataFrame: read when a job runs)."""
        wanted = set(TABLES if tables is None else tables)
        sources = {
            k: s for k, s in self.sources.items() if s.table in wanted and k not in self.unreadable
        }
        schema = BUCKETED_SCHEMA if buckets else PIECES_SCHEMA
        if not sources:
            return self.spark.createDataFrame([], schema)
        uris = list(dict.fromkeys(s.uri for s in sources.values()))
        files = self._files(uris)
        return files.mapInArrow(scatter(sources, self.rows_per_piece, buckets), schema)

    def _buckets(self) -> int:
        """Buckets of partitions per scope: as asked; else none on one machine (a
        local master: one DuckDB per scope already uses every core, and buckets only
        add a second pass over the rows), Spark's default parallelism on a cluster,
        DEFAULT_BUCKETS through Spark Connect."""
        if self.buckets is not None:
            return self.buckets
        if type(self.spark).__module__.startswith("pyspark.sql.connect"):
            return DEFAULT_BUCKETS  # Spark Connect: no SparkContext to ask
        context = self.spark.sparkContext
        if str(context.master).startswith("local"):
            return 0
        return max(1, int(context.defaultParallelism))

    def _rc_scopes(self, job: Job, scoped: DataFrame) -> dict[Any, tuple[str, bytes]]:
        """Each scope's rc_scopes, or FAILED and why (then the scope's task reports
        it, unless validation explains it): a first, small job over the checkpoints
        and scopes among the scopes' pieces (``scoped``, cached: no file read again)."""
        # a table's relpath is <table>.parquet or under <table>/ (no other table's
        # name starts with checkpoints or scopes)
        wanted = scoped.relpath.startswith("checkpoints") | scoped.relpath.startswith("scopes")
        with spark_errors(f"read the scopes of {self.root}"):
            found = (
                scoped.where(wanted)
                .groupBy("scope_id")
                .applyInArrow(scopes_kernel(job), OUTPUTS_SCHEMA)
                .collect()
            )
        return {r["scope_id"]: (r["output"], bytes(r["blob"])) for r in found}

    def _phased(self, job: Job, buckets: int, collected: Collected) -> list[Row]:
        """``job`` in phases (:mod:`reconcile.audit.phases`): the buckets' tasks
        validate and read the rows of PARTITION_ONLY, the scopes' tasks the rest.
        The buckets' validation goes into ``collected``; the scopes' tasks' rows are
        returned (the audit's timelines among them)."""
        scoped = self.pieces([t for t in TABLES if t not in PARTITION_ONLY]).persist()
        bucketed = self.pieces(PARTITION_INPUTS, buckets).persist()
        held = [scoped, bucketed]
        try:
            scopes = {} if job.command == "validate" else self._rc_scopes(job, scoped)
            with spark_errors(f"run the partition phase of {self.root}"):
                first = (
                    bucketed.groupBy("scope_id", "bucket")
                    .applyInArrow(bucket_kernel(job, scopes), BUCKETED_SCHEMA)
                    .persist()
                )
                held.append(first)
                checked = first.where(first.relpath == CHECKED).collect()
            for row in checked:
                collected.add("meta", bytes(row["blob"]))
            valid = not job.broken and not any(collected.problems)
            tables = first.where(first.relpath != CHECKED)
            inputs = scoped.unionByName(tables.drop("bucket"))
            if valid:
                # a scope no bucket holds a row of computes its partition phase itself
                bucketed_scopes = {row["scope_id"] for row in checked}
                with spark_errors(f"list the scopes of {self.root}"):
                    listed = scoped.select("scope_id").distinct().collect()
                partitionless = {row["scope_id"] for row in listed} - bucketed_scopes
                scope_job = Job(**{**job.__dict__, "partitionless": frozenset(partitionless)})
            else:
                scope_job = Job(**{**job.__dict__, "command": "validate"})
            with spark_errors(f"run {job.command} on the scopes of {self.root}"):
                rows = (
                    inputs.groupBy("scope_id")
                    .applyInArrow(scope_kernel(scope_job), OUTPUTS_SCHEMA)
                    .collect()
                )
            shown = [r for r in rows if r["output"] == SHOWN]
            rows = [r for r in rows if r["output"] != SHOWN]
            if shown:
                rows.extend(self._timelines(job, scopes, bucketed, shown))
            return rows
        finally:
            for frame in held:
                frame.unpersist()

    def _by_bucket(self, rows: list[Row]) -> dict[tuple[Any, int], pl.DataFrame]:
        """Each scope's frame (an IPC blob per row) split by bucket of partitions."""
        found: dict[tuple[Any, int], pl.DataFrame] = {}
        for row in rows:
            blob = frame(from_ipc(bytes(row["blob"])))
            for bucket, part in by_bucket(blob, self._buckets()).items():
                found[(row["scope_id"], bucket)] = part
        return found

    def _of_buckets(self, bucketed: DataFrame, keys: Iterable[tuple[Any, int]]) -> DataFrame:
        """The pieces of these (scope, bucket) groups alone."""
        wanted = self.spark.createDataFrame(list(keys), "scope_id string, bucket long")
        return bucketed.join(wanted.hint("broadcast"), ["scope_id", "bucket"])

    def _timelines(
        self,
        job: Job,
        scopes: dict[Any, tuple[str, bytes]],
        bucketed: DataFrame,
        shown: list[Row],
    ) -> list[Row]:
        """The timelines of the partitions each scope's task drew, by their buckets."""
        drawn = self._by_bucket(shown)
        if not drawn:
            return []
        with spark_errors(f"draw the timelines of {self.root}"):
            return (
                self._of_buckets(bucketed, drawn)
                .groupBy("scope_id", "bucket")
                .applyInArrow(timelines_kernel(job, scopes, drawn), OUTPUTS_SCHEMA)
                .collect()
            )

    def _schema_problems(self, job: Job) -> list[dict[str, Any]]:
        """The layout and schema problems of the whole log set, found on the driver
        from every file's schema (an empty stand-in of each, validated): what no task
        sees, a file without rows, and what only every file together shows, as the
        log set's coordinate type. Row problems are the tasks'."""
        with tempfile.TemporaryDirectory(prefix="reconcile-schemas-") as folder:
            root = Path(folder)
            for relpath, blob in self.schemas.items():
                path = root / relpath
                path.parent.mkdir(parents=True, exist_ok=True)
                pq.write_table(from_ipc(blob), path)
            report = validate_files(
                discover(root), config=job.config(), max_examples=job.max_examples
            )
        found = []
        users = job.user_files
        for problem in report.problems:
            # a file's own schema, or the files together; the layout's problems
            # (no checkpoints, no file at all) the tasks report themselves
            if problem.failing_rows is not None or problem.check.startswith("unreadable"):
                continue
            if not problem.files:
                continue
            named = in_user_terms(problem, self.mapped).to_dict()
            named["message"] = named["message"].replace(str(root), str(self.root))
            named["files"] = list(dict.fromkeys(users.get(f, f) for f in named["files"]))
            named["file"] = named["files"][0] if named["files"] else None
            named["examples"] = [
                {**e, "file": users.get(e["file"], e["file"])} if "file" in e else e
                for e in named["examples"]
            ]
            found.append(named)
        return found

    def _uncovered(self, max_examples: int) -> list[Problem]:
        """Values the mapping's value maps miss, found here on the driver (a scan of the
        mapped columns alone, as validation makes on one machine)."""
        readable = [f for t in self.mapped.values() for f in t.files]
        with connect(readable) as con:
            return [p for t in self.mapped.values() for p in uncovered_values(con, t, max_examples)]

    def run(self, job: Job) -> Collected:
        """Run ``job`` on every scope; a log set without rows runs as one empty scope."""
        self.read_facts()
        uncovered = self._uncovered(job.max_examples)
        job = Job(
            **{
                **job.__dict__,
                "tables": self.tables,
                "end_ns": self.end_ns,
                "mapped": self.mapped,
                "user_files": {
                    k: s.user_file for k, s in self.sources.items() if s.user_file is not None
                },
                "broken": frozenset(
                    p.table for p in (*uncovered, *self.unreadable.values()) if p.table
                ),
                "root": str(self.root),
            }
        )
        collected = Collected()
        collected.problems.append([p.to_dict() for p in self.unreadable.values()])
        collected.problems.append([p.to_dict() for p in uncovered])
        collected.problems.append(self._schema_problems(job))
        if any(collected.problems) and job.command != "validate":
            # invalid whatever the rows hold: the tasks validate, and compute nothing
            job = Job(**{**job.__dict__, "command": "validate"})
        buckets = self._buckets()
        if buckets:
            phased = Job(**{**job.__dict__, "phased": True, "buckets": buckets})
            rows = self._phased(phased, buckets, collected)
        else:
            with spark_errors(f"run {job.command} on the scopes of {self.root}"):
                rows = (
                    self.pieces()
                    .groupBy("scope_id")
                    .applyInArrow(scope_kernel(job), OUTPUTS_SCHEMA)
                    .collect()
                )
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
            mapping=self.mapping,
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
            if self.end_ns is None and not self.unreadable:
                # (a file that cannot be read may hold them: validation says so)
                raise UsageError(
                    f"log set {self.root} has no timestamped rows, so no end to take T"
                    " from: give T (--as-of, as_of)"
                )
        collected = self.run(job)
        report = self.report(collected, job.max_examples)
        if not report.ok:
            raise InvalidLogSet(report)
        return collected

    def close(self) -> None:
        """Nothing is cached between jobs: kept for the callers' try/finally."""


def _empty_local(source: SourceFile) -> bool:
    """Whether ``source`` is a local file of the contract's layout holding 0 bytes."""
    if source.mapped is not None or not source.uri.startswith("file://"):
        return False
    try:
        return os.path.getsize(source.uri.removeprefix("file://")) == 0
    except OSError:
        return False


def _read_once(root: str | Path, read: list[str], sources: Mapping[str, SourceFile]) -> None:
    """InputError unless Spark read every file of the log set, each once: a file left
    out or read twice would be a table silently cut or doubled."""
    counts = Counter(read)
    missing = sorted(set(sources) - set(counts))
    twice = sorted(k for k, n in counts.items() if n > 1)
    if missing or twice:
        said = [f"not read: {', '.join(missing[:5])}"] if missing else []
        said += [f"read more than once: {', '.join(twice[:5])}"] if twice else []
        raise InputError(f"Spark did not read the files of {root} as listed ({'; '.join(said)})")


def check_as_of(text: str) -> None:
    """The DuckDB engine's error for a T that is not a timestamp, before any job."""
    with connect() as con:
        parse_as_of(con, text)


def validate(engine: SparkEngine, job: Job) -> ValidationReport:
    job = Job(**{**job.__dict__, "command": "validate"})
    return engine.report(engine.run(job), job.max_examples)


def watermarks(engine: SparkEngine, job: Job) -> pl.DataFrame:
    frame = engine.checked(Job(**{**job.__dict__, "command": "watermarks"})).frame("watermarks")
    return frame.sort("scope_id", "partition_id") if frame.height else frame


def frontiers(engine: SparkEngine, job: Job) -> pl.DataFrame:
    frame = engine.checked(Job(**{**job.__dict__, "command": "frontiers"})).frame("frontiers")
    return frame.sort("scope_id", "basis") if frame.height else frame


def no_timelines(coordinate: str) -> pl.DataFrame:
    """The timelines' columns (as the engine declares ``rc_timelines``), without rows."""
    columns = ", ".join(
        f"CAST(NULL AS {resolve(c.type, CoordinateType(coordinate))}) AS {quote_identifier(c.name)}"
        for c in TIMELINES.produces.columns
    )
    with duckdb.connect() as con:
        return frame(con.sql(f"SELECT {columns} WHERE false").to_arrow_table())


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
    if not timelines.width:
        # no partition drawn in any bucket (an instant before every write): no task
        # gave a timelines table, so none has its columns
        timelines = no_timelines(collected.coordinate)
    marks = frames["watermarks"]
    fronts = frames["frontiers"]
    as_of = datetime.fromisoformat(collected.as_of) if collected.as_of else None
    if as_of is None:
        raise UsageError(f"log set {engine.root} has no scope to audit")
    return AuditResult(
        as_of=as_of,
        as_of_iso=collected.as_of or "",
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
            "mapping": engine.mapping,
        },
        timings=collected.timings,
        not_applicable=frames["not_applicable"].sort("scope_id", "rule")
        if frames["not_applicable"].height
        else no_exemptions(),
    )
