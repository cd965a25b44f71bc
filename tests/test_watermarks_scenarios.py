"""The seeds' worked examples and validation scenarios, one small log set each.

Seeds: docs/procedures/eligible-prefix-watermark.md (EPW) and merged-frontier.md
(MF). Each test names the scenario it stands for; positions are small integers and
times are seconds after a fixed origin (tests/logsets.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from reconcile import Analysis, open_logset
from reconcile.audit import audit
from reconcile.engine import watermarks
from tests.logsets import at, checkpoint, page, receipt, write_logset


def marks(tmp_path: Path, tables: dict[str, Any], as_of: Any = None, **kw: Any) -> dict[str, Any]:
    path = write_logset(tmp_path / "ls", tables, **kw)
    with open_logset(path) as logset:
        rows = watermarks(logset, as_of=as_of).to_dicts()
    return {r["partition_id"]: r for r in rows}


def snapshot_row(
    event: str,
    position: int,
    eligible: bool = True,
    stable: bool = True,
    partition: str = "p0",
    visible: float | None = None,
) -> dict[str, Any]:
    return {
        "scope_id": "s",
        "partition_id": partition,
        "event_id": event,
        "position": position,
        "eligible": eligible,
        "eligibility_stable": stable,
        "visible_at": None if visible is None else at(visible),
    }


def bounds(through: int, inclusive: bool = True, partition: str = "p0") -> dict[str, Any]:
    return {
        "scope_id": "s",
        "partition_id": partition,
        "complete_through": through,
        "complete_inclusive": inclusive,
    }


def test_epw_reasoned_example_b_fails_after_a_commits(tmp_path: Path) -> None:
    """Page 41, 42, 43: 41 commits, 42 fails, 43 is not handled. The watermark stays
    at 41; a checkpoint that copied the next-page token would claim past 42 and 43."""
    tables = {
        "pages": [
            page(
                "g1",
                0,
                3,
                41,
                43,
                next_token="t-after-43",
                finality_through=43,
                finality_inclusive=True,
                fetched=1,
            )
        ],
        "receipts": [
            receipt("e41", 41, recorded=2, page_id="g1"),
            receipt("e42", 42, "failed", recorded=3, page_id="g1"),
        ],
        "checkpoints": [checkpoint("p0", 1, 43, written=4, page_id="g1")],
    }
    row = marks(tmp_path, tables)["p0"]
    assert (row["committed_position"], row["committed_event_id"]) == (41, "e41")
    assert (row["blocking_event_id"], row["blocking_position"]) == ("e42", 42)
    assert row["blocking_reason"] == "failed"
    assert (row["consumer_through"], row["consumer_inclusive"]) == (41, True)
    assert (row["proven_through"], row["proven_inclusive"]) == (41, True)
    assert row["claim_status"] == "overclaim"


def test_epw_stable_snapshot_with_provably_ineligible_hole(tmp_path: Path) -> None:
    """Snapshot 41, 42, 43 with 42 ineligible and stable: complete through 43."""
    tables = {
        "snapshot": [
            snapshot_row("e41", 41),
            snapshot_row("e42", 42, eligible=False),
            snapshot_row("e43", 43),
        ],
        "snapshot_bounds": [bounds(43)],
        "receipts": [receipt("e41", 41, recorded=1), receipt("e43", 43, recorded=2)],
        "checkpoints": [checkpoint("p0", 1, 43, written=3)],
    }
    row = marks(tmp_path, tables)["p0"]
    assert row["evidence"] == "snapshot"
    assert row["blocking_position"] is None
    assert (row["committed_position"], row["committed_event_id"]) == (43, "e43")
    assert (row["proven_through"], row["proven_inclusive"]) == (43, True)
    assert row["eligible_events"] == 2
    assert row["claim_status"] == "ok"


def test_epw_mutable_membership_same_position_becomes_eligible(tmp_path: Path) -> None:
    """The same hole without a stable proof: 42 may become eligible, so the prefix
    stops before it; once it is eligible and committed, the prefix passes it."""
    tables = {
        "snapshot": [
            snapshot_row("e41", 41),
            snapshot_row("e42", 42, eligible=False, stable=False),
            snapshot_row("e43", 43),
        ],
        "snapshot_bounds": [bounds(43)],
        "receipts": [
            receipt("e41", 41, recorded=1),
            receipt("e43", 43, recorded=2),
            receipt("e42", 42, recorded=9),
        ],
        "checkpoints": [checkpoint("p0", 1, 43, written=3)],
    }
    before = marks(tmp_path, tables, as_of=at(5))["p0"]
    assert (before["blocking_event_id"], before["blocking_reason"]) == (
        "e42",
        "unstable_ineligible",
    )
    assert (before["proven_through"], before["proven_inclusive"]) == (41, True)
    assert before["claim_status"] == "overclaim"
    after = marks(tmp_path / "later", tables)["p0"]
    assert after["blocking_position"] is None
    assert (after["proven_through"], after["proven_inclusive"]) == (43, True)


def test_epw_mutable_receipt_without_stable_proof(tmp_path: Path) -> None:
    """Receipts evidence: an ineligible decision without a stable proof blocks."""
    tables = {
        "pages": [page("g1", 0, 3, 1, 3, finality_through=3, finality_inclusive=True)],
        "receipts": [
            receipt("e1", 1, page_id="g1"),
            receipt("e2", 2, "ineligible", page_id="g1", eligibility_stable=False),
            receipt("e3", 3, page_id="g1"),
        ],
        "checkpoints": [checkpoint("p0", 1, 1, written=1)],
    }
    row = marks(tmp_path, tables)["p0"]
    assert (row["blocking_event_id"], row["blocking_reason"]) == ("e2", "unstable_ineligible")
    assert row["eligible_events"] == 2
    assert row["claim_status"] == "ok"


def test_epw_failure_before_the_first_effect(tmp_path: Path) -> None:
    """A page fetched, then a crash before any event was handled: the page blocks
    before its first position; the retry that handles it clears the block."""
    tables = {
        "pages": [
            page("g1", 0, 2, 1, 2, finality_through=2, finality_inclusive=True, fetched=1),
            page(
                "g2",
                0,
                2,
                3,
                4,
                request_token=None,
                next_token=None,
                fetched=2,
                finality_through=4,
                finality_inclusive=True,
            ),
            page(
                "g3",
                0,
                2,
                3,
                4,
                attempt="a2",
                fetched=10,
                finality_through=4,
                finality_inclusive=True,
            ),
        ],
        "receipts": [
            receipt("e1", 1, recorded=1.5, page_id="g1"),
            receipt("e2", 2, recorded=1.6, page_id="g1"),
            receipt("e3", 3, attempt="a2", recorded=11, page_id="g3"),
            receipt("e4", 4, attempt="a2", recorded=12, page_id="g3"),
        ],
        "checkpoints": [checkpoint("p0", 1, 2, written=1.7)],
    }
    crashed = marks(tmp_path, tables, as_of=at(5))["p0"]
    assert (crashed["blocking_reason"], crashed["blocking_position"]) == ("incomplete_page", 3)
    assert crashed["blocking_event_id"] is None
    assert (crashed["proven_through"], crashed["proven_inclusive"]) == (2, True)
    assert crashed["committed_position"] == 2
    retried = marks(tmp_path / "later", tables)["p0"]
    assert retried["blocking_position"] is None
    assert (retried["proven_through"], retried["proven_inclusive"]) == (4, True)


def test_epw_failure_between_effect_and_completion_record(tmp_path: Path) -> None:
    """Three events on a page, the second had its effect but no record: the page
    blocks right after the first, exclusive (an unseen event may tie with it)."""
    tables = {
        "pages": [page("g1", 0, 3, 1, 3, finality_through=3, finality_inclusive=True)],
        "receipts": [receipt("e1", 1, recorded=1, page_id="g1")],
        "checkpoints": [checkpoint("p0", 1, None, written=0.5)],
    }
    row = marks(tmp_path, tables)["p0"]
    assert (row["blocking_reason"], row["blocking_position"]) == ("incomplete_page", 1)
    assert (row["consumer_through"], row["consumer_inclusive"]) == (0, True)
    assert (row["committed_position"], row["committed_event_id"]) == (1, "e1")


def test_epw_failure_between_completion_and_watermark_advancement(tmp_path: Path) -> None:
    """Every event handled, the checkpoint not yet written: the evidence proves the
    page, the claim lags behind; that is safe."""
    tables = {
        "pages": [page("g1", 0, 2, 1, 2, finality_through=2, finality_inclusive=True)],
        "receipts": [receipt("e1", 1, page_id="g1"), receipt("e2", 2, page_id="g1")],
        "checkpoints": [checkpoint("p0", 1, None)],
    }
    row = marks(tmp_path, tables)["p0"]
    assert (row["proven_through"], row["proven_inclusive"]) == (2, True)
    assert row["claim_status"] == "no_claim"


def test_epw_failure_after_final_event_before_next_page(tmp_path: Path) -> None:
    """The checkpoint was written, the next page never requested: complete through
    the page, nothing beyond it is claimed."""
    tables = {
        "pages": [
            page("g1", 0, 2, 1, 2, next_token="t1", finality_through=2, finality_inclusive=True)
        ],
        "receipts": [receipt("e1", 1, page_id="g1"), receipt("e2", 2, page_id="g1")],
        "checkpoints": [checkpoint("p0", 1, 2, written=1, page_id="g1", resume_token="t1")],
    }
    row = marks(tmp_path, tables)["p0"]
    assert row["claim_status"] == "ok"
    assert (row["claimed_through"], row["proven_through"]) == (2, 2)


def test_epw_two_attempts_with_different_ownership_generations(tmp_path: Path) -> None:
    """A stale attempt's write loses its compare-and-swap: only won writes count."""
    tables = {
        "pages": [page("g1", 0, 2, 1, 2, finality_through=2, finality_inclusive=True)],
        "receipts": [receipt("e1", 1, page_id="g1"), receipt("e2", 2, page_id="g1")],
        "checkpoints": [
            checkpoint("p0", 1, 2, attempt="a2", owner_epoch=2, written=2),
            checkpoint("p0", 1, 1, attempt="a1", owner_epoch=1, written=3, cas="lost"),
        ],
    }
    row = marks(tmp_path, tables)["p0"]
    assert (row["claimed_through"], row["claimed_generation"]) == (2, 1)
    assert row["claim_status"] == "ok"


