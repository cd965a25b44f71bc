"""One partition's ingestion run, as arrays: pages, fetches, checkpoint writes.

The consumer is correct unless a fault edits its plan. It reads the partition page
by page through one traversal of opaque tokens; an attempt (a worker run, with its
own owner epoch) may crash at one of the points the seeds name, and the next attempt
resumes from the last won checkpoint's resume token:

* ``BEFORE_EFFECT``: the page was fetched, nothing handled; the retry refetches it;
* ``BEFORE_RECORD``: events before the m-th were handled and recorded, the m-th had
  its effect but no completion record; the retry replays the page;
* ``BEFORE_CHECKPOINT``: the page was handled, no checkpoint written; replayed;
* ``BEFORE_NEXT_PAGE``: the checkpoint was written, the next page not requested;
  the retry continues with the next page (no replay);
* ``EVENT_FAILED``: the m-th event failed; the worker stopped; replayed.

Each completed page closes with a compare-and-swap checkpoint whose claim is what
the consumer can prove: every event up to the page's end handled (exclusive when a
tie continues on the next page), no further than the provider's finality seen so
far (or the snapshot's bounds), and held at an ineligible event whose decision is
not yet stable. Times are microseconds since the Unix epoch.

Everything here is vectorized over pages and events; Python loops run only over the
few crashes of a partition.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np
import numpy.typing as npt

from reconcile.simulate.keys import INF, NONE, Bools, Int64s, key, keys
from reconcile.simulate.options import SimOptions
from reconcile.simulate.source import Events

NO_CRASH, BEFORE_EFFECT, BEFORE_RECORD, BEFORE_CHECKPOINT, BEFORE_NEXT_PAGE, EVENT_FAILED = range(6)
REPLAYING = (BEFORE_EFFECT, BEFORE_RECORD, BEFORE_CHECKPOINT, EVENT_FAILED)

MS = 1_000
SECOND = 1_000_000
PER_EVENT = 2 * MS
WRITE = 20 * MS

Strings = npt.NDArray[np.object_]


@dataclass
class Pages:
    start: Int64s  # first event index
    end: Int64s  # one past the last event index (start == end: an empty page)
    finality: Int64s  # key of the provider's finality, NONE without

    @property
    def n(self) -> int:
        return len(self.start)


@dataclass
class Fetches:
    page: Int64s
    attempt: Int64s
    time: Int64s
    overhead: Int64s
    crash: npt.NDArray[np.int8]  # the crash that ended this fetch (NO_CRASH: none)
    handled_end: Int64s  # events [page start, handled_end) have receipts
    failed: Int64s  # event index of a failed receipt, -1 without
    request_token: Strings
    next_token: Strings
    page_id: Strings

    @property
    def n(self) -> int:
        return len(self.page)


@dataclass
class Writes:
    fetch: Int64s
    time: Int64s
    generation: Int64s
    expected: Int64s
    owner_epoch: Int64s
    attempt: Int64s
    won: Bools
    claim: Int64s  # key, NONE: no claim
    exclusive_form: Bools  # state a discrete inclusive claim v as exclusive v + 1
    unknown_endpoint: Bools  # write the claim with a null watermark_inclusive
    resume_token: Strings

    @property
    def n(self) -> int:
        return len(self.fetch)


@dataclass
class ExtraReceipts:
    """Receipts beyond those of the fetches' handled ranges, in chunks of arrays.

    ``position`` is the position the receipt states; -1 means the event's own.
    """

    chunks: list[dict[str, npt.NDArray[np.generic]]] = field(default_factory=list)

    def add_many(
        self,
        event: Int64s,
        outcome: str,
        fetch: Int64s,
        time: Int64s,
        position: Int64s | None = None,
    ) -> None:
        self.chunks.append(
            {
                "event": np.asarray(event, dtype=np.int64),
                "outcome": np.full(len(event), outcome, dtype=object),
                "fetch": np.asarray(fetch, dtype=np.int64),
                "time": np.asarray(time, dtype=np.int64),
                "position": np.full(len(event), -1, dtype=np.int64)
                if position is None
                else np.asarray(position, dtype=np.int64),
            }
        )

    def add(self, event: int, outcome: str, fetch: int, time: int, position: int = -1) -> None:
        self.add_many(
            np.array([event]), outcome, np.array([fetch]), np.array([time]), np.array([position])
        )

    def column(self, name: str) -> npt.NDArray[np.generic]:
        if not self.chunks:
            return np.empty(0, dtype=object if name == "outcome" else np.int64)
        return np.concatenate([chunk[name] for chunk in self.chunks])


@dataclass
class Plan:
    """A partition's run; faults edit it, the renderer turns it into rows."""

    scope_id: str
    partition_id: str
    discrete: bool
    snapshot: bool
    bound: int  # the scope's bound end: the final page certifies through it
    events: Events
    pages: Pages
    fetches: Fetches
    writes: Writes
    extra: ExtraReceipts
    late_events: list[tuple[int, int]] = field(default_factory=list)  # (position, visible_at)
    outcome_override: dict[int, str] = field(default_factory=dict)  # event -> every receipt's
    attempt_names: dict[int, str] = field(default_factory=dict)  # extra attempts' ids
    attempt_epochs: dict[int, int] = field(default_factory=dict)  # extra attempts' epochs

    def attempt_id(self, attempt: int) -> str:
        return self.attempt_names.get(attempt, f"{self.partition_id}-a{attempt + 1}")

    def owner_epochs(self, attempts: Int64s) -> Int64s:
        """An attempt's owner epoch: its number, unless a fault gave it another."""
        epochs = attempts + 1
        for attempt, epoch in self.attempt_epochs.items():
            epochs = np.where(attempts == attempt, epoch, epochs)
        return epochs.astype(np.int64)

    def attempt_ids(self, attempts: Int64s) -> list[str]:
        names = {int(a): self.attempt_id(int(a)) for a in np.unique(attempts)}
        return [names[int(a)] for a in attempts]

    def won_writes(self) -> Int64s:
        return np.flatnonzero(self.writes.won)

    def write_of_page(self, page: int) -> int:
        """The won write that closes a page (the last one, after replays)."""
        closing = np.flatnonzero(self.writes.won & (self.fetches.page[self.writes.fetch] == page))
        return int(closing[-1])

    def last_nonempty_page(self) -> int:
        nonempty = np.flatnonzero(self.pages.end > self.pages.start)
        return int(nonempty[-1])

    @property
    def final_page(self) -> int:
        return self.pages.n - 1

    @property
    def end_time(self) -> int:
        return int(max(self.writes.time.max(), self.fetches.time.max()))


