"""Each rule of docs/contract.md §5 on a minimal log set that triggers it, and on a near
twin that must not."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from reconcile import open_logset
from reconcile.audit import AuditSettings, audit
from tests.logsets import at, checkpoint, page, receipt, write_logset

Tables = dict[str, Any]


def found(tmp_path: Path, tables: Tables, rule: str, **settings: Any) -> list[dict[str, Any]]:
    path = write_logset(tmp_path, tables)
    with open_logset(path) as logset:
        result = audit(logset, settings=AuditSettings(**settings))
    return [r for r in result.findings.to_dicts() if r["rule"] == rule]


def finality(pid: str, through: int, *, events: int = 0, seq: int = 0, **kw: Any) -> dict[str, Any]:
    return page(
        f"{pid}-g{seq}",
        seq,
        events,
        1 if events else None,
        events or None,
        partition=pid,
        finality_through=through,
        finality_inclusive=True,
        **kw,
    )


# --- each rule: (triggering tables, twin tables, expected key fields) --------------------


def skipped_event(bad: bool) -> Tables:
    """e2 failed; a claim through 3 covers it. Twin: the claim stops before it."""
    return {
        "pages": [finality("p0", 3, events=3)],
        "receipts": [
            receipt("e1", 1, page_id="p0-g0"),
            receipt("e2", 2, "failed", page_id="p0-g0"),
            receipt("e3", 3, page_id="p0-g0"),
        ],
        "checkpoints": [checkpoint("p0", 1, 3 if bad else 1, written=1)],
    }


def overclaim(bad: bool) -> Tables:
    """The provider certifies through 5; the claim says 9 (twin: 5)."""
    return {
        "pages": [finality("p0", 5, events=2)],
        "receipts": [receipt("e1", 1, page_id="p0-g0"), receipt("e2", 2, page_id="p0-g0")],
        "checkpoints": [checkpoint("p0", 1, 9 if bad else 5, written=1)],
    }


def watermark_regressed(bad: bool) -> Tables:
    return {
        "checkpoints": [
            checkpoint("p0", 1, 10, written=1),
            checkpoint("p0", 2, 7 if bad else 12, written=2),
        ]
    }


def cas_chain_broken(bad: bool) -> Tables:
    return {
        "checkpoints": [
            checkpoint("p0", 1, 10, written=1),
            checkpoint("p0", 2, 12, expected=0 if bad else 1, written=2),
        ]
    }


def stale_owner_won(bad: bool) -> Tables:
    return {
        "checkpoints": [
            checkpoint("p0", 1, 10, owner_epoch=3, written=1),
            checkpoint("p0", 2, 12, owner_epoch=2 if bad else 3, written=2),
        ]
    }


def mixed_checkpoint(bad: bool) -> Tables:
    """Attempt a2's write keeps a token only attempt a1 was handed (twin: its own)."""
    return {
        "pages": [
            page("g1", 0, 1, 1, 1, attempt="a1", next_token="t-a1"),
            page(
                "g2", 0, 1, 2, 2, attempt="a2", next_token="t-a2", request_token="t-a1", fetched=1
            ),
        ],
        "receipts": [
            receipt("e1", 1, page_id="g1"),
            receipt("e2", 2, page_id="g2", attempt="a2", recorded=1),
        ],
        "checkpoints": [
            checkpoint(
                "p0",
                1,
                2,
                attempt="a2",
                resume_token="t-a1" if bad else "t-a2",
                page_id="g2",
                written=2,
            )
        ],
    }


def token_as_watermark(bad: bool) -> Tables:
    """A numeric next token copied into the watermark (twin: a token that is not it)."""
    return {
        "pages": [page("g1", 0, 1, 1, 1, next_token="57" if bad else "58")],
        "receipts": [receipt("e1", 1, page_id="g1")],
        "checkpoints": [
            checkpoint("p0", 1, 57, resume_token="57" if bad else "58", page_id="g1", written=1)
        ],
    }


def empty_page_advanced(bad: bool) -> Tables:
    """Closing an empty page raises the claim from 1 to 9; twin: the page has finality."""
    return {
        "pages": [
            finality("p0", 1, events=1, next_token="t1"),
            page(
                "p0-g1",
                1,
                0,
                request_token="t1",
                fetched=1,
                **({} if bad else {"finality_through": 9, "finality_inclusive": True}),
            ),
        ],
        "receipts": [receipt("e1", 1, page_id="p0-g0")],
        "checkpoints": [
            checkpoint("p0", 1, 1, written=0.5, page_id="p0-g0"),
            checkpoint("p0", 2, 9, written=2, page_id="p0-g1"),
        ],
    }