def test_mf_page_replay_duplicates_are_counted_not_lost(tmp_path: Path) -> None:
    """A page replayed after a crash: its events have two durable receipts each."""
    tables = {
        "pages": [
            page("g1", 0, 2, 1, 2, fetched=1),
            page(
                "g2",
                0,
                2,
                1,
                2,
                attempt="a2",
                fetched=5,
                finality_through=2,
                finality_inclusive=True,
            ),
        ],
        "receipts": [
            receipt("e1", 1, page_id="g1", recorded=2),
            receipt("e2", 2, page_id="g1", recorded=3),
            receipt("e1", 1, page_id="g2", attempt="a2", recorded=6),
            receipt("e2", 2, page_id="g2", attempt="a2", recorded=7),
        ],
        "checkpoints": [checkpoint("p0", 1, 2, attempt="a2", written=8)],
    }
    row = marks(tmp_path, tables)["p0"]
    assert row["replayed_events"] == 2
    assert row["durable_events"] == 2
    assert row["claim_status"] == "ok"


def test_mf_lost_checkpoint_response(tmp_path: Path) -> None:
    """The write won but its response was lost; the retried write loses. The claim
    is the won one."""
    tables = {
        "pages": [page("g1", 0, 1, 5, 5, finality_through=5, finality_inclusive=True)],
        "receipts": [receipt("e5", 5, page_id="g1")],
        "checkpoints": [
            checkpoint("p0", 1, 5, written=1),
            checkpoint("p0", 1, 5, written=2, cas="lost"),
        ],
    }
    row = marks(tmp_path, tables)["p0"]
    assert (row["claimed_generation"], row["claim_status"]) == (1, "ok")


