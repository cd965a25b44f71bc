"""Turning a partition's plan into contract rows (Arrow tables), vectorized."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from reconcile.simulate.keys import NONE, Int64s
from reconcile.simulate.plan import PER_EVENT, Plan

TIME = pa.timestamp("us", tz="UTC")
OUTCOMES = ["committed", "dead_lettered", "failed", "ineligible"]


def coordinate_type(timestamp: bool) -> pa.DataType:
    return TIME if timestamp else pa.int64()


def _ranges(starts: Int64s, counts: Int64s) -> tuple[Int64s, Int64s]:
    """For runs (start, count): each element's value and its offset in its run."""
    total = int(counts.sum())
    run = np.repeat(np.arange(len(counts)), counts)
    offset = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    return run, starts[run] + offset


def event_ids(indices: Int64s) -> pa.Array:
    text = pc.cast(pa.array(indices, pa.int64()), pa.string())
    return pc.binary_join_element_wise("e", pc.utf8_lpad(text, 7, "0"), "")


def _coordinates(values: Int64s, valid: np.ndarray | None, timestamp: bool) -> pa.Array:
    array = pa.array(values, pa.int64(), mask=None if valid is None else ~valid)
    return array.cast(TIME) if timestamp else array


def _times(values: Int64s) -> pa.Array:
    return pa.array(values, pa.int64()).cast(TIME)


def _strings(values: np.ndarray) -> pa.Array:
    return pa.array(values.tolist(), pa.string())


def _repeat(value: str, n: int) -> pa.Array:
    return pa.repeat(pa.scalar(value, pa.string()), n)


def _attempt_names(plan: Plan, attempts: Int64s) -> pa.Array:
    """Attempt ids for many rows: each distinct name built once, then taken."""
    distinct, index = np.unique(attempts, return_inverse=True)
    names = pa.array([plan.attempt_id(int(a)) for a in distinct], pa.string())
    return names.take(pa.array(index.astype(np.int64)))


def render_receipts(plan: Plan, timestamp: bool) -> pa.Table:
    f = plan.fetches
    ev = plan.events
    starts = plan.pages.start[f.page]
    counts = f.handled_end - starts
    fetch, event = _ranges(starts, counts)
    offset = event - starts[fetch]
    time = f.time[fetch] + f.overhead[fetch] + (offset + 1) * PER_EVENT
    outcome = np.where(
        ev.eligible[event],
        np.where(ev.dead_letter[event], OUTCOMES.index("dead_lettered"), 0),
        OUTCOMES.index("ineligible"),
    ).astype(np.int64)
    stable = ev.stable[event]
    stated = ~ev.eligible[event]  # eligibility_stable is stated for ineligible receipts
    position = ev.position[event]

    extra_event = plan.extra.column("event").astype(np.int64)
    extra_fetch = plan.extra.column("fetch").astype(np.int64)
    extra_position = plan.extra.column("position").astype(np.int64)
    event = np.concatenate([event, extra_event])
    fetch = np.concatenate([fetch, extra_fetch])
    time = np.concatenate([time, plan.extra.column("time").astype(np.int64)])
    extra_outcome = np.array(
        [OUTCOMES.index(o) for o in plan.extra.column("outcome")], dtype=np.int64
    )
    outcome = np.concatenate([outcome, extra_outcome])
    stable = np.concatenate([stable, np.zeros(len(extra_event), bool)])
    stated = np.concatenate([stated, np.zeros(len(extra_event), bool)])
    position = np.concatenate(
        [position, np.where(extra_position >= 0, extra_position, ev.position[extra_event])]
    )
    for index, forced in plan.outcome_override.items():
        hit = event == index
        outcome[hit] = OUTCOMES.index(forced)
        stated[hit] = False

    attempt = f.attempt[fetch]
    n = len(event)
    page_ids = _strings(f.page_id)
    return pa.table(
        {
            "scope_id": _repeat(plan.scope_id, n),
            "partition_id": _repeat(plan.partition_id, n),
            "event_id": event_ids(event),
            "position": _coordinates(position, None, timestamp),
            "outcome": pa.array(OUTCOMES, pa.string()).take(pa.array(outcome)),
            "eligibility_stable": pa.array(stable, pa.bool_(), mask=~stated),
            "attempt_id": _attempt_names(plan, attempt),
            "owner_epoch": pa.array(plan.owner_epochs(attempt), pa.int64()),
            "page_id": page_ids.take(pa.array(fetch)),
            "recorded_at": _times(time),
        }
    )


def _decode(claim: Int64s) -> tuple[Int64s, np.ndarray]:
    value = claim >> 1
    inclusive = (claim & 1).astype(bool)
    return value, inclusive


