"""The frontier engine against the plain reference of §4.12-§4.15."""

from __future__ import annotations

import tempfile
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconcile import Analysis, open_logset
from tests import reference
from tests.conftest import examples
from tests.logsets import write_logset
from tests.strategies import logsets, moment, scope_tables
from tests.test_rules_reference import check as check_rules

# Hypothesis against the reference: minutes; outside the fast tier.
pytestmark = pytest.mark.slow

FRONTIER_FIELDS = (
    "epoch",
    "kind",
    "frontier",
    "frontier_inclusive",
    "limiting_partitions",
    "reasons",
    "members",
)
HISTORY_FIELDS = (
    "at",
    "epoch",
    "kind",
    "frontier",
    "frontier_inclusive",
    "limiting_partitions",
    "trigger_partition_id",
    "trigger_generation",
)


def run(case: dict[str, Any], as_of: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    tables = {k: v for k, v in case["tables"].items() if v}
    with tempfile.TemporaryDirectory() as folder:
        path = write_logset(Path(folder) / "ls", tables, case["coordinate"])
        with open_logset(path) as logset:
            analysis = Analysis(logset, as_of)
            return analysis.frontiers().to_dicts(), analysis.frontier_history().to_dicts()


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=logsets(), cut=st.one_of(st.none(), st.integers(0, 12)))
def test_frontiers_and_history_match_reference(case: dict[str, Any], cut: int | None) -> None:
    check_frontiers(case, cut)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=st.sampled_from(["low", "high"]).flatmap(lambda end: logsets(extreme=end)),
    cut=st.one_of(st.none(), st.integers(0, 12)),
)
def test_frontiers_and_history_match_reference_at_the_extremes(
    case: dict[str, Any], cut: int | None
) -> None:
    """The same with every coordinate at the low or high end of its type (cutovers,
    coverage_from and seals included)."""
    check_frontiers(case, cut)


def check_frontiers(case: dict[str, Any], cut: int | None) -> None:
    as_of = None if cut is None else moment(cut)
    tables = {k: v for k, v in case["tables"].items() if v}
    got_now, got_history = run(case, as_of)
    want_now = reference.frontiers(tables, as_of)
    assert [(r["scope_id"], r["basis"]) for r in got_now] == [
        (r["scope_id"], r["basis"]) for r in want_now
    ]
    for got, want in zip(got_now, want_now, strict=True):
        for name in FRONTIER_FIELDS:
            assert got[name] == want[name], (got["scope_id"], got["basis"], name)
    want_history = reference.frontier_history(tables, as_of)
    key = lambda r: (r["scope_id"], r["basis"], r["at"])  # noqa: E731
    got_rows = sorted(got_history, key=key)
    want_rows = sorted(want_history, key=key)
    assert [key(r) for r in got_rows] == [key(r) for r in want_rows]
    for got, want in zip(got_rows, want_rows, strict=True):
        for name in HISTORY_FIELDS:
            assert got[name] == want[name], (key(got), name)


@st.composite
def snapshot_logsets(draw: st.DrawFn) -> dict[str, Any]:
    """Snapshot evidence, every event visible from the start, receipts only for the
    snapshot's events at their positions: nothing can become unproven again."""
    tables: dict[str, list[dict[str, Any]]] = {
        "snapshot": [],
        "snapshot_bounds": [],
        "receipts": [],
        "checkpoints": [],
    }
    for partition in ["p0", "p1", "p2"][: draw(st.integers(1, 3))]:
        where = {"scope_id": "s", "partition_id": partition}
        for i, event in enumerate("abcdef"[: draw(st.integers(1, 6))]):
            position = i + draw(st.integers(0, 1))
            tables["snapshot"].append(
                {
                    **where,
                    "event_id": event,
                    "position": position,
                    "eligible": draw(st.booleans()),
                    "eligibility_stable": draw(st.booleans()),
                    "visible_at": None,
                }
            )
            for _ in range(draw(st.integers(0, 2))):
                outcome = draw(st.sampled_from(reference_outcomes))
                tables["receipts"].append(
                    {
                        **where,
                        "event_id": event,
                        "position": position,
                        "outcome": outcome,
                        "eligibility_stable": draw(st.booleans())
                        if outcome == "ineligible"
                        else None,
                        "attempt_id": "a",
                        "recorded_at": moment(draw(st.integers(0, 12))),
                    }
                )
        tables["snapshot_bounds"].append(
            {
                **where,
                "complete_through": draw(st.integers(0, 8)),
                "complete_inclusive": draw(st.booleans()),
            }
        )
        for g in range(1, draw(st.integers(1, 4)) + 1):
            tables["checkpoints"].append(
                {
                    **where,
                    "attempt_id": "a",
                    "owner_epoch": 0,
                    "expected_generation": g - 1,
                    "generation": g,
                    "cas_result": "won",
                    "written_at": moment(draw(st.integers(0, 12))),
                    "watermark": draw(st.integers(0, 8)),
                    "watermark_inclusive": True,
                }
            )
    return {"tables": tables, "coordinate": "int64"}