def test_mf_empty_page_with_and_without_finality(tmp_path: Path) -> None:
    """An empty page moves the provider's certificate only through its own finality."""
    base = {
        "receipts": [receipt("e1", 1, page_id="g1")],
        "checkpoints": [checkpoint("p0", 1, 1)],
    }
    without = marks(
        tmp_path / "a",
        {
            **base,
            "pages": [
                page(
                    "g1", 0, 1, 1, 1, next_token="t1", finality_through=1, finality_inclusive=True
                ),
                page("g2", 1, 0, request_token="t1", fetched=1),
            ],
        },
    )["p0"]
    assert (without["provider_through"], without["provider_inclusive"]) == (1, True)
    with_finality = marks(
        tmp_path / "b",
        {
            **base,
            "pages": [
                page(
                    "g1", 0, 1, 1, 1, next_token="t1", finality_through=1, finality_inclusive=True
                ),
                page(
                    "g2",
                    1,
                    0,
                    request_token="t1",
                    fetched=1,
                    finality_through=9,
                    finality_inclusive=True,
                ),
            ],
        },
    )["p0"]
    assert (with_finality["provider_through"], with_finality["proven_through"]) == (9, 9)


def test_mf_a_page_fetched_with_its_predecessor_is_off_the_traversal(tmp_path: Path) -> None:
    """§4.9: a page counts where its request token is the next token of a counting page
    fetched earlier; one fetched at the same instant is not earlier (the reading that
    claims less), so its finality certifies nothing."""
    tables = {
        "receipts": [receipt("e1", 1, page_id="g1")],
        "pages": [
            page("g1", 0, 1, 1, 1, next_token="t1", finality_through=1, finality_inclusive=True),
            page(
                "g2",
                1,
                0,
                request_token="t1",
                fetched=0,
                finality_through=9,
                finality_inclusive=True,
            ),
        ],
        "checkpoints": [checkpoint("p0", 1, 1)],
    }
    assert marks(tmp_path, tables)["p0"]["provider_through"] == 1


