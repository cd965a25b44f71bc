"""A log set evaluated as of a time T: the engine's public surface.

An :class:`Analysis` runs the declared pipeline (:mod:`reconcile.engine.registry`)
in a namespace of its own (:mod:`reconcile.engine.namespace`): any number of them,
on one log set and at different T, stand side by side without touching each other
or the user's connection. Ask for a table (:meth:`Analysis.read`) and the planner
runs what it needs, once; results are Polars frames.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa

from reconcile import sql
from reconcile.engine.declare import Guard, Input, Registry, Sliced, Step, Table, Union
from reconcile.engine.namespace import (
    ANALYSIS_CLOSED,
    LOGSET_CLOSED,
    Namespace,
    iso_instant,
    parse_as_of,
)
from reconcile.engine.plan import MissingInput, Plan, applies, dependents, plan
from reconcile.engine.registry import REGISTRY
from reconcile.engine.settings import AuditSettings
from reconcile.errors import InputError, InternalError, UsageError, first_line, query_interrupted
from reconcile.logset.load import LogSet
from reconcile.logset.normalize import DAWN, DAWN_NS, DUSK, DUSK_NS
from reconcile_schemas import TABLES, CoordinateType

AsOf = datetime | str | None

# The inputs a caller supplies through a method of Analysis, by the method
SUPPLIED_BY = {
    "rc_selected": "history(partitions)",
    "rc_asked_points": "certificates_at(points)",
}


def frame(data: pa.Table) -> pl.DataFrame:
    """An Arrow table as a Polars frame."""
    result = pl.from_arrow(data)
    if not isinstance(result, pl.DataFrame):
        raise TypeError(f"expected a table, got {type(result).__name__}")
    return result


def _given_frame(what: str, data: object) -> pl.DataFrame:
    """A frame a caller gives (partitions, points) as a Polars frame: a pandas one is
    converted; anything else is refused by name."""
    if isinstance(data, pl.DataFrame):
        return data
    if type(data).__module__.split(".")[0] == "pandas" and type(data).__name__ == "DataFrame":
        try:
            return pl.from_pandas(data)
        except (pa.ArrowException, pl.exceptions.PolarsError, TypeError, ValueError) as error:
            raise UsageError(
                f"{what}: the pandas frame does not convert (a column of mixed kinds?):"
                f" {str(error).splitlines()[0]}"
            ) from None
    raise UsageError(f"{what}: give a Polars (or pandas) DataFrame, not {type(data).__name__}")


def _held_only(partitions: pl.DataFrame, held: pl.DataFrame) -> None:
    """UsageError unless every (scope_id, partition_id) of ``partitions`` is one of
    ``held`` (the log set's partitions)."""
    keys = ["scope_id", "partition_id"]
    missing = [c for c in keys if c not in partitions.columns]
    if missing:
        raise UsageError(f"history: partitions need column(s) {', '.join(missing)}")
    given = partitions.select(pl.col(keys).cast(pl.String))
    unknown = given.join(held.select(keys), on=keys, how="anti")
    if unknown.height:
        shown = ", ".join(f"{s}/{p}" for s, p in unknown.head(5).iter_rows())
        raise UsageError(
            f"history: {unknown.height} partition(s) the log set does not hold ({shown}):"
            " a scope_id and partition_id as the watermarks table names them"
        )


def _check_identifiers(what: str, data: pl.DataFrame) -> None:
    """scope_id and partition_id are text, as the contract's columns, and named: a
    number, a list or a null matched no partition, and the answer came back empty."""
    missing = [c for c in ("scope_id", "partition_id") if c not in data.columns]
    if missing:
        raise UsageError(f"{what} need column(s) {', '.join(missing)}")
    for name in ("scope_id", "partition_id"):
        dtype = data.schema[name]
        if not (dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum))):
            raise UsageError(f"{what}: {name} is text, not {dtype}")
        nulls = data.get_column(name).is_null()
        if nulls.any():
            raise UsageError(
                f"{what}: {name} is null in row {int(nulls.arg_true()[0])}: each row names"
                " a partition"
            )


