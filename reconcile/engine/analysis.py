"""Evaluating a log set as of a time T: the ordered steps of the engine."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa

from reconcile.engine.frontier import frontier_history
from reconcile.errors import ReconcileError, UsageError
from reconcile.logset.load import LogSet
from reconcile.sql import load, parameters
from reconcile_schemas import CoordinateType

# The steps that compute the watermarks table, in order: (working table, query).
# rc_event_level stands for SLICE_EVENTS and SLICE_RESULTS, run once per slice of
# partitions.
WATERMARK_STEPS: tuple[tuple[str, str], ...] = (
    ("rc_scopes", "watermarks/scopes"),
    ("rc_partitions", "watermarks/partitions"),
    ("rc_receipt_faults", "watermarks/receipt_faults"),
    ("rc_snapshot_events", "watermarks/snapshot_events"),
    ("rc_event_level", ""),
    ("rc_counting_pages", "watermarks/counting_pages"),
    ("rc_provider", "watermarks/provider"),
    ("rc_claims", "watermarks/claims"),
    ("rc_certs", "watermarks/partition_certs"),
)

# The event-level steps, run per slice of partitions (rc_slice): the slice's
# events (rc_receipt_events, rc_known_events) replace the previous slice's; every
# other table collects the results of all slices. No table of every event is kept:
# rc_open_events holds only the events not settled by their first receipt.
SLICE_EVENTS: tuple[tuple[str, str], ...] = (
    ("rc_receipt_events", "watermarks/receipt_events"),
    ("rc_known_events", "watermarks/known_events"),
)
SLICE_RESULTS: tuple[tuple[str, str], ...] = (
    ("rc_mutated", "watermarks/mutated_events"),
    ("rc_page_receipts", "watermarks/page_receipts"),
    ("rc_page_status", "watermarks/page_status"),
    ("rc_event_summary", "watermarks/event_summary"),
    ("rc_blocking", "watermarks/blocking"),
    ("rc_committed", "watermarks/committed"),
    ("rc_open_events", "watermarks/open_events"),
)

# Receipts per slice of partitions: beyond this many, the event level runs in
# slices, so that each slice's events and hash tables stay in memory.
EVENTS_PER_SLICE = 25_000_000

# Membership and the frontier at T.
FRONTIER_STEPS: tuple[tuple[str, str], ...] = (
    ("rc_epochs", "frontier/epochs"),
    ("rc_members", "frontier/members"),
    ("rc_changes", "frontier/changes"),
    ("rc_epoch_status", "frontier/epoch_status"),
    ("rc_in_force", "frontier/in_force"),
)


# The step functions of each partition's certificates over time, built on the above.
HISTORY_STEPS: tuple[tuple[str, str], ...] = (
    ("rc_mutations", "history/mutations"),
    ("rc_event_segments", "history/event_segments"),
    ("rc_records", "history/records"),
    ("rc_page_windows", "history/page_windows"),
    ("rc_provider_steps", "history/provider_steps"),
    ("rc_claim_steps", "history/claim_steps"),
)

# The partition phase: the tables whose rows for a partition follow from that
# partition's rows (of checkpoints, receipts, pages, snapshot, snapshot_bounds and
# members) and its scope's rc_scopes alone. Computed for any split of the partitions
# (rc_scopes preset), their union is what the whole log set gives: tests/test_phases.py.
# This is where the engine can be split by partition; every later step is per scope.
PARTITION_INPUTS: tuple[str, ...] = (
    "checkpoints",
    "receipts",
    "pages",
    "snapshot",
    "snapshot_bounds",
    "members",
)
PARTITION_PHASE: tuple[str, ...] = (
    *(t for t, _ in WATERMARK_STEPS if t not in ("rc_scopes", "rc_event_level")),
    *(t for t, _ in SLICE_RESULTS),
    *(t for t, _ in HISTORY_STEPS),
)

# Evaluating points (rc_points: point_id, scope_id, partition_id, t): rebuilt per call.
POINT_STEPS: tuple[tuple[str, str], ...] = (
    ("rc_point_pages", "history/point_pages"),
    ("rc_moving_receipts", "history/moving_receipts"),
    ("rc_point_certs", "history/point_certs"),
)


def _as_text(value: Any) -> str:
    """A timestamp as text DuckDB parses back without losing nanoseconds."""
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            return value.isoformat()
        return value.isoformat(sep=" ")
    return str(value)


class Analysis:
    """A log set evaluated as of T (default: the end of the log set).

    ``as_of`` may be a ``datetime`` (naive means UTC) or an ISO 8601 string; the
    analysis owns the ``rc_*`` working tables of the log set's connection until the
    next analysis replaces them.
    """

    def __init__(self, logset: LogSet, as_of: datetime | str | None = None) -> None:
        self.logset = logset
        self.con: duckdb.DuckDBPyConnection = logset.con
        self._install_macros()
        self.as_of_text = self._resolve_as_of(as_of)
        self.con.execute("CREATE OR REPLACE TEMP TABLE rc_params (as_of TIMESTAMP_NS)")
        self.con.execute(
            "INSERT INTO rc_params VALUES (CAST(CAST($t AS TIMESTAMPTZ) AS TIMESTAMP_NS))",
            {"t": self.as_of_text},
        )
        # T as a constant, not a subquery: scans can then filter on it (and skip row
        # groups) instead of joining every row to rc_params. The text is DuckDB's own
        # rendering of a TIMESTAMP_NS, which holds no quote.
        rendered = self.con.execute("SELECT CAST(as_of AS VARCHAR) FROM rc_params").fetchall()
        literal = str(rendered[0][0])
        if "'" in literal:
            raise AssertionError(f"unexpected rendering of T: {literal!r}")
        self.con.execute(f"CREATE OR REPLACE TEMP MACRO rc_as_of() AS TIMESTAMP_NS '{literal}'")
        self._done: set[str] = set()
        # the working tables taken as given (preset)
        self._given: set[str] = set()
        # (query, seconds) for every named query run, in order: where the time goes.
        self.timings: list[tuple[str, float]] = []

    @contextmanager
    def timed(self, name: str) -> Iterator[None]:
        """Record how long the enclosed work takes under ``name`` in ``timings``."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timings.append((name, time.perf_counter() - started))

    def _install_macros(self) -> None:
        coordinate = self.logset.coordinate
        flavour = "int64" if coordinate is CoordinateType.INT64 else "timestamp"
        self.con.execute(load(f"macros_{flavour}"))
        self.con.execute(load("macros"))

    def _resolve_as_of(self, as_of: datetime | str | None) -> str:
        if as_of is None:
            rows = self.con.execute(
                f"SELECT CAST(end_of_log AS VARCHAR) FROM ({load('end_of_log')})"
            ).fetchall()
            end = rows[0] if rows else None
            if end is None or end[0] is None:
                raise UsageError(f"log set {self.logset.path} has no timestamped rows")
            return f"{end[0]}+00"
        text = _as_text(as_of)
        try:
            self.con.execute("SELECT CAST(CAST($t AS TIMESTAMPTZ) AS TIMESTAMP_NS)", {"t": text})
        except duckdb.Error as error:
            raise UsageError(f"--as-of {text!r} is not a timestamp: {error}") from None
        return text

    @property
    def as_of(self) -> datetime:
        rows = self.con.execute("SELECT as_of FROM rc_params").fetchall()
        value: datetime = rows[0][0]
        return value

    def params(self, sql: str, **extra: Any) -> dict[str, Any]:
        wanted = parameters(sql)
        values: dict[str, Any] = {
            "default_domain": "discrete"
            if self.logset.coordinate is CoordinateType.INT64
            else "dense",
            **extra,
        }
        missing = wanted - values.keys()
        if missing:
            raise KeyError(f"no value for query parameters {sorted(missing)}")
        return {k: v for k, v in values.items() if k in wanted}

    def build(
        self, table: str, query: str, *, again: bool = False, append: bool = False, **extra: Any
    ) -> None:
        """Run a named query into a working table (once per analysis, unless again;
        appended to the table when append); ``extra`` are values for its parameters."""
        if table in self._done and not again:
            return
        sql = load(query)
        # The table name is one of the engine's own (rc_*), never a user's string.
        into = f"INSERT INTO {table}" if append else f"CREATE OR REPLACE TEMP TABLE {table} AS"
        with self.timed(query):
            self.con.execute(f"{into} {sql}", self.params(sql, **extra))
        self._done.add(table)

    def _run_event_level(self) -> None:
        """The event-level steps (SLICE_EVENTS, then SLICE_RESULTS), per slice of
        partitions of about EVENTS_PER_SLICE receipts: one hash aggregate over
        every event spills, and so does every pass over its result; a slice's stay
        in memory (at 100 M receipts, 5 slices)."""
        if "rc_event_level" in self._done:
            return
        receipts = self.logset.row_count("receipts")
        slices = max(1, -(-receipts // EVENTS_PER_SLICE))
        self.build("rc_slices", "watermarks/receipt_slices", again=True, slices=slices)
        for number in range(slices):
            self.build("rc_slice", "watermarks/slice", again=True, slice=number)
            # a slice is a range of partition_id: scans of receipts filter on it
            first, last = self.con.execute(
                "SELECT min(partition_id), max(partition_id) FROM rc_slice"
            ).fetchall()[0]
            bounds = {"slice_first": first, "slice_last": last}
            for table, query in SLICE_EVENTS:
                if table == "rc_known_events" and not self.logset.has("snapshot"):
                    # Without a snapshot every column follows from rc_receipt_events:
                    # a view, so that no copy of the slice's events is made.
                    self._drop(table)
                    self.build_view(table, "watermarks/known_events_receipts", again=True)
                    continue
                self._drop(table)
                self.build(table, query, again=True, **bounds)
            for table, query in SLICE_RESULTS:
                self.build(table, query, again=True, append=number > 0, **bounds)
        # the last slice's events are no one's input: every later step reads the
        # collected tables
        self._drop("rc_known_events")
        self._drop("rc_receipt_events")
        self._done.add("rc_event_level")

    def preset(self, tables: Mapping[str, pa.Table]) -> None:
        """Take working tables as given instead of computing them (the partition
        phase computed elsewhere, see PARTITION_PHASE; rc_scopes)."""
        for name, table in tables.items():
            if not name.startswith("rc_") or not name.replace("_", "").isalnum():
                raise KeyError(f"not a working table: {name!r}")
            self.con.register("rc_preset_input", table)
            try:
                # the name is one of the engine's own (checked above)
                self.con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS FROM rc_preset_input")
            finally:
                self.con.unregister("rc_preset_input")
            self._done.add(name)
            self._given.add(name)
        if all(t in self._done for t, _ in SLICE_RESULTS):
            self._done.add("rc_event_level")

    def given(self, name: str) -> bool:
        """Whether the working table ``name`` was taken as given (:meth:`preset`)."""
        return name in self._given

    def partition_phase(self) -> dict[str, pa.Table]:
        """The tables of PARTITION_PHASE for this log set's partitions."""
        self.run(WATERMARK_STEPS)
        self.run(HISTORY_STEPS)
        return {t: self.con.sql(f"FROM {t}").to_arrow_table() for t in PARTITION_PHASE}

    def build_view(self, view: str, query: str, *, again: bool = False) -> None:
        """A working view over working tables (once per analysis, unless again)."""
        if view in self._done and not again:
            return
        sql = load(query)
        self._drop(view)
        self.con.execute(f"CREATE TEMP VIEW {view} AS {sql}", self.params(sql))
        self._done.add(view)

    def run(self, steps: tuple[tuple[str, str], ...]) -> None:
        for table, query in steps:
            if table == "rc_event_level":
                self._run_event_level()
                continue
            self.build(table, query)
            if table == "rc_partitions":
                self._check_partition_keys()

    def _drop(self, name: str) -> None:
        """Drop a working table or view, whichever ``name`` is."""
        kinds = self.con.execute(
            "SELECT 'VIEW' FROM duckdb_views() WHERE temporary AND view_name = $name"
            " UNION ALL"
            " SELECT 'TABLE' FROM duckdb_tables() WHERE temporary AND table_name = $name",
            {"name": name},
        ).fetchall()
        for (kind,) in kinds:
            # The name is one of the engine's own (rc_*), never a user's string.
            self.con.execute(f"DROP {kind} {name}")

    def _check_partition_keys(self) -> None:
        rows = self.con.execute(
            "SELECT count(*) - count(DISTINCT pk) FROM rc_partitions"
        ).fetchall()
        if rows[0][0]:
            raise ReconcileError(
                "two partitions of this log set share a 64-bit partition key"
                " (rc_pk); the engine cannot tell them apart. Please report this."
            )

    def frame(self, query: str) -> pl.DataFrame:
        sql = load(query)
        with self.timed(query):
            result = self.con.sql(sql, params=self.params(sql)).to_arrow_table()
        frame = pl.from_arrow(result)
        assert isinstance(frame, pl.DataFrame)
        return frame

    def watermarks(self) -> pl.DataFrame:
        """The `watermarks` table of CONTRACT.md §6 as of T."""
        self.run(WATERMARK_STEPS)
        return self.frame("watermarks/watermarks")

    def frontiers(self) -> pl.DataFrame:
        """The `frontiers` table of CONTRACT.md §6 as of T: per scope and basis."""
        self.run(WATERMARK_STEPS)
        self.run(FRONTIER_STEPS)
        return self.frame("frontier/frontiers")

    def frontier_history(self) -> pl.DataFrame:
        """The `frontier_history` table of CONTRACT.md §6 up to T."""
        return frontier_history(self)

    def prepare_history(self) -> None:
        self.run(WATERMARK_STEPS)
        self.run(HISTORY_STEPS)

    def load_points(self, points: pl.DataFrame) -> None:
        """Make ``points`` (scope_id, partition_id, t) the points to evaluate."""
        frame = points.select(
            pl.int_range(pl.len(), dtype=pl.Int64).alias("point_id"),
            pl.col("scope_id").cast(pl.String),
            pl.col("partition_id").cast(pl.String),
            pl.col("t").cast(pl.Datetime("ns")),
        )
        self.con.register("rc_points_input", frame.to_arrow())
        try:
            self.con.execute(
                "CREATE OR REPLACE TEMP TABLE rc_points AS SELECT * FROM rc_points_input"
            )
        finally:
            self.con.unregister("rc_points_input")

    def evaluate_points(self) -> None:
        """Evaluate the points in rc_points into rc_point_certs."""
        self.prepare_history()
        for table, query in POINT_STEPS:
            self.build(table, query, again=True)

    def history(self, partitions: pl.DataFrame | None = None) -> pl.DataFrame:
        """Each partition's proven and claimed certificates as step functions up to T.

        One row per (partition, basis) and instant its certificate changes:
        ``valid_from``, ``through``, ``inclusive`` (and ``generation`` for claims);
        a row with a null ``through`` and ``inclusive`` means no certificate. Exact:
        the value between rows is what ``watermarks(as_of=t)`` gives. Inside pages
        being handled the proven certificate moves with every receipt, so the table
        grows with the receipts of the partitions asked for: pass ``partitions``
        (scope_id, partition_id) to look at a few.
        """
        self.prepare_history()
        if partitions is None:
            self.con.execute(
                "CREATE OR REPLACE TEMP TABLE rc_selected AS"
                " SELECT scope_id, partition_id FROM rc_partitions"
            )
        else:
            chosen = partitions.select(
                pl.col("scope_id").cast(pl.String), pl.col("partition_id").cast(pl.String)
            )
            self.con.register("rc_selected_input", chosen.to_arrow())
            try:
                self.con.execute(
                    "CREATE OR REPLACE TEMP TABLE rc_selected AS SELECT * FROM rc_selected_input"
                )
            finally:
                self.con.unregister("rc_selected_input")
        sql = load("history/change_points")
        with self.timed("history/change_points"):
            self.con.execute(
                "CREATE OR REPLACE TEMP TABLE rc_points AS"
                f" SELECT row_number() OVER () - 1 AS point_id, * FROM ({sql})"
            )
        self.evaluate_points()
        return self.frame("history/steps")

    def certificates_at(self, points: pl.DataFrame) -> pl.DataFrame:
        """Each point's consumer, provider, proven, refutation and claimed certificates.

        ``points`` has columns scope_id, partition_id and t (instants up to T); the
        result has a row per point, in the same order, with ``point_id`` its index.
        """
        self.load_points(points)
        self.evaluate_points()
        return self.frame("history/point_frame")


def watermarks(logset: LogSet, as_of: datetime | str | None = None) -> pl.DataFrame:
    """Each partition's eligible-prefix watermark and certificates as of T."""
    return Analysis(logset, as_of).watermarks()
