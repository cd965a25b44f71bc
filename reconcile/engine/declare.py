"""The engine's pipeline, declared: what each step reads and what it produces.

Nothing here runs anything. A *step* names a query (``reconcile/sql/<query>.sql``)
and declares the tables it reads (the contract's tables and working tables) and the
one working table it produces, with that table's columns and their types. The
planner (:mod:`reconcile.engine.plan`) orders the steps from these declarations; the
runner (:mod:`reconcile.engine.namespace`) executes them in an analysis' own
namespace; ``tests/test_pipeline.py`` runs every step with only what it declares to
read, and checks what it produced against what it declares.

Kinds of step:

* :class:`Step`: one query into one table (or view);
* :class:`Union`: a table that is the union of other tables (the findings of every
  rule; the frontier of both bases);
* :class:`Sliced`: steps run once per slice of partitions, their results collected
  (the event level, which would spill if run on every event at once);
* :class:`Input`: a table the caller supplies (the partitions to draw, the points to
  evaluate);
* :class:`Guard`: a check that must hold before anything reads a table (a failure is
  the engine's fault, never the input's).

A step may call a :class:`Lookup`: a function built from a working table it reads,
for a search SQL has no cheap operator for (:mod:`reconcile.engine.lookups`).

Column types are DuckDB's, spelled as ``DESCRIBE`` spells them, in which the names of
the shared encodings (:mod:`reconcile.engine.encodings`: ``COORD``, ``CERT``,
``BLOCK``, ...) stand for their definitions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Column:
    name: str
    type: str


@dataclass(frozen=True)
class Table:
    """A working table: its name (``rc_*``), its columns, what one row is.

    ``transient`` tables are dropped once the last step that reads them in a run has
    run (intermediate results, computed again if a later run needs them). ``order``:
    the order its rows are read in, where it has one (an ``ORDER BY`` list of its
    columns)."""

    name: str
    columns: tuple[Column, ...]
    doc: str
    transient: bool = False
    order: str = ""

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """``text`` split at ``sep`` outside parentheses, each part stripped."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == sep and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    last = "".join(current).strip()
    if last:
        parts.append(last)
    return parts


def table(name: str, columns: str, doc: str, *, transient: bool = False, order: str = "") -> Table:
    """A table declared as ``"name TYPE, name TYPE, ..."``."""
    if not name.startswith("rc_") or not name.replace("_", "").isalnum():
        raise ValueError(f"a working table's name is rc_ and letters, digits, _: {name!r}")
    parsed = []
    for part in split_top_level(columns):
        column, _, kind = part.partition(" ")
        parsed.append(Column(column.strip('"'), kind.strip()))
    return Table(name, tuple(parsed), doc, transient, order)


@dataclass(frozen=True)
class Lookup:
    """A function a query calls that looks values up in a working table, built from
    that table's rows before the query runs and dropped after it
    (:mod:`reconcile.engine.lookups` holds how each is built).

    ``function``: the name the query calls it by; ``table``: the working table it is
    built from (the step must read it); ``args`` and ``returns``: its DuckDB types;
    ``groups``: the table's columns whose values split its rows into the runs it
    searches in.
    """

    function: str
    table: str
    args: tuple[str, ...]
    returns: str
    groups: tuple[str, ...] = ()


@dataclass(frozen=True)
class Step:
    """A named query run into the table it produces.

    ``reads``: every table the query reads (contract tables by their names, working
    tables by theirs). ``params``: the named parameters (``$name``) it takes from the
    analysis (``as_of`` is the macro ``rc_as_of()``, not a parameter). ``fixed``:
    parameter values of this step alone. ``bind``: where a query is shared by several
    steps (a template), the name it reads under and the table it gets under that
    name. ``needs``: contract tables without which the step does not apply: its
    product is then empty. ``when``: (contract table, present) for a step that is one
    of two alternatives producing the same table. ``fallback``: an alternative
    producer of a table that another step also produces, taken only where the other
    reads (itself, not through the tables it reads) a table the phase must never
    read (what a bucket of partitions gave the scope's task in its stead). ``view``:
    a view, not a table (cheap to state, read once). ``lookups``: the functions built
    from tables it reads that its query calls. ``only_if``: a working table it reads;
    where that has no row, the query is not run and its product is empty (appended
    to: unchanged), for a query that would read a large table only to keep nothing
    of it (DuckDB reads a join's probe side even where its build side is empty).
    """

    query: str
    produces: Table
    reads: tuple[str, ...]
    params: tuple[str, ...] = ()
    fixed: tuple[tuple[str, Any], ...] = ()
    bind: tuple[tuple[str, str], ...] = ()
    needs: tuple[str, ...] = ()
    when: tuple[str, bool] | None = None
    fallback: bool = False
    view: bool = False
    lookups: tuple[Lookup, ...] = ()
    only_if: str | None = None

    def __post_init__(self) -> None:
        if self.only_if is not None and self.only_if not in self.reads:
            raise ValueError(
                f"{self.query}: it runs only if {self.only_if} has rows, which it does not read"
            )
        for lookup in self.lookups:
            if lookup.table not in self.reads:
                raise ValueError(
                    f"{self.query}: its lookup {lookup.function} is built from"
                    f" {lookup.table}, which the step does not read"
                )

    @property
    def name(self) -> str:
        return self.produces.name

    @property
    def products(self) -> tuple[Table, ...]:
        return (self.produces,)


