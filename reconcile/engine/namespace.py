"""An analysis' own namespace: a DuckDB connection of its own, where its steps run.

Each :class:`~reconcile.engine.analysis.Analysis` gets a cursor of the log set's
database: it sees the log set's views (the contract's tables, in the database's
``main`` schema) and keeps its working tables, its macros and its time T in its own
temporary catalog, which no other analysis and not the user's connection sees.
Closing it (or collecting it) drops them all.

This module runs the declarations of :mod:`reconcile.engine.declare`: a step's query
into its table, a union, a guard. Every query it runs is named (for the timings, and
for the error that names the step and query that failed).
"""

from __future__ import annotations

import itertools
import re
import time
import weakref
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from datetime import datetime
from typing import Any

import duckdb
import pyarrow as pa
from duckdb.func import FunctionNullHandling, PythonUDFType

from reconcile.db import quote_identifier
from reconcile.engine.declare import Guard, Lookup, Step, Table, Union
from reconcile.engine.encodings import resolve
from reconcile.engine.lookups import BUILDERS, Kernel
from reconcile.errors import (
    InternalError,
    UsageError,
    classify_engine_error,
    first_line,
    query_interrupted,
)
from reconcile.logset.normalize import DAWN, DUSK, text_instant
from reconcile.sql import load, parameters
from reconcile_schemas import CoordinateType

# Lookup functions are the database's, not a cursor's: each gets a name of its own.
_SERIAL = itertools.count(1)


def _as_text(value: Any) -> str:
    """A timestamp as text DuckDB parses back without losing nanoseconds."""
    if isinstance(value, (bool, int, float)):
        raise UsageError(
            f"as_of {value!r} is a number: give a datetime or ISO 8601 text (an epoch's"
            " unit would be a guess)"
        )
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            return value.isoformat()
        return value.isoformat(sep=" ")
    return str(value)


def bound(sql: str, bind: tuple[tuple[str, str], ...]) -> str:
    """``sql`` reading each ``(name, table)`` of ``bind`` as ``table`` under ``name``:
    a common table expression per name, inlined (NOT MATERIALIZED), so the plan is
    the one the query gets on the table itself. Names are the engine's own."""
    if not bind:
        return sql
    aliases = ", ".join(
        f"{quote_identifier(name)} AS NOT MATERIALIZED (FROM {quote_identifier(table)})"
        for name, table in bind
    )
    return f"WITH {aliases}\nFROM (\n{sql}\n)"


def iso_instant(literal: str) -> str:
    """DuckDB's rendering of a TIMESTAMP_NS (``2026-01-01 00:00:05.0000005``) as ISO
    8601 text to the nanosecond, in ``datetime.isoformat``'s form: seconds, six
    digits where there are microseconds, nine where there are nanoseconds."""
    day, _, clock = literal.partition(" ")
    whole, _, fraction = clock.partition(".")
    nanos = int(fraction.ljust(9, "0")[:9]) if fraction else 0
    text = f"{day}T{whole}"
    if nanos == 0:
        return text
    if nanos % 1000 == 0:
        return f"{text}.{nanos // 1000:06d}"
    return f"{text}.{nanos:09d}"


# a time of day's offset from UTC at the end of T's text (+05:30, -0800, +05)
_OFFSET = re.compile(
    r"[Tt ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d*)?)?\s*[+-](\d{1,2})(?::?(\d{2})(?::?(\d{2}))?)?$"
)


