"""The Spark engine's tasks: rows laid out as a log set, through the engine.

Each task (an ``applyInArrow`` function, grouped by scope, or by scope and bucket of
partitions) writes the pieces it is given back as Parquet files under their own
names, below a folder on the executor's local disk, so that discovery,
normalization, validation and every named step see exactly what the DuckDB engine
sees in the whole log set, restricted to those rows. A table the log set has but the
task has no rows of gets an empty file with its schema. Three kinds of task:

* :func:`scopes_kernel`: a scope's ``rc_scopes``, from its checkpoints and scopes rows;
* :func:`bucket_kernel`: the partition phase of a bucket of a scope's partitions;
  its tables go on to the scope's task as pieces (``PRESET``);
* :func:`scope_kernel`: the scope's validation, and the command on the scope with
  the buckets' tables taken as given; its outputs go to the driver as IPC blobs.

This module has no ``from __future__ import annotations``: Spark reads the tasks'
type hints to choose its iterator form.
"""

import json
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from reconcile.api import open_logset
from reconcile.audit import AuditSettings, audit
from reconcile.db import EngineConfig
from reconcile.engine.analysis import WATERMARK_STEPS, Analysis
from reconcile.logset.discover import discover
from reconcile.mapping.bind import MappedTable
from reconcile.mapping.check import in_user_terms
from reconcile.problems import Problem
from reconcile.spark.local import work_dir
from reconcile.spark.scatter import PIECES_ARROW, PROBLEM, SOURCE_ROW, from_ipc, to_ipc
from reconcile.validate import validate_files

OUTPUTS_SCHEMA = "scope_id string, output string, blob binary"
OUTPUTS_ARROW = pa.schema(
    [("scope_id", pa.string()), ("output", pa.string()), ("blob", pa.binary())]
)

FRAMES = ("watermarks", "frontiers", "frontier_history", "findings", "timelines")


@dataclass(frozen=True)
class Job:
    """What every task is asked (command: validate, watermarks, frontiers or audit),
    and the whole log set's facts it needs."""

    command: str
    # every table of the log set: (a file name of it, its schema as an empty IPC table)
    tables: Mapping[str, tuple[str, bytes]]
    as_of: str | None = None
    end_ns: int | None = None
    stall_minutes: float = 10.0
    max_examples: int = 5
    memory_limit: str | None = None
    threads: int | None = None
    # read through a mapping: each mapped table as bound, the user's file of each
    # laid-out relpath, and the tables whose value maps miss values (not scanned)
    mapped: Mapping[str, MappedTable] = field(default_factory=dict)
    user_files: Mapping[str, str] = field(default_factory=dict)
    broken: frozenset[str] = frozenset()

    def config(self) -> EngineConfig:
        env = EngineConfig.from_env()
        return EngineConfig(
            memory_limit=self.memory_limit or env.memory_limit,
            temp_directory=env.temp_directory,
            threads=self.threads or env.threads,
        )


# Pieces whose relpath starts with this carry a working table of the partition
# phase (PRESET + table name), or a bucket's failure (FAILED).
PRESET = "__preset__/"
FAILED = "__failed__"