def ordering_mutated(bad: bool) -> Tables:
    return {
        "receipts": [receipt("e1", 1), receipt("e1", 4 if bad else 1, recorded=2)],
        "checkpoints": [checkpoint("p0", 1, 1)],
    }


def late_insert(bad: bool) -> Tables:
    """A snapshot event at 2 appears at t=5, after a claim through 3 (twin: at 4)."""
    rows = [
        {
            "scope_id": "s",
            "partition_id": "p0",
            "event_id": e,
            "position": p,
            "eligible": True,
            "eligibility_stable": True,
            "visible_at": None,
        }
        for e, p in (("e1", 1), ("e3", 3))
    ]
    rows.append(
        {
            "scope_id": "s",
            "partition_id": "p0",
            "event_id": "late",
            "position": 2 if bad else 4,
            "eligible": True,
            "eligibility_stable": True,
            "visible_at": at(5),
        }
    )
    return {
        "snapshot": rows,
        "snapshot_bounds": [
            {
                "scope_id": "s",
                "partition_id": "p0",
                "complete_through": 9,
                "complete_inclusive": True,
            }
        ],
        "receipts": [receipt("e1", 1), receipt("e3", 3)],
        "checkpoints": [checkpoint("p0", 1, 3, written=1)],
    }


def unknown_endpoint(bad: bool) -> Tables:
    return {"checkpoints": [checkpoint("p0", 1, 5, inclusive=None if bad else True)]}


def _epochs(cutover: int, coverage: int | None, cutover_at: float = 10) -> Tables:
    return {
        "epochs": [
            {"scope_id": "s", "epoch": 1, "effective_at": at(0), "cutover": None},
            {
                "scope_id": "s",
                "epoch": 2,
                "effective_at": at(cutover_at),
                "cutover": cutover,
                "cutover_inclusive": True,
            },
        ],
        "members": [
            {"scope_id": "s", "epoch": 1, "partition_id": "A", "role": "member"},
            {"scope_id": "s", "epoch": 2, "partition_id": "A", "role": "member"},
            {
                "scope_id": "s",
                "epoch": 2,
                "partition_id": "B",
                "role": "member",
                "coverage_from": coverage,
            },
        ],
        "checkpoints": [checkpoint("A", 1, 40, written=1), checkpoint("B", 1, 60, written=11)],
    }


def unproven_membership(bad: bool) -> Tables:
    """B joins at epoch 2 (cutover 40) with coverage from 45 (twin: from 41)."""
    return _epochs(40, 45 if bad else 41)


def cutover_overclaim(bad: bool) -> Tables:
    """The cutover 50 is above the frontier 40 before it (twin: 40)."""
    return _epochs(50 if bad else 40, 41)


def _published(value: int | None, second: int | None = None) -> Tables:
    rows = [
        {
            "scope_id": "s",
            "epoch": None,
            "published_at": at(2),
            "kind": "scalar",
            "frontier": value,
            "frontier_inclusive": True,
        }
    ]
    if second is not None:
        rows.append(
            {
                "scope_id": "s",
                "epoch": None,
                "published_at": at(3),
                "kind": "scalar",
                "frontier": second,
                "frontier_inclusive": True,
            }
        )
    return {
        "checkpoints": [checkpoint("A", 1, 40, written=1), checkpoint("B", 1, 60, written=1)],
        "published": rows,
    }


def published_overclaim(bad: bool) -> Tables:
    return _published(50 if bad else 40)


def published_regressed(bad: bool) -> Tables:
    return _published(40, 30 if bad else 40)


def stalled_partition(bad: bool) -> Tables:
    """A holds the frontier at 10 while B moves on for 20 (twin: 5) minutes."""
    minutes = 20 if bad else 5
    return {
        "checkpoints": [
            checkpoint("A", 1, 10, written=0),
            checkpoint("B", 1, 20, written=0),
            *[checkpoint("B", g, 20 + g, written=60 * minutes * g / 4) for g in range(2, 5)],
        ]
    }


def replayed_events(bad: bool) -> Tables:
    return {
        "receipts": [
            receipt("e1", 1),
            receipt("e1", 1, recorded=2 if bad else 0, outcome="committed" if bad else "failed"),
        ],
        "checkpoints": [checkpoint("p0", 1, 1)],
    }


