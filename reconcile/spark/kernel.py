"""The Spark engine's tasks: rows laid out as a log set, through the engine.

Each task (an ``applyInArrow`` function, grouped by scope, or by scope and bucket of
partitions) writes the pieces it is given back as Parquet files under their own
names, below a folder on the executor's local disk, so that discovery,
normalization, validation and every named step see exactly what the DuckDB engine
sees in the whole log set, restricted to those rows. A table the log set has but the
task has no rows of gets an empty file with its schema. Here: the job every task
is asked (:class:`Job`), laying pieces out (:func:`lay_out`), validating them
(:func:`check`) and a scope's command (:func:`evaluate`); the kinds of task that
use them are in :mod:`reconcile.spark.tasks`.

This module has no ``from __future__ import annotations``: Spark reads the tasks'
type hints to choose its iterator form.
"""

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from reconcile.api import open_logset
from reconcile.audit import AuditSettings, audit, phases
from reconcile.config import EngineConfig
from reconcile.db import connect
from reconcile.engine.analysis import Analysis
from reconcile.logset.arrow_types import Kind, kind_of
from reconcile.logset.discover import discover
from reconcile.mapping.bind import MappedTable
from reconcile.mapping.check import in_user_terms
from reconcile.problems import Problem
from reconcile.spark.scatter import PROBLEM, SOURCE_ROW, from_ipc, to_ipc
from reconcile.validate import validate_files
from reconcile.validate.raw import with_raw_values

OUTPUTS_SCHEMA = "scope_id string, output string, blob binary"
OUTPUTS_ARROW = pa.schema(
    [("scope_id", pa.string()), ("output", pa.string()), ("blob", pa.binary())]
)

FRAMES = (
    "watermarks",
    "frontiers",
    "frontier_history",
    "findings",
    "timelines",
    "not_applicable",
)
# The phased audit's scope task: the partitions whose timelines are drawn.
SHOWN = "shown"


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
    # the audit in phases (reconcile.audit.phases): the scope's task holds no rows of
    # PARTITION_ONLY, which the buckets' tasks validate and read
    phased: bool = False
    # buckets of partitions per scope (phased)
    buckets: int = 0
    # the log set as the user named it: problems name it, not a task's folder
    root: str = ""
    # (phased) the scopes no bucket holds a row of, as the driver counted the
    # buckets' tasks: a scope with a scopes row and no partition; its own task
    # computes its (empty) partition phase
    partitionless: frozenset[str] = frozenset()

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


def lay_out(
    root: Path,
    pieces: Iterator[pa.RecordBatch],
    job: Job,
    keep: frozenset[str] | None = None,
) -> ScopeFiles:
    """Write the scope's pieces as files of a log set under ``root``: the pieces of
    one source file, in the order they come, make one file of the same name; with
    ``keep``, only the rows of those partitions."""
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
                if keep is not None:
                    part = _of_partitions(relpath, part, keep)
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


def _of_partitions(relpath: str, part: pa.Table, keep: frozenset[str]) -> pa.Table:
    """The rows of ``part`` (of the file ``relpath``) whose partition is kept: by its
    partition_id column, else by the hive folder that names it; none without either."""
    if "partition_id" in part.column_names:
        ids = part.column("partition_id")
        if kind_of(ids.type) is Kind.STRING:
            wanted = pa.array(sorted(keep), pa.string())
            return part.filter(pc.fill_null(pc.is_in(pc.cast(ids, pa.string()), wanted), False))
        return part.slice(0, 0)
    for folder in relpath.split("/")[:-1]:
        key, _, value = folder.partition("=")
        if key == "partition_id":
            return part if unquote(value) in keep else part.slice(0, 0)
    return part.slice(0, 0)


def _of_table(relpath: str, table: str) -> bool:
    """Whether ``relpath`` is a file of ``table``: ``<table>.parquet``, or a file under
    ``<table>/`` or ``<table>.parquet/`` (the folder Spark and many writers make)."""
    return (
        relpath == f"{table}.parquet"
        or relpath.startswith(f"{table}/")
        or relpath.startswith(f"{table}.parquet/")
    )


