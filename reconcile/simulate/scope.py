"""One scope of a simulated run: its partitions, membership change and publisher.

A scope is built in two passes so that memory stays bounded by one partition: the
first plans every partition and keeps only its won checkpoint writes (enough to
decide the membership change and what the publisher publishes), the second plans
each partition again, identically, and renders its rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np

from reconcile.simulate.faults import (
    PARTITION_FAULTS,
    FaultContext,
    SimulationError,
    iso,
    truncate_after,
)
from reconcile.simulate.keys import NONE, Int64s
from reconcile.simulate.options import SCOPE_FAULTS, Evidence, Membership, SimOptions
from reconcile.simulate.plan import SECOND, Plan, plan_partition
from reconcile.simulate.source import make_events
from reconcile.simulate.truth import Expected, Injected

T0 = 1_767_225_600 * SECOND  # 2026-01-01T00:00:00Z
EVENTS_FROM = 1_764_547_200 * SECOND  # 2025-12-01T00:00:00Z: where event times begin
MAX_GAP = 10


@dataclass
class Summary:
    """What the first pass keeps of a partition: its won claims over time."""

    partition_id: str
    time: Int64s
    claim: Int64s  # NONE: no claim
    unknown: np.ndarray  # claim written with an unknown endpoint
    end_time: int


@dataclass(frozen=True)
class PartitionSpec:
    """How to build one partition, the same in both passes."""

    index: int
    partition_id: str
    n_events: int
    low: int
    start_time: int
    snapshot: bool
    fault: str | None = None
    stop_after: int | None = None  # a retiring partition stops after this time


@dataclass
class MembershipChange:
    kind: Membership
    first_effective: int
    effective: int
    cutover: int  # key
    parent: str | None
    seal: int | None  # key
    joining: list[tuple[str, int]] = field(default_factory=list)  # (partition, coverage_from)
    unproven: bool = False
    cutover_faulty: bool = False


@dataclass
class ScopeRun:
    scope_id: str
    discrete: bool
    timestamp: bool
    bound: int
    specs: list[PartitionSpec]
    membership: MembershipChange | None
    published: list[tuple[int, int | None, str, int]]  # (time, epoch, kind, frontier key)
    injected: list[Injected]


class ScopeBuilder:
    def __init__(self, options: SimOptions, scope_index: int) -> None:
        self.options = options
        self.index = scope_index
        self.scope_id = f"s{scope_index}"
        self.timestamp = options.coordinate == "timestamp"
        self.discrete = not self.timestamp
        self.unit = 1_000 if self.timestamp else 1  # gaps of whole ms, or of 1
        self.low = EVENTS_FROM if self.timestamp else 0
        self.per_partition = options.events // options.partitions
        self.bound = self.low + self.per_partition * MAX_GAP * self.unit + self.unit
        evidence = options.evidence
        self.snapshot = evidence is Evidence.SNAPSHOT or (
            evidence is Evidence.MIXED and scope_index % 2 == 1
        )
        self.ctx = FaultContext(self.scope_id, self.discrete, self.timestamp, self.bound, self.unit)

    def rng(self, partition_index: int, salt: int = 0) -> np.random.Generator:
        return np.random.default_rng([self.options.seed, self.index, partition_index, salt])

    # --- building partitions -------------------------------------------------------

    def build(self, spec: PartitionSpec) -> tuple[Plan, Injected | None]:
        """Plan a partition, apply its fault and stop; identical on every call. A
        partition too short for its fault is refused naming the fault and its size."""
        try:
            return self._build(spec)
        except SimulationError as error:
            if spec.fault is None:
                raise
            raise SimulationError(
                f"--fault {spec.fault}: {error} (its partition holds {spec.n_events} events"
                f" of --events {self.options.events})"
            ) from error

    def _build(self, spec: PartitionSpec) -> tuple[Plan, Injected | None]:
        rng = self.rng(spec.index)
        events = make_events(rng, spec.n_events, spec.low, self.bound, self.unit, self.options)
        fault = PARTITION_FAULTS[spec.fault] if spec.fault else None
        if fault is not None:
            events.stable[:] = True  # a fault partition's findings are its fault's alone
        tweak = None
        if fault is not None and fault.tweak is not None:
            fault_tweak = fault.tweak

            def tweak(pages):  # type: ignore[no-untyped-def]
                return fault_tweak(pages, self.ctx)

        plan = plan_partition(
            rng,
            self.scope_id,
            spec.partition_id,
            events,
            bound=self.bound,
            discrete=self.discrete,
            snapshot=spec.snapshot,
            start_time=spec.start_time,
            options=self.options,
            tweak=tweak,
        )
        injected = fault.apply(plan, self.ctx) if fault is not None else None
        if spec.stop_after is not None:
            truncate_after(plan, spec.stop_after)
        return plan, injected

    def _summary(self, plan: Plan) -> Summary:
        won = plan.writes.won
        order = np.argsort(plan.writes.time[won], kind="stable")
        return Summary(
            partition_id=plan.partition_id,
            time=plan.writes.time[won][order],
            claim=plan.writes.claim[won][order],
            unknown=plan.writes.unknown_endpoint[won][order],
            end_time=plan.end_time,
        )

    def _base_specs(self) -> list[PartitionSpec]:
        faults = [f for f in self.options.faults if f not in SCOPE_FAULTS]
        if self.index != 0:
            faults = []
        specs = []
        for i in range(self.options.partitions):
            fault = faults[i - 1] if 1 <= i <= len(faults) else None
            jitter = int(self.rng(i, salt=1).integers(0, SECOND // 5))
            specs.append(
                PartitionSpec(
                    index=i,
                    partition_id=f"p{i:04d}",
                    n_events=self.per_partition,
                    low=self.low,
                    start_time=T0 + jitter,
                    snapshot=self.snapshot or bool(fault and PARTITION_FAULTS[fault].snapshot),
                    fault=fault,
                )
            )
        return specs

    def plan(self) -> ScopeRun:
        """The first pass: every partition's claims, the membership change, the publisher."""
        specs = self._base_specs()
        summaries: dict[str, Summary] = {}
        injected: list[Injected] = []
        for spec in specs:
            plan, fault = self.build(spec)
            summaries[spec.partition_id] = self._summary(plan)
            if fault is not None:
                injected.append(fault)
        self.ready, self.end = _timeline(summaries)
        membership = None
        kind = self.options.membership_needed if self.index == 0 else self.options.membership
        if kind is not Membership.NONE:
            membership, specs = self._membership(kind, specs, summaries, injected)
        if membership is not None and membership.unproven:
            # an unproven change leaves only vectors from then on: a stall after it
            # holds no scalar frontier, and no audit can see it stall
            for fault in injected:
                if fault.fault == "stalled_partition" and _parse(fault.at) >= membership.effective:
                    fault.findings = []
                    fault.description += (
                        "; the frontier is a vector by then (unproven membership), so no"
                        " stall shows"
                    )
        published = self._publish(specs, summaries, membership, injected)
        return ScopeRun(
            self.scope_id,
            self.discrete,
            self.timestamp,
            self.bound,
            specs,
            membership,
            published,
            injected,
        )

    def rows(self, run: ScopeRun) -> Iterator[Plan]:
        """The second pass: each partition's plan again, for rendering."""
        for spec in run.specs:
            plan, _ = self.build(spec)
            yield plan

    # --- membership --------------------------------------------------------------------

    def _membership(
        self,
        kind: Membership,
        specs: list[PartitionSpec],
        summaries: dict[str, Summary],
        injected: list[Injected],
    ) -> tuple[MembershipChange, list[PartitionSpec]]:
        ready, end = self.ready, self.end
        change = ready + int((end - ready) * 0.4)
        claims = {}
        for pid, s in summaries.items():
            before = np.flatnonzero(s.time < change)
            if len(before) == 0 or s.claim[before[-1]] == NONE or s.unknown[before[-1]]:
                raise SimulationError(
                    f"{pid} has no claim by the membership change; raise --events"
                )
            claims[pid] = int(s.claim[before[-1]])
        cutover = min(claims.values())
        faults = set(self.options.faults) if self.index == 0 else set()
        clean = [s for s in specs if s.fault is None]
        parent_spec = max(clean, key=lambda s: (claims[s.partition_id], s.partition_id))
        result = MembershipChange(
            kind=kind,
            first_effective=T0,
            effective=change,
            cutover=cutover,
            parent=None,
            seal=None,
            unproven="unproven_membership" in faults,
            cutover_faulty="cutover_overclaim" in faults,
        )
        new_specs = list(specs)
        if kind in (Membership.SPLIT, Membership.RETIRE):
            parent = summaries[parent_spec.partition_id]
            after = np.flatnonzero(parent.time >= change)
            stop = int(parent.time[after[0]]) if len(after) else parent.end_time
            seal_claims = parent.claim[parent.time <= stop]
            result.parent = parent_spec.partition_id
            result.seal = int(seal_claims[-1])
            new_specs = [
                PartitionSpec(**{**s.__dict__, "stop_after": stop})
                if s.partition_id == parent_spec.partition_id
                else s
                for s in specs
            ]
        if result.cutover_faulty:
            # the operator cut over at the bound's end: above any frontier mid-run;
            # the retiring partition's seal is stated as high, so only the cutover lies
            result.cutover = 2 * self.bound + 1
            if result.seal is not None:
                result.seal = result.cutover
        joining: list[str] = []
        if kind is Membership.SPLIT:
            joining = [f"{parent_spec.partition_id}.a", f"{parent_spec.partition_id}.b"]
        elif kind is Membership.ADD:
            joining = [f"p{self.options.partitions:04d}"]
        low = cutover >> 1  # the true frontier's value: the joining partitions start above
        for j, pid in enumerate(joining):
            spec = PartitionSpec(
                index=10_000 + j,
                partition_id=pid,
                n_events=max(2 * self.options.page_size, self.per_partition // 2),
                low=low,
                start_time=change + 100_000,
                snapshot=self.snapshot,
            )
            plan, _ = self.build(spec)
            summaries[pid] = self._summary(plan)
            new_specs.append(spec)
            coverage = low + 1 if self.discrete else low
            result.joining.append((pid, coverage))
        if result.unproven:
            # a joining partition without coverage, or else a retiring one without a seal
            if result.joining:
                pid, what = result.joining[0][0], "joins at epoch 2 without a coverage proof"
            elif result.parent is not None:
                pid, what = result.parent, "retires at epoch 2 without a seal"
                result.seal = None
            else:
                raise SimulationError("unproven_membership needs a membership change")
            injected.append(
                Injected(
                    fault="unproven_membership",
                    description=f"{pid} {what}",
                    scope_id=self.scope_id,
                    partition_id=pid,
                    epoch=2,
                    at=iso(change),
                    findings=[Expected("unproven_membership", self.scope_id, pid, epoch=2)],
                )
            )
        if result.cutover_faulty:
            injected.append(
                Injected(
                    fault="cutover_overclaim",
                    description="epoch 2's cutover is the bound's end, above the frontier",
                    scope_id=self.scope_id,
                    epoch=2,
                    at=iso(change),
                    findings=[Expected("cutover_overclaim", self.scope_id, epoch=2)],
                )
            )
        return result, new_specs

    # --- publisher ---------------------------------------------------------------------

    def _members_at(
        self, time: int, specs: list[PartitionSpec], membership: MembershipChange | None
    ) -> tuple[int | None, list[str]]:
        if membership is None:
            return None, [s.partition_id for s in specs]
        if time < membership.effective:
            base = [s.partition_id for s in specs if s.index < 10_000]
            return 1, base
        members = [s.partition_id for s in specs if s.partition_id != membership.parent]
        return 2, members

    def _frontier(self, time: int, members: list[str], summaries: dict[str, Summary]) -> int | None:
        lowest: int | None = None
        for pid in members:
            s = summaries[pid]
            i = int(np.searchsorted(s.time, time, side="right")) - 1
            if i < 0 or s.claim[i] == NONE or s.unknown[i]:
                return None
            lowest = int(s.claim[i]) if lowest is None else min(lowest, int(s.claim[i]))
        return lowest

    def _publish(
        self,
        specs: list[PartitionSpec],
        summaries: dict[str, Summary],
        membership: MembershipChange | None,
        injected: list[Injected],
    ) -> list[tuple[int, int | None, str, int]]:
        """A careful publisher: the lowest claim of the epoch's members, or a vector.

        It publishes at a steady cadence until the first injected fault (after which
        what it would publish depends on the fault), then once more at the end when
        the run is clean.
        """
        ready, end = self.ready, self.end
        last = max(s.end_time for s in summaries.values())
        faults = set(self.options.faults) if self.index == 0 else set()
        fault_times = [_parse(i.at) for i in injected]
        # the publisher's own faults come early, before the membership change (at 40 %)
        mid = ready + (end - ready) // 5
        later = mid + (end - ready) // 10
        if "published_overclaim" in faults:
            fault_times.append(mid)
        if "published_regression" in faults:
            fault_times.append(later)
        step = max(SECOND // 20, (end - ready) // 50)
        times = list(range(T0 + step, min(fault_times) if fault_times else last, step))
        if not fault_times:
            times.append(last + SECOND)  # the run is over: publish where it ended
        rows: list[tuple[int, int | None, str, int]] = []
        for time in times:
            epoch, members = self._members_at(time, specs, membership)
            frontier = self._frontier(time, members, summaries)
            kind = "vector" if frontier is None else "scalar"
            rows.append((time, epoch, kind, NONE if frontier is None else frontier))
        if "published_overclaim" in faults:
            epoch, _ = self._members_at(mid, specs, membership)
            rows.append((mid, epoch, "scalar", 2 * self.bound + 1))
            injected.append(
                Injected(
                    fault="published_overclaim",
                    description="the publisher publishes the bound's end early in the run",
                    scope_id=self.scope_id,
                    at=iso(mid),
                    epoch=epoch,
                    findings=[Expected("published_overclaim", self.scope_id, at=iso(mid))],
                )
            )
        if "published_regression" in faults:
            at = later
            epoch, _ = self._members_at(at, specs, membership)
            scalars = [r[3] for r in rows if r[2] == "scalar" and r[1] == epoch and r[0] < at]
            _, members = self._members_at(at, specs, membership)
            frontier = self._frontier(at, members, summaries)
            if not scalars or frontier is None:
                raise SimulationError(
                    "published_regression needs an earlier published scalar and a scalar"
                    " frontier when it publishes; raise --events"
                )
            # one coordinate step below both the frontier and everything published so far
            rows.append((at, epoch, "scalar", min(*scalars, frontier) - 2))
            injected.append(
                Injected(
                    fault="published_regression",
                    description="the publisher publishes a frontier below its earlier ones",
                    scope_id=self.scope_id,
                    at=iso(at),
                    epoch=epoch,
                    findings=[Expected("published_regressed", self.scope_id, at=iso(at))],
                )
            )
        return sorted(rows, key=lambda r: r[0])


def _timeline(summaries: dict[str, Summary]) -> tuple[int, int]:
    """When every partition has a claim, and when a typical partition ends (the median:
    a stalled partition does not stretch it)."""
    firsts = []
    for s in summaries.values():
        claimed = np.flatnonzero(s.claim != NONE)
        firsts.append(int(s.time[claimed[0]]) if len(claimed) else s.end_time)
    ends = sorted(s.end_time for s in summaries.values())
    return max(firsts), ends[len(ends) // 2]


def _parse(text: str) -> int:
    stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return (stamp - datetime.fromtimestamp(0, UTC)) // timedelta(microseconds=1)