CASES: dict[str, tuple[Callable[[bool], Tables], dict[str, Any]]] = {
    "skipped_event": (skipped_event, {"partition_id": "p0", "event_id": "e2"}),
    "overclaim": (overclaim, {"partition_id": "p0", "generation": 1}),
    "watermark_regressed": (watermark_regressed, {"partition_id": "p0", "generation": 2}),
    "cas_chain_broken": (cas_chain_broken, {"partition_id": "p0", "generation": 2}),
    "stale_owner_won": (stale_owner_won, {"partition_id": "p0", "generation": 2}),
    "mixed_checkpoint": (mixed_checkpoint, {"partition_id": "p0", "attempt_id": "a2"}),
    "token_as_watermark": (token_as_watermark, {"partition_id": "p0", "generation": 1}),
    "empty_page_advanced": (empty_page_advanced, {"partition_id": "p0", "generation": 2}),
    "ordering_mutated": (ordering_mutated, {"partition_id": "p0", "event_id": "e1"}),
    "late_insert": (late_insert, {"partition_id": "p0", "event_id": "late"}),
    "unknown_endpoint": (unknown_endpoint, {"partition_id": "p0", "generation": 1}),
    "unproven_membership": (unproven_membership, {"partition_id": "B", "epoch": 2}),
    "cutover_overclaim": (cutover_overclaim, {"epoch": 2}),
    "published_overclaim": (published_overclaim, {"at": at(2).replace(tzinfo=None)}),
    "published_regressed": (published_regressed, {"at": at(3).replace(tzinfo=None)}),
    "stalled_partition": (stalled_partition, {"partition_id": "A"}),
    "replayed_events": (replayed_events, {"partition_id": "p0"}),
}


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_fires_on_its_case(tmp_path: Path, rule: str) -> None:
    build, key = CASES[rule]
    rows = found(tmp_path / "bad", build(True), rule)
    assert len(rows) == 1, rows
    for name, value in key.items():
        assert rows[0][name] == value, name
    assert rows[0]["message"]
    assert rows[0]["evidence"].startswith("{")


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_stays_quiet_on_its_twin(tmp_path: Path, rule: str) -> None:
    build, _ = CASES[rule]
    assert found(tmp_path / "twin", build(False), rule) == []


def test_overclaim_causes(tmp_path: Path) -> None:
    """The cause is the first of token, empty_page, past_blocking_event,
    observed_max, unknown that applies."""
    token = token_as_watermark(True)
    token["pages"][0].update(finality_through=1, finality_inclusive=True)
    assert '"cause":"token"' in found(tmp_path / "a", token, "overclaim")[0]["evidence"]
    empty = found(tmp_path / "b", empty_page_advanced(True), "overclaim")
    assert '"cause":"empty_page"' in empty[0]["evidence"]
    past = found(tmp_path / "c", skipped_event(True), "overclaim")
    assert '"cause":"past_blocking_event"' in past[0]["evidence"]
    observed = {
        "pages": [finality("p0", 1, events=2)],
        "receipts": [receipt("e1", 1, page_id="p0-g0"), receipt("e2", 2, page_id="p0-g0")],
        "checkpoints": [checkpoint("p0", 1, 2, written=1)],
    }
    assert '"cause":"observed_max"' in found(tmp_path / "d", observed, "overclaim")[0]["evidence"]
    assert '"cause":"unknown"' in found(tmp_path / "e", overclaim(True), "overclaim")[0]["evidence"]


def test_a_token_in_another_ordering_is_still_a_token(tmp_path: Path) -> None:
    """token_as_watermark compares a watermark with a token, not with another claim
    (docs/contract.md §8): it fires on a claim stated in another ordering. overclaim,
    which compares the claim with the partition's bounds, skips that claim."""
    tables = token_as_watermark(True)
    tables["pages"][0].update(finality_through=1, finality_inclusive=True)
    tables["checkpoints"][0]["ordering"] = "event_time"
    tables["scopes"] = [{"scope_id": "s", "ordering": "seq", "domain": "discrete"}]
    (row,) = found(tmp_path / "other", tables, "token_as_watermark")
    assert (row["partition_id"], row["generation"]) == ("p0", 1)
    assert found(tmp_path / "other-overclaim", tables, "overclaim") == []
    # the same claim in the scope's ordering overclaims, the token its cause
    tables["checkpoints"][0]["ordering"] = "seq"
    (over,) = found(tmp_path / "own", tables, "overclaim")
    assert '"cause":"token"' in over["evidence"]