def test_mf_page_off_the_traversal_does_not_count(tmp_path: Path) -> None:
    """Finality from a page whose request token no counting page handed out."""
    tables = {
        "receipts": [receipt("e1", 1, page_id="g1")],
        "pages": [
            page("g1", 0, 1, 1, 1, next_token="t1", finality_through=1, finality_inclusive=True),
            page(
                "g2",
                1,
                0,
                request_token="elsewhere",
                fetched=1,
                finality_through=9,
                finality_inclusive=True,
            ),
        ],
        "checkpoints": [checkpoint("p0", 1, 1)],
    }
    assert marks(tmp_path, tables)["p0"]["provider_through"] == 1


def test_mf_stalled_partition_keeps_its_certificate(tmp_path: Path) -> None:
    """No progress for an hour: the certificate stays where the evidence left it."""
    tables = {
        "pages": [page("g1", 0, 1, 3, 3, finality_through=3, finality_inclusive=True)],
        "receipts": [receipt("e3", 3, page_id="g1")],
        "checkpoints": [checkpoint("p0", 1, 3, written=1)],
        "published": [
            {
                "scope_id": "s",
                "epoch": None,
                "published_at": at(3600),
                "kind": "scalar",
                "frontier": 3,
                "frontier_inclusive": True,
            }
        ],
    }
    row = marks(tmp_path, tables)["p0"]
    assert row["as_of"] == at(3600).replace(tzinfo=None)
    assert (row["proven_through"], row["claimed_through"], row["claim_status"]) == (3, 3, "ok")


@pytest.mark.parametrize(
    ("domain", "expected"), [("discrete", (99, True)), ("dense", (100, False))]
)
def test_mf_ties_at_equal_positions_with_mixed_endpoints(
    tmp_path: Path, domain: str, expected: tuple[int, bool]
) -> None:
    """Two events at 100; the page ends between them. The consumer's certificate
    stops before 100 (an unseen event may tie); discrete states it as 99 inclusive."""
    tables = {
        "scopes": [{"scope_id": "s", "ordering": "seq", "domain": domain}],
        "pages": [page("g1", 0, 3, 99, 100, finality_through=100, finality_inclusive=True)],
        "receipts": [receipt("a", 99, page_id="g1"), receipt("b", 100, page_id="g1")],
        "checkpoints": [checkpoint("p0", 1, 100, inclusive=False)],
    }
    row = marks(tmp_path, tables)["p0"]
    assert (row["consumer_through"], row["consumer_inclusive"]) == expected
    assert (row["proven_through"], row["proven_inclusive"]) == expected
    assert (row["claimed_through"], row["claimed_inclusive"]) == expected
    assert row["claim_status"] == "ok"