def _pages(
    rng: np.random.Generator, events: Events, bound: int, discrete: bool, options: SimOptions
) -> Pages:
    n, size = events.n, options.page_size
    start = np.arange(0, n, size, dtype=np.int64)
    end = np.minimum(start + size, n).astype(np.int64)
    full = len(start)
    # quiet empty pages between full ones (never first), then the final empty page
    quiet = np.flatnonzero(rng.random(full - 1) < options.empty_page_rate) + 1
    at = start[quiet]  # an empty page sits right before the full page it precedes
    start = np.append(np.insert(start, quiet, at), n)
    end = np.append(np.insert(end, quiet, at), n)
    empty = start == end
    last = np.maximum(end - 1, 0)
    nonempty_fin = keys(events.position[last], np.ones(len(start), bool), discrete)
    following = np.minimum(start, n - 1)
    quiet_fin = keys(events.position[following], np.zeros(len(start), bool), discrete)
    has = np.where(
        empty, rng.random(len(start)) < 0.5, rng.random(len(start)) < options.finality_rate
    )
    finality = np.where(has, np.where(empty, quiet_fin, nonempty_fin), NONE).astype(np.int64)
    finality[-1] = key(bound, True, discrete)
    return Pages(start, end, finality)


def _crashes(
    rng: np.random.Generator, events: Events, pages: Pages, options: SimOptions
) -> tuple[npt.NDArray[np.int8], Int64s]:
    """A crash type per page (none on the final page) and the event it hit."""
    n = pages.n
    crash = np.where(
        rng.random(n) < options.crash_rate, rng.integers(1, 6, size=n), NO_CRASH
    ).astype(np.int8)
    crash[-1] = NO_CRASH
    hit = np.full(n, -1, dtype=np.int64)
    for page in np.flatnonzero((crash == BEFORE_RECORD) | (crash == EVENT_FAILED)):
        lo, hi = int(pages.start[page]), int(pages.end[page])
        eligible = np.flatnonzero(events.eligible[lo:hi] & ~events.dead_letter[lo:hi])
        if len(eligible) == 0:
            crash[page] = BEFORE_EFFECT
            continue
        hit[page] = lo + int(rng.choice(eligible))
    empty = pages.start == pages.end
    crash[empty & np.isin(crash, (BEFORE_RECORD, BEFORE_CHECKPOINT, EVENT_FAILED))] = BEFORE_EFFECT
    return crash, hit


