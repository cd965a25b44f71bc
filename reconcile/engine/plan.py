"""The planner: which steps to run, in which order, for the tables asked for.

From the declarations alone (:mod:`reconcile.engine.declare`): each table asked for
that is not yet available is produced by its one producer (among alternatives, the
one whose condition the log set meets; a fallback only where the phase must not
read what the step it stands in for reads), after the tables it reads; a guard on a
table runs before anything reads it. A plan is a list, in an order that respects
every declared read; transient tables are dropped after their last reader.

The planner refuses, rather than guess:

* a table with no producer, or with two that apply;
* an input the caller has not supplied;
* a producer of several tables, some of which were given (it would recompute the
  others from other rows);
* a step that reads a contract table the phase must never read;
* a cycle among the declarations.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from reconcile.engine.declare import Guard, Input, Producer, Registry, Step
from reconcile.errors import InternalError


class PlanError(InternalError):
    """The declarations cannot produce what is asked (the engine's own fault)."""


class MissingInput(PlanError):
    """An input table (``table``) is needed and was not supplied: the engine's fault
    inside a phase, the caller's at :meth:`Analysis.read` (which says so)."""

    def __init__(self, table: str) -> None:
        super().__init__(f"{table} is an input: supply it before asking for what reads it")
        self.table = table


def applies(producer: Producer, present: Collection[str]) -> bool:
    """Whether a step's contract tables (``needs``) are all in the log set: where not,
    its product is empty and it reads nothing."""
    return not isinstance(producer, Step) or all(n in present for n in producer.needs)


def chosen(
    registry: Registry, table: str, present: Collection[str], never_reads: Collection[str] = ()
) -> Producer:
    """The producer of ``table`` for a log set with the contract tables ``present``,
    in a phase that must never read ``never_reads``: a fallback only where the step
    it stands in for reads one of those."""
    candidates = []
    for producer in registry.producers_of(table):
        when = getattr(producer, "when", None)
        if when is None or (when[0] in present) == when[1]:
            candidates.append(producer)
    if len(candidates) > 1:
        usable = [p for p in candidates if not set(p.reads) & set(never_reads)]
        preferred = [p for p in usable if not getattr(p, "fallback", False)]
        candidates = preferred or usable
    if len(candidates) != 1:
        found = "no step" if not candidates else f"{len(candidates)} steps"
        raise PlanError(f"{found} produce {table} for a log set with {sorted(present)}")
    return candidates[0]


@dataclass(frozen=True)
class Plan:
    """Items to run in order; after item ``i``, drop the tables ``drops[i]``."""

    items: tuple[Producer | Guard, ...]
    drops: dict[int, tuple[str, ...]] = field(default_factory=dict)

    @property
    def steps(self) -> tuple[Producer, ...]:
        return tuple(i for i in self.items if not isinstance(i, Guard))

    def reads(self, present: Collection[str]) -> set[str]:
        """Every table the plan's items read (a step that does not apply reads none)."""
        found: set[str] = set()
        for item in self.items:
            if isinstance(item, Guard) or applies(item, present):
                found.update(item.reads)
        return found


def plan(
    registry: Registry,
    targets: Iterable[str],
    *,
    available: Collection[str],
    present: Collection[str],
    contract: Collection[str],
    checked: Collection[str] = (),
    never_reads: Collection[str] = (),
) -> Plan:
    """The plan that makes ``targets`` available.

    ``available``: working tables already there (computed or given); ``present``:
    the contract tables the log set has; ``contract``: every contract table name
    (always readable, as views); ``checked``: guards already run; ``never_reads``:
    contract tables no step of the plan may read.
    """
    items: list[Producer | Guard] = []
    done = set(available)
    guarded = set(checked)
    visiting: list[str] = []

    def guard(table: str) -> None:
        for g in registry.guards_of(table):
            if g.name in guarded:
                continue
            guarded.add(g.name)
            for name in g.reads:
                need(name)
            items.append(g)

    def need(table: str) -> None:
        if table in contract:
            return
        if table in done:
            guard(table)
            return
        if table in visiting:
            raise PlanError("the declarations form a cycle: " + " -> ".join([*visiting, table]))
        producer = chosen(registry, table, present, never_reads)
        if isinstance(producer, Input):
            raise MissingInput(table)
        products = {t.name for t in producer.products}
        given = products & done
        if given:
            raise PlanError(
                f"{producer.name} produces {', '.join(sorted(products))} together, and"
                f" {', '.join(sorted(given))} was given: the rest cannot be computed apart"
            )
        visiting.append(table)
        if applies(producer, present):
            for name in producer.reads:
                if name in never_reads:
                    raise PlanError(
                        f"{producer.name} reads {name}, which this phase must never read"
                    )
                need(name)
        visiting.pop()
        items.append(producer)
        done.update(products)
        guard(table)

    wanted = list(dict.fromkeys(targets))
    for target in wanted:
        need(target)
    return Plan(tuple(items), _drops(items, set(wanted), present))


def _drops(
    items: list[Producer | Guard], targets: set[str], present: Collection[str]
) -> dict[int, tuple[str, ...]]:
    """After which item each transient table produced here is read for the last time
    (a table a view reads, for the last time its view is read)."""
    read: dict[str, int] = {}
    for index, item in enumerate(items):
        reads = item.reads if isinstance(item, Guard) or applies(item, present) else ()
        for name in reads:
            read[name] = index
    kept = set(targets)
    for item in reversed(items):
        if isinstance(item, Step) and item.view:
            if item.name in kept:
                kept.update(item.reads)
            if item.name in read:
                for name in item.reads:
                    read[name] = max(read.get(name, -1), read[item.name])
    last: dict[str, int] = {}
    for index, item in enumerate(items):
        if not isinstance(item, Guard):
            for product in item.products:
                if product.transient and product.name not in kept:
                    last[product.name] = max(index, read.get(product.name, index))
    drops: dict[int, list[str]] = {}
    for name, index in last.items():
        drops.setdefault(index, []).append(name)
    return {i: tuple(names) for i, names in drops.items()}


def dependents(registry: Registry, table: str) -> set[str]:
    """Every table computed, directly or not, from ``table``."""
    readers: dict[str, set[str]] = {}
    for producer in registry.producers:
        for name in producer.reads:
            readers.setdefault(name, set()).update(t.name for t in producer.products)
    found: set[str] = set()
    pending = [table]
    while pending:
        for reader in readers.get(pending.pop(), ()):
            if reader not in found:
                found.add(reader)
                pending.append(reader)
    return found


__all__ = ["Plan", "PlanError", "applies", "chosen", "dependents", "plan"]
