"""A real dlt pipeline run here, in process and offline: a paginated API this code
controls (rows ``{"id", "updated_at", "value"}`` served three to a page, in cursor
order, from a cursor on), a resource that reads it with
``dlt.sources.incremental("updated_at")``, and a destination, a DuckDB file or a
filesystem dataset of Parquet files. The destination, with the source's final
extract beside it, is then audited with ``--source dlt``. Shared by
``tests/test_dlt.py`` and the bundled example's generator
(:mod:`tests.frameworks.make_dlt_example`)."""

from __future__ import annotations

import contextlib
import csv
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

# offline, and quiet: set before dlt reads its configuration
os.environ.setdefault("RUNTIME__DLTHUB_TELEMETRY", "false")
os.environ.setdefault("RUNTIME__LOG_LEVEL", "WARNING")

import dlt
import polars as pl
from dlt.destinations.impl.filesystem.filesystem import FilesystemClient
from dlt.destinations.job_client_impl import SqlJobClientBase

from tests.frameworks.examples import audit_source

PAGE = 3  # rows per page of the API
DATASET = "shop"
# With times, cursor value n is this instant plus n hours.
EPOCH = datetime(2026, 11, 1, tzinfo=UTC)


def rows(ids: range, step: int = 2) -> list[dict[str, Any]]:
    """Rows k0, k1, ... two to a cursor value."""
    return [{"id": f"k{i}", "updated_at": i // step, "value": "v"} for i in ids]


class Api:
    """The source: its rows, served page by page from a cursor on (``>=`` or
    ``>``), a page token leading to the next page."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def page(
        self, since: int, strict: bool, token: int | None
    ) -> tuple[list[dict[str, Any]], int | None]:
        wanted = sorted(
            (
                r
                for r in self.rows
                if r["updated_at"] > since or (not strict and r["updated_at"] == since)
            ),
            key=lambda r: (r["updated_at"], r["id"]),
        )
        first = token or 0
        page = [dict(r) for r in wanted[first : first + PAGE]]
        return page, (first + PAGE if first + PAGE < len(wanted) else None)


class CrashBeforeLoadCompleted(RuntimeError):
    """The worker died after the destination held the load's rows (and, on a
    filesystem, its state) and before the load was marked complete."""


def _crash(*_: Any, **__: Any) -> None:
    raise CrashBeforeLoadCompleted("crash")


class Pipeline:
    """A source, a dlt pipeline over it, and its destination under ``folder``."""

    def __init__(
        self,
        folder: Path,
        *,
        range_start: str = "closed",
        destination: str = "duckdb",
        times: bool = False,
        dest: Path | None = None,
    ) -> None:
        """``times``: the cursor is a timestamp (:data:`EPOCH` plus the rows' value in
        hours), else an integer; ``dest``: where the destination goes (default
        ``folder/dest``)."""
        self.folder, self.range_start, self.kind = folder, range_start, destination
        self.times = times
        self.dest = folder / "dest" if dest is None else dest
        self.dest.mkdir(parents=True, exist_ok=True)
        self.api = Api()
        self.workers = 0  # each worker has its own working folder (local state)
        self._worker = self._new_worker()

    def _new_worker(self) -> Path:
        self.workers += 1
        return self.folder / f"worker-{self.workers}"

    def _destination(self) -> Any:
        if self.kind == "duckdb":
            return dlt.destinations.duckdb(str(self.dest / "pipeline.duckdb"))
        return dlt.destinations.filesystem(self.dest.resolve().as_uri())

    def cursor(self, value: int) -> Any:
        """A row's cursor value as the source serves it."""
        return EPOCH + timedelta(hours=value) if self.times else value

    def _resource(self) -> Any:
        api, strict, times = self.api, self.range_start == "open", self.times
        start = self.cursor(-1)  # below every row's

        @dlt.resource(name="items", primary_key="id", write_disposition="append")
        def items(
            # dlt's own idiom: the cursor is the argument's default
            updated_at: Any = dlt.sources.incremental(  # noqa: B008
                "updated_at", initial_value=start, range_start=self.range_start
            ),
        ) -> Iterator[list[dict[str, Any]]]:
            # the cursor as the run started: last_value moves as pages are read
            since, token = updated_at.last_value, None
            if times:
                since = round((since - EPOCH) / timedelta(hours=1))
            while True:
                page, token = api.page(since, strict, token)
                for row in page:
                    row["updated_at"] = self.cursor(row["updated_at"])
                yield page
                if token is None:
                    return

        return items

    def run(self, *, crash: bool = False, new_worker: bool = False) -> None:
        """One sync. ``crash``: the worker dies before the load is marked complete;
        ``new_worker``: this sync runs on a fresh worker, without the last one's local
        state (it restores the state from the destination)."""
        if new_worker:
            self._worker = self._new_worker()
        pipeline = dlt.pipeline(
            pipeline_name="shop_sync",
            destination=self._destination(),
            dataset_name=DATASET,
            pipelines_dir=str(self._worker),
        )
        target = (
            mock.patch.object(SqlJobClientBase, "complete_load", _crash)
            if self.kind == "duckdb"
            else mock.patch.object(FilesystemClient, "_store_load", _crash)
        )
        fmt = "parquet" if self.kind == "filesystem" else None
        with target if crash else contextlib.nullcontext():
            try:
                pipeline.run(self._resource(), loader_file_format=fmt)
            except Exception as error:  # dlt wraps it: PipelineStepFailed
                if not crash or not isinstance(error.__cause__, CrashBeforeLoadCompleted):
                    raise

    def extract(self) -> None:
        """The source as it is now, as the user's extract: source.csv (key, cursor)."""
        with (self.dest / "source.csv").open("w", newline="") as handle:
            out = csv.writer(handle)
            out.writerow(["key", "cursor"])
            out.writerows([r["id"], self.cursor(r["updated_at"])] for r in self.api.rows)

    def audit(self, tmp: Path) -> pl.DataFrame:
        """The extract of the source as it is now, then the audit's findings."""
        self.extract()
        return audit_source(self.dest, "dlt", tmp)
