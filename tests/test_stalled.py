"""Rule stalled_partition against a pure-Python reference of the rule, over the two
tables it reads (the claimed frontier at every instant, rc_frontier_at, and each
partition's claims as stretches of instants, rc_claim_segments), given directly:
random histories with ties, gaps between a claim's stretches, claims of one value back
to back, instants kept out of the history, and more than one scope."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from reconcile import Analysis, LogSet, open_logset
from reconcile.engine.settings import AuditSettings

DATA = Path(__file__).resolve().parents[1] / "data"
BASE = datetime(2026, 1, 1)
# T: after every instant drawn
AS_OF = BASE + timedelta(days=1)
# the claims' values: a certificate (v, i), i = 1 inclusive
VALUES = [(1, 1), (2, 0), (2, 1), (3, 1)]

CERT = pa.struct([("v", pa.int64()), ("i", pa.int32())])
FRONTIER_AT = pa.schema(
    [
        ("scope_id", pa.string()),
        ("basis", pa.string()),
        ("idx", pa.int64()),
        ("t", pa.timestamp("ns")),
        ("history", pa.bool_()),
        ("epoch", pa.int64()),
        ("kind", pa.string()),
        ("frontier", CERT),
    ]
)
CLAIM_SEGMENTS = pa.schema(
    [
        ("scope_id", pa.string()),
        ("partition_id", pa.string()),
        ("lo", pa.int64()),
        ("hi", pa.int64()),
        ("v", CERT),
        ("unknown", pa.bool_()),
        ("incomparable", pa.bool_()),
    ]
)


@dataclass(frozen=True)
class Instant:
    scope: str
    idx: int
    t: datetime
    history: bool
    frontier: tuple[int, int] | None


@dataclass(frozen=True)
class Segment:
    scope: str
    partition: str
    lo: int
    hi: int
    v: tuple[int, int]
    unknown: bool
    incomparable: bool


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[Instant], list[Segment], float]:
    instants: list[Instant] = []
    segments: list[Segment] = []
    idx = 0
    for scope in draw(st.sampled_from([["s1"], ["s1", "s2"]])):
        count = draw(st.integers(1, 14))
        first = idx
        minute = 0
        frontier: tuple[int, int] | None = None
        for _ in range(count):
            minute += draw(st.integers(1, 4))
            # the frontier mostly keeps its value from one instant to the next
            if draw(st.integers(0, 2)) == 0:
                frontier = draw(st.none() | st.sampled_from(VALUES))
            instants.append(
                Instant(
                    scope,
                    idx,
                    BASE + timedelta(minutes=minute),
                    draw(st.sampled_from([True, True, True, False])),
                    frontier,
                )
            )
            idx += 1
        # each partition's claims: stretches that never overlap, with gaps, over
        # the scope's instants (and past them)
        for partition in ("a", "b", "c"):
            at = first + draw(st.integers(0, 2))
            while at < idx + 1 and draw(st.integers(0, 4)):
                hi = at + draw(st.integers(1, 5))
                segments.append(
                    Segment(
                        scope,
                        partition,
                        at,
                        hi,
                        draw(st.sampled_from(VALUES)),
                        draw(st.sampled_from([False, False, False, True])),
                        draw(st.sampled_from([False, False, False, True])),
                    )
                )
                at = hi + draw(st.integers(0, 2))
    return instants, segments, draw(st.sampled_from([0.0, 1.0, 2.5, 6.0]))


def reference(
    instants: list[Instant], segments: list[Segment], stall_minutes: float
) -> set[tuple[Any, ...]]:
    """Each partition's longest stay (the earliest of equally long ones) among the
    claimed frontier's limiting partitions with one claim, over the history's
    instants, longer than the threshold."""
    found: set[tuple[Any, ...]] = set()
    for scope in sorted({i.scope for i in instants}):
        hist = sorted((i for i in instants if i.scope == scope and i.history), key=lambda i: i.idx)
        for partition in sorted({s.partition for s in segments if s.scope == scope}):
            claims = [
                s
                for s in segments
                if s.scope == scope
                and s.partition == partition
                and not s.unknown
                and not s.incomparable
            ]

            def holds(instant: Instant, claims: list[Segment] = claims) -> tuple[int, int] | None:
                if instant.frontier is None:
                    return None
                for s in claims:
                    if s.lo <= instant.idx < s.hi and s.v == instant.frontier:
                        return s.v
                return None

            stays: list[tuple[datetime, datetime, tuple[int, int]]] = []
            k = 0
            while k < len(hist):
                value = holds(hist[k])
                if value is None:
                    k += 1
                    continue
                end = k
                while end + 1 < len(hist) and holds(hist[end + 1]) == value:
                    end += 1
                until = hist[end + 1].t if end + 1 < len(hist) else AS_OF
                stays.append((hist[k].t, until, value))
                k = end + 1
            long = [s for s in stays if (s[1] - s[0]) > timedelta(minutes=stall_minutes)]
            if long:
                since, until, value = max(long, key=lambda s: (s[1] - s[0], -s[0].timestamp()))
                found.add((scope, partition, since, until, value[0]))
    return found


@functools.cache
def _logset() -> LogSet:
    """A log set to run the rule in (its own tables are never read: both of the
    rule's are given)."""
    return open_logset(DATA / "clean")


def engine_rule(
    instants: list[Instant], segments: list[Segment], stall_minutes: float
) -> set[tuple[Any, ...]]:
    frontier_at = pa.Table.from_pylist(
        [
            {
                "scope_id": i.scope,
                "basis": basis,
                "idx": i.idx,
                "t": i.t,
                "history": i.history,
                "epoch": 1,
                "kind": "scalar",
                "frontier": None if frontier is None else {"v": frontier[0], "i": frontier[1]},
            }
            for i in instants
            # the proven basis, at other values, is not the rule's
            for basis, frontier in (("claimed", i.frontier), ("proven", VALUES[0]))
        ],
        schema=FRONTIER_AT,
    )
    claim_segments = pa.Table.from_pylist(
        [
            {
                "scope_id": s.scope,
                "partition_id": s.partition,
                "lo": s.lo,
                "hi": s.hi,
                "v": {"v": s.v[0], "i": s.v[1]},
                "unknown": s.unknown,
                "incomparable": s.incomparable,
            }
            for s in segments
        ],
        schema=CLAIM_SEGMENTS,
    )
    analysis = Analysis(_logset(), AS_OF, AuditSettings(stall_minutes=stall_minutes))
    try:
        analysis.preset({"rc_frontier_at": frontier_at, "rc_claim_segments": claim_segments})
        rows = analysis.read("rc_finding_stalled_partition").to_dicts()
    finally:
        analysis.close()
    found = set()
    for row in rows:
        evidence = json.loads(row["evidence"])
        found.add(
            (
                row["scope_id"],
                row["partition_id"],
                row["at"],
                datetime.fromisoformat(evidence["until"]).replace(tzinfo=None),
                evidence["claimed_through"],
            )
        )
    return found


# two stays of one partition, equally long: the earlier is the finding
TIE = (
    [
        Instant("s1", n, BASE + timedelta(minutes=n + 1), True, value)
        for n, value in enumerate([(1, 1), (1, 1), (2, 1), (1, 1), (1, 1), (2, 1)])
    ],
    [Segment("s1", "a", 0, 6, (1, 1), False, False)],
    0.0,
)


@pytest.mark.slow  # a property test of 8-12 s: outside the fast tier
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
@example(TIE)
def test_stalled_partition_matches_the_reference(
    case: tuple[list[Instant], list[Segment], float],
) -> None:
    instants, segments, stall_minutes = case
    assert engine_rule(instants, segments, stall_minutes) == reference(
        instants, segments, stall_minutes
    )
