"""Coordinates at the int64 extremes, and timestamps at the ends of TIMESTAMP_NS
(issue 18 §3, issue 19 §3): every int64 is a valid coordinate, so the audit computes
with them rather than crashing or rejecting them.

The one certificate without an inclusive form is ``(INT64_MIN, exclusive)``: on a
discrete domain an exclusive ``v`` is the inclusive ``v - 1`` (docs/contract.md §2), and
INT64_MIN has no predecessor among the coordinates. It certifies nothing (no value
lies below it), stays exclusive, sorts below every other certificate, and outputs
write it as through INT64_MIN, inclusive false. ``INT64_MAX`` inclusive certifies
every coordinate; a new member's coverage never leaves a gap above it.

Every expected value below is derived by hand from the contract.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest

from reconcile import open_logset
from reconcile.audit import AuditResult, audit
from reconcile.cli import main
from reconcile.sql import load
from tests import reference
from tests.certs import INFINITE, Certificate, Domain, compare, coverage_leaves_no_gap
from tests.certs import normalize as certs_normalize
from tests.conftest import fast_tier
from tests.logsets import at, checkpoint, page, receipt, write_logset

MIN = -(2**63)
MAX = 2**63 - 1
# the first and last microseconds TIMESTAMP_NS holds (the engine's time type)
TS_LO = datetime(1677, 9, 21, 0, 12, 43, 145225, tzinfo=UTC)
TS_HI = datetime(2262, 4, 11, 23, 47, 16, 854775, tzinfo=UTC)

Tables = dict[str, Any]


def run_audit(tmp_path: Path, tables: Tables, coordinate: str = "int64") -> AuditResult:
    path = write_logset(tmp_path / "ls", tables, coordinate)
    with open_logset(path) as logset:
        return audit(logset)


def mark(result: AuditResult, partition: str = "p0") -> dict[str, Any]:
    (row,) = [r for r in result.watermarks.to_dicts() if r["partition_id"] == partition]
    return row


def cert(row: dict[str, Any], name: str) -> tuple[Any, Any]:
    return (row[f"{name}_through"], row[f"{name}_inclusive"])


def front(result: AuditResult, basis: str) -> tuple[str, Any, Any, list[str]]:
    (row,) = [r for r in result.frontiers.to_dicts() if r["basis"] == basis]
    return (row["kind"], row["frontier"], row["frontier_inclusive"], row["limiting_partitions"])


def keys(result: AuditResult, *fields: str) -> set[tuple[Any, ...]]:
    return {(r["rule"], *(r[f] for f in fields)) for r in result.findings.to_dicts()}


def rules(result: AuditResult) -> set[str]:
    return set(result.findings["rule"].to_list())


def partition_with_event_at_5(finality: tuple[int, bool] = (5, True)) -> Tables:
    """p0: one page [5, 5] whose finality is ``finality``; its event committed."""
    return {
        "pages": [
            page(
                "g1",
                0,
                1,
                5,
                5,
                finality_through=finality[0],
                finality_inclusive=finality[1],
                fetched=1,
            )
        ],
        "receipts": [receipt("e5", 5, page_id="g1", recorded=1)],
        "checkpoints": [checkpoint("p0", 1, 5, written=2, page_id="g1")],
    }


# --- the normalization itself, without Hypothesis ---------------------------------------


@pytest.fixture(scope="module")
def macros() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(load("macros_int64"))
    con.execute(load("macros"))
    return con


@pytest.mark.parametrize(
    ("value", "inclusive", "discrete", "expected"),
    [
        (MIN, False, True, (MIN, 0)),  # no predecessor: stays exclusive
        (MIN, True, True, (MIN, 1)),
        (MIN + 1, False, True, (MIN, 1)),
        (MAX, False, True, (MAX - 1, 1)),
        (MAX, True, True, (MAX, 1)),
        (MIN, None, True, (MIN, 1)),  # unknown endpoint: read inclusive
        (MIN, False, False, (MIN, 0)),  # dense: never restated
        (MAX, False, False, (MAX, 0)),
    ],
)
def test_rc_cert_at_the_extremes(
    macros: duckdb.DuckDBPyConnection,
    value: int,
    inclusive: bool | None,
    discrete: bool,
    expected: tuple[int, int],
) -> None:
    row = macros.execute(
        "SELECT c.v, c.i FROM (SELECT rc_cert(CAST($v AS BIGINT), $incl, $discrete) AS c)",
        {"v": value, "incl": inclusive, "discrete": discrete},
    ).fetchone()
    assert row == expected


def test_rc_cert_order_at_the_bottom(macros: duckdb.DuckDBPyConnection) -> None:
    """(MIN, exclusive) < (MIN, inclusive) = (MIN + 1, exclusive) < ... < (MAX, inclusive)."""
    row = macros.execute(
        """
        SELECT rc_cert(m, false, true) < rc_cert(m, true, true),
               rc_cert(m, true, true) = rc_cert(m + 1, false, true),
               rc_cert(x, false, true) < rc_cert(x, true, true),
               rc_lower(rc_cert(m, false, true), rc_cert(x, true, true)) = rc_cert(m, false, true)
        FROM (SELECT CAST($min AS BIGINT) AS m, CAST($max AS BIGINT) AS x)
        """,
        {"min": MIN, "max": MAX},
    ).fetchone()
    assert row == (True, True, True, True)


def test_rc_pred_and_rc_succ_never_overflow(macros: duckdb.DuckDBPyConnection) -> None:
    row = macros.execute(
        "SELECT rc_pred(m), rc_pred(m + 1), rc_succ(x) = CAST($max AS HUGEINT) + 1 "
        "FROM (SELECT CAST($min AS BIGINT) AS m, CAST($max AS BIGINT) AS x)",
        {"min": MIN, "max": MAX},
    ).fetchone()
    assert row == (MIN, MIN, True)


def test_python_normalizations_at_the_extremes() -> None:
    discrete = Domain.DISCRETE
    assert certs_normalize(Certificate(MIN, False), discrete) == Certificate(MIN, False)
    assert certs_normalize(Certificate(MIN + 1, False), discrete) == Certificate(MIN, True)
    assert certs_normalize(Certificate(MAX, False), discrete) == Certificate(MAX - 1, True)
    assert compare(Certificate(MIN, False), Certificate(MIN, True), discrete) == -1
    assert compare(Certificate(MAX, True), INFINITE, discrete) == -1
    # coverage after the cutover: from MIN only when the cutover certifies nothing
    assert coverage_leaves_no_gap(MIN, Certificate(MIN, False), discrete)
    assert not coverage_leaves_no_gap(MIN + 1, Certificate(MIN, False), discrete)
    assert coverage_leaves_no_gap(MIN + 1, Certificate(MIN, True), discrete)
    assert coverage_leaves_no_gap(MAX, Certificate(MAX, True), discrete)
    assert coverage_leaves_no_gap(MAX, Certificate(MAX, False), discrete)
    assert reference.normalize((MIN, False), True) == (MIN, False)
    assert reference.normalize((MAX, False), True) == (MAX - 1, True)


# --- claims (checkpoint watermark) --------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("claim", "claimed", "status"),
    [
        ((MIN, False), (MIN, False), "ok"),  # claims nothing
        ((MIN, True), (MIN, True), "ok"),
        ((MAX, False), (MAX - 1, True), "overclaim"),
        ((MAX, True), (MAX, True), "overclaim"),
    ],
)
def test_claim_at_the_extremes(
    tmp_path: Path, claim: tuple[int, bool], claimed: tuple[int, bool], status: str
) -> None:
    tables = partition_with_event_at_5()
    tables["checkpoints"] = [checkpoint("p0", 1, claim[0], inclusive=claim[1], written=2)]
    result = run_audit(tmp_path, tables)
    row = mark(result)
    assert cert(row, "consumer") == (None, None)
    assert cert(row, "proven") == (5, True)
    assert cert(row, "claimed") == claimed
    assert row["claim_status"] == status
    assert front(result, "claimed") == ("scalar", *claimed, ["p0"])
    assert front(result, "proven") == ("scalar", 5, True, ["p0"])
    assert rules(result) == ({"overclaim"} if status == "overclaim" else set())


def test_claims_at_the_bottom_regress_and_at_the_top_do_not(tmp_path: Path) -> None:
    """(MIN, inclusive) then (MIN, exclusive) is a regression; (MAX, exclusive) then
    (MAX, inclusive) is not."""
    tables = {
        "checkpoints": [
            checkpoint("lo", 1, MIN, inclusive=True, written=1),
            checkpoint("lo", 2, MIN, inclusive=False, written=2),
            checkpoint("hi", 1, MAX, inclusive=False, written=1),
            checkpoint("hi", 2, MAX, inclusive=True, written=2),
        ]
    }
    result = run_audit(tmp_path, tables)
    assert keys(result, "partition_id", "generation") == {("watermark_regressed", "lo", 2)}
    assert cert(mark(result, "lo"), "claimed") == (MIN, False)
    assert cert(mark(result, "hi"), "claimed") == (MAX, True)
    assert front(result, "claimed") == ("scalar", MIN, False, ["lo"])


# --- positions (receipts, pages' min/max_position) --------------------------------------


@pytest.mark.parametrize(
    ("claim", "status", "findings"),
    [
        ((MIN, False), "ok", set()),
        ((MIN, True), "overclaim", {"overclaim", "skipped_event"}),
    ],
)
def test_failed_event_at_the_lowest_position(
    tmp_path: Path, claim: tuple[int, bool], status: str, findings: set[str]
) -> None:
    """The event at INT64_MIN failed: nothing is complete, (MIN, exclusive)."""
    tables = {
        "pages": [
            page("g1", 0, 1, MIN, MIN, finality_through=MAX, finality_inclusive=True, fetched=1)
        ],
        "receipts": [receipt("e", MIN, "failed", page_id="g1", recorded=1)],
        "checkpoints": [checkpoint("p0", 1, claim[0], inclusive=claim[1], written=2)],
    }
    result = run_audit(tmp_path, tables)
    row = mark(result)
    assert (row["blocking_event_id"], row["blocking_position"]) == ("e", MIN)
    assert row["blocking_reason"] == "failed"
    assert row["committed_position"] is None
    assert cert(row, "consumer") == (MIN, False)
    assert cert(row, "provider") == (MAX, True)
    assert cert(row, "proven") == (MIN, False)
    assert row["claim_status"] == status
    assert front(result, "proven") == ("scalar", MIN, False, ["p0"])
    assert rules(result) == findings
    if "overclaim" in findings:
        (over,) = [r for r in result.findings.to_dicts() if r["rule"] == "overclaim"]
        evidence = json.loads(over["evidence"])
        assert evidence["cause"] == "past_blocking_event"
        assert (evidence["refutation_through"], evidence["refutation_inclusive"]) == (MIN, False)


@pytest.mark.parametrize(
    ("outcome", "consumer", "status", "findings"),
    [
        ("committed", (None, None), "ok", set()),
        ("failed", (MAX - 1, True), "overclaim", {"overclaim", "skipped_event"}),
    ],
)
def test_event_at_the_highest_position(
    tmp_path: Path, outcome: str, consumer: tuple[Any, Any], status: str, findings: set[str]
) -> None:
    tables = {
        "pages": [
            page("g1", 0, 1, MAX, MAX, finality_through=MAX, finality_inclusive=True, fetched=1)
        ],
        "receipts": [receipt("e", MAX, outcome, page_id="g1", recorded=1)],
        "checkpoints": [checkpoint("p0", 1, MAX, written=2, page_id="g1")],
    }
    result = run_audit(tmp_path, tables)
    row = mark(result)
    assert cert(row, "consumer") == consumer
    assert cert(row, "provider") == (MAX, True)
    assert cert(row, "proven") == (consumer if consumer[0] is not None else (MAX, True))
    assert cert(row, "claimed") == (MAX, True)
    assert row["committed_position"] == (MAX if outcome == "committed" else None)
    assert row["claim_status"] == status
    assert rules(result) == findings


@pytest.mark.slow
@pytest.mark.parametrize(
    ("lo", "hi", "received", "block", "consumer", "committed"),
    [
        # no receipt on the page: it blocks before every event at min_position
        (MIN, MAX, None, MIN, (MIN, False), None),
        # a receipt at 0 on it: it blocks right after that event, (0, exclusive)
        (MIN, 0, 0, 0, (-1, True), 0),
        (0, MAX, 0, 0, (-1, True), 0),
        (MAX, MAX, MAX, MAX, (MAX - 1, True), MAX),
        (MIN, MIN, MIN, MIN, (MIN, False), MIN),
    ],
)
def test_incomplete_page_at_the_extremes(
    tmp_path: Path,
    lo: int,
    hi: int,
    received: int | None,
    block: int,
    consumer: tuple[int, bool],
    committed: int | None,
) -> None:
    """A page of 3 events with at most one of them known is incomplete (§4.7)."""
    receipts = [] if received is None else [receipt("e", received, page_id="g1", recorded=1)]
    tables = {
        "pages": [page("g1", 0, 3, lo, hi, fetched=1)],
        "receipts": receipts,
        "checkpoints": [checkpoint("p0", 1, MIN, inclusive=False, written=2)],
    }
    result = run_audit(tmp_path, {k: v for k, v in tables.items() if v})
    row = mark(result)
    assert row["evidence"] == "receipts"
    assert (row["blocking_position"], row["blocking_reason"]) == (block, "incomplete_page")
    assert row["blocking_event_id"] is None
    assert cert(row, "consumer") == consumer
    assert row["committed_position"] == committed
    assert cert(row, "proven") == (None, None)  # no finality: no provider
    assert row["claim_status"] == "no_proof"  # (MIN, exclusive) is under every bound
    assert rules(result) == set()


# --- provider certificates: page finality and snapshot bounds ----------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("bound", "provider", "status"),
    [
        ((MIN, False), (MIN, False), "overclaim"),
        ((MIN, True), (MIN, True), "overclaim"),
        ((MAX, False), (MAX - 1, True), "ok"),
        ((MAX, True), (MAX, True), "ok"),
    ],
)
@pytest.mark.parametrize("evidence", ["receipts", "snapshot"])
def test_provider_certificate_at_the_extremes(
    tmp_path: Path,
    evidence: str,
    bound: tuple[int, bool],
    provider: tuple[int, bool],
    status: str,
) -> None:
    """The provider certifies ``bound``; the event at 5 committed; the claim is 5."""
    if evidence == "receipts":
        tables = partition_with_event_at_5(finality=bound)
    else:
        tables = {
            "snapshot": [
                {
                    "scope_id": "s",
                    "partition_id": "p0",
                    "event_id": "e5",
                    "position": 5,
                    "eligible": True,
                    "eligibility_stable": True,
                    "visible_at": None,
                }
            ],
            "snapshot_bounds": [
                {
                    "scope_id": "s",
                    "partition_id": "p0",
                    "complete_through": bound[0],
                    "complete_inclusive": bound[1],
                }
            ],
            "receipts": [receipt("e5", 5, recorded=1)],
            "checkpoints": [checkpoint("p0", 1, 5, written=2)],
        }
    result = run_audit(tmp_path, tables)
    row = mark(result)
    assert row["evidence"] == evidence
    assert cert(row, "consumer") == (None, None)
    assert cert(row, "provider") == provider
    assert cert(row, "proven") == provider
    assert row["claim_status"] == status
    assert front(result, "proven") == ("scalar", *provider, ["p0"])
    if status == "overclaim":
        (over,) = [r for r in result.findings.to_dicts() if r["rule"] == "overclaim"]
        evidence_json = json.loads(over["evidence"])
        # the claim 5 is the highest position known when it was written
        assert evidence_json["cause"] == "observed_max"
        assert (evidence_json["provider_through"], evidence_json["provider_inclusive"]) == provider
    else:
        assert rules(result) == set()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("position", "claim", "late"),
    [
        (MIN, (MIN, True), True),
        (MIN, (MIN, False), False),  # claims nothing: covers no event
        (MAX, (MAX, True), True),
        (MAX, (MAX, False), False),  # (MAX - 1, inclusive)
    ],
)
def test_late_insert_at_the_extremes(
    tmp_path: Path, position: int, claim: tuple[int, bool], late: bool
) -> None:
    tables = {
        "snapshot": [
            {
                "scope_id": "s",
                "partition_id": "p0",
                "event_id": "late",
                "position": position,
                "eligible": True,
                "eligibility_stable": True,
                "visible_at": at(5),
            }
        ],
        "snapshot_bounds": [
            {
                "scope_id": "s",
                "partition_id": "p0",
                "complete_through": MAX,
                "complete_inclusive": True,
            }
        ],
        "receipts": [receipt("late", position, recorded=6)],
        "checkpoints": [checkpoint("p0", 1, claim[0], inclusive=claim[1], written=2)],
    }
    result = run_audit(tmp_path, tables)
    assert (("late_insert", "late") in keys(result, "event_id")) == late
    assert mark(result)["claim_status"] == "ok"


# --- membership: cutover, coverage_from, sealed_through ----------------------------------


def membership(cutover: tuple[int, bool], coverage: int, seal: tuple[int, bool]) -> Tables:
    """Epoch 1: A and C. Epoch 2 (at 10 s): A stays, B joins with ``coverage``, C
    retires sealed through ``seal``. Claims: A and C 40 (at 1 s), B 60 (at 11 s)."""
    return {
        "epochs": [
            {"scope_id": "s", "epoch": 1, "effective_at": at(0), "cutover": None},
            {
                "scope_id": "s",
                "epoch": 2,
                "effective_at": at(10),
                "cutover": cutover[0],
                "cutover_inclusive": cutover[1],
            },
        ],
        "members": [
            {"scope_id": "s", "epoch": 1, "partition_id": "A", "role": "member"},
            {"scope_id": "s", "epoch": 1, "partition_id": "C", "role": "member"},
            {"scope_id": "s", "epoch": 2, "partition_id": "A", "role": "member"},
            {
                "scope_id": "s",
                "epoch": 2,
                "partition_id": "B",
                "role": "member",
                "coverage_from": coverage,
            },
            {
                "scope_id": "s",
                "epoch": 2,
                "partition_id": "C",
                "role": "retiring",
                "sealed_through": seal[0],
                "sealed_inclusive": seal[1],
            },
        ],
        "checkpoints": [
            checkpoint("A", 1, 40, written=1),
            checkpoint("C", 1, 40, written=1),
            checkpoint("B", 1, 60, written=11),
        ],
    }


@pytest.mark.slow
@pytest.mark.parametrize(
    ("cutover", "coverage", "seal", "unproven", "cutover_overclaim"),
    [
        # (MAX, inclusive) leaves nothing above it: any coverage_from joins it; only a
        # seal at (MAX, inclusive) reaches it; it is above the claimed frontier 40
        ((MAX, True), MAX, (MAX, True), set(), True),
        ((MAX, True), MAX, (40, True), {"C"}, True),
        # (MAX, exclusive) is (MAX - 1, inclusive): coverage from MAX joins it
        ((MAX, False), MAX, (MAX, False), set(), True),
        # (MIN, exclusive) certifies nothing: coverage must start at MIN itself
        ((MIN, False), MIN, (MIN, False), set(), False),
        ((MIN, False), MIN + 1, (MIN, False), {"B"}, False),
        # (MIN, inclusive): coverage from MIN + 1 joins it
        ((MIN, True), MIN + 1, (MIN, True), set(), False),
        ((MIN, True), MIN + 2, (MIN, False), {"B", "C"}, False),
        # an ordinary cutover, coverage and seal at the extremes
        ((40, True), MIN, (MAX, True), set(), False),
        ((40, True), MAX, (MIN, False), {"B", "C"}, False),
    ],
)
def test_membership_proofs_at_the_extremes(
    tmp_path: Path,
    cutover: tuple[int, bool],
    coverage: int,
    seal: tuple[int, bool],
    unproven: set[str],
    cutover_overclaim: bool,
) -> None:
    result = run_audit(tmp_path, membership(cutover, coverage, seal))
    found = keys(result, "partition_id", "epoch")
    assert {p for rule, p, _ in found if rule == "unproven_membership"} == unproven
    assert {e for rule, _, e in found if rule == "unproven_membership"} <= {2}
    assert (("cutover_overclaim", None, 2) in found) == cutover_overclaim
    if unproven:
        assert front(result, "claimed") == ("vector", None, None, [])
    else:
        assert front(result, "claimed") == ("scalar", 40, True, ["A"])


# --- published frontiers ------------------------------------------------------------------


def published(*values: tuple[int, bool]) -> Tables:
    """A scope without epochs, claimed frontier 40 (A 40, B 60 at 1 s); the values
    published at 2 s, 3 s, ..."""
    return {
        "checkpoints": [checkpoint("A", 1, 40, written=1), checkpoint("B", 1, 60, written=1)],
        "published": [
            {
                "scope_id": "s",
                "epoch": None,
                "published_at": at(2 + n),
                "kind": "scalar",
                "frontier": v,
                "frontier_inclusive": incl,
            }
            for n, (v, incl) in enumerate(values)
        ],
    }


@pytest.mark.slow
@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([(MIN, False)], set()),
        ([(MIN, True)], set()),
        ([(MAX, False)], {("published_overclaim", 2)}),
        ([(MAX, True)], {("published_overclaim", 2)}),
        ([(MIN, True), (MIN, False)], {("published_regressed", 3)}),
        ([(MIN, False), (MIN, False)], set()),
        (
            [(MAX, True), (MAX, False)],
            {("published_overclaim", 2), ("published_overclaim", 3), ("published_regressed", 3)},
        ),
    ],
)
def test_published_frontier_at_the_extremes(
    tmp_path: Path, values: list[tuple[int, bool]], expected: set[tuple[str, int]]
) -> None:
    result = run_audit(tmp_path, published(*values))
    found = {(rule, t) for rule, t in keys(result, "at")}
    assert found == {(rule, at(s).replace(tzinfo=None)) for rule, s in expected}


# --- the frontier across partitions and its history -------------------------------------


def test_frontier_and_stall_at_the_lowest_claim(tmp_path: Path) -> None:
    """A claims nothing, (MIN, exclusive), for 20 minutes while B moves to MAX: A
    holds the claimed frontier all along and stalls."""
    tables = {
        "checkpoints": [
            checkpoint("A", 1, MIN, inclusive=False, written=0),
            checkpoint("B", 1, MIN, inclusive=True, written=0),
            checkpoint("B", 2, 0, written=600),
            checkpoint("B", 3, MAX, written=1200),
        ]
    }
    result = run_audit(tmp_path, tables)
    assert front(result, "claimed") == ("scalar", MIN, False, ["A"])
    history = [
        (r["at"], r["frontier"], r["frontier_inclusive"], r["limiting_partitions"])
        for r in result.frontier_history.to_dicts()
        if r["basis"] == "claimed"
    ]
    assert history == [(at(0).replace(tzinfo=None), MIN, False, ["A"])]
    (stall,) = [r for r in result.findings.to_dicts() if r["rule"] == "stalled_partition"]
    evidence = json.loads(stall["evidence"])
    assert (stall["partition_id"], evidence["claimed_through"]) == ("A", MIN)
    assert evidence["seconds"] == 1200


@pytest.mark.slow
@pytest.mark.parametrize(
    ("token", "fires"),
    [(str(MAX), True), (str(MIN), True), (str(MAX + 1), False)],
)
def test_token_as_watermark_at_the_extremes(tmp_path: Path, token: str, fires: bool) -> None:
    """A token one past INT64_MAX is no coordinate (and no error)."""
    watermark = MAX if token == str(MAX + 1) else int(token)
    tables = {
        "pages": [page("g1", 0, 1, 1, 1, next_token=token)],
        "receipts": [receipt("e1", 1, page_id="g1")],
        "checkpoints": [
            checkpoint("p0", 1, watermark, resume_token=token, page_id="g1", written=1)
        ],
    }
    result = run_audit(tmp_path, tables)
    assert ("token_as_watermark" in rules(result)) == fires


# --- timestamps at the ends of TIMESTAMP_NS ---------------------------------------------


def test_timestamp_page_spanning_the_whole_range(tmp_path: Path) -> None:
    """A page from the first to the last instant TIMESTAMP_NS holds (a span over 2^63
    ns), three events, one known: it blocks right after that event (dense: exclusive)."""
    tables = {
        "pages": [page("g1", 0, 3, TS_LO, TS_HI, fetched=1)],
        "receipts": [receipt("e", TS_LO, page_id="g1", recorded=1)],
        "checkpoints": [checkpoint("p0", 1, TS_HI, written=2, page_id="g1")],
    }
    result = run_audit(tmp_path, tables, "timestamp")
    row = mark(result)
    lo = TS_LO.replace(tzinfo=None)
    assert (row["blocking_position"], row["blocking_reason"]) == (lo, "incomplete_page")
    assert cert(row, "consumer") == (lo, False)
    assert cert(row, "claimed") == (TS_HI.replace(tzinfo=None), True)
    assert row["claim_status"] == "overclaim"
    assert "overclaim" in rules(result)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("value", "inclusive"),
    [(TS_LO, False), (TS_LO, True), (TS_HI, False), (TS_HI, True)],
)
def test_timestamp_certificates_at_the_ends(
    tmp_path: Path, value: datetime, inclusive: bool
) -> None:
    """Dense: an exclusive bound stays exclusive, at either end."""
    mid = datetime(2026, 1, 1, tzinfo=UTC)
    tables = {
        "pages": [
            page(
                "g1",
                0,
                1,
                mid,
                mid,
                finality_through=value,
                finality_inclusive=inclusive,
                fetched=1,
            )
        ],
        "receipts": [receipt("e", mid, page_id="g1", recorded=1)],
        "checkpoints": [checkpoint("p0", 1, value, inclusive=inclusive, written=2)],
    }
    result = run_audit(tmp_path, tables, "timestamp")
    row = mark(result)
    expected = (value.replace(tzinfo=None), inclusive)
    assert cert(row, "provider") == expected
    assert cert(row, "proven") == expected
    assert cert(row, "claimed") == expected
    assert row["claim_status"] == "ok"
    assert front(result, "claimed") == ("scalar", *expected, ["p0"])


# --- the command line -----------------------------------------------------------------


def everything_at_the_extremes() -> Tables:
    """Every coordinate column at INT64_MIN or INT64_MAX, endpoints of both kinds."""
    tables = membership((MIN, False), MIN, (MIN, False))
    tables["checkpoints"] = [
        checkpoint("A", 1, MIN, inclusive=False, written=1),
        checkpoint("C", 1, MAX, inclusive=True, written=1),
        checkpoint("B", 1, MAX, inclusive=False, written=11),
    ]
    tables["pages"] = [
        page("gA", 0, 2, MIN, MAX, partition="A", fetched=1),
        page(
            "gB",
            0,
            1,
            MAX,
            MAX,
            partition="B",
            finality_through=MAX,
            finality_inclusive=True,
            fetched=11,
        ),
        page("gC", 0, 0, partition="C", finality_through=MIN, finality_inclusive=False, fetched=1),
    ]
    tables["receipts"] = [
        receipt("a", MIN, "failed", partition="A", page_id="gA", recorded=1),
        receipt("b", MAX, partition="B", page_id="gB", recorded=11),
    ]
    tables["published"] = [
        {
            "scope_id": "s",
            "epoch": 2,
            "published_at": at(12),
            "kind": "scalar",
            "frontier": MAX,
            "frontier_inclusive": True,
        }
    ]
    return tables


@pytest.mark.parametrize("command", fast_tier(["audit", "watermarks", "frontier"], keep=["audit"]))
def test_command_line_on_coordinates_at_the_extremes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    path = write_logset(tmp_path / "ls", everything_at_the_extremes())
    assert main(["validate", str(path)]) == 0
    extra = ["--out", str(tmp_path / "report")] if command == "audit" else ["--json"]
    code = main([command, str(path), *extra])
    out = capsys.readouterr().out
    if command == "audit":
        assert code == 1, out  # it finds the overclaims and the published overclaim
        assert (tmp_path / "report" / "findings.parquet").exists()
        assert (tmp_path / "report" / "report.html").exists()
    else:
        assert code == 0, out