@dataclass
class Tweaks:
    """Edits a fault makes to a partition's run before it is planned (page indices)."""

    crashes: dict[int, int] = field(default_factory=dict)  # page -> forced crash type
    calm: set[int] = field(default_factory=set)  # pages that must not crash
    finality: set[int] = field(default_factory=set)  # pages that must carry finality
    no_finality: set[int] = field(default_factory=set)  # pages that must not
    stall: dict[int, int] = field(default_factory=dict)  # page -> delay before its fetch
    rewind: tuple[int, int] | None = None  # after page a, the retry restarts at page b
    tokens: str | None = None  # "int64" / "timestamp": tokens that read as coordinates
    token_base: int = 0


TweakFactory = Callable[[Pages], Tweaks]


def _tokens(attempt: Int64s, page: Int64s, tweaks: Tweaks) -> Strings:
    if tweaks.tokens == "int64":
        return np.array([str(tweaks.token_base + int(p) + 1) for p in page], dtype=object)
    if tweaks.tokens == "timestamp":
        base = datetime.fromtimestamp(0, UTC)
        return np.array(
            [
                (base + timedelta(microseconds=tweaks.token_base + (int(p) + 1) * SECOND))
                .isoformat()
                .replace("+00:00", "Z")
                for p in page
            ],
            dtype=object,
        )
    return np.array(
        [f"c{int(a) + 1}.{int(p) + 1:x}" for a, p in zip(attempt, page, strict=True)],
        dtype=object,
    )


def _apply_page_tweaks(
    rng: np.random.Generator,
    events: Events,
    pages: Pages,
    crash: npt.NDArray[np.int8],
    hit: Int64s,
    tweaks: Tweaks,
    discrete: bool,
) -> None:
    for page in tweaks.calm:
        crash[page] = NO_CRASH
    for page, kind in tweaks.crashes.items():
        crash[page] = kind
        if kind in (BEFORE_RECORD, EVENT_FAILED):
            lo, hi = int(pages.start[page]), int(pages.end[page])
            hit[page] = lo + int(rng.integers(0, hi - lo))
    for page in tweaks.finality:
        last = int(pages.end[page]) - 1
        pages.finality[page] = key(int(events.position[last]), True, discrete)
    for page in tweaks.no_finality:
        pages.finality[page] = NONE


def _fetch_sequence(
    crash: npt.NDArray[np.int8], n_pages: int, tweaks: Tweaks
) -> tuple[Int64s, npt.NDArray[np.int8], int]:
    """Which page each fetch reads and the crash that ends it; also the index of the
    first fetch of a rewind (-1 without)."""
    replays = np.isin(crash, REPLAYING)
    reps = 1 + replays.astype(np.int64)
    fetch_page = np.repeat(np.arange(n_pages, dtype=np.int64), reps)
    first_fetch = np.cumsum(reps) - reps
    crashed = replays[fetch_page] & (np.arange(len(fetch_page)) == first_fetch[fetch_page])
    fetch_crash = np.where(
        crashed,
        crash[fetch_page],
        np.where(crash[fetch_page] == BEFORE_NEXT_PAGE, BEFORE_NEXT_PAGE, NO_CRASH),
    ).astype(np.int8)
    rewound = -1
    if tweaks.rewind is not None:
        after, back = tweaks.rewind
        at = int(np.flatnonzero(fetch_page == after)[-1]) + 1
        again = np.arange(back, after + 1, dtype=np.int64)
        fetch_page = np.insert(fetch_page, at, again)
        fetch_crash = np.insert(fetch_crash, at, np.zeros(len(again), np.int8))
        rewound = at
    return fetch_page, fetch_crash, rewound


