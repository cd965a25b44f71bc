"""Random small log sets for property-based tests: few rows, many collisions.

Positions, times and tokens are drawn from tiny ranges so that ties, replays,
mutated orderings, token chains, incomplete pages and equal timestamps happen
often. Every drawn log set is valid (docs/contract.md §1).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from hypothesis import strategies as st

T0 = datetime(2026, 1, 1)
OUTCOMES = ["committed", "committed", "dead_lettered", "failed", "ineligible"]
# The coordinates drawn are 0..SPAN (positions 0..8, pages up to 3 wider), moved by
# ``extreme`` to the lowest or highest values of the coordinate type: INT64_MIN
# upwards or up to INT64_MAX; for timestamps, the first or last microseconds that
# TIMESTAMP_NS (the engine's time type) holds.
SPAN = 11
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
TS_LO = datetime(1677, 9, 21, 0, 12, 43, 145225)
TS_HI = datetime(2262, 4, 11, 23, 47, 16, 854775)


def scope_tables(draw: st.DrawFn, scope_id: str, *names: str) -> dict[str, list[dict[str, Any]]]:
    """A log set's tables as lists of rows: one scope of the ``seq`` ordering, its
    domain drawn (discrete or dense), and each of ``names`` empty, to be filled."""
    domain = draw(st.sampled_from(["discrete", "dense"]))
    tables: dict[str, list[dict[str, Any]]] = {
        "scopes": [{"scope_id": scope_id, "ordering": "seq", "domain": domain}]
    }
    tables.update({name: [] for name in names})
    return tables


def moment(seconds: int) -> datetime:
    return T0 + timedelta(seconds=seconds)


@st.composite
def logsets(
    draw: st.DrawFn, *, timestamps: bool | None = None, extreme: str | None = None
) -> dict[str, Any]:
    """A dict with ``tables`` (rows per table) and ``coordinate`` (int64/timestamp).

    ``extreme`` ("low" or "high") puts every coordinate at the low or high end of its
    type (see SPAN), "spread" across its whole range; times stay where they are."""
    ts = draw(st.booleans()) if timestamps is None else timestamps
    spread = extreme == "spread"
    int_base = {None: 0, "low": INT64_MIN, "high": INT64_MAX - SPAN, "spread": 0}[extreme]
    ts_base = {
        None: T0,
        "low": TS_LO,
        "high": TS_HI - timedelta(minutes=SPAN),
        "spread": T0,
    }[extreme]
    # "spread": the coordinates 0..SPAN sent, in order, to values drawn from the whole
    # range of the type, its ends likely among them (for timestamps, the range the
    # engine holds, and in one case of four one value beyond it, at year 1 or 9999 or
    # a microsecond out: such a log set is invalid)
    ladder: list[Any] = []
    if spread:
        if ts:
            values = st.one_of(st.sampled_from([TS_LO, TS_HI]), st.datetimes(TS_LO, TS_HI))
        else:
            ends = [INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX - 1, INT64_MAX]
            values = st.one_of(st.sampled_from(ends), st.integers(INT64_MIN, INT64_MAX))
        ladder = sorted(draw(st.sets(values, min_size=SPAN + 1, max_size=SPAN + 1)))
        if ts and draw(st.integers(0, 3)) == 0:
            # one value beyond what the engine holds, at either end
            tiny = timedelta(microseconds=1)
            if draw(st.booleans()):
                ladder[0] = draw(st.sampled_from([datetime.min, TS_LO - tiny]))
            else:
                ladder[-1] = draw(st.sampled_from([datetime.max, TS_HI + tiny]))

    def coord(value: int) -> Any:
        if spread:
            return ladder[value]
        return ts_base + timedelta(minutes=value) if ts else int_base + value

    times = st.integers(min_value=0, max_value=12)
    positions = st.integers(min_value=0, max_value=8)

    def token_text(value: int) -> str:
        # a token that reads as a coordinate (token_as_watermark): int64 digits, or
        # RFC 3339 with Z
        at = coord(value)
        return at.isoformat() + "Z" if ts else str(at)

    # opaque tokens, and (but in "spread" log sets) one that reads as a coordinate
    tokens = st.one_of(
        st.sampled_from([None, "t1", "t2", "t3"]),
        *(() if spread else (positions.map(token_text),)),
    )
    tables: dict[str, list[dict[str, Any]]] = {
        "checkpoints": [],
        "receipts": [],
        "pages": [],
        "snapshot": [],
        "snapshot_bounds": [],
    }
    scopes = ["s0", "s1"][: draw(st.integers(1, 2))]
    declared = draw(st.booleans())
    if declared:
        tables["scopes"] = [
            {
                "scope_id": s,
                "ordering": "seq",
                "domain": "dense" if ts else draw(st.sampled_from(["discrete", "dense"])),
            }
            for s in scopes
        ]
    page_number = 0
    for scope in scopes:
        for partition in ["p0", "p1", "p2"][: draw(st.integers(1, 3))]:
            where = {"scope_id": scope, "partition_id": partition}
            evidence = draw(st.sampled_from(["receipts", "receipts", "snapshot", "none"]))
            event_ids = ["a", "b", "c", "d", "e"][: draw(st.integers(0, 5))]
            home = {e: draw(positions) for e in event_ids}
            page_ids: list[str] = []
            if evidence != "none":
                for _ in range(draw(st.integers(0, 3))):
                    page_number += 1
                    count = draw(st.integers(0, 3))
                    lo = draw(positions)
                    hi = lo + draw(st.integers(0, 3))
                    fin = draw(st.one_of(st.none(), positions))
                    page_ids.append(f"g{page_number}")
                    tables["pages"].append(
                        {
                            **where,
                            "attempt_id": draw(st.sampled_from(["a1", "a2"])),
                            "page_id": f"g{page_number}",
                            "page_seq": draw(st.integers(0, 3)),
                            "request_token": draw(st.sampled_from([None, "t1", "t2", "t3"])),
                            "next_token": draw(tokens),
                            "event_count": count,
                            "min_position": coord(lo) if count else None,
                            "max_position": coord(hi) if count else None,
                            "finality_through": None if fin is None else coord(fin),
                            "finality_inclusive": None if fin is None else draw(st.booleans()),
                            "fetched_at": moment(draw(times)),
                        }
                    )
                for event in event_ids:
                    for _ in range(draw(st.integers(0, 3))):
                        moved = draw(st.integers(0, 9)) == 0
                        outcome = draw(st.sampled_from(OUTCOMES))
                        tables["receipts"].append(
                            {
                                **where,
                                "event_id": event,
                                "position": coord(draw(positions) if moved else home[event]),
                                "outcome": outcome,
                                "eligibility_stable": draw(st.one_of(st.none(), st.booleans()))
                                if outcome == "ineligible"
                                else None,
                                "attempt_id": draw(st.sampled_from(["a1", "a2"])),
                                "page_id": draw(st.sampled_from([None, *page_ids])),
                                "recorded_at": moment(draw(times)),
                            }
                        )
            if evidence == "snapshot":
                for event in event_ids:
                    if draw(st.integers(0, 4)) == 0:
                        continue  # the snapshot lacks it
                    # now and then a second row of the event, at its position,
                    # visible at another time with another decision: an instant
                    # reads the rows visible then (§4.2)
                    for _ in range(1 if draw(st.integers(0, 5)) else 2):
                        tables["snapshot"].append(
                            {
                                **where,
                                "event_id": event,
                                "position": coord(home[event]),
                                "eligible": draw(st.booleans()),
                                "eligibility_stable": draw(st.booleans()),
                                "visible_at": draw(st.one_of(st.none(), times.map(moment))),
                            }
                        )
                bound = draw(positions)
                tables["snapshot_bounds"].append(
                    {
                        **where,
                        "complete_through": coord(bound),
                        "complete_inclusive": draw(st.booleans()),
                    }
                )
            generation = 0
            for _ in range(draw(st.integers(0, 3))):
                expected = generation if draw(st.integers(0, 4)) else draw(st.integers(0, 2))
                generation = expected + 1
                mark = draw(st.one_of(st.none(), positions))
                tables["checkpoints"].append(
                    {
                        **where,
                        "attempt_id": draw(st.sampled_from(["a1", "a2"])),
                        "owner_epoch": draw(st.integers(0, 2)),
                        "expected_generation": expected,
                        "generation": generation,
                        "cas_result": draw(st.sampled_from(["won", "won", "lost"])),
                        "written_at": moment(draw(times)),
                        "watermark": None if mark is None else coord(mark),
                        "watermark_inclusive": None
                        if mark is None
                        else draw(st.one_of(st.none(), st.booleans())),
                        "ordering": draw(st.sampled_from([None, None, "other"])),
                        "resume_token": draw(tokens),
                        "page_id": draw(st.sampled_from([None, *page_ids])),
                    }
                )
    if draw(st.booleans()):
        # membership epochs for the first scope: members drawn from its partitions
        scope = scopes[0]
        parts = sorted(
            {
                r["partition_id"]
                for name in ("checkpoints", "receipts", "pages", "snapshot", "snapshot_bounds")
                for r in tables[name]
                if r["scope_id"] == scope
            }
            | {"p0", "p9"}
        )
        tables["epochs"], tables["members"] = [], []
        when = 0
        for epoch in range(1, draw(st.integers(1, 3)) + 1):
            when += draw(st.integers(0, 6))
            cut = draw(st.one_of(st.none(), positions)) if epoch > 1 else None
            if epoch > 1 and cut is None:
                cut = draw(positions)
            tables["epochs"].append(
                {
                    "scope_id": scope,
                    "epoch": epoch,
                    "effective_at": moment(when),
                    "cutover": None if cut is None else coord(cut),
                    "cutover_inclusive": None
                    if cut is None
                    else draw(st.one_of(st.none(), st.booleans(), st.booleans())),
                }
            )
            for pid in parts:
                role = draw(st.sampled_from(["member", "member", "retiring", None]))
                if role is None:
                    continue
                row: dict[str, Any] = {
                    "scope_id": scope,
                    "epoch": epoch,
                    "partition_id": pid,
                    "role": role,
                }
                if role == "member":
                    start = draw(st.one_of(st.none(), positions))
                    row["coverage_from"] = None if start is None else coord(start)
                else:
                    seal = draw(st.one_of(st.none(), positions))
                    row["sealed_through"] = None if seal is None else coord(seal)
                    row["sealed_inclusive"] = (
                        None if seal is None else draw(st.one_of(st.none(), st.booleans()))
                    )
                tables["members"].append(row)
        if not tables["members"]:
            tables["members"].append(
                {"scope_id": scope, "epoch": 1, "partition_id": "p0", "role": "member"}
            )
    if not tables["checkpoints"]:
        tables["checkpoints"].append(
            {
                "scope_id": scopes[0],
                "partition_id": "p0",
                "attempt_id": "a1",
                "owner_epoch": 0,
                "expected_generation": 0,
                "generation": 1,
                "cas_result": "lost",
                "written_at": moment(0),
                "watermark": None,
                "watermark_inclusive": None,
            }
        )
    return {"tables": tables, "coordinate": "timestamp" if ts else "int64"}