def parse_as_of(cursor: duckdb.DuckDBPyConnection, text: str) -> tuple[str, datetime]:
    """T read as DuckDB reads it, to the nanosecond (:func:`text_instant`; digits past
    the ninth dropped, so a row is at or before T exactly when it is at or before T
    floored to the nanosecond): its rendering as a TIMESTAMP_NS and its value as a
    naive UTC datetime (to the microsecond: what a datetime holds).
    An offset or ``Z`` is honoured; no offset means UTC. A UsageError when ``text``
    is not a timestamp, or is one outside the times the engine computes in (int64
    nanoseconds: 1677 to 2262)."""
    text = text.strip()
    offset = _OFFSET.search(text)
    if offset and (int(offset[1]) > 23 or int(offset[2] or 0) > 59 or int(offset[3] or 0) > 59):
        # DuckDB reads +25:00 as 25 hours, a T a day away from any the user meant
        raise UsageError(
            f"T (as_of, --as-of) {text!r} has an offset from UTC of no clock: its hours"
            " are 00 to 23 and its minutes 00 to 59 (RFC 3339)"
        )
    value_sql = f"TRY({text_instant('$t')})"
    try:
        # a text that is no timestamp fails here, and is said so (value_sql's cast is
        # inside TRY, which is there for the nanoseconds' sum past the last time)
        cursor.execute("SELECT CAST(upper($t) AS TIMESTAMPTZ)", {"t": text}).fetchall()
        rows = cursor.execute(
            f"SELECT CAST({value_sql} AS VARCHAR), {value_sql},"
            f" {value_sql} BETWEEN TIMESTAMP_NS '{DAWN}' AND TIMESTAMP_NS '{DUSK}'",
            {"t": text},
        ).fetchall()
    except duckdb.Error as error:
        raise UsageError(
            f"T (as_of, --as-of) {text!r} is not a timestamp: {first_line(error)}"
        ) from None
    literal, value, inside = rows[0]
    if value is None or not inside or str(literal) in (DAWN, DUSK):
        raise UsageError(
            f"T (as_of, --as-of) {text!r} is outside the times the reconciler computes in"
            f" (after {DAWN} and before {DUSK} UTC); leave it out for the end of the log set"
        )
    return str(literal), value


# What an analysis says when it, or the log set under it, was closed
LOGSET_CLOSED = (
    "the log set of this analysis was closed (leaving its `with` block, or"
    " LogSet.close()): open it again and start a new analysis"
)
ANALYSIS_CLOSED = "this analysis was closed: start a new one"