def plan_partition(
    rng: np.random.Generator,
    scope_id: str,
    partition_id: str,
    events: Events,
    *,
    bound: int,
    discrete: bool,
    snapshot: bool,
    start_time: int,
    options: SimOptions,
    tweak: TweakFactory | None = None,
) -> Plan:
    pages = _pages(rng, events, bound, discrete, options)
    crash, hit = _crashes(rng, events, pages, options)
    tweaks = tweak(pages) if tweak else Tweaks()
    _apply_page_tweaks(rng, events, pages, crash, hit, tweaks, discrete)
    fetch_page, fetch_crash, rewound = _fetch_sequence(crash, pages.n, tweaks)

    ends_attempt = (fetch_crash != NO_CRASH).astype(np.int64)
    attempt = np.cumsum(ends_attempt) - ends_attempt
    p_start, p_end = pages.start[fetch_page], pages.end[fetch_page]
    handled_end = p_end.copy()
    before_effect = fetch_crash == BEFORE_EFFECT
    handled_end[before_effect] = p_start[before_effect]
    partial = (fetch_crash == BEFORE_RECORD) | (fetch_crash == EVENT_FAILED)
    handled_end[partial] = hit[fetch_page[partial]]
    failed = np.where(fetch_crash == EVENT_FAILED, hit[fetch_page], -1).astype(np.int64)

    n_fetch = len(fetch_page)
    overhead = rng.integers(30 * MS, 80 * MS, size=n_fetch).astype(np.int64)
    handled = handled_end - p_start
    completes = np.isin(fetch_crash, (NO_CRASH, BEFORE_NEXT_PAGE))
    retry_delay = np.where(
        fetch_crash != NO_CRASH, rng.integers(1 * SECOND, 3 * SECOND, size=n_fetch), 0
    )
    duration = overhead + handled * PER_EVENT + np.where(completes, WRITE, 0) + retry_delay
    for page, delay in tweaks.stall.items():
        first = int(np.flatnonzero(fetch_page == page)[0])
        if first > 0:
            duration[first - 1] += delay
    fetch_time = start_time + np.cumsum(duration) - duration

    # tokens: each fetch's next token is its attempt's; the first fetch of an attempt
    # requests the resume token of the last won write before it
    next_token = _tokens(attempt, fetch_page, tweaks)
    next_token[fetch_page == pages.n - 1] = None
    request_token = np.empty(n_fetch, dtype=object)
    request_token[1:] = next_token[:-1]
    request_token[0] = None
    for f in np.flatnonzero(np.diff(attempt) > 0) + 1:
        done = np.flatnonzero(completes[:f])
        request_token[f] = next_token[done[-1]] if len(done) else None
    if rewound >= 0 and tweaks.rewind is not None:
        back = tweaks.rewind[1]
        earlier = np.flatnonzero(completes[:rewound] & (fetch_page[:rewound] == back - 1))
        request_token[rewound] = next_token[earlier[-1]] if len(earlier) else None
    page_id = np.array([f"{partition_id}-f{i}" for i in range(n_fetch)], dtype=object)

    fetches = Fetches(
        page=fetch_page,
        attempt=attempt.astype(np.int64),
        time=fetch_time.astype(np.int64),
        overhead=overhead,
        crash=fetch_crash,
        handled_end=handled_end.astype(np.int64),
        failed=failed,
        request_token=request_token,
        next_token=next_token,
        page_id=page_id,
    )
    writes = _writes(rng, events, pages, fetches, completes, bound, discrete, snapshot, options)
    extra = ExtraReceipts()
    for f in np.flatnonzero(fetch_crash == EVENT_FAILED):
        event = int(failed[f])
        offset = event - int(p_start[f])
        extra.add(
            event, "failed", int(f), int(fetch_time[f] + overhead[f] + (offset + 1) * PER_EVENT)
        )
    _resolve_unstable(events, pages, fetches, completes, extra)
    return Plan(
        scope_id=scope_id,
        partition_id=partition_id,
        discrete=discrete,
        snapshot=snapshot,
        bound=bound,
        events=events,
        pages=pages,
        fetches=fetches,
        writes=writes,
        extra=extra,
    )


def _unstable_hold(events: Events, pages: Pages, discrete: bool) -> Int64s:
    """Per page: the key of (first unstable ineligible event, exclusive), else INF."""
    indices = np.flatnonzero(~events.eligible & ~events.stable)
    hold = np.full(pages.n, INF, dtype=np.int64)
    if len(indices) == 0:
        return hold
    first = np.searchsorted(indices, pages.start)
    found = first < len(indices)
    event = indices[np.minimum(first, len(indices) - 1)]
    on_page = found & (event < pages.end)
    positions = events.position[event]
    hold[on_page] = keys(positions, np.zeros(len(positions), bool), discrete)[on_page]
    return hold


