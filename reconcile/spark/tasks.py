"""The Spark engine's kinds of task, each an ``applyInArrow`` function grouped by
scope (``scope_id``) or by scope and bucket of partitions (``scope_id, bucket``):
the group's pieces laid out as a log set (:func:`~reconcile.spark.kernel.lay_out`),
then one phase of the engine on it (:mod:`reconcile.audit.phases`):

* :func:`scopes_kernel`, per scope: its ``rc_scopes``, from its checkpoints and
  scopes rows;
* :func:`bucket_kernel`, per bucket: validation of the rows only buckets hold
  (``PARTITION_ONLY``), and the partition phase (with the partition rules' findings
  for the audit), as pieces for the scope's task (``PRESET``);
* :func:`scope_kernel`, per scope: validation of the scope's rows, and the command
  (phased: without the rows of ``PARTITION_ONLY``);
* :func:`timelines_kernel`, per bucket: the timelines of the partitions drawn.

This module has no ``from __future__ import annotations``: Spark reads the tasks'
type hints to choose its iterator form.
"""

import json
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from reconcile.api import open_logset
from reconcile.audit import AuditSettings, phases
from reconcile.spark.kernel import (
    FAILED,
    OUTPUTS_ARROW,
    PRESET,
    Job,
    ScopeFiles,
    as_of_text,
    check,
    evaluate,
    frame_blob,
    lay_out,
)
from reconcile.spark.local import work_dir
from reconcile.spark.scatter import BUCKETED_ARROW, from_ipc, to_ipc

Grouped = Callable[[tuple[pa.Scalar, ...], Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]
# A group's key: (scope_id,) or (scope_id, bucket).
Key = tuple[Any, ...]
Work = Callable[[Key, ScopeFiles], list[dict[str, Any]]]

# A bucket's validation: its meta blob (as a scope task's), on a piece of this name.
CHECKED = "__checked__"


def _grouped(
    job: Job, schema: pa.Schema, work: Work, keep: Mapping[Key, pl.DataFrame] | None = None
) -> Grouped:
    """An ``applyInArrow`` function (grouped, scope_id first in the key): the group's
    pieces laid out in a temporary folder (with ``keep``, only the rows of the
    partitions named in the group's frame), then ``work(key, laid)``'s rows."""

    def run(
        key: tuple[pa.Scalar, ...], batches: Iterator[pa.RecordBatch]
    ) -> Iterator[pa.RecordBatch]:
        values = tuple(k.as_py() if hasattr(k, "as_py") else k for k in key)
        kept = None
        if keep is not None:
            frame = keep.get(values)
            kept = frozenset(frame["partition_id"].to_list() if frame is not None else ())
        with tempfile.TemporaryDirectory(prefix="reconcile-task-", dir=work_dir()) as folder:
            rows = work(values, lay_out(Path(folder), batches, job, kept))
        yield pa.RecordBatch.from_pylist(rows, schema=schema)

    return run


def _failed(error: Exception) -> bytes:
    return f"{type(error).__name__}: {error}".encode()


def _rc_scopes(scopes: Mapping[Any, tuple[str, bytes]], scope: Any) -> pa.Table | None:
    """The scope's rc_scopes from scopes_kernel (None: it has neither checkpoints nor
    scopes rows, and every task computes the same defaults)."""
    kind, blob = scopes.get(scope, ("rc_scopes", b""))
    if kind == FAILED:
        raise RuntimeError(f"rc_scopes: {blob.decode()}")
    return from_ipc(blob) if blob else None


def scope_kernel(job: Job) -> Grouped:
    """The scope's task, grouped by scope_id: ``job`` on the scope."""

    def work(key: Key, laid: ScopeFiles) -> list[dict[str, Any]]:
        scope = key[0]
        outputs = evaluate(laid, job, scope)
        return [{"scope_id": scope, "output": k, "blob": v} for k, v in outputs.items()]

    return _grouped(job, OUTPUTS_ARROW, work)


def bucket_kernel(job: Job, scopes: Mapping[Any, tuple[str, bytes]]) -> Grouped:
    """A bucket's task, grouped by scope and bucket: the validation of its rows of
    PARTITION_ONLY (a CHECKED piece) and, where they are valid and the command is not
    validate, the partition phase (and for the audit, the partition findings) as
    pieces for the scope's task and the bucket's later tasks. ``scopes``: each
    scope's rc_scopes (or FAILED and why). A failure (on input the scope's
    validation will report) is passed on, not raised."""
    settings = AuditSettings(stall_minutes=job.stall_minutes)

    def work(key: Key, laid: ScopeFiles) -> list[dict[str, Any]]:
        scope = key[0]
        ok, meta = check(laid, job, frozenset(phases.PARTITION_ONLY))
        outputs = {CHECKED: json.dumps(meta, default=str).encode()}
        if ok and job.command != "validate":
            try:
                config = job.config()
                with open_logset(laid.root, config=config, validate=False) as logset:
                    tables = phases.partition_tables(
                        logset,
                        as_of_text(job, config),
                        _rc_scopes(scopes, scope),
                        settings if job.command == "audit" else None,
                    )
                outputs.update({PRESET + name: to_ipc(t) for name, t in tables.items()})
            except Exception as error:
                outputs[FAILED] = _failed(error)
        return [
            {"scope_id": scope, "bucket": key[1], "relpath": k, "blob": v}
            for k, v in outputs.items()
        ]

    return _grouped(job, BUCKETED_ARROW, work)


def scopes_kernel(job: Job) -> Grouped:
    """A scope's rc_scopes from its checkpoints and scopes rows (the only rows it
    depends on besides the scope's existence), grouped by scope; a scope without
    either gets none, and its buckets compute the same defaults themselves."""

    def work(key: Key, laid: ScopeFiles) -> list[dict[str, Any]]:
        scope = key[0]
        try:
            with open_logset(laid.root, config=job.config(), validate=False) as logset:
                table = phases.scopes(logset, as_of_text(job, job.config()))
            output, blob = "rc_scopes", to_ipc(table)
        except Exception as error:
            # passed on to the scope's buckets, then to its task (see bucket_kernel)
            output, blob = FAILED, _failed(error)
        return [{"scope_id": scope, "output": output, "blob": blob}]

    return _grouped(job, OUTPUTS_ARROW, work)


def timelines_kernel(
    job: Job, scopes: Mapping[Any, tuple[str, bytes]], shown: Mapping[Key, pl.DataFrame]
) -> Grouped:
    """A bucket's task for the partitions drawn (``shown``: by scope and bucket, from
    the scopes' tasks): their timelines (output ``timelines``)."""

    def work(key: Key, laid: ScopeFiles) -> list[dict[str, Any]]:
        scope = key[0]
        config = job.config()
        with open_logset(laid.root, config=config, validate=False) as logset:
            frame = phases.timelines(
                logset, as_of_text(job, config), _rc_scopes(scopes, scope), shown[key]
            )
        return [{"scope_id": scope, "output": "timelines", "blob": frame_blob(frame)}]

    return _grouped(job, OUTPUTS_ARROW, work, keep=shown)