@dataclass
class ScopeFiles:
    """A scope laid out as a log set: where, each file's source row numbers, and the
    partition phase's tables that its buckets computed."""

    root: Path
    source_rows: dict[str, pa.Array] = field(default_factory=dict)
    presets: dict[str, list[pa.Table]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    # problems found reading files (scatter.PROBLEM pieces), as dicts
    problems: list[dict[str, Any]] = field(default_factory=list)

    def preset(self) -> dict[str, pa.Table]:
        return {
            name: pa.concat_tables(parts, promote_options="permissive")
            for name, parts in self.presets.items()
        }


def lay_out(root: Path, pieces: Iterator[pa.RecordBatch], job: Job) -> ScopeFiles:
    """Write the scope's pieces as files of a log set under ``root``: the pieces of
    one source file, in the order they come, make one file of the same name."""
    laid = ScopeFiles(root)
    writers: dict[str, pq.ParquetWriter] = {}
    rows: dict[str, list[pa.Array]] = {}
    try:
        for batch in pieces:
            relpaths = batch.column("relpath").to_pylist()
            blobs = batch.column("blob").to_pylist()
            for relpath, blob in zip(relpaths, blobs, strict=True):
                if relpath == FAILED:
                    laid.failures.append(blob.decode())
                    continue
                if relpath == PROBLEM:
                    laid.problems.append(json.loads(blob))
                    continue
                part = from_ipc(blob)
                if relpath.startswith(PRESET):
                    laid.presets.setdefault(relpath.removeprefix(PRESET), []).append(part)
                    continue
                writer = writers.get(relpath)
                if writer is None:
                    path = root / relpath
                    path.parent.mkdir(parents=True, exist_ok=True)
                    schema = part.schema.remove(part.schema.get_field_index(SOURCE_ROW))
                    writer = writers[relpath] = pq.ParquetWriter(path, schema, compression="none")
                rows.setdefault(relpath, []).extend(part.column(SOURCE_ROW).chunks)
                writer.write_table(part.drop_columns([SOURCE_ROW]))
    finally:
        for writer in writers.values():
            writer.close()
    laid.source_rows = {
        relpath: pa.concat_arrays(chunks) if chunks else pa.array([], pa.int64())
        for relpath, chunks in rows.items()
    }
    for table, (relpath, schema) in job.tables.items():
        if not any(_of_table(written, table) for written in writers):
            path = root / relpath
            path.parent.mkdir(parents=True, exist_ok=True)
            pq.write_table(from_ipc(schema), path)
    return laid


def _of_table(relpath: str, table: str) -> bool:
    return relpath == f"{table}.parquet" or relpath.startswith(f"{table}/")


def _source_problem(problem: Problem, laid: ScopeFiles, job: Job) -> dict[str, Any]:
    """A problem as a dict whose example rows are numbered as in the source files,
    and named as the user names them where a mapping reads them."""
    found = in_user_terms(problem, dict(job.mapped)).to_dict()
    users = job.user_files
    examples = []
    for given in found["examples"]:
        example = dict(given)
        file = example.get("file") or ""
        rows = laid.source_rows.get(file)
        row = example.get("row")
        if rows is not None and isinstance(row, int) and 0 <= row < len(rows):
            example["row"] = rows[row].as_py()
        if file in users:
            example["file"] = users[file]
        examples.append(example)
    found["examples"] = examples
    found["files"] = list(dict.fromkeys(users.get(f, f) for f in found["files"]))
    found["file"] = found["files"][0] if found["files"] else None
    return found


def _as_of(job: Job, config: EngineConfig) -> str | None:
    """T as the DuckDB engine spells it: the user's, or the whole log set's end."""
    if job.as_of is not None or job.end_ns is None:
        return job.as_of
    with duckdb.connect(":memory:") as con:
        rows = con.execute(
            "SELECT CAST(make_timestamp_ns($n) AS VARCHAR)", {"n": job.end_ns}
        ).fetchall()
    return f"{rows[0][0]}+00"


def _frame_blob(frame: Any) -> bytes:
    return to_ipc(frame.to_arrow())


def evaluate(laid: ScopeFiles, job: Job) -> dict[str, bytes]:
    """The job's outputs for one laid-out scope, as named blobs."""
    config = job.config()
    report = validate_files(
        discover(laid.root), config=config, max_examples=job.max_examples, broken=job.broken
    )
    meta: dict[str, Any] = {
        "coordinate": report.coordinate,
        "rows": {t.name: t.rows for t in report.tables},
        "problems": [_source_problem(p, laid, job) for p in report.problems] + laid.problems,
    }
    out: dict[str, bytes] = {}
    if job.command != "validate" and report.ok and not laid.problems and not job.broken:
        if laid.failures:
            # the log set is valid, and yet a bucket failed: the engine's fault
            raise RuntimeError("the partition phase failed: " + laid.failures[0])
        as_of = _as_of(job, config)
        preset = laid.preset()
        with open_logset(laid.root, config=config, validate=False) as logset:
            if job.command in ("watermarks", "frontiers"):
                analysis = Analysis(logset, as_of)
                analysis.preset(preset)
                frame = getattr(analysis, job.command)()
                out[job.command] = _frame_blob(frame)
            else:
                settings = AuditSettings(stall_minutes=job.stall_minutes)
                result = audit(logset, as_of, settings, preset=preset)
                for name in FRAMES:
                    out[name] = _frame_blob(getattr(result, name))
                meta["as_of"] = result.as_of.isoformat()
                meta["timings"] = result.timings
    out["meta"] = json.dumps(meta, default=str).encode()
    return out


Grouped = Callable[[tuple[pa.Scalar, ...], Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]


def _grouped(
    job: Job, schema: pa.Schema, work: Callable[[Any, ScopeFiles], list[dict[str, Any]]]
) -> Grouped:
    """An ``applyInArrow`` function (grouped, scope_id first in the key): the group's
    pieces laid out in a temporary folder, then ``work(scope, laid)``'s rows."""

    def run(
        key: tuple[pa.Scalar, ...], batches: Iterator[pa.RecordBatch]
    ) -> Iterator[pa.RecordBatch]:
        scope = key[0].as_py() if hasattr(key[0], "as_py") else key[0]
        with tempfile.TemporaryDirectory(prefix="reconcile-task-", dir=work_dir()) as folder:
            rows = work(scope, lay_out(Path(folder), batches, job))
        yield pa.RecordBatch.from_pylist(rows, schema=schema)

    return run


def scope_kernel(job: Job) -> Grouped:
    """The scope's task, grouped by scope_id: ``job`` on the scope."""

    def work(scope: Any, laid: ScopeFiles) -> list[dict[str, Any]]:
        return [{"scope_id": scope, "output": k, "blob": v} for k, v in evaluate(laid, job).items()]

    return _grouped(job, OUTPUTS_ARROW, work)


def partition_phase(laid: ScopeFiles, job: Job, scopes: bytes | None) -> dict[str, bytes]:
    """The partition phase of one bucket of a scope's partitions, as named blobs; the
    scope's rc_scopes as computed on its checkpoints and scopes rows (None when it has
    neither: then every bucket computes the same defaults)."""
    config = job.config()
    as_of = _as_of(job, config)
    with open_logset(laid.root, config=config, validate=False) as logset:
        analysis = Analysis(logset, as_of)
        if scopes is not None:
            analysis.preset({"rc_scopes": from_ipc(scopes)})
        return {PRESET + name: to_ipc(t) for name, t in analysis.partition_phase().items()}


def bucket_kernel(job: Job, scopes: Mapping[Any, tuple[str, bytes]]) -> Grouped:
    """A bucket's task, grouped by scope and bucket: the partition phase, as pieces
    for the scope's task. ``scopes``: each scope's rc_scopes (or FAILED and why). A
    failure (on input the scope's validation will report) is passed on, not raised."""

    def work(scope: Any, laid: ScopeFiles) -> list[dict[str, Any]]:
        kind, blob = scopes.get(scope, ("rc_scopes", b""))
        try:
            if kind == FAILED:
                raise RuntimeError(f"rc_scopes: {blob.decode()}")
            outputs = partition_phase(laid, job, blob or None)
        except Exception as error:
            outputs = {FAILED: f"{type(error).__name__}: {error}".encode()}
        return [{"scope_id": scope, "relpath": k, "blob": v} for k, v in outputs.items()]

    return _grouped(job, PIECES_ARROW, work)


def scopes_kernel(job: Job) -> Grouped:
    """A scope's rc_scopes from its checkpoints and scopes rows (the only rows it
    depends on besides the scope's existence), grouped by scope; a scope without
    either gets none, and its buckets compute the same defaults themselves."""

    def work(scope: Any, laid: ScopeFiles) -> list[dict[str, Any]]:
        try:
            with open_logset(laid.root, config=job.config(), validate=False) as logset:
                analysis = Analysis(logset, _as_of(job, job.config()))
                analysis.run(WATERMARK_STEPS[:1])
                table = analysis.con.sql("FROM rc_scopes").to_arrow_table()
            output, blob = "rc_scopes", to_ipc(table)
        except Exception as error:
            # passed on to the scope's buckets, then to its task (see bucket_kernel)
            output, blob = FAILED, f"{type(error).__name__}: {error}".encode()
        return [{"scope_id": scope, "output": output, "blob": blob}]

    return _grouped(job, OUTPUTS_ARROW, work)
