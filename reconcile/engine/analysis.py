"""Evaluating a log set as of a time T: the ordered steps of the engine."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import duckdb
import polars as pl

from reconcile.errors import UsageError
from reconcile.logset.load import LogSet
from reconcile.sql import load, parameters
from reconcile_schemas import CoordinateType

# The steps that compute the watermarks table, in order: (working table, query).
WATERMARK_STEPS: tuple[tuple[str, str], ...] = (
    ("rc_scopes", "watermarks/scopes"),
    ("rc_partitions", "watermarks/partitions"),
    ("rc_receipt_events", "watermarks/receipt_events"),
    ("rc_snapshot_events", "watermarks/snapshot_events"),
    ("rc_known_events", "watermarks/known_events"),
    ("rc_page_receipts", "watermarks/page_receipts"),
    ("rc_page_status", "watermarks/page_status"),
    ("rc_counting_pages", "watermarks/counting_pages"),
    ("rc_provider", "watermarks/provider"),
    ("rc_claims", "watermarks/claims"),
    ("rc_event_summary", "watermarks/event_summary"),
    ("rc_blocking", "watermarks/blocking"),
    ("rc_committed", "watermarks/committed"),
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
        self.con.execute("CREATE OR REPLACE TEMP MACRO rc_as_of() AS (SELECT as_of FROM rc_params)")
        self._done: set[str] = set()

    def _install_macros(self) -> None:
        coordinate = self.logset.coordinate
        flavour = "int64" if coordinate is CoordinateType.INT64 else "timestamp"
        self.con.execute(load(f"macros_{flavour}"))
        self.con.execute(load("macros"))

    def _resolve_as_of(self, as_of: datetime | str | None) -> str:
        if as_of is None:
            end = self.con.execute(
                f"SELECT CAST(end_of_log AS VARCHAR) FROM ({load('end_of_log')})"
            ).fetchone()
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
        row = self.con.execute("SELECT as_of FROM rc_params").fetchone()
        assert row is not None
        value: datetime = row[0]
        return value

    def params(self, sql: str) -> dict[str, Any]:
        wanted = parameters(sql)
        values: dict[str, Any] = {
            "default_domain": "discrete"
            if self.logset.coordinate is CoordinateType.INT64
            else "dense",
        }
        missing = wanted - values.keys()
        if missing:
            raise KeyError(f"no value for query parameters {sorted(missing)}")
        return {k: v for k, v in values.items() if k in wanted}

    def build(self, table: str, query: str) -> None:
        """Run a named query into a working table (once per analysis)."""
        if table in self._done:
            return
        sql = load(query)
        self.con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS {sql}", self.params(sql))
        self._done.add(table)

    def run(self, steps: tuple[tuple[str, str], ...]) -> None:
        for table, query in steps:
            self.build(table, query)

    def frame(self, query: str) -> pl.DataFrame:
        sql = load(query)
        result = self.con.sql(sql, params=self.params(sql)).to_arrow_table()
        frame = pl.from_arrow(result)
        assert isinstance(frame, pl.DataFrame)
        return frame

    def watermarks(self) -> pl.DataFrame:
        """The `watermarks` table of CONTRACT.md §6 as of T."""
        self.run(WATERMARK_STEPS)
        return self.frame("watermarks/watermarks")


def watermarks(logset: LogSet, as_of: datetime | str | None = None) -> pl.DataFrame:
    """Each partition's eligible-prefix watermark and certificates as of T."""
    return Analysis(logset, as_of).watermarks()