def external_reads(steps: tuple[Step, ...]) -> tuple[str, ...]:
    """What a group of steps reads from outside the group, in order."""
    inside = {s.name for s in steps}
    seen: dict[str, None] = {}
    for step in steps:
        for name in step.reads:
            if name not in inside:
                seen[name] = None
    return tuple(seen)


@dataclass(frozen=True)
class Union:
    """A table that is the union of ``parts``, each cast to the declared columns."""

    produces: Table
    parts: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.produces.name

    @property
    def reads(self) -> tuple[str, ...]:
        return self.parts

    @property
    def products(self) -> tuple[Table, ...]:
        return (self.produces,)


@dataclass(frozen=True)
class Sliced:
    """Steps run once per slice of partitions (a range of ``partition_id``).

    The number of slices is ``rows`` (the row count of contract tables, summed)
    divided by ``per_slice``, at least one. ``slices`` cuts the partitions into that many
    (parameter ``slices``), ``slice`` picks one (parameter ``slice``), ``bounds``
    gives its first and last ``partition_id`` in one row (parameters of the steps
    that follow, by column name); ``each`` are rebuilt for every slice (of
    alternatives, the one whose ``when`` holds) and dropped after the last step of the
    slice that reads them (``Analysis._sliced``); ``collect`` gather every slice's
    rows: they are the products, made in their order.
    """

    name: str
    rows: tuple[str, ...]
    per_slice: int
    slices: Step
    slice: Step
    bounds: Step
    each: tuple[Step, ...]
    collect: tuple[Step, ...]

    @property
    def steps(self) -> tuple[Step, ...]:
        return (self.slices, self.slice, self.bounds, *self.each, *self.collect)

    @property
    def internal(self) -> frozenset[str]:
        return frozenset(s.name for s in (self.slices, self.slice, self.bounds, *self.each))

    @property
    def reads(self) -> tuple[str, ...]:
        return external_reads(self.steps)

    @property
    def products(self) -> tuple[Table, ...]:
        return tuple(s.produces for s in self.collect)


@dataclass(frozen=True)
class Input:
    """A table the caller supplies (:meth:`Analysis.put`); it has no producer."""

    produces: Table

    @property
    def name(self) -> str:
        return self.produces.name

    @property
    def reads(self) -> tuple[str, ...]:
        return ()

    @property
    def products(self) -> tuple[Table, ...]:
        return (self.produces,)


@dataclass(frozen=True)
class Guard:
    """A check on ``guards`` before any step reads it: ``query`` returns one row, the
    number of violations; more than none is the engine's fault (``message``, with
    ``{count}``)."""

    name: str
    guards: str
    query: str
    reads: tuple[str, ...]
    message: str


Producer = Step | Union | Sliced | Input


@dataclass(frozen=True)
class Phase:
    """A named slice of the pipeline: the tables it produces from those it is given.

    ``given``: tables that must be given; ``may_give``: tables that may be given (else
    computed); ``never_reads``: contract tables the phase's rows lack, which no step
    it runs may read (the plan fails otherwise).
    """

    name: str
    produces: tuple[str, ...]
    given: tuple[str, ...] = ()
    may_give: tuple[str, ...] = ()
    never_reads: tuple[str, ...] = ()
    doc: str = ""


@dataclass(frozen=True)
class Registry:
    """Every producer and guard of the pipeline, and its phases."""

    producers: tuple[Producer, ...]
    guards: tuple[Guard, ...] = ()
    phases: tuple[Phase, ...] = ()
    _by_table: dict[str, list[Producer]] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        for producer in self.producers:
            for product in producer.products:
                self._by_table.setdefault(product.name, []).append(producer)

    def producers_of(self, table_name: str) -> list[Producer]:
        return self._by_table.get(table_name, [])

    def table(self, name: str) -> Table:
        producers = self.producers_of(name)
        if not producers:
            raise KeyError(f"no step produces {name!r}")
        return next(t for t in producers[0].products if t.name == name)

    @property
    def tables(self) -> dict[str, Table]:
        return {name: self.table(name) for name in self._by_table}

    def phase(self, name: str) -> Phase:
        for phase in self.phases:
            if phase.name == name:
                return phase
        raise KeyError(f"no phase {name!r}")

    def guards_of(self, table_name: str) -> list[Guard]:
        return [g for g in self.guards if g.guards == table_name]