def test_ordering_mutation_blocks_at_the_lowest_position(tmp_path: Path) -> None:
    tables = {
        "receipts": [
            receipt("e1", 1),
            receipt("e2", 5),
            receipt("e2", 2, recorded=3),
            receipt("e3", 6),
        ],
        "checkpoints": [checkpoint("p0", 1, 6)],
    }
    row = marks(tmp_path, tables)["p0"]
    assert (row["blocking_event_id"], row["blocking_position"]) == ("e2", 2)
    assert row["blocking_reason"] == "ordering_mutated"
    assert row["committed_position"] == 1


def test_partition_without_evidence_has_no_proof(tmp_path: Path) -> None:
    row = marks(tmp_path, {"checkpoints": [checkpoint("p0", 1, 7)]})["p0"]
    assert (row["evidence"], row["claim_status"]) == ("none", "no_proof")
    assert row["consumer_through"] is None
    assert row["proven_through"] is None


def test_claim_in_another_ordering_is_incomparable(tmp_path: Path) -> None:
    tables = {
        "scopes": [{"scope_id": "s", "ordering": "seq", "domain": "discrete"}],
        "checkpoints": [checkpoint("p0", 1, 7, ordering="event_time")],
    }
    assert marks(tmp_path, tables)["p0"]["claim_status"] == "incomparable"


def test_unknown_endpoint_claim(tmp_path: Path) -> None:
    row = marks(tmp_path, {"checkpoints": [checkpoint("p0", 1, 7, inclusive=None)]})["p0"]
    assert (row["claimed_through"], row["claimed_inclusive"]) == (7, None)
    assert row["claim_status"] == "unknown_endpoint"


def test_mf_stale_concurrent_retry_loses_and_leaves_the_claim(tmp_path: Path) -> None:
    """An older attempt's retry of an earlier page finishes late and loses its
    compare-and-swap: the claim stays the newer winner's."""
    tables = {
        "pages": [
            page("g1", 0, 2, 1, 2, finality_through=2, finality_inclusive=True),
            page(
                "g2",
                0,
                2,
                3,
                4,
                attempt="a2",
                fetched=2,
                finality_through=4,
                finality_inclusive=True,
            ),
        ],
        "receipts": [
            receipt("e1", 1, page_id="g1"),
            receipt("e2", 2, page_id="g1"),
            receipt("e3", 3, page_id="g2", attempt="a2", recorded=3),
            receipt("e4", 4, page_id="g2", attempt="a2", recorded=3),
        ],
        "checkpoints": [
            checkpoint("p0", 1, 2, written=1),
            checkpoint("p0", 2, 4, attempt="a2", owner_epoch=2, written=4),
            checkpoint("p0", 2, 2, attempt="a1", owner_epoch=1, written=9, cas="lost"),
        ],
    }
    row = marks(tmp_path, tables)["p0"]
    assert (row["claimed_through"], row["claimed_generation"], row["claim_status"]) == (4, 2, "ok")


def test_history_of_the_mutable_membership_case(tmp_path: Path) -> None:
    """The proven certificate as a step function: before 42 is resolved it stops at
    41; from the instant 42 is committed it reaches the snapshot's bound."""
    tables = {
        "snapshot": [
            snapshot_row("e41", 41),
            snapshot_row("e42", 42, eligible=False, stable=False),
            snapshot_row("e43", 43),
        ],
        "snapshot_bounds": [bounds(43)],
        "receipts": [
            receipt("e41", 41, recorded=1),
            receipt("e43", 43, recorded=2),
            receipt("e42", 42, recorded=9),
        ],
        "checkpoints": [checkpoint("p0", 1, 43, written=3)],
    }
    path = write_logset(tmp_path / "ls", tables)
    with open_logset(path) as logset:
        steps = Analysis(logset).history().to_dicts()
    proven = [(s["valid_from"], s["through"]) for s in steps if s["basis"] == "proven"]
    assert proven == [
        (None, 40),
        (at(1).replace(tzinfo=None), 41),
        (at(9).replace(tzinfo=None), 43),
    ]
    claimed = [(s["valid_from"], s["through"]) for s in steps if s["basis"] == "claimed"]
    assert claimed == [(at(3).replace(tzinfo=None), 43)]