def _writes(
    rng: np.random.Generator,
    events: Events,
    pages: Pages,
    fetches: Fetches,
    completes: Bools,
    bound: int,
    discrete: bool,
    snapshot: bool,
    options: SimOptions,
) -> Writes:
    n = events.n
    # what the consumer knows complete after each page it completes
    last = np.maximum(pages.end - 1, 0)
    nxt = np.minimum(pages.end, n - 1)
    tie = (pages.end < n) & (events.position[nxt] == events.position[last])
    empty = pages.start == pages.end
    page_cc = np.where(
        empty,
        pages.finality,  # an empty page moves it only through its own finality
        keys(events.position[last], ~tie, discrete),
    )
    if snapshot:
        known_finality = np.full(fetches.n, key(bound, True, discrete), dtype=np.int64)
    else:
        known_finality = np.maximum.accumulate(pages.finality[fetches.page])
    hold = _unstable_hold(events, pages, discrete)

    done = np.flatnonzero(completes)
    cc = np.maximum.accumulate(page_cc[fetches.page[done]])
    claim = np.minimum(np.minimum(cc, hold[fetches.page[done]]), known_finality[done])
    claim[(cc == NONE) | (known_finality[done] == NONE)] = NONE

    handled = fetches.handled_end[done] - pages.start[fetches.page[done]]
    time = fetches.time[done] + fetches.overhead[done] + handled * PER_EVENT + WRITE // 2
    generation = np.arange(1, len(done) + 1, dtype=np.int64)
    attempt = fetches.attempt[done]
    exclusive_form = discrete & (rng.random(len(done)) < 0.3)

    # extra writes that lose: a lost response retried, a stale concurrent retry
    lost_fetch: list[int] = []
    lost_time: list[int] = []
    lost_generation: list[int] = []
    lost_attempt: list[int] = []
    for w in np.flatnonzero(rng.random(len(done)) < options.lost_response_rate):
        lost_fetch.append(int(done[w]))
        lost_time.append(int(time[w]) + 200 * MS)
        lost_generation.append(int(generation[w]))
        lost_attempt.append(int(attempt[w]))
    for f in np.flatnonzero(fetches.crash == BEFORE_CHECKPOINT):
        retry = int(np.searchsorted(done, f))  # the retry's write of the same page
        if retry < len(done):
            lost_fetch.append(int(f))
            lost_time.append(int(time[retry]) + 300 * MS)
            lost_generation.append(int(generation[retry]))
            lost_attempt.append(int(fetches.attempt[f]))
    k = len(lost_fetch)
    lost_gen = np.array(lost_generation, dtype=np.int64)
    return Writes(
        fetch=np.concatenate([done, np.array(lost_fetch, dtype=np.int64)]),
        time=np.concatenate([time, np.array(lost_time, dtype=np.int64)]),
        generation=np.concatenate([generation, lost_gen]),
        expected=np.concatenate([generation - 1, lost_gen - 1]),
        owner_epoch=np.concatenate([attempt + 1, np.array(lost_attempt, dtype=np.int64) + 1]),
        attempt=np.concatenate([attempt, np.array(lost_attempt, dtype=np.int64)]),
        won=np.concatenate([np.ones(len(done), bool), np.zeros(k, bool)]),
        claim=np.concatenate(
            [claim, claim[np.clip(lost_gen - 1, 0, None)] if k else np.empty(0, np.int64)]
        ).astype(np.int64),
        exclusive_form=np.concatenate([exclusive_form, np.zeros(k, bool)]),
        unknown_endpoint=np.zeros(len(done) + k, bool),
        resume_token=np.concatenate(
            [fetches.next_token[done], fetches.next_token[np.array(lost_fetch, dtype=np.int64)]]
        ),
    )


def _resolve_unstable(
    events: Events, pages: Pages, fetches: Fetches, completes: Bools, extra: ExtraReceipts
) -> None:
    """An unstable ineligible event turns out eligible: committed at the next page."""
    unstable = np.flatnonzero(~events.eligible & ~events.stable)
    if len(unstable) == 0:
        return
    done = np.flatnonzero(completes)
    page_of_event = np.searchsorted(pages.end, unstable, side="right")
    # the first page completed after the event's own (the final page always is)
    resolver = done[np.searchsorted(fetches.page[done], page_of_event, side="right")]
    extra.add_many(
        unstable, "committed", resolver, fetches.time[resolver] + fetches.overhead[resolver] // 2
    )