def _source_problem(problem: Problem, laid: ScopeFiles, job: Job) -> dict[str, Any]:
    """A problem as a dict whose example rows are numbered as in the source files,
    and named as the user names them where a mapping reads them."""
    found = in_user_terms(problem, dict(job.mapped)).to_dict()
    if job.root:
        found["message"] = found["message"].replace(str(laid.root), job.root)
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
    mapped = job.mapped.get(problem.table or "")
    if problem.check == "timestamp_in_range" and problem.column and mapped is not None:
        # the user's Parquet column as written, as validation shows it on one machine
        read_from = mapped.file_column(problem.column)
        if read_from is not None:
            raw = with_raw_values(tuple(examples), mapped.root, problem.column, read_from)
            examples = list(raw)
    found["examples"] = examples
    found["files"] = list(dict.fromkeys(users.get(f, f) for f in found["files"]))
    found["file"] = found["files"][0] if found["files"] else None
    return found


def as_of_text(job: Job, config: EngineConfig) -> str | None:
    """T as the DuckDB engine spells it: the user's, or the whole log set's end."""
    if job.as_of is not None or job.end_ns is None:
        return job.as_of
    with connect() as con:
        rows = con.execute(
            "SELECT CAST(make_timestamp_ns($n) AS VARCHAR)", {"n": job.end_ns}
        ).fetchall()
    return f"{rows[0][0]}+00"


def frame_blob(frame: Any) -> bytes:
    return to_ipc(frame.to_arrow())


def check(
    laid: ScopeFiles, job: Job, scan: frozenset[str] | None = None
) -> tuple[bool, dict[str, Any]]:
    """Validate a laid-out group's rows (of ``scan``'s tables only, with it): whether
    they keep the contract, and the meta blob's content (coordinate, each table's
    rows, the problems in the source files' terms)."""
    report = validate_files(
        discover(laid.root),
        config=job.config(),
        max_examples=job.max_examples,
        broken=job.broken,
        scan=scan,
    )
    problems = [_source_problem(p, laid, job) for p in report.problems] + laid.problems
    meta: dict[str, Any] = {
        "coordinate": report.coordinate,
        "rows": {t.name: t.rows for t in report.tables},
        "problems": problems,
    }
    return not problems and not job.broken, meta


def evaluate(laid: ScopeFiles, job: Job, scope: str | None = None) -> dict[str, bytes]:
    """The job's outputs for one laid-out scope, as named blobs (phased: the audit's
    fourth phase, whose outputs include ``shown``, the partitions to draw)."""
    config = job.config()
    ok, meta = check(laid, job)
    out: dict[str, bytes] = {}
    if job.command != "validate" and ok:
        if laid.failures:
            # the log set is valid, and yet a bucket failed: the engine's fault
            raise RuntimeError("the partition phase failed: " + laid.failures[0])
        as_of = as_of_text(job, config)
        preset = laid.preset()
        with open_logset(laid.root, config=config, validate=False) as logset:
            if job.phased and scope in job.partitionless:
                if preset:
                    raise RuntimeError(f"scope {scope!r} has no bucket and yet partition tables")
                # no partition: the laid-out scope holds every row its partition
                # phase would read (none), so that phase runs here
                settings = AuditSettings(stall_minutes=job.stall_minutes)
                preset = phases.partition_tables(
                    logset, as_of, None, settings if job.command == "audit" else None
                )
            if job.command in ("watermarks", "frontiers"):
                with Analysis(logset, as_of) as analysis:
                    analysis.preset(preset)
                    frame = getattr(analysis, job.command)()
                out[job.command] = frame_blob(frame)
            else:
                settings = AuditSettings(stall_minutes=job.stall_minutes)
                if job.phased:
                    result, shown = phases.scope_audit(logset, as_of, settings, preset)
                    out[SHOWN] = frame_blob(shown)
                else:
                    result = audit(logset, as_of, settings, preset=preset)
                for name in FRAMES:
                    out[name] = frame_blob(getattr(result, name))
                meta["as_of"] = result.as_of_iso or result.as_of.isoformat()
                meta["timings"] = result.timings
    out["meta"] = json.dumps(meta, default=str).encode()
    return out