def test_a_rule_reports_each_key_once(tmp_path: Path) -> None:
    """§5: two won writes of attempt a2 with generation 2 (one key), neither after a
    generation 1: each breaks the chain, and the finding is reported once, at the
    earlier write."""
    tables = {
        "checkpoints": [
            checkpoint("p0", 2, 5, attempt="a2", expected=1, written=2),
            checkpoint("p0", 2, 6, attempt="a2", expected=1, written=5),
        ]
    }
    rows = found(tmp_path, tables, "cas_chain_broken")
    assert [(r["attempt_id"], r["generation"], r["at"]) for r in rows] == [
        ("a2", 2, at(2).replace(tzinfo=None))
    ]


def test_the_finding_kept_of_one_key_does_not_depend_on_row_order(tmp_path: Path) -> None:
    """Two won writes of a2, generation 1, at one instant, each without an endpoint:
    one unknown_endpoint finding, the same whichever row the file holds first."""
    writes = [checkpoint("p0", 1, mark, attempt="a2", written=2, inclusive=None) for mark in (5, 9)]
    kept = []
    for name, order in (("a", writes), ("b", writes[::-1])):
        (row,) = found(tmp_path / name, {"checkpoints": order}, "unknown_endpoint")
        kept.append(row["evidence"])
    assert kept[0] == kept[1]


def test_a_token_handed_for_another_partition_is_a_mixed_checkpoint(tmp_path: Path) -> None:
    """Attempt a1 reads p0 and p1; p0's checkpoint keeps the token of p1's page: it
    would resume p0 from p1's stream. Twin: p0's own page's token."""

    def tables(token: str) -> Tables:
        return {
            "pages": [
                page("g0", 0, 1, 1, 1, next_token="t-p0"),
                page("g1", 0, 1, 1, 1, partition="p1", next_token="t-p1"),
            ],
            "receipts": [
                receipt("e1", 1, page_id="g0"),
                receipt("f1", 1, page_id="g1", partition="p1"),
            ],
            "checkpoints": [checkpoint("p0", 1, 1, resume_token=token, page_id="g0", written=1)],
        }

    rows = found(tmp_path / "a", tables("t-p1"), "mixed_checkpoint")
    assert [(r["partition_id"], r["attempt_id"]) for r in rows] == [("p0", "a1")]
    assert found(tmp_path / "b", tables("t-p0"), "mixed_checkpoint") == []


def test_observed_max_compares_the_claim_as_a_certificate(tmp_path: Path) -> None:
    """§2: discrete certificates are normalized before any comparison. A claim of
    (3, exclusive) is 2 inclusive, the highest known position: observed_max; a claim
    of (2, exclusive) is 1 inclusive, below it: unknown, though its number is 2."""

    def cause(name: str, through: int, watermark: int) -> str:
        tables = {
            "pages": [finality("p0", through, events=2)],
            "receipts": [receipt("e1", 1, page_id="p0-g0"), receipt("e2", 2, page_id="p0-g0")],
            "checkpoints": [checkpoint("p0", 1, watermark, written=1, inclusive=False)],
        }
        (row,) = found(tmp_path / name, tables, "overclaim")
        evidence = json.loads(row["evidence"])
        # certificates in inclusive form (§6), the watermark as written beside them
        assert (evidence["claimed_through"], evidence["claimed_inclusive"]) == (watermark - 1, True)
        assert (evidence["watermark"], evidence["watermark_inclusive"]) == (watermark, False)
        return str(evidence["cause"])

    assert cause("a", 1, 3) == "observed_max"
    assert cause("b", 0, 2) == "unknown"