reference_outcomes = ["committed", "dead_lettered", "failed", "ineligible"]


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=snapshot_logsets())
def test_proven_frontier_with_snapshot_evidence_never_decreases(case: dict[str, Any]) -> None:
    _, history = run(case, None)
    proven = [r for r in history if r["basis"] == "proven" and r["kind"] == "scalar"]
    for before, after in pairwise(proven):
        if before["epoch"] != after["epoch"]:
            continue
        assert (before["frontier"], before["frontier_inclusive"]) <= (
            after["frontier"],
            after["frontier_inclusive"],
        ), (before, after)


@st.composite
def membership_changes(draw: st.DrawFn) -> dict[str, Any]:
    """One scope, two or three epochs whose memberships change, with the proofs drawn
    at the edge of their cutover: coverage_from at C.through - 1 to + 2, seals at
    C.through - 1 to + 1, each endpoint inclusive or exclusive (now and then unknown),
    in the change's epoch or a later one. Every partition has a claim and a snapshot
    bound, so a proven epoch gives a scalar: the proofs decide the frontier (the
    general strategy proves a later epoch in about 2% of its cases)."""
    parts = ["p0", "p1", "p2"]
    value = st.integers(0, 6)
    tables = scope_tables(draw, "s", "snapshot_bounds", "checkpoints", "epochs", "members")
    for partition in parts:
        where = {"scope_id": "s", "partition_id": partition}
        tables["snapshot_bounds"].append(
            {**where, "complete_through": draw(value), "complete_inclusive": draw(st.booleans())}
        )
        for g in range(1, draw(st.integers(1, 2)) + 1):
            tables["checkpoints"].append(
                {
                    **where,
                    "attempt_id": "a",
                    "owner_epoch": 0,
                    "expected_generation": g - 1,
                    "generation": g,
                    "cas_result": "won",
                    "written_at": moment(draw(st.integers(0, 10))),
                    "watermark": draw(value),
                    "watermark_inclusive": draw(st.booleans()),
                }
            )
    when = 0
    members = set(draw(st.sets(st.sampled_from(parts), min_size=1)))
    for epoch in range(1, draw(st.integers(2, 3)) + 1):
        when += draw(st.integers(0, 2))  # every epoch in force by most drawn T
        cut = draw(st.integers(1, 4))
        cut_inclusive = draw(st.sampled_from([True, True, False, False, None]))
        tables["epochs"].append(
            {
                "scope_id": "s",
                "epoch": epoch,
                "effective_at": moment(when),
                "cutover": None if epoch == 1 else cut,
                "cutover_inclusive": None if epoch == 1 else cut_inclusive,
            }
        )
        if epoch > 1:
            members = set(draw(st.sets(st.sampled_from(parts), min_size=1)))
        for partition in parts:
            row: dict[str, Any] = {"scope_id": "s", "epoch": epoch, "partition_id": partition}
            if partition in members:
                row["role"] = "member"
                # mostly on the edge: C.through, and C.through + 1 (discrete, inclusive)
                row["coverage_from"] = draw(
                    st.sampled_from([None, cut - 1, cut, cut, cut + 1, cut + 1, cut + 2])
                )
            elif draw(st.integers(0, 3)):
                row["role"] = "retiring"
                # mostly equal to the cutover: the seal must be >= it
                row["sealed_through"] = draw(st.sampled_from([cut - 1, cut, cut, cut, cut + 1]))
                row["sealed_inclusive"] = draw(
                    st.sampled_from([True, False, None, cut_inclusive, cut_inclusive])
                )
            else:
                continue
            tables["members"].append(row)
    return {"tables": tables, "coordinate": "int64"}


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=membership_changes(), cut=st.sampled_from([None, None, None, 3, 6]))
def test_membership_proofs_match_reference(case: dict[str, Any], cut: int | None) -> None:
    """§4.13 at its edges: the frontier and its history (check_frontiers) and rule
    unproven_membership (tests/rules_reference.py) agree with the reference."""
    check_frontiers(case, cut)
    check_rules(case, cut)