@pytest.mark.parametrize(
    ("first_visible", "later", "received", "steps"),
    [
        pytest.param(None, {"eligible": True}, None, [(None, 0), (1, 10), (20, 1)], id="eligible"),
        pytest.param(
            None,
            {"eligible": False, "stable": False},
            None,
            [(None, 0), (1, 10), (20, 1)],
            id="unstable",
            marks=pytest.mark.slow,
        ),
        pytest.param(
            1,
            {"eligible": True},
            30,
            [(None, 0), (1, 10), (20, 1), (30, 10)],
            id="visible-later-then-received",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_a_snapshot_proof_holds_until_a_later_row_ends_it(
    tmp_path: Path,
    first_visible: float | None,
    later: dict[str, bool],
    received: float | None,
    steps: list[tuple[float | None, int]],
) -> None:
    """e2 has two snapshot rows at 2: one proving it ineligible (there from the start,
    or visible at 1 s), and one visible at 20 s that ends the proof (eligible, or not
    stable). An instant's state reads the rows visible then (§4.2), so before 20 s
    the prefix crosses e2 and reaches the bound, 10; from 20 s e2 blocks until it is
    durable. The claim of 10 written at 5 s is proven then: no overclaim, and the
    history at 5 s is the audit's as of 5 s (it once read e2 as of T at every
    instant)."""
    receipts = [receipt("e1", 1, recorded=1), receipt("e3", 3, recorded=1)]
    if received is not None:
        receipts.append(receipt("e2", 2, recorded=received))
    tables = {
        "snapshot": [
            snapshot_row("e1", 1),
            snapshot_row("e2", 2, eligible=False, stable=True, visible=first_visible),
            snapshot_row("e2", 2, visible=20, **later),
            snapshot_row("e3", 3),
        ],
        "snapshot_bounds": [bounds(10)],
        "receipts": receipts,
        "checkpoints": [checkpoint("p0", 1, 10, written=5)],
    }
    path = write_logset(tmp_path / "ls", tables)
    with open_logset(path) as logset:
        history = Analysis(logset).history().to_dicts()
        result, early = audit(logset), audit(logset, as_of=at(5))
    proven = [(s["valid_from"], s["through"]) for s in history if s["basis"] == "proven"]
    assert proven == [(None if t is None else at(t).replace(tzinfo=None), v) for t, v in steps]
    assert "overclaim" not in result.findings["rule"].to_list()
    assert result.frontier_history.equals(early.frontier_history)


def test_a_mutated_event_there_from_the_start_sorts_where_it_was_seen_then(
    tmp_path: Path,
) -> None:
    """e4 is in the snapshot at 4 from the start, and again at 4 from 7 s; a receipt
    at 3 at 8 s makes it mutated. Before 8 s it was seen at 4 alone (§4.5: the lowest
    position seen by then), so it blocks at 4, as the audit as of 5 s says. The
    history read its rows' first sighting as 7 s (the least visible_at, a null one
    left out), and sorted it at 3, where it was seen at T, until then (found by the
    reference test in CI, 2026-12-07)."""
    tables = {
        "snapshot": [
            snapshot_row("e1", 1),
            snapshot_row("e4", 4, stable=False),
            snapshot_row("e4", 4, stable=False, visible=7),
        ],
        "snapshot_bounds": [bounds(10)],
        "receipts": [
            receipt("e1", 1, recorded=1),
            receipt("e4", 3, "ineligible", recorded=8),
            receipt("e4", 4, recorded=9),
        ],
        "checkpoints": [checkpoint("p0", 1, 1, written=2)],
    }
    path = write_logset(tmp_path / "ls", tables)
    with open_logset(path) as logset:
        points = pl.DataFrame(
            {"scope_id": ["s"] * 3, "partition_id": ["p0"] * 3, "t": [at(5), at(7), at(8)]},
            schema={"scope_id": pl.String, "partition_id": pl.String, "t": pl.Datetime("ns")},
        )
        got = Analysis(logset).certificates_at(points).sort("t").to_dicts()
        for row in got:
            (want,) = Analysis(logset, row["t"]).watermarks().to_dicts()
            assert (row["consumer_through"], row["consumer_inclusive"]) == (
                want["consumer_through"],
                want["consumer_inclusive"],
            ), row["t"]
    # before 8 s it blocks at 4 (through 3 inclusive); from 8 s, seen at 3 too, at 3
    assert [r["consumer_through"] for r in got] == [3, 3, 2]