def render_checkpoints(plan: Plan, timestamp: bool) -> pa.Table:
    w = plan.writes
    has = w.claim != NONE
    value, inclusive = _decode(w.claim)
    shift = w.exclusive_form & inclusive & has
    value = np.where(shift, value + 1, value)
    inclusive = np.where(shift, False, inclusive)
    incl_valid = has & ~w.unknown_endpoint
    # the last event of the committed prefix: the last event at or under the claim
    event_keys = 2 * plan.events.position + 1
    last = np.searchsorted(event_keys, w.claim, side="right") - 1
    ids = event_ids(np.maximum(last, 0))
    ids = pc.if_else(pa.array(has & (last >= 0)), ids, pa.nulls(len(ids), pa.string()))
    n = w.n
    return pa.table(
        {
            "scope_id": pa.array([plan.scope_id] * n, pa.string()),
            "partition_id": pa.array([plan.partition_id] * n, pa.string()),
            "attempt_id": pa.array(plan.attempt_ids(w.attempt), pa.string()),
            "owner_epoch": pa.array(w.owner_epoch, pa.int64()),
            "expected_generation": pa.array(w.expected, pa.int64()),
            "generation": pa.array(w.generation, pa.int64()),
            "cas_result": pa.array(np.where(w.won, "won", "lost").tolist(), pa.string()),
            "written_at": _times(w.time),
            "resume_token": _strings(w.resume_token),
            "page_id": _strings(plan.fetches.page_id[w.fetch]),
            "watermark": _coordinates(value, has, timestamp),
            "watermark_inclusive": pa.array(inclusive, pa.bool_(), mask=~incl_valid),
            "watermark_event_id": ids,
            "ordering": pa.nulls(n, pa.string()),
        }
    )


def render_pages(plan: Plan, timestamp: bool) -> pa.Table:
    f = plan.fetches
    pages = plan.pages
    start, end = pages.start[f.page], pages.end[f.page]
    count = end - start
    nonempty = count > 0
    positions = plan.events.position
    lo = positions[np.minimum(start, plan.events.n - 1)]
    hi = positions[np.maximum(end - 1, 0)]
    fin = pages.finality[f.page]
    has_fin = fin != NONE
    fin_value, fin_incl = _decode(fin)
    first_of_attempt = np.searchsorted(f.attempt, f.attempt, side="left")
    seq = np.arange(f.n) - first_of_attempt
    n = f.n
    return pa.table(
        {
            "scope_id": pa.array([plan.scope_id] * n, pa.string()),
            "partition_id": pa.array([plan.partition_id] * n, pa.string()),
            "attempt_id": pa.array(plan.attempt_ids(f.attempt), pa.string()),
            "page_id": _strings(f.page_id),
            "page_seq": pa.array(seq, pa.int64()),
            "request_token": _strings(f.request_token),
            "next_token": _strings(f.next_token),
            "event_count": pa.array(count, pa.int64()),
            "min_position": _coordinates(lo, nonempty, timestamp),
            "max_position": _coordinates(hi, nonempty, timestamp),
            "finality_through": _coordinates(fin_value, has_fin, timestamp),
            "finality_inclusive": pa.array(fin_incl, pa.bool_(), mask=~has_fin),
            "fetched_at": _times(f.time),
        }
    )


def render_snapshot(plan: Plan, timestamp: bool) -> tuple[pa.Table, pa.Table]:
    ev = plan.events
    n = ev.n
    late = plan.late_events
    position = np.concatenate([ev.position, np.array([p for p, _ in late], dtype=np.int64)])
    ids = pa.concat_arrays(
        [event_ids(np.arange(n)), pa.array([f"late{i}" for i in range(len(late))], pa.string())]
    )
    visible = np.concatenate([np.zeros(n, np.int64), np.array([t for _, t in late], np.int64)])
    visible_valid = np.concatenate([np.zeros(n, bool), np.ones(len(late), bool)])
    total = n + len(late)
    snapshot = pa.table(
        {
            "scope_id": pa.array([plan.scope_id] * total, pa.string()),
            "partition_id": pa.array([plan.partition_id] * total, pa.string()),
            "event_id": ids,
            "position": _coordinates(position, None, timestamp),
            "eligible": pa.array(np.concatenate([ev.eligible, np.ones(len(late), bool)])),
            "eligibility_stable": pa.array(
                np.concatenate([ev.stable | ev.eligible, np.ones(len(late), bool)])
            ),
            "visible_at": pa.array(visible, pa.int64(), mask=~visible_valid).cast(TIME),
        }
    )
    bounds = pa.table(
        {
            "scope_id": pa.array([plan.scope_id], pa.string()),
            "partition_id": pa.array([plan.partition_id], pa.string()),
            "complete_through": _coordinates(np.array([plan.bound], np.int64), None, timestamp),
            "complete_inclusive": pa.array([True]),
        }
    )
    return snapshot, bounds


Renderer = Callable[[Plan, bool], pa.Table]
