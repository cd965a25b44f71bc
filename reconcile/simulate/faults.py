"""Partition-level faults: each edits one partition's run and says what it breaks.

Every fault lives in a partition of its own, mostly at the partition's last
non-empty page (``L``), so that what it causes stays within reach: the findings it
lists are every finding it causes, including the later writes it drags above the
evidence. Fault partitions keep stable eligibility for the same reason.

A fault has two halves: ``tweak`` chooses pages to force before the run is planned
(a crash here, finality there), and ``apply`` edits the planned run and returns the
:class:`~reconcile.simulate.truth.Injected` record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np

from reconcile.errors import UsageError
from reconcile.simulate.keys import NONE, key
from reconcile.simulate.plan import (
    BEFORE_CHECKPOINT,
    BEFORE_NEXT_PAGE,
    MS,
    NO_CRASH,
    PER_EVENT,
    SECOND,
    Pages,
    Plan,
    Tweaks,
)
from reconcile.simulate.render import event_ids
from reconcile.simulate.truth import Expected, Injected

STALL = 30 * 60 * SECOND


class SimulationError(UsageError):
    """A requested run cannot be simulated as asked (try another seed or size)."""


@dataclass(frozen=True)
class FaultContext:
    scope_id: str
    discrete: bool
    timestamp: bool
    bound: int
    unit: int  # one step of the coordinate (1, or 1 µs)


def iso(micros: int) -> str:
    stamp = datetime.fromtimestamp(0, UTC) + timedelta(microseconds=int(micros))
    return stamp.isoformat().replace("+00:00", "Z")


def event_id(index: int) -> str:
    return str(event_ids(np.array([index]))[0])


def _nonempty(pages: Pages) -> np.ndarray:
    return np.flatnonzero(pages.end > pages.start)


def last_nonempty(pages: Pages) -> int:
    return int(_nonempty(pages)[-1])


def _middle_run(pages: Pages, length: int, low: int = 0) -> int:
    """A page k near the middle with pages k .. k+length-1 all non-empty, k >= low."""
    nonempty = set(_nonempty(pages).tolist())
    last = last_nonempty(pages)
    candidates = [
        k for k in range(low, last - length) if all(p in nonempty for p in range(k, k + length))
    ]
    if not candidates:
        raise SimulationError("the partition is too short for this fault: raise --events")
    return candidates[len(candidates) // 2]


def _write_finding(rule: str, plan: Plan, w: int, **evidence: object) -> Expected:
    return Expected(
        rule=rule,
        scope_id=plan.scope_id,
        partition_id=plan.partition_id,
        attempt_id=plan.attempt_id(int(plan.writes.attempt[w])),
        generation=int(plan.writes.generation[w]),
        evidence=dict(evidence),
    )


def _record(fault: str, description: str, plan: Plan, w: int, findings: list[Expected]) -> Injected:
    return Injected(
        fault=fault,
        description=description,
        scope_id=plan.scope_id,
        partition_id=plan.partition_id,
        attempt_id=plan.attempt_id(int(plan.writes.attempt[w])),
        generation=int(plan.writes.generation[w]),
        page_id=str(plan.fetches.page_id[plan.writes.fetch[w]]),
        at=iso(int(plan.writes.time[w])),
        findings=findings,
    )


def _set_claim(plan: Plan, w: int, claim: int) -> None:
    plan.writes.claim[w] = claim
    plan.writes.exclusive_form[w] = False


def truncate_after(plan: Plan, time: int) -> None:
    """The worker stops: drop every fetch, write and receipt after ``time``."""
    f = plan.fetches
    keep_f = f.time <= time
    for name in (
        "page",
        "attempt",
        "time",
        "overhead",
        "crash",
        "handled_end",
        "failed",
        "request_token",
        "next_token",
        "page_id",
    ):
        setattr(f, name, getattr(f, name)[keep_f])
    w = plan.writes
    keep_w = (w.time <= time) & (w.fetch < len(f.page))
    for name in (
        "fetch",
        "time",
        "generation",
        "expected",
        "owner_epoch",
        "attempt",
        "won",
        "claim",
        "exclusive_form",
        "unknown_endpoint",
        "resume_token",
    ):
        setattr(w, name, getattr(w, name)[keep_w])
    for chunk in plan.extra.chunks:
        keep = chunk["time"].astype(np.int64) <= time
        for name in list(chunk):
            chunk[name] = chunk[name][keep]


def _provider_before(plan: Plan, time: int) -> int:
    fetched = plan.fetches.time <= time
    if not fetched.any():
        return NONE
    return int(plan.pages.finality[plan.fetches.page[fetched]].max())


# --- the faults -------------------------------------------------------------------------


def _token_tweak(pages: Pages, ctx: FaultContext) -> Tweaks:
    if ctx.timestamp:
        return Tweaks(tokens="timestamp", token_base=ctx.bound + 86_400 * SECOND)
    return Tweaks(tokens="int64", token_base=10 * ctx.bound)


def _token_apply(plan: Plan, ctx: FaultContext) -> Injected:
    w = plan.write_of_page(plan.last_nonempty_page())
    token = str(plan.fetches.next_token[plan.writes.fetch[w]])
    if ctx.timestamp:
        parsed = datetime.fromisoformat(token.replace("Z", "+00:00"))
        value = (parsed - datetime.fromtimestamp(0, UTC)) // timedelta(microseconds=1)
    else:
        value = int(token)
    _set_claim(plan, w, key(value, True, ctx.discrete))
    truncate_after(plan, int(plan.writes.time[w]))
    findings = [
        _write_finding("token_as_watermark", plan, w, token=token),
        _write_finding("overclaim", plan, w, cause="token"),
    ]
    return _record(
        "token_watermark",
        f"the write closing the last page claims its next token {token!r} as the watermark;"
        " the worker then stops",
        plan,
        w,
        findings,
    )


def _past_failed_tweak(pages: Pages, ctx: FaultContext) -> Tweaks:
    last = last_nonempty(pages)
    return Tweaks(calm={last}, finality={last})


def _past_failed_apply(plan: Plan, ctx: FaultContext) -> Injected:
    page = plan.last_nonempty_page()
    lo, hi = int(plan.pages.start[page]), int(plan.pages.end[page])
    ok = np.flatnonzero(plan.events.eligible[lo:hi] & ~plan.events.dead_letter[lo:hi])
    if len(ok) == 0:
        raise SimulationError("no eligible event on the last page to fail")
    failed = lo + int(ok[len(ok) // 2])
    plan.outcome_override[failed] = "failed"
    w_last = plan.write_of_page(page)
    w_final = plan.write_of_page(plan.final_page)
    name = event_id(failed)
    findings = [
        Expected("skipped_event", plan.scope_id, plan.partition_id, event_id=name),
        _write_finding("overclaim", plan, w_last, cause="past_blocking_event"),
        _write_finding("overclaim", plan, w_final, cause="past_blocking_event"),
    ]
    injected = _record(
        "past_failed_event",
        f"event {name} fails on the last page; the consumer claims past it, then"
        " through the bound's end",
        plan,
        w_last,
        findings,
    )
    injected.event_id = name
    return injected


def _empty_page_tweak(pages: Pages, ctx: FaultContext) -> Tweaks:
    return Tweaks(no_finality={pages.n - 1})


def _empty_page_apply(plan: Plan, ctx: FaultContext) -> Injected:
    w = plan.write_of_page(plan.final_page)
    _set_claim(plan, w, key(plan.bound, True, ctx.discrete))
    findings = [
        _write_finding("empty_page_advanced", plan, w),
        _write_finding("overclaim", plan, w, cause="empty_page"),
    ]
    return _record(
        "empty_page_no_finality",
        "the final page is empty and carries no finality, yet its checkpoint claims the"
        " bound's end",
        plan,
        w,
        findings,
    )


def _observed_max_tweak(pages: Pages, ctx: FaultContext) -> Tweaks:
    last = last_nonempty(pages)
    return Tweaks(calm={last}, no_finality={last})


def _observed_max_apply(plan: Plan, ctx: FaultContext) -> Injected:
    page = plan.last_nonempty_page()
    w = plan.write_of_page(page)
    highest = int(plan.events.position[int(plan.pages.end[page]) - 1])
    claim = key(highest, True, ctx.discrete)
    if _provider_before(plan, int(plan.writes.time[w])) >= claim:
        raise SimulationError("observed_max: the provider already certified the last page")
    _set_claim(plan, w, claim)
    findings = [_write_finding("overclaim", plan, w, cause="observed_max")]
    return _record(
        "observed_max",
        "the last page has no finality; its checkpoint claims the highest position seen",
        plan,
        w,
        findings,
    )


def _inflated_tweak(pages: Pages, ctx: FaultContext) -> Tweaks:
    last = last_nonempty(pages)
    return Tweaks(calm={last}, finality={last})


def _inflated_apply(plan: Plan, ctx: FaultContext) -> Injected:
    page = plan.last_nonempty_page()
    w = plan.write_of_page(page)
    highest = int(plan.events.position[int(plan.pages.end[page]) - 1])
    _set_claim(plan, w, key(highest + 1, True, ctx.discrete))
    findings = [_write_finding("overclaim", plan, w, cause="unknown")]
    return _record(
        "inflated_watermark",
        "the last page's checkpoint claims one coordinate step past the highest position"
        " and past the provider's finality",
        plan,
        w,
        findings,
    )


def _stale_owner_tweak(pages: Pages, ctx: FaultContext) -> Tweaks:
    k = _middle_run(pages, 5)
    return Tweaks(
        crashes={k: BEFORE_CHECKPOINT},
        calm={k + 1, k + 2, k + 3, k + 4},
        finality={k, k + 1, k + 2},
    )


def _stale_owner_apply(plan: Plan, ctx: FaultContext) -> Injected:
    f, w = plan.fetches, plan.writes
    crashed = int(np.flatnonzero(f.crash == BEFORE_CHECKPOINT)[0])
    page = int(f.page[crashed])
    stale_attempt = int(f.attempt[crashed])
    w_k, w_k2, w_k3 = (plan.write_of_page(page + i) for i in (0, 2, 3))
    g = int(w.generation[w_k])
    # the stale attempt's own lost retry is replaced by a win
    drop = ~w.won & (w.attempt == stale_attempt) & (w.fetch == crashed)
    later = w.generation >= g + 3
    w.generation = np.where(later, w.generation + 1, w.generation)
    w.expected = np.where(later, w.expected + 1, w.expected)
    stale_time = int(w.time[w_k2]) + 5 * MS
    retry_time = int(w.time[w_k3]) - 5 * MS
    claim_k, claim_k2 = int(w.claim[w_k]), int(w.claim[w_k2])
    _append_writes(
        plan,
        fetch=[crashed, int(w.fetch[w_k3])],
        time=[stale_time, retry_time],
        generation=[g + 3, g + 3],
        expected=[g + 2, g + 2],
        owner_epoch=[stale_attempt + 1, int(w.owner_epoch[w_k3])],
        attempt=[stale_attempt, int(w.attempt[w_k3])],
        won=[True, False],
        claim=[claim_k, int(w.claim[w_k3])],
        resume_token=[f.next_token[crashed], w.resume_token[w_k3]],
    )
    _drop_writes(plan, drop)
    stale = int(np.flatnonzero(plan.writes.won & (plan.writes.time == stale_time))[0])
    findings = [_write_finding("stale_owner_won", plan, stale)]
    if NONE not in (claim_k, claim_k2) and claim_k < claim_k2:
        findings.append(_write_finding("watermark_regressed", plan, stale))
    return _record(
        "stale_owner",
        f"attempt {plan.attempt_id(stale_attempt)} wakes after its successor wrote two more"
        " checkpoints and wins a compare-and-swap with its old owner epoch and old claim",
        plan,
        stale,
        findings,
    )


def _append_writes(plan: Plan, **columns: list[object]) -> None:
    w = plan.writes
    n = len(columns["fetch"])
    defaults = {"exclusive_form": [False] * n, "unknown_endpoint": [False] * n}
    for name, values in {**defaults, **columns}.items():
        current = getattr(w, name)
        setattr(w, name, np.concatenate([current, np.array(values, dtype=current.dtype)]))


def _drop_writes(plan: Plan, drop: np.ndarray) -> None:
    w = plan.writes
    keep = np.concatenate([~drop, np.ones(w.n - len(drop), bool)])
    for name in (
        "fetch",
        "time",
        "generation",
        "expected",
        "owner_epoch",
        "attempt",
        "won",
        "claim",
        "exclusive_form",
        "unknown_endpoint",
        "resume_token",
    ):
        setattr(w, name, getattr(w, name)[keep])


DUPLICATE_ATTEMPT = 900


def _lost_update_tweak(pages: Pages, ctx: FaultContext) -> Tweaks:
    k = _middle_run(pages, 2)
    return Tweaks(calm={k, k + 1})


def _lost_update_apply(plan: Plan, ctx: FaultContext) -> Injected:
    f, w = plan.fetches, plan.writes
    page = _page_of_calm_middle(plan)
    w_k = plan.write_of_page(page)
    fk = int(w.fetch[w_k])
    dup = DUPLICATE_ATTEMPT
    plan.attempt_names[dup] = f"{plan.partition_id}-x1"
    plan.attempt_epochs[dup] = int(w.owner_epoch[w_k])
    token = f"x1.{page + 1:x}"
    start = int(f.time[fk]) + 5 * MS
    for name, value in (
        ("page", page),
        ("attempt", dup),
        ("time", start),
        ("overhead", int(f.overhead[fk])),
        ("crash", NO_CRASH),
        ("handled_end", int(plan.pages.end[page])),
        ("failed", -1),
        ("request_token", f.request_token[fk]),
        ("next_token", token),
        ("page_id", f"{plan.partition_id}-x{page}"),
    ):
        current = getattr(f, name)
        setattr(f, name, np.append(current, np.array([value], dtype=current.dtype)))
    g = int(w.generation[w_k])
    _append_writes(
        plan,
        fetch=[f.n - 1],
        time=[int(w.time[w_k]) + 15 * MS],
        generation=[g],
        expected=[g - 1],
        owner_epoch=[int(w.owner_epoch[w_k])],
        attempt=[dup],
        won=[True],
        claim=[int(w.claim[w_k])],
        resume_token=[token],
    )
    second = plan.writes.n - 1
    findings = [_write_finding("cas_chain_broken", plan, second)]
    return _record(
        "lost_update",
        f"a duplicate worker handles page {page} again and wins the same compare-and-swap"
        f" (expected generation {g - 1}) after the first winner",
        plan,
        second,
        findings,
    )


def _page_of_calm_middle(plan: Plan) -> int:
    return _middle_run(plan.pages, 2)


def _mixed_tweak(pages: Pages, ctx: FaultContext) -> Tweaks:
    last = last_nonempty(pages)
    crash_at = max(0, last - 3)
    return Tweaks(crashes={crash_at: BEFORE_NEXT_PAGE}, calm=set(range(crash_at + 1, last + 1)))


def _mixed_apply(plan: Plan, ctx: FaultContext) -> Injected:
    f, w = plan.fetches, plan.writes
    page = plan.last_nonempty_page()
    w_l = plan.write_of_page(page)
    earlier = int(np.flatnonzero(f.crash == BEFORE_NEXT_PAGE)[-1])
    if int(f.attempt[earlier]) == int(w.attempt[w_l]):
        raise SimulationError("mixed_resume_token: no earlier attempt to borrow a token from")
    w.resume_token[w_l] = f.next_token[earlier]
    findings = [
        _write_finding("mixed_checkpoint", plan, w_l, resume_token=str(f.next_token[earlier]))
    ]
    return _record(
        "mixed_resume_token",
        f"the last page's checkpoint keeps the resume token of attempt"
        f" {plan.attempt_id(int(f.attempt[earlier]))}",
        plan,
        w_l,
        findings,
    )


def _regression_tweak(pages: Pages, ctx: FaultContext) -> Tweaks:
    k = _middle_run(pages, 4, low=2) + 1
    return Tweaks(
        crashes={k: BEFORE_NEXT_PAGE},
        calm={k - 1, k + 1, k + 2},
        finality={k - 1, k},
        rewind=(k, k - 1),
    )


def _regression_apply(plan: Plan, ctx: FaultContext) -> Injected:
    f, w = plan.fetches, plan.writes
    crash = int(np.flatnonzero(f.crash == BEFORE_NEXT_PAGE)[0])
    page = int(f.page[crash])
    won = np.flatnonzero(w.won)
    by_page: dict[int, list[int]] = {int(f.page[w.fetch[i]]): [] for i in won}
    for i in won:
        by_page[int(f.page[w.fetch[i]])].append(int(i))
    first_prev, again_prev = by_page[page - 1][0], by_page[page - 1][-1]
    first_k, again_k = by_page[page][0], by_page[page][-1]
    w.claim[again_prev] = w.claim[first_prev]
    w.claim[again_k] = w.claim[first_k]
    findings = []
    if int(w.claim[again_prev]) < int(w.claim[first_k]):
        findings.append(_write_finding("watermark_regressed", plan, again_prev))
    return _record(
        "watermark_regression",
        f"after a crash past page {page}, the retry resumes from the anchor before page"
        f" {page - 1} and checkpoints that page's claim again",
        plan,
        again_prev,
        findings,
    )


def _unknown_tweak(pages: Pages, ctx: FaultContext) -> Tweaks:
    return Tweaks(finality={last_nonempty(pages)})


def _unknown_apply(plan: Plan, ctx: FaultContext) -> Injected:
    w = plan.write_of_page(plan.last_nonempty_page())
    plan.writes.unknown_endpoint[w] = True
    # the claim stated as its inclusive value: an unknown endpoint reads as inclusive
    # (§4.11), and v + 1 of the exclusive form so read claims one event more, an
    # overclaim the truth would not list
    plan.writes.exclusive_form[w] = False
    return _record(
        "unknown_endpoint",
        "the last page's checkpoint is written without watermark_inclusive",
        plan,
        w,
        [_write_finding("unknown_endpoint", plan, w)],
    )


def _late_apply(plan: Plan, ctx: FaultContext) -> Injected:
    positions = plan.events.position
    i = plan.events.n // 2
    gap = int(positions[i + 1] - positions[i])
    position = int(positions[i]) + (gap // 2 if gap >= 2 else 0)
    visible = plan.end_time + SECOND
    plan.late_events.append((position, visible))
    name = f"late{len(plan.late_events) - 1}"
    findings = [
        Expected("late_insert", plan.scope_id, plan.partition_id, event_id=name),
        Expected("skipped_event", plan.scope_id, plan.partition_id, event_id=name),
    ]
    return Injected(
        fault="late_insert",
        description=f"event {name} appears in the snapshot behind the final claim, after it",
        scope_id=plan.scope_id,
        partition_id=plan.partition_id,
        event_id=name,
        at=iso(visible),
        findings=findings,
    )


def _mutation_tweak(pages: Pages, ctx: FaultContext) -> Tweaks:
    last = last_nonempty(pages)
    return Tweaks(calm={last}, finality={last})


def _mutation_apply(plan: Plan, ctx: FaultContext) -> Injected:
    ev = plan.events
    page = plan.last_nonempty_page()
    lo = int(plan.pages.start[page])
    candidates = np.flatnonzero(ev.eligible[:lo] & ~ev.dead_letter[:lo])
    event = int(candidates[len(candidates) // 2])
    w_l = plan.write_of_page(page)
    w_final = plan.write_of_page(plan.final_page)
    fetch = int(plan.writes.fetch[w_l])
    moved = (int(ev.position[lo]) + int(ev.position[int(plan.pages.end[page]) - 1])) // 2
    time = int(plan.fetches.time[fetch] + plan.fetches.overhead[fetch]) + PER_EVENT // 2
    plan.extra.add(event, "committed", fetch, time, position=moved)
    name = event_id(event)
    findings = [
        Expected("ordering_mutated", plan.scope_id, plan.partition_id, event_id=name),
        _write_finding("overclaim", plan, w_l, cause="past_blocking_event"),
        _write_finding("overclaim", plan, w_final, cause="past_blocking_event"),
    ]
    injected = _record(
        "ordering_mutation",
        f"event {name} is delivered again on the last page at another position",
        plan,
        w_l,
        findings,
    )
    injected.event_id = name
    injected.at = iso(time)
    return injected


def _stall_tweak(pages: Pages, ctx: FaultContext) -> Tweaks:
    return Tweaks(stall={last_nonempty(pages): STALL})


def _stall_apply(plan: Plan, ctx: FaultContext) -> Injected:
    page = plan.last_nonempty_page()
    first = int(np.flatnonzero(plan.fetches.page == page)[0])
    start = int(plan.fetches.time[first]) - STALL
    return Injected(
        fault="stalled_partition",
        description="the worker hangs for thirty minutes before its last page",
        scope_id=plan.scope_id,
        partition_id=plan.partition_id,
        at=iso(start),
        findings=[Expected("stalled_partition", plan.scope_id, plan.partition_id)],
    )


@dataclass(frozen=True)
class PartitionFault:
    tweak: Callable[[Pages, FaultContext], Tweaks] | None
    apply: Callable[[Plan, FaultContext], Injected]
    snapshot: bool = False  # the fault needs snapshot evidence in its partition


PARTITION_FAULTS: dict[str, PartitionFault] = {
    "token_watermark": PartitionFault(_token_tweak, _token_apply),
    "past_failed_event": PartitionFault(_past_failed_tweak, _past_failed_apply),
    "empty_page_no_finality": PartitionFault(_empty_page_tweak, _empty_page_apply),
    "observed_max": PartitionFault(_observed_max_tweak, _observed_max_apply),
    "inflated_watermark": PartitionFault(_inflated_tweak, _inflated_apply),
    "stale_owner": PartitionFault(_stale_owner_tweak, _stale_owner_apply),
    "lost_update": PartitionFault(_lost_update_tweak, _lost_update_apply),
    "mixed_resume_token": PartitionFault(_mixed_tweak, _mixed_apply),
    "watermark_regression": PartitionFault(_regression_tweak, _regression_apply),
    "unknown_endpoint": PartitionFault(_unknown_tweak, _unknown_apply),
    "late_insert": PartitionFault(None, _late_apply, snapshot=True),
    "ordering_mutation": PartitionFault(_mutation_tweak, _mutation_apply),
    "stalled_partition": PartitionFault(_stall_tweak, _stall_apply),
}