def test_observed_max_reads_a_mutated_event_at_its_position_at_written_at(
    tmp_path: Path,
) -> None:
    """§5 overclaim: observed_max compares the claim with the highest known position
    at written_at, where an event seen at two positions sorts at the lowest of those
    seen by then (§4.5). A lower position seen only after the write does not change
    what was known at it, in either direction."""

    def seen(name: str, event: str, first: int, later: int) -> tuple[str, int]:
        # the provider certifies through 1; the claim of 5 is written at 1, when
        # `event` had been seen at `first` only; at 5 it is seen at `later`
        tables = {
            "pages": [finality("p0", 1)],
            "receipts": [
                receipt("e1", 1),
                receipt(event, first),
                receipt(event, later, recorded=5),
            ],
            "checkpoints": [checkpoint("p0", 1, 5, written=1)],
        }
        (row,) = found(tmp_path / name, tables, "overclaim")
        evidence = json.loads(row["evidence"])
        return evidence["cause"], evidence["highest_known_position"]

    # the highest known at written_at is 9, not 5: the claim is not the observed max
    assert seen("a", "e9", 9, 5) == ("unknown", 9)
    # the highest known at written_at is 5, the claim: the observed max
    assert seen("b", "e5", 5, 2) == ("observed_max", 5)


def test_a_page_fetched_after_as_of_is_absent_for_the_write_rules(tmp_path: Path) -> None:
    """§4: with --as-of, rows after T are as if absent, also the page a write names.
    At T = 3 the empty page e0 and the page g1 (both fetched at 5) do not exist yet:
    the write closing e0 raised nothing through an empty page (no
    empty_page_advanced, and its overclaim's cause is not empty_page), and the write
    naming g1 copied no page token (no token_as_watermark). At the end of the log
    both pages are there and both rules fire."""
    tables = {
        "pages": [
            finality("p0", 3),
            page("e0", 1, 0, partition="p0", fetched=5),
            page("g1", 0, 1, 1, 1, partition="p1", next_token="9", fetched=5),
        ],
        "checkpoints": [
            checkpoint("p0", 1, 9, written=1, page_id="e0"),
            checkpoint("p1", 1, 9, written=1, page_id="g1"),
        ],
    }
    path = write_logset(tmp_path, tables)

    def rules(as_of: datetime | None) -> dict[str, list[str | None]]:
        with open_logset(path) as logset:
            rows = audit(logset, as_of=as_of).findings.to_dicts()
        out: dict[str, list[str | None]] = {}
        for row in rows:
            cause = json.loads(row["evidence"]).get("cause")
            out.setdefault(row["rule"], []).append(cause)
        return out

    early = rules(at(3))
    assert "empty_page_advanced" not in early
    assert "token_as_watermark" not in early
    assert early["overclaim"] == ["unknown"]
    late = rules(None)
    assert late["empty_page_advanced"] == [None]
    assert late["token_as_watermark"] == [None]
    assert late["overclaim"] == ["empty_page"]


def test_an_empty_page_raises_the_claim_from_none_after_a_null_watermark(
    tmp_path: Path,
) -> None:
    """§4.11: after a won write whose watermark is null the partition has no claim. A
    write closing an empty page without finality then raises the claim from none,
    even below the last claim before the null one (10): empty_page_advanced fires,
    its evidence naming no previous claim. watermark_regressed still compares with
    that last claim (10), its more cautious reading."""
    tables = {
        "pages": [
            finality("p0", 1, events=1, next_token="t1"),
            page("p0-g1", 1, 0, request_token="t1", fetched=3),
        ],
        "receipts": [receipt("e1", 1, page_id="p0-g0")],
        "checkpoints": [
            checkpoint("p0", 1, 10, written=1, page_id="p0-g0"),
            checkpoint("p0", 2, None, written=2),
            checkpoint("p0", 3, 5, written=4, page_id="p0-g1"),
        ],
    }
    rows = found(tmp_path, tables, "empty_page_advanced")
    assert [r["generation"] for r in rows] == [3]
    evidence = json.loads(rows[0]["evidence"])
    assert (evidence["claimed_through"], evidence["previous_through"]) == (5, None)
    regressed = found(tmp_path / "r", tables, "watermark_regressed")
    assert [r["generation"] for r in regressed] == [3]


def test_evidence_states_discrete_claims_in_inclusive_form(tmp_path: Path) -> None:
    """watermark_regressed: (8, exclusive) after 10 is the claim 7 inclusive, as the
    watermarks table states it; the write's own watermark is kept beside it."""
    tables = {
        "checkpoints": [
            checkpoint("p0", 1, 10, written=1),
            checkpoint("p0", 2, 8, written=2, inclusive=False),
        ]
    }
    (row,) = found(tmp_path, tables, "watermark_regressed")
    evidence = json.loads(row["evidence"])
    assert evidence == {
        "claimed_through": 7,
        "claimed_inclusive": True,
        "watermark": 8,
        "watermark_inclusive": False,
        "previous_through": 10,
        "previous_inclusive": True,
    }