@st.composite
def cutovers_and_publications(draw: st.DrawFn) -> dict[str, Any]:
    """One scope whose frontier moves (claims written at 0 to 8, pages' finality
    fetched then), with, in three cases of four, two or three epochs cut over near it
    (cutovers 0 to 5, now and then with an unknown endpoint; proofs mostly at the
    cutover) and published scalars near it, mostly naming the epoch in force. A
    partition without evidence has no proven certificate, so the claimed basis decides
    now and then. cutover_overclaim and published_overclaim fire in about half the
    cases, and not in most (the general strategy has no publications, and fires
    cutover_overclaim on a vector in nearly all of its cases)."""
    parts = ["p0", "p1", "p2"][: draw(st.integers(1, 3))]
    value = st.integers(0, 5)
    times = st.integers(0, 8)
    tables = scope_tables(
        draw, "s", "pages", "snapshot_bounds", "checkpoints", "epochs", "members", "published"
    )
    for partition in parts:
        where = {"scope_id": "s", "partition_id": partition}
        evidence = draw(st.sampled_from(["bound", "bound", "pages", "pages", "none"]))
        if evidence == "bound":
            tables["snapshot_bounds"].append(
                {
                    **where,
                    "complete_through": draw(value),
                    "complete_inclusive": draw(st.booleans()),
                }
            )
        for _ in range(draw(st.integers(1, 2)) if evidence == "pages" else 0):
            fin = draw(value)
            tables["pages"].append(
                {
                    **where,
                    "attempt_id": "a",
                    "page_id": f"g{len(tables['pages'])}",
                    "page_seq": 0,
                    "event_count": 0,
                    "finality_through": fin,
                    "finality_inclusive": draw(st.booleans()),
                    "fetched_at": moment(draw(st.integers(0, 4))),
                }
            )
        for g in range(1, draw(st.integers(1, 2)) + 1):
            tables["checkpoints"].append(
                {
                    **where,
                    "attempt_id": "a",
                    "owner_epoch": 0,
                    "expected_generation": g - 1,
                    "generation": g,
                    "cas_result": "won",
                    "written_at": moment(draw(st.integers(0, 2 if g == 1 else 6))),
                    "watermark": draw(value),
                    "watermark_inclusive": draw(st.sampled_from([True] * 4 + [False] * 3 + [None])),
                }
            )
    starts = []
    if draw(st.integers(0, 3)):
        when = draw(st.integers(1, 2))
        members = set(parts)
        for epoch in range(1, draw(st.integers(2, 3)) + 1):
            # now and then two epochs at one instant (the higher is in force)
            when += draw(st.sampled_from([0, 1, 2, 2, 3, 3, 4])) if epoch > 1 else 0
            starts.append((when, epoch))
            cut = draw(st.sampled_from([0, 0, 1, 1, 2, 2, 3, 4, 5]))
            cut_inclusive = draw(st.sampled_from([True] * 3 + [False] * 3 + [None]))
            tables["epochs"].append(
                {
                    "scope_id": "s",
                    "epoch": epoch,
                    "effective_at": moment(when),
                    "cutover": None if epoch == 1 else cut,
                    "cutover_inclusive": None if epoch == 1 else cut_inclusive,
                }
            )
            if epoch > 1 and draw(st.booleans()):
                members = set(draw(st.sets(st.sampled_from(parts), min_size=1)))
            for partition in parts:
                row: dict[str, Any] = {"scope_id": "s", "epoch": epoch, "partition_id": partition}
                if partition in members:
                    row["role"] = "member"
                    row["coverage_from"] = draw(st.sampled_from([None, cut, cut, cut + 1]))
                else:
                    row["role"] = "retiring"
                    row["sealed_through"] = draw(st.sampled_from([cut - 1, cut, cut]))
                    row["sealed_inclusive"] = draw(st.sampled_from([True, cut_inclusive]))
                tables["members"].append(row)
    for _ in range(draw(st.integers(1, 3))):
        at = draw(times)
        # the epoch in force at ``at`` (none before the first): named in most cases
        in_force = max((e for w, e in starts if w <= at), default=None if starts else 1)
        frontier = draw(st.sampled_from([0, 1, 1, 2, 2, 3, 4, None]))
        tables["published"].append(
            {
                "scope_id": "s",
                "epoch": draw(st.sampled_from([in_force, in_force, in_force, None, 2])),
                "published_at": moment(at),
                "kind": draw(st.sampled_from(["scalar", "scalar", "scalar", "vector"])),
                "frontier": frontier,
                "frontier_inclusive": None
                if frontier is None
                else draw(st.sampled_from([True, True, False, None])),
            }
        )
    return {"tables": tables, "coordinate": "int64"}


@settings(max_examples=examples(35), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cutovers_and_publications(), cut=st.sampled_from([None, None, None, 4, 6]))
def test_cutovers_and_publications_match_reference(case: dict[str, Any], cut: int | None) -> None:
    """cutover_overclaim and published_overclaim (with the other rules) against the
    reference (tests/rules_reference.py), where the frontier they are held against
    moves around the cutovers and the published values."""
    check_rules(case, cut)