class Analysis:
    """A log set evaluated as of T (default: the end of the log set).

    ``as_of`` may be a ``datetime`` (naive means UTC) or an ISO 8601 string;
    ``settings`` are the audit rules' thresholds. Results are computed when first
    asked for and kept; :meth:`close` (or leaving a ``with`` block, or letting the
    analysis be collected) drops them.
    """

    def __init__(
        self,
        logset: LogSet,
        as_of: AsOf = None,
        settings: AuditSettings | None = None,
        *,
        registry: Registry | None = None,
    ) -> None:
        if not isinstance(logset, LogSet):
            opened = (
                f"with reconcile.open_logset({os.fspath(logset)!r}) as logset: ..."
                if isinstance(logset, (str, os.PathLike))
                else "reconcile.open_logset(path)"
            )
            raise UsageError(
                f"an analysis reads an open log set, not {type(logset).__name__}:"
                f" open it first and pass that ({opened}); reconcile.watermarks and"
                " reconcile.audit.audit take one alike"
            )
        if settings is not None and not isinstance(settings, AuditSettings):
            raise UsageError(
                f"settings: give an AuditSettings (AuditSettings(stall_minutes=5)), not"
                f" {type(settings).__name__}"
            )
        logset.check_unchanged()
        self.logset = logset
        self.settings = settings or AuditSettings()
        self.registry = registry or REGISTRY
        self._ns = Namespace(logset.con, logset.coordinate)
        self.as_of_text, self._as_of = self._ns.set_as_of(as_of, str(logset.path))
        # T before the end of the log set: what it holds after T is not read
        self._cut = as_of is not None
        self._values: dict[str, Any] = {
            "default_domain": "discrete" if logset.coordinate is CoordinateType.INT64 else "dense",
            **self.settings.params(),
        }
        self._available: set[str] = set()
        self._given: set[str] = set()
        self._checked: set[str] = set()
        self._present = frozenset(logset.present)
        # one thread at a time runs steps and reads results (Python threads may
        # share an analysis; its working tables are one set)
        self._lock = threading.RLock()
        # calls within a call (arrow runs run): the files are checked by the outermost
        self._holding = 0

    # -- what it is --------------------------------------------------------------

    @property
    def as_of(self) -> datetime:
        """T, as a naive UTC datetime (to the microsecond: a datetime holds no more)."""
        return self._as_of

    @property
    def as_of_iso(self) -> str:
        """T as ISO 8601 text in UTC, without an offset, to the nanosecond."""
        return iso_instant(self._ns.as_of_literal)

    @property
    def timings(self) -> list[tuple[str, float]]:
        """(named query, seconds) for every query run so far, in order."""
        return self._ns.timings

    def given(self, name: str) -> bool:
        """Whether the working table ``name`` was given (:meth:`preset`)."""
        return name in self._given

    def close(self) -> None:
        """Drop every working table of this analysis (after a step running in
        another thread)."""
        with self._lock:
            self._ns.close()

    def __enter__(self) -> Analysis:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- running the pipeline ----------------------------------------------------

    def plan(self, *tables: str, never_reads: Collection[str] = ()) -> Plan:
        """What :meth:`run` would run for ``tables``, in order."""
        for name in tables:
            self._declared(name)
        try:
            return plan(
                self.registry,
                tables,
                available=self._available,
                present=self._present,
                contract=TABLES,
                checked=self._checked,
                never_reads=never_reads,
            )
        except MissingInput as missing:
            supplier = SUPPLIED_BY.get(missing.table)
            if supplier is None:
                raise
            raise UsageError(
                f"{', '.join(tables)} is computed from {missing.table}, which only"
                f" {supplier} supplies: call {supplier} first (it returns that table)"
            ) from None

    def run(self, *tables: str, never_reads: Collection[str] = ()) -> None:
        """Compute ``tables`` (working tables, ``rc_*``) and what they need. One
        thread at a time: an analysis's steps share its working tables."""
        with self._lock, self._files_held():
            self._execute(self.plan(*tables, never_reads=never_reads))

    @contextmanager
    def _files_held(self) -> Iterator[None]:
        """Within: the log set's files checked as they were opened, before and after.
        A file rewritten or removed while the steps (or a reading) read it would give
        an answer half old, half new, or a reading error of DuckDB's: either is the
        change's :class:`InputError` instead. (A closed log set is left to the
        namespace, which says the analysis is closed.) Called under the lock."""
        if self._holding:
            yield
            return
        if not self.logset.closed:
            self.logset.check_unchanged()
        self._holding += 1
        try:
            yield
        except Exception as error:
            if query_interrupted(error):  # Ctrl-C, in DuckDB's words: a notebook's
                raise KeyboardInterrupt from error  # `except Exception` must not take it
            if not self.logset.closed:
                try:
                    self.logset.check_unchanged()
                except InputError as changed:
                    raise changed from error
            raise
        finally:
            self._holding -= 1
        if not self.logset.closed:
            self.logset.check_unchanged()

    def _execute(self, steps: Plan) -> None:
        for index, item in enumerate(steps.items):
            if isinstance(item, Guard):
                self._ns.check(item)
                self._checked.add(item.name)
                continue
            if isinstance(item, Step):
                self._step(item)
            elif isinstance(item, Union):
                self._ns.union(item)
            elif isinstance(item, Sliced):
                self._sliced(item)
            else:
                raise InternalError(f"{item.name} is an input: it is given, not run")
            self._available.update(t.name for t in item.products)
            for name in steps.drops.get(index, ()):
                self._forget(name)

    def _step(self, step: Step) -> None:
        if applies(step, self._present):
            self._ns.create(step, self._values)
        else:
            self._ns.create_empty(step.produces)

    def _sliced(self, sliced: Sliced) -> None:
        """The steps of ``sliced`` once per slice of partitions: one hash aggregate over
        every event spills, and so does every pass over its result; a slice's stay in
        memory (at 100 M receipts, 5 slices)."""
        rows = sum(self.logset.row_count(table) for table in sliced.rows)
        count = max(1, -(-rows // sliced.per_slice))
        values = {**self._values, "slices": count}
        self._ns.create(sliced.slices, values)
        rebuilt = [
            step
            for step in sliced.each
            if step.when is None or (step.when[0] in self._present) == step.when[1]
        ]
        order = [*rebuilt, *sliced.collect]
        done_with = last_uses(order, {step.name for step in rebuilt})
        for number in range(count):
            self._ns.create(sliced.slice, {**values, "slice": number})
            self._ns.create(sliced.bounds, values)
            bounds = self._ns.arrow(sliced.bounds.name).to_pylist()[0]
            each = {**values, **bounds}
            for index, step in enumerate(order):
                if index < len(rebuilt):
                    # the previous slice's table goes first: one slice's events at a time
                    self._ns.drop(step.name)
                    self._ns.create(step, each)
                else:
                    self._ns.create(step, each, append=number > 0)
                # a slice's table no later step of the slice reads leaves memory now,
                # not at the next slice: what follows may then stay within the limit
                for name in done_with.get(index, ()):
                    self._ns.drop(name)
        # the last slice's events are no one's input: every later step reads the
        # collected tables
        for name in sliced.internal:
            self._ns.drop(name)

    def _forget(self, name: str) -> None:
        self._ns.drop(name)
        self._available.discard(name)
        self._checked.difference_update(g.name for g in self.registry.guards_of(name))

    # -- tables in and out -------------------------------------------------------

    def _declared(self, name: str) -> Table:
        try:
            return self.registry.table(name)
        except KeyError:
            raise UsageError(f"not a working table of the engine: {name!r}") from None

    def preset(self, tables: Mapping[str, pa.Table]) -> None:
        """Take working tables as given instead of computing them (what another
        process computed for a phase: :data:`~reconcile.engine.registry.PHASES`)."""
        with self._lock:
            self._preset(tables)

    def _preset(self, tables: Mapping[str, pa.Table]) -> None:
        computed = self._available - self._given
        if computed:
            raise UsageError(
                "tables can be given only before any is computed; computed: "
                + ", ".join(sorted(computed))
            )
        for name, data in tables.items():
            declared = self._declared(name)
            if tuple(data.column_names) != declared.column_names:
                raise InternalError(
                    f"{name} given with columns {data.column_names}, declared"
                    f" {list(declared.column_names)}"
                )
            self._ns.put(name, data)
            self._available.add(name)
            self._given.add(name)

    def _check_open(self) -> None:
        """A UsageError when this analysis, or its log set, was closed: before what
        would otherwise fail on the closed connection in DuckDB's own words (or, for
        text read as an instant, be said to be no instant)."""
        if self._ns.closed:
            raise UsageError(ANALYSIS_CLOSED)
        if self.logset.closed:
            raise UsageError(LOGSET_CLOSED)

    def put(self, name: str, data: pl.DataFrame) -> None:
        """Supply the input table ``name`` (its declared columns, cast to their types);
        what was computed from an earlier one is dropped."""
        self._check_open()
        if not any(isinstance(p, Input) for p in self.registry.producers_of(name)):
            raise UsageError(f"{name} is not an input of the engine")
        data = _given_frame(f"put {name}", data)
        declared = self._declared(name)
        missing = [c for c in declared.column_names if c not in data.columns]
        if missing:
            raise UsageError(f"{name} needs columns {missing}")
        with self._lock:
            for dependent in dependents(self.registry, name):
                if dependent in self._available and dependent not in self._given:
                    self._forget(dependent)
            types = ", ".join(f"{c.name} {c.type}" for c in declared.columns)
            with _callers_values(
                f"put {name}: a value does not read as its column's type ({types})"
            ):
                self._ns.put_cast(declared, data.select(declared.column_names).to_arrow())
            self._available.add(name)

    def empty(self, name: str) -> pa.Table:
        """A working table's declared columns, without rows."""
        return self._ns.empty(self._declared(name))

    def arrow(self, *tables: str) -> dict[str, pa.Table]:
        """Working tables as Arrow tables (computed first where needed)."""
        with self._lock, self._files_held():
            self.run(*tables)
            return {name: self._ns.arrow(name, self._declared(name).order) for name in tables}

    def read(self, table: str) -> pl.DataFrame:
        """A working table as a Polars frame, in its declared order (computed first
        where needed)."""
        return frame(self.arrow(table)[table])

    def query(self, query: str, *, reads: tuple[str, ...] = (), **params: Any) -> pl.DataFrame:
        """A named read-only query (``sql/<query>.sql``) with its parameters bound,
        after the working tables it ``reads``."""
        if not sql.exists(query):
            raise UsageError(f"query {query!r}: no named query of the engine (sql/<name>.sql)")
        text = sql.load(query)
        wanted = sql.parameters(text)
        missing, extra = sorted(wanted - set(params)), sorted(set(params) - wanted)
        if missing or extra:
            said = [f"needs parameter(s) {', '.join(missing)}"] if missing else []
            said += [f"takes no parameter(s) {', '.join(extra)}"] if extra else []
            raise UsageError(f"query {query!r}: {'; '.join(said)}")
        # the working tables its text names are computed first too, given in reads or not
        named = sorted(
            {n for n in _WORKING.findall(text) if self.registry.producers_of(n)} - set(reads)
        )
        with self._lock, self._files_held():
            self.run(*reads, *named)
            amiss = (
                f"query {query!r}: a parameter does not read as the type the query compares it with"
            )
            with _callers_values(amiss):
                return frame(self._ns.query_arrow(query, params))

    def phase(self, name: str) -> dict[str, pa.Table]:
        """Run a phase of the pipeline (:data:`~reconcile.engine.registry.PHASES`)
        on what was given, and return what it produces."""
        with self._lock:
            return self._phase(name)

    def _phase(self, name: str) -> dict[str, pa.Table]:
        phase = self.registry.phase(name)
        missing = [t for t in phase.given if t not in self._available]
        if missing:
            raise InternalError(f"phase {name} needs {', '.join(missing)} given")
        stray = self._given - set(phase.given) - set(phase.may_give)
        if stray:
            raise InternalError(f"phase {name} is not given {', '.join(sorted(stray))}")
        self.run(*phase.produces, never_reads=phase.never_reads)
        return self.arrow(*phase.produces)

    # -- the contract's results --------------------------------------------------

    def watermarks(self) -> pl.DataFrame:
        """The `watermarks` table of docs/contract.md §6 as of T."""
        return self.read("rc_watermarks")

    def frontiers(self) -> pl.DataFrame:
        """The `frontiers` table of docs/contract.md §6 as of T: per scope and basis."""
        return self.read("rc_frontiers")

    def frontier_history(self) -> pl.DataFrame:
        """The `frontier_history` table of docs/contract.md §6 up to T."""
        return self.read("rc_frontier_history").drop("idx")

    def history(self, partitions: pl.DataFrame | None = None) -> pl.DataFrame:
        """Each partition's proven and claimed certificates as step functions up to T.

        One row per (partition, basis) and instant its certificate changes:
        ``valid_from``, ``through``, ``inclusive`` (and ``generation`` for claims);
        a row with a null ``through`` and ``inclusive`` means no certificate. Exact:
        the value between rows is what ``watermarks(as_of=t)`` gives. Inside pages
        being handled the proven certificate moves with every receipt, so the table
        grows with the receipts of the partitions asked for: pass ``partitions``
        (scope_id, partition_id; text, as the contract's columns: a number, a list or
        a null is refused, for it would match no partition) to look at a few, each one
        the log set holds (another, a typo, is refused: it would have no rows). A
        Polars or a pandas frame.
        """
        if partitions is not None:
            partitions = _given_frame("history: partitions", partitions)
            _check_identifiers("history: partitions", partitions)
        with self._lock:  # the selection and its reading, one thread's
            held = self.read("rc_partitions")
            if partitions is None:
                partitions = held
            else:
                _held_only(partitions, held)
            return self.timelines(partitions)

    def timelines(self, partitions: pl.DataFrame) -> pl.DataFrame:
        """:meth:`history` of ``partitions`` (scope_id, partition_id, text) as given:
        a partition the log set does not hold has no rows (the audit's phases draw a
        scope's partitions, some of them in another bucket's log set)."""
        with self._lock:
            self.put("rc_selected", partitions)
            return self.read("rc_timelines")

    def certificates_at(self, points: pl.DataFrame) -> pl.DataFrame:
        """Each point's consumer, provider, proven, refutation and claimed certificates.

        ``points`` (a Polars or a pandas frame) has columns scope_id, partition_id
        (text) and t (instants up to T: datetimes, naive meaning UTC, or ISO 8601 text
        read as ``as_of`` is; a number is refused, for an epoch's unit would be a
        guess); the result has a row per point, in the same order, with ``point_id``
        its index: a partition the log set does not hold has null certificates. T is the end of the
        log set unless ``as_of`` was given; then a t after it (or none) is refused:
        what the log holds after T is not read, so a later instant needs an analysis
        with a later ``as_of``.
        """
        self._check_open()
        points = _given_frame("certificates_at: points", points)
        missing = sorted({"scope_id", "partition_id", "t"} - set(points.columns))
        if missing:
            raise UsageError(f"certificates_at: points need column(s) {', '.join(missing)}")
        _check_identifiers("certificates_at: points", points)
        with self._lock:  # text is read on the analysis's cursor
            instants = self._instants(points.get_column("t"))
        numbered = points.select(
            pl.int_range(pl.len(), dtype=pl.Int64).alias("point_id"),
            pl.col("scope_id").cast(pl.String),
            pl.col("partition_id").cast(pl.String),
        ).with_columns(instants.alias("t"))
        # compared in integer nanoseconds: a Python datetime holds microseconds
        limit = pl.Series([self._ns.as_of_literal]).str.to_datetime(time_unit="ns")
        after = pl.col("t").dt.epoch("ns") > limit.dt.epoch("ns").item()
        late = numbered.filter(pl.col("t").is_null() | (after & pl.lit(self._cut)))
        if late.height:
            first = late.row(0, named=True)
            # to the nanosecond: a Python datetime's microseconds made a t just after T
            # look equal to it
            at = late.get_column("t").dt.to_string("%Y-%m-%dT%H:%M:%S%.9f")[0]
            raise UsageError(
                f"certificates_at: {late.height} point(s) with no t or a t after T"
                f" ({self.as_of_iso}), the first point {first['point_id']} at {at}:"
                " open an Analysis with a later as_of to ask about later instants"
            )
        with self._lock:
            self.put("rc_asked_points", numbered)
            found = self.read("rc_asked_certificates")
        return (
            numbered.join(found.drop("scope_id", "partition_id", "t"), on="point_id", how="left")
            .select(found.columns)
            .sort("point_id")
        )

    def _instants(self, t: pl.Series) -> pl.Series:
        """Points' instants as naive UTC nanoseconds: datetimes (an aware one read in
        its zone), dates (midnight UTC), or text read as ``as_of`` is; a number is
        refused, as for ``as_of`` (an epoch's unit would be a guess)."""
        dtype = t.dtype
        if isinstance(dtype, pl.Datetime):
            if dtype.time_zone is not None:
                t = t.dt.convert_time_zone("UTC").dt.replace_time_zone(None)
            return _within_the_engines_times(t)
        if dtype == pl.Date:
            return _within_the_engines_times(t)
        if dtype == pl.Null:
            return t.cast(pl.Datetime("ns"))
        if dtype == pl.String:
            return self._parsed(t)
        if dtype.is_numeric() or dtype == pl.Boolean:
            kind = "a number" if dtype.is_numeric() else "a boolean"
            raise UsageError(
                f"certificates_at: t is {kind} ({dtype}), not an instant: give datetimes or"
                " ISO 8601 text (an epoch's unit would be a guess)"
            )
        raise UsageError(
            f"certificates_at: t is {dtype}, not an instant: give datetimes or ISO 8601 text"
        )

    def _parsed(self, t: pl.Series) -> pl.Series:
        """Text instants read as ``as_of`` is (to the nanosecond, an offset honoured,
        none meaning UTC); text that is no instant is refused by point."""
        literals: dict[str, str] = {}
        for index, text in enumerate(t.to_list()):
            if text is None or text in literals:
                continue
            try:
                literals[text], _ = parse_as_of(self._ns.cursor, text)
            except UsageError:
                raise UsageError(
                    f"certificates_at: t {text!r} (point {index}) is not an instant the"
                    " reconciler reads: give datetimes or ISO 8601 text such as"
                    " 2026-01-01T00:15:00 (UTC) or 2026-01-01T01:15:00+01:00"
                ) from None
        return t.replace_strict(
            list(literals), list(literals.values()), default=None, return_dtype=pl.String
        ).str.to_datetime("%Y-%m-%d %H:%M:%S%.f", time_unit="ns")


@contextmanager
def _callers_values(said: str) -> Iterator[None]:
    """A value the caller gave that DuckDB cannot convert, failing a statement of the
    engine's (an internal error otherwise), as the caller's UsageError: ``said``, then
    DuckDB's words."""
    try:
        yield
    except InternalError as error:
        if not isinstance(error.__cause__, duckdb.ConversionException):
            raise
        raise UsageError(f"{said}: {first_line(error.__cause__)}") from None


# a working table's name in a query's text (macros and lookups match too, and are
# told apart by having no producer)
_WORKING = re.compile(r"\brc_[a-z0-9_]+\b")


def _within_the_engines_times(t: pl.Series) -> pl.Series:
    """Naive UTC datetimes or dates as nanoseconds, each strictly between DAWN and DUSK
    as ``as_of`` must be: the engine keeps those two for "before every row" and
    "never", and nanoseconds end in 2262 (a later datetime failed in Polars' cast, and
    one at or past DUSK was answered as if no row blocked it)."""
    # microseconds first: any datetime or date holds them, where nanoseconds overflow
    micros = t.cast(pl.Datetime("us")).dt.epoch("us")
    coarse = (micros < DAWN_NS // 1000) | (micros > DUSK_NS // 1000)
    if not coarse.any():
        nanos = t.cast(pl.Datetime("ns"))
        exact = (nanos.dt.epoch("ns") <= DAWN_NS) | (nanos.dt.epoch("ns") >= DUSK_NS)
        if not exact.any():
            return nanos
        coarse = exact
    index = int(coarse.arg_true()[0])
    raise UsageError(
        f"certificates_at: t {t[index]} (point {index}) is outside the times the reconciler"
        f" computes in (after {DAWN} and before {DUSK} UTC)"
    )


def last_uses(steps: list[Step], names: set[str]) -> dict[int, list[str]]:
    """For each of ``names`` (tables or views made by ``steps``) that a step reads, the
    index of the last step that reads it, directly or through views among ``steps``:
    ``{index: names}``, views first (a view is dropped before what it reads)."""
    views = {step.name: step for step in steps if step.view}

    def reached(step: Step) -> set[str]:
        seen: set[str] = set()
        pending = list(step.reads)
        while pending:
            name = pending.pop()
            if name not in seen:
                seen.add(name)
                if name in views:
                    pending.extend(views[name].reads)
        return seen

    last: dict[str, int] = {}
    for index, step in enumerate(steps):
        for name in reached(step) & names:
            last[name] = index
    result: dict[int, list[str]] = {}
    for name, index in sorted(last.items(), key=lambda item: (item[0] not in views, item[0])):
        result.setdefault(index, []).append(name)
    return result


def watermarks(logset: LogSet, as_of: AsOf = None) -> pl.DataFrame:
    """Each partition's eligible-prefix watermark and certificates as of T."""
    with Analysis(logset, as_of) as analysis:
        return analysis.watermarks()