def test_stall_threshold_is_a_setting(tmp_path: Path) -> None:
    assert found(tmp_path / "a", stalled_partition(False), "stalled_partition", stall_minutes=2)
    assert not found(tmp_path / "b", stalled_partition(True), "stalled_partition", stall_minutes=60)


def _stall_to_the_end(end: float) -> Tables:
    """A's claim (the frontier) is unchanged from t0; B's last won write, at 9:56,
    leaves the frontier as it is; the log ends at ``end`` seconds on B's receipt."""
    return {
        "checkpoints": [
            checkpoint("A", 1, 10, written=0),
            checkpoint("B", 1, 20, written=0),
            checkpoint("B", 2, 30, written=300),
            checkpoint("B", 3, 40, written=596),
        ],
        "receipts": [receipt("e1", 1, partition="B", recorded=end)],
    }


def test_a_stall_still_running_at_the_end_of_the_log_is_measured_to_it(tmp_path: Path) -> None:
    """Issue 18 §4: the stay lasts from t0 to T (10:10), past the last evaluation
    instant (9:56): 610 s above a 10-minute threshold."""
    rows = found(tmp_path, _stall_to_the_end(610), "stalled_partition")
    assert [(r["partition_id"], r["at"]) for r in rows] == [("A", at(0).replace(tzinfo=None))]
    evidence = json.loads(rows[0]["evidence"])
    assert evidence["seconds"] == 610
    assert evidence["claimed_through"] == 10
    assert datetime.fromisoformat(evidence["since"]) == at(0).replace(tzinfo=None)
    assert datetime.fromisoformat(evidence["until"]) == at(610).replace(tzinfo=None)


def test_a_stall_ending_with_the_log_under_the_threshold_is_not_reported(
    tmp_path: Path,
) -> None:
    """The same stay, with the log ending at 9:59: 599 s, under 10 minutes."""
    assert found(tmp_path, _stall_to_the_end(599), "stalled_partition") == []


def test_ordering_mutated_names_no_time_for_a_snapshot_row_there_from_the_start(
    tmp_path: Path,
) -> None:
    """A snapshot row with visible_at null was first seen at no time: its first_seen
    was the engine's dawn, "1678-01-01 00:00:00", a date a reader would take as real."""
    tables = {
        "snapshot": [
            {
                "scope_id": "s",
                "partition_id": "p0",
                "event_id": "e1",
                "position": 1,
                "eligible": True,
                "eligibility_stable": True,
                "visible_at": None,
            }
        ],
        "snapshot_bounds": [
            {
                "scope_id": "s",
                "partition_id": "p0",
                "complete_through": 9,
                "complete_inclusive": True,
            }
        ],
        "receipts": [receipt("e1", 4, recorded=2)],
        "checkpoints": [checkpoint("p0", 1, 1)],
    }
    (row,) = found(tmp_path, tables, "ordering_mutated")
    evidence = json.loads(row["evidence"])
    sightings = dict(zip(evidence["positions"], evidence["first_seen"], strict=True))
    assert sightings[1] is None
    assert sightings[4] is not None and not sightings[4].startswith("1678")


def test_an_unknown_cutover_endpoint_is_said_unknown_in_the_evidence(tmp_path: Path) -> None:
    """B joins at epoch 2, whose cutover has no endpoint: the evidence says so rather
    than calling it inclusive."""
    tables = _epochs(40, 41)
    tables["epochs"][1]["cutover_inclusive"] = None
    (row,) = found(tmp_path, tables, "unproven_membership")
    evidence = json.loads(row["evidence"])
    assert evidence["cutover_unknown"] is True
    assert evidence["cutover_inclusive"] is None
    (twin,) = found(tmp_path / "twin", _epochs(40, 45), "unproven_membership")
    assert json.loads(twin["evidence"])["cutover_inclusive"] is True


def test_a_null_epoch_publication_is_epoch_1_in_both_published_rules(tmp_path: Path) -> None:
    """A scope without epochs: a publication with a null epoch is its epoch 1 in
    published_regressed, and in published_overclaim alike."""
    (over,) = found(tmp_path / "over", _published(50), "published_overclaim")
    (regressed,) = found(tmp_path / "back", _published(40, 30), "published_regressed")
    assert over["epoch"] == regressed["epoch"] == 1
    assert json.loads(over["evidence"])["published_epoch"] is None  # as published