class Namespace:
    """A cursor of the log set's database with the engine's macros and T installed."""

    def __init__(self, con: duckdb.DuckDBPyConnection, coordinate: CoordinateType) -> None:
        self.coordinate = coordinate
        self.con = con.cursor()
        self._close = weakref.finalize(self, self.con.close)
        self.closed = False
        # T as DuckDB renders it (set_as_of)
        self.as_of_literal = ""
        # (query, seconds) for every named query run, in order: where the time goes.
        self.timings: list[tuple[str, float]] = []
        # the lookups built, by (table, function): reused while their table stands
        # unchanged (a step run once per slice searches the same table each time);
        # forgotten by any statement run for that table (run)
        self._kernels: dict[tuple[str, str], Kernel] = {}
        # the working tables made as views (a step's ``view``): drop knows the kind
        # without asking the catalog
        self._views: set[str] = set()
        flavour = "int64" if coordinate is CoordinateType.INT64 else "timestamp"
        self.con.execute(load(f"macros_{flavour}"))
        self.con.execute(load("macros"))

    def close(self) -> None:
        self.closed = True
        self._close()

    @property
    def cursor(self) -> duckdb.DuckDBPyConnection:
        """The connection, while the namespace is open."""
        if self.closed:
            raise UsageError(ANALYSIS_CLOSED)
        return self.con

    # -- T ---------------------------------------------------------------------

    def set_as_of(self, as_of: datetime | str | None, logset_name: str) -> tuple[str, datetime]:
        """Install T (default: the end of the log set) as the macro ``rc_as_of()``;
        T as the text it was given in, and as a naive UTC datetime."""
        if as_of is None:
            rows = self.run(
                "as of",
                "end_of_log",
                f"SELECT CAST(end_of_log AS VARCHAR) FROM ({load('end_of_log')})",
            ).fetchall()
            end = rows[0] if rows else None
            if end is None or end[0] is None:
                raise UsageError(
                    f"log set {logset_name} has no timestamped rows, so no end to take T"
                    " from: give T (--as-of, as_of)"
                )
            text = f"{end[0]}+00"
        else:
            text = _as_text(as_of)
        literal, value = parse_as_of(self.cursor, text)
        # T as a constant, not a subquery: scans can then filter on it (and skip row
        # groups). The text is DuckDB's own rendering of a TIMESTAMP_NS, no quote in it.
        if "'" in literal:
            raise InternalError(f"unexpected rendering of T: {literal!r}", step="as of")
        self.run(
            "as of",
            "(macro)",
            f"CREATE OR REPLACE TEMP MACRO rc_as_of() AS TIMESTAMP_NS '{literal}'",
        )
        self.as_of_literal = literal
        return text, value

    # -- running ---------------------------------------------------------------

    @contextmanager
    def timed(self, name: str) -> Iterator[None]:
        """Record how long the enclosed work takes under ``name`` in ``timings``."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timings.append((name, time.perf_counter() - started))

    def execute(
        self, step: str, query: str, sql: str, params: Mapping[str, Any] | None = None
    ) -> duckdb.DuckDBPyConnection:
        """Run ``sql`` (the named ``query``, for step ``step``), timed."""
        with self.timed(query):
            return self.run(step, query, sql, params)

    def run(
        self, step: str, query: str, sql: str, params: Mapping[str, Any] | None = None
    ) -> duckdb.DuckDBPyConnection:
        """Run ``sql`` (the named ``query``, for step ``step``); a DuckDB error becomes
        the reconciler's (:func:`engine_failure`), naming both. A lookup built from
        table ``step`` is forgotten: the statement may change it."""
        for key in [k for k in self._kernels if k[0] == step]:
            del self._kernels[key]
        try:
            return self.cursor.execute(sql, dict(params) if params else None)
        except duckdb.Error as error:
            raise engine_failure(error, step=step, query=query) from error

    def column_list(self, table: Table) -> str:
        return ", ".join(
            f"{quote_identifier(c.name)} {resolve(c.type, self.coordinate)}" for c in table.columns
        )

    def create(
        self,
        step: Step,
        values: Mapping[str, Any],
        *,
        append: bool = False,
    ) -> None:
        """Run ``step``'s query into its table (or view), or append to the table."""
        sql = bound(load(step.query), step.bind)
        wanted = parameters(sql)
        given = {**values, **dict(step.fixed)}
        missing = wanted - given.keys()
        if missing:
            raise InternalError(f"no value for query parameters {sorted(missing)}", step=step.name)
        params = {k: v for k, v in given.items() if k in wanted}
        if step.only_if is not None and not self.has_rows(step.only_if, step):
            if not append:
                self.create_empty(step.produces)
            return
        name = quote_identifier(step.name)
        if append:
            into = f"INSERT INTO {name}"
        elif step.view:
            if step.lookups:
                raise InternalError("a view cannot call a lookup", step=step.name)
            self.drop(step.name)
            self._views.add(step.name)
            into = f"CREATE TEMP VIEW {name} AS"
        else:
            into = f"CREATE OR REPLACE TEMP TABLE {name} AS"
        with self.lookups(step):
            self.execute(step.name, step.query, f"{into}\n{sql}", params)

    @contextmanager
    def lookups(self, step: Step) -> Iterator[None]:
        """Within: ``step``'s lookups, built from their tables as they are now (or
        reused, built from them unchanged since),
        callable by their names in this namespace alone; dropped after."""
        installed: list[tuple[Lookup, str]] = []
        try:
            for lookup in step.lookups:
                arguments = ", ".join(f"a{i}" for i in range(len(lookup.args)))
                key = (lookup.table, lookup.function)
                kernel = self._kernels.get(key)
                if kernel is None:
                    with self.timed(f"(lookup {lookup.function})"):
                        try:
                            kernel = BUILDERS[lookup.function](self.cursor, lookup)
                        except duckdb.Error as error:
                            raise engine_failure(error, step=step.name, query="(lookup)") from error
                    self._kernels[key] = kernel
                function = f"{lookup.function}_{next(_SERIAL)}"
                self.cursor.create_function(
                    function,
                    kernel,
                    list(lookup.args),
                    lookup.returns,
                    type=PythonUDFType.ARROW,
                    null_handling=FunctionNullHandling.SPECIAL,
                    # declared with side effects so that DuckDB calls it once per row:
                    # without, a filter on two fields of its result (lo < hi) made
                    # the optimizer call it once per field (tests/test_lookups.py)
                    side_effects=True,
                )
                installed.append((lookup, function))
                self.run(
                    step.name,
                    "(lookup)",
                    f"CREATE OR REPLACE TEMP MACRO {lookup.function}({arguments})"
                    f" AS {function}({arguments})",
                )
            yield
        finally:
            # best effort: after an interruption the cursor may refuse; a stale macro
            # is replaced by the next install, and names are never reused
            for lookup, function in installed:
                with suppress(duckdb.Error):
                    self.con.execute(f"DROP MACRO IF EXISTS {lookup.function}")
                    self.con.remove_function(function)

    def has_rows(self, table: str, step: Step) -> bool:
        """Whether working table ``table`` has a row (for ``step.only_if``)."""
        found = self.execute(
            step.name,
            "(only if)",
            f"SELECT EXISTS (SELECT 1 FROM {quote_identifier(table)})",
        ).fetchone()
        return bool(found and found[0])

    def create_empty(self, table: Table) -> None:
        """``table`` with its declared columns and no row (a step that does not apply)."""
        self.drop(table.name)
        self.execute(
            table.name,
            "(empty)",
            f"CREATE TEMP TABLE {quote_identifier(table.name)} ({self.column_list(table)})",
        )

    def empty(self, table: Table) -> pa.Table:
        """``table``'s declared columns as an Arrow table without rows."""
        select = ", ".join(
            f"CAST(NULL AS {resolve(c.type, self.coordinate)}) AS {quote_identifier(c.name)}"
            for c in table.columns
        )
        return self.run(table.name, "(empty)", f"SELECT {select} WHERE false").to_arrow_table()

    def union(self, union: Union) -> None:
        """``union``'s table: its parts' rows, each column cast to the declared type."""
        select = ", ".join(
            f"CAST({quote_identifier(c.name)} AS {resolve(c.type, self.coordinate)})"
            f" AS {quote_identifier(c.name)}"
            for c in union.produces.columns
        )
        parts = "\nUNION ALL\n".join(
            f"SELECT {select} FROM {quote_identifier(p)}" for p in union.parts
        )
        self.execute(
            union.name,
            "(union)",
            f"CREATE OR REPLACE TEMP TABLE {quote_identifier(union.name)} AS\n{parts}",
        )

    def check(self, guard: Guard) -> None:
        """Raise the guard's error when its query counts a violation."""
        rows = self.execute(guard.name, guard.query, load(guard.query)).fetchall()
        count = int(rows[0][0] or 0)
        if count:
            raise engine_fault(guard.message.format(count=count), step=guard.name)

    def put(self, name: str, data: pa.Table) -> None:
        """A working table with ``data``'s rows (a table given, or an input)."""
        view = f"rc_given_{name}"
        self.cursor.register(view, data)
        try:
            self.run(
                name,
                "(given)",
                f"CREATE OR REPLACE TEMP TABLE {quote_identifier(name)} AS"
                f" FROM {quote_identifier(view)}",
            )
        finally:
            self.cursor.unregister(view)

    def put_cast(self, table: Table, data: pa.Table) -> None:
        """``table`` with ``data``'s rows, each column cast to its declared type."""
        view = f"rc_given_{table.name}"
        select = ", ".join(
            f"CAST({quote_identifier(c.name)} AS {resolve(c.type, self.coordinate)})"
            f" AS {quote_identifier(c.name)}"
            for c in table.columns
        )
        self.cursor.register(view, data)
        try:
            self.run(
                table.name,
                "(input)",
                f"CREATE OR REPLACE TEMP TABLE {quote_identifier(table.name)} AS"
                f" SELECT {select} FROM {quote_identifier(view)}",
            )
        finally:
            self.cursor.unregister(view)

    def drop(self, name: str) -> None:
        """Drop a working table or view, whichever ``name`` is (if it stands)."""
        kind = "VIEW" if name in self._views else "TABLE"
        self.run(name, "(drop)", f"DROP {kind} IF EXISTS {quote_identifier(name)}")
        self._views.discard(name)

    def arrow(self, name: str, order: str = "") -> pa.Table:
        """A working table's rows (in ``order``, an ORDER BY list of its columns)."""
        sql = f"FROM {quote_identifier(name)}" + (f" ORDER BY {order}" if order else "")
        with self.timed(f"(read {name})"):
            try:
                return self.cursor.sql(sql).to_arrow_table()
            except duckdb.Error as error:
                raise engine_failure(error, step=name, query="(read)") from error

    def query_arrow(self, query: str, params: Mapping[str, Any]) -> pa.Table:
        """A named read-only query's result (investigations)."""
        sql = load(query)
        with self.timed(query):
            try:
                return self.cursor.sql(sql, params=dict(params) or None).to_arrow_table()
            except duckdb.Error as error:
                raise engine_failure(error, step=query, query=query) from error


def engine_failure(error: duckdb.Error, *, step: str, query: str) -> BaseException:
    """The error to raise for a DuckDB error in a named query: out of memory or disk
    (a ResourceError), an interruption (KeyboardInterrupt), a log set closed under
    the analysis (a UsageError), else the engine's own fault (an InternalError naming
    the step and query)."""
    if query_interrupted(error):
        return KeyboardInterrupt()
    if isinstance(error, duckdb.ConnectionException):
        return UsageError(LOGSET_CLOSED)
    return classify_engine_error(error, step=step, query=query)


def engine_fault(message: str, *, step: str) -> InternalError:
    """The error to raise when the engine finds its own results inconsistent."""
    return InternalError(message, step=step)
