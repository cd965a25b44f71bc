"""The merged-frontier seed's examples and the membership cases, one log set each.

Seed: docs/procedures/merged-frontier.md. Positions are small integers, times are
seconds after a fixed origin (tests/logsets.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reconcile import Analysis, open_logset
from reconcile.cli import main
from tests.logsets import at, checkpoint, page, receipt, write_logset


def frontier(
    tmp_path: Path, tables: dict[str, Any], basis: str = "claimed", as_of: Any = None
) -> dict[str, Any]:
    path = write_logset(tmp_path / "ls", tables)
    with open_logset(path) as logset:
        rows = Analysis(logset, as_of).frontiers().to_dicts()
    (row,) = [r for r in rows if r["basis"] == basis]
    return row


def history(tmp_path: Path, tables: dict[str, Any], basis: str) -> list[dict[str, Any]]:
    path = write_logset(tmp_path / "hist", tables)
    with open_logset(path) as logset:
        rows = Analysis(logset).frontier_history().to_dicts()
    return [r for r in rows if r["basis"] == basis]


def proven_partition(
    partition: str, through: int, inclusive: bool, *, fetched: float = 0, events: int = 1
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A partition whose provider certifies `through` and whose events are all done."""
    pages = [
        page(
            f"g-{partition}",
            0,
            events,
            1,
            events,
            partition=partition,
            finality_through=through,
            finality_inclusive=inclusive,
            fetched=fetched,
        )
    ]
    receipts = [
        receipt(
            f"{partition}-e{i}", i, partition=partition, page_id=f"g-{partition}", recorded=fetched
        )
        for i in range(1, events + 1)
    ]
    return pages, receipts


@pytest.mark.parametrize(
    ("domain", "expected"), [("dense", (100, False)), ("discrete", (99, True))]
)
def test_mixed_endpoints_a_exclusive_b_inclusive(
    tmp_path: Path, domain: str, expected: tuple[int, bool]
) -> None:
    """A certifies everything strictly before 100, B through and including 100: the
    combined coverage is strictly before 100; on a discrete domain, through 99."""
    pa, ra = proven_partition("A", 100, False)
    pb, rb = proven_partition("B", 100, True)
    tables = {
        "scopes": [{"scope_id": "s", "ordering": "seq", "domain": domain}],
        "pages": pa + pb,
        "receipts": ra + rb,
        "checkpoints": [
            checkpoint("A", 1, 100, inclusive=False, written=1),
            checkpoint("B", 1, 100, inclusive=True, written=1),
        ],
    }
    for basis in ("claimed", "proven"):
        row = frontier(tmp_path / basis, tables, basis)
        assert row["kind"] == "scalar"
        assert (row["frontier"], row["frontier_inclusive"]) == expected
        # A's certificate is the lower one on both domains (equal values on discrete
        # once both are normalized only if B were exclusive too)
        assert row["limiting_partitions"] == ["A"]


def test_reasoned_example_late_retry_and_slow_partition(tmp_path: Path) -> None:
    """A complete through 120, B through 90: the frontier is 90. A late retry of an
    older A page loses its compare-and-swap: still 90. B reaches 110: 110."""
    tables = {
        "checkpoints": [
            checkpoint("A", 1, 120, written=1),
            checkpoint("B", 1, 90, written=2),
            checkpoint("A", 1, 60, attempt="old", written=3, cas="lost"),
            checkpoint("B", 2, 110, written=4),
        ],
    }
    assert frontier(tmp_path / "t2", tables, as_of=at(2))["frontier"] == 90
    assert frontier(tmp_path / "t3", tables, as_of=at(3))["frontier"] == 90
    end = frontier(tmp_path / "end", tables)
    assert (end["frontier"], end["limiting_partitions"]) == (110, ["B"])
    steps = [
        (r["at"], r["frontier"], r["trigger_partition_id"])
        for r in history(tmp_path, tables, "claimed")
    ]
    assert steps == [
        (at(1).replace(tzinfo=None), None, "A"),  # B has no claim yet: a vector
        (at(2).replace(tzinfo=None), 90, "B"),
        (at(4).replace(tzinfo=None), 110, "B"),
    ]


def test_never_the_maximum(tmp_path: Path) -> None:
    """A fast partition cannot carry the frontier past a slower one."""
    tables = {"checkpoints": [checkpoint("A", 1, 120), checkpoint("B", 1, 90)]}
    assert frontier(tmp_path, tables)["frontier"] == 90


def test_member_without_a_checkpoint_yet(tmp_path: Path) -> None:
    tables = {
        "checkpoints": [checkpoint("A", 1, 120)],
        "epochs": [{"scope_id": "s", "epoch": 1, "effective_at": at(0)}],
        "members": [
            {"scope_id": "s", "epoch": 1, "partition_id": p, "role": "member"} for p in ("A", "B")
        ],
    }
    row = frontier(tmp_path, tables)
    assert (row["kind"], row["reasons"], row["members"]) == ("vector", ["no_certificate"], 2)
    vector = {v["partition_id"]: (v["through"], v["inclusive"]) for v in row["vector"]}
    assert vector == {"A": (120, True), "B": (None, None)}


def test_unknown_endpoint_keeps_the_vector(tmp_path: Path) -> None:
    tables = {"checkpoints": [checkpoint("A", 1, 120), checkpoint("B", 1, 90, inclusive=None)]}
    row = frontier(tmp_path, tables)
    assert (row["kind"], row["reasons"]) == ("vector", ["unknown_endpoint"])


def test_claim_in_another_ordering(tmp_path: Path) -> None:
    tables = {
        "scopes": [{"scope_id": "s", "ordering": "seq", "domain": "discrete"}],
        "checkpoints": [checkpoint("A", 1, 120), checkpoint("B", 1, 90, ordering="event_time")],
    }
    row = frontier(tmp_path, tables)
    assert (row["kind"], row["reasons"]) == ("vector", ["incomparable_ordering"])


@pytest.mark.parametrize(
    ("claim_b", "reason"),
    [
        ({"ordering": "event_time"}, "incomparable_ordering"),
        pytest.param({"inclusive": None}, "unknown_endpoint", marks=pytest.mark.slow),
    ],
)
def test_a_claim_that_bars_a_scalar_bars_it_on_the_proven_basis_too(
    tmp_path: Path, claim_b: dict[str, Any], reason: str
) -> None:
    """§4.14: "every endpoint is known, all claims are in the scope's ordering" is a
    condition of any scalar. A and B are proven through 120 and 90, but B claims in
    another ordering (or without an endpoint): the proven frontier is a vector too,
    in the frontier at T and in the history (it was a scalar 90 until 2026-12-06)."""
    pa, ra = proven_partition("A", 120, True, events=2)
    pb, rb = proven_partition("B", 90, True, events=2)
    tables = {
        "scopes": [{"scope_id": "s", "ordering": "seq", "domain": "discrete"}],
        "pages": pa + pb,
        "receipts": ra + rb,
        "checkpoints": [
            checkpoint("A", 1, 120, written=1, page_id="g-A"),
            checkpoint("B", 1, 90, written=1, page_id="g-B", **claim_b),
        ],
    }
    for basis in ("claimed", "proven"):
        row = frontier(tmp_path / basis, tables, basis)
        assert (row["kind"], row["reasons"]) == ("vector", [reason]), basis
    if reason == "incomparable_ordering":
        vector = {v["partition_id"]: (v["through"], v["inclusive"]) for v in row["vector"]}
        assert vector == {"A": (120, True), "B": (90, True)}
    steps = history(tmp_path, tables, "proven")
    assert [(r["kind"], r["frontier"]) for r in steps] == [("vector", None)]


def test_stalled_partition_holds_the_frontier(tmp_path: Path) -> None:
    """B stops at 40 while A moves on: the frontier stays at 40, held by B."""
    tables = {
        "checkpoints": [
            checkpoint("B", 1, 40, written=1),
            *[checkpoint("A", g, 100 * g, written=g) for g in range(1, 6)],
        ]
    }
    steps = history(tmp_path, tables, "claimed")
    assert [r["frontier"] for r in steps] == [40]  # both claim at the first instant
    assert steps[-1]["limiting_partitions"] == ["B"]
    row = frontier(tmp_path / "now", tables)
    assert (row["frontier"], row["limiting_partitions"]) == (40, ["B"])


def test_empty_page_with_and_without_finality_on_the_proven_basis(tmp_path: Path) -> None:
    """B's last page is empty: only its own finality moves B's proven certificate."""
    pa, ra = proven_partition("A", 50, True)
    base_b = page(
        "gB1",
        0,
        1,
        5,
        5,
        partition="B",
        next_token="tb",
        finality_through=5,
        finality_inclusive=True,
    )
    rb = [receipt("b5", 5, partition="B", page_id="gB1")]
    checkpoints = [checkpoint("A", 1, 50), checkpoint("B", 1, 5)]
    without = {
        "pages": [*pa, base_b, page("gB2", 1, 0, partition="B", request_token="tb", fetched=1)],
        "receipts": ra + rb,
        "checkpoints": checkpoints,
    }
    assert frontier(tmp_path / "a", without, "proven")["frontier"] == 5
    with_finality = {
        "pages": [
            *pa,
            base_b,
            page(
                "gB2",
                1,
                0,
                partition="B",
                request_token="tb",
                fetched=1,
                finality_through=30,
                finality_inclusive=True,
            ),
        ],
        "receipts": ra + rb,
        "checkpoints": checkpoints,
    }
    assert frontier(tmp_path / "b", with_finality, "proven")["frontier"] == 30


def membership(
    cutover: int, joining: dict[str, Any] | None = None, retiring: dict[str, Any] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Epoch 1: A and B; epoch 2 (cutover given): A, with C joining and/or B retiring."""
    members = [
        {"scope_id": "s", "epoch": 1, "partition_id": "A", "role": "member"},
        {"scope_id": "s", "epoch": 1, "partition_id": "B", "role": "member"},
        {"scope_id": "s", "epoch": 2, "partition_id": "A", "role": "member"},
    ]
    if retiring is None:
        members.append({"scope_id": "s", "epoch": 2, "partition_id": "B", "role": "member"})
    else:
        members.append(
            {"scope_id": "s", "epoch": 2, "partition_id": "B", "role": "retiring", **retiring}
        )
    if joining is not None:
        members.append(
            {"scope_id": "s", "epoch": 2, "partition_id": "C", "role": "member", **joining}
        )
    return {
        "epochs": [
            {"scope_id": "s", "epoch": 1, "effective_at": at(0), "cutover": None},
            {
                "scope_id": "s",
                "epoch": 2,
                "effective_at": at(10),
                "cutover": cutover,
                "cutover_inclusive": True,
            },
        ],
        "members": members,
        "checkpoints": [
            checkpoint("A", 1, 90, written=1),
            checkpoint("B", 1, 50, written=2),
            checkpoint("C", 1, 80, written=11),
        ],
    }


def test_added_partition_with_coverage_proof(tmp_path: Path) -> None:
    tables = membership(50, joining={"coverage_from": 51})
    row = frontier(tmp_path, tables)
    assert (row["epoch"], row["kind"], row["frontier"]) == (2, "scalar", 50)
    assert row["limiting_partitions"] == ["B"]


def test_added_partition_without_coverage_proof(tmp_path: Path) -> None:
    for coverage in (None, 52):  # none at all, or leaving 51 uncovered
        tables = membership(50, joining={"coverage_from": coverage})
        row = frontier(tmp_path / str(coverage), tables)
        assert (row["epoch"], row["kind"], row["reasons"]) == (2, "vector", ["unproven_membership"])


def test_removed_partition_with_seal(tmp_path: Path) -> None:
    tables = membership(50, retiring={"sealed_through": 50, "sealed_inclusive": True})
    row = frontier(tmp_path, tables)
    assert (row["kind"], row["frontier"], row["members"]) == ("scalar", 90, 1)


def test_removed_partition_without_seal(tmp_path: Path) -> None:
    for seal in (
        {},
        {"sealed_through": 49, "sealed_inclusive": True},
        {"sealed_through": 80, "sealed_inclusive": None},
    ):
        tables = membership(50, retiring=seal)
        row = frontier(tmp_path / str(len(seal)) / str(seal.get("sealed_through")), tables)
        assert (row["kind"], row["reasons"]) == ("vector", ["unproven_membership"])


def test_frontier_before_the_first_epoch(tmp_path: Path) -> None:
    tables = membership(50, joining={"coverage_from": 51})
    tables["epochs"][0]["effective_at"] = at(5)
    row = frontier(tmp_path, tables, as_of=at(3))
    assert (row["epoch"], row["kind"], row["reasons"], row["members"]) == (
        None,
        "vector",
        ["unproven_membership"],
        0,
    )


def test_command_line_prints_both_bases(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_logset(
        tmp_path / "ls", {"checkpoints": [checkpoint("A", 1, 120), checkpoint("B", 1, 90)]}
    )
    assert main(["frontier", str(path)]) == 0
    out = capsys.readouterr().out
    assert "complete <= 90 (held by B)" in out
    assert "[proven]" in out
    assert main(["frontier", str(path), "--basis", "claimed", "--json"]) == 0
    assert '"frontier": 90' in capsys.readouterr().out


def test_a_page_block_before_a_mutation_uses_the_position_seen_then(tmp_path: Path) -> None:
    """p1's page holds two events in [5, 6]; at 0 s one receipt on it (b at 6): the page
    blocks right after b, so p1 is proven through 5 (its finality reaches 9). At 1 s b is
    seen at 5 too: mutated, it sorts at 5 from then on, not before. p0 (snapshot bounds
    through 9) writes the checkpoint that makes 0 s an instant of the history."""
    tables = {
        "checkpoints": [checkpoint("p0", 1, None, scope="s0", written=0)],
        "receipts": [
            receipt("b", 6, partition="p1", scope="s0", recorded=0, page_id="g2"),
            receipt("b", 5, partition="p1", scope="s0", recorded=1, page_id=None),
        ],
        "pages": [
            page("g1", 0, 0, partition="p0", scope="s0", fetched=0),
            page(
                "g2",
                0,
                2,
                5,
                6,
                partition="p1",
                scope="s0",
                fetched=0,
                finality_through=9,
                finality_inclusive=True,
            ),
        ],
        "snapshot_bounds": [
            {
                "scope_id": "s0",
                "partition_id": "p0",
                "complete_through": 9,
                "complete_inclusive": True,
            }
        ],
    }
    rows = history(tmp_path, tables, "proven")
    # at 0 s b sorts at 6, where it was seen then: the block lies after 6 (4 here was
    # the old deviation, which placed b at 5, where it sorts only from 1 s on)
    assert [(r["at"], r["frontier"], r["frontier_inclusive"]) for r in rows] == [
        (at(0).replace(tzinfo=None), 5, True)
    ]


def test_the_history_never_proves_more_than_the_frontier_as_of_its_instant(
    tmp_path: Path,
) -> None:
    """p1's page g [10, 14] holds 2 events; at 1 s only e10 lies in it (e20, seen at
    20, moves to 12 at 3 s), so at 1 s g blocks right after e10 and p1 is proven through 9
    (found by review: the history took g as complete at 1 s and proved 30, its
    finality). p0 (snapshot bounds through 50) writes the checkpoints that make 1 s
    and 4 s instants of the history."""
    tables = {
        "checkpoints": [
            checkpoint("p0", 1, None, scope="s0", written=1),
            checkpoint("p0", 2, None, scope="s0", written=4),
        ],
        "receipts": [
            receipt("e10", 10, partition="p1", scope="s0", recorded=1, page_id="g"),
            receipt("e20", 20, partition="p1", scope="s0", recorded=1, page_id=None),
            receipt("e20", 12, partition="p1", scope="s0", recorded=3, page_id=None),
        ],
        "pages": [
            page("g0", 0, 0, partition="p0", scope="s0", fetched=0),
            page(
                "g",
                0,
                2,
                10,
                14,
                partition="p1",
                scope="s0",
                fetched=0.5,
                finality_through=30,
                finality_inclusive=True,
            ),
        ],
        "snapshot_bounds": [
            {
                "scope_id": "s0",
                "partition_id": "p0",
                "complete_through": 50,
                "complete_inclusive": True,
            }
        ],
    }
    rows = history(tmp_path, tables, "proven")
    assert rows, "the history has rows"
    for row in rows:
        now = frontier(tmp_path / str(row["at"].timestamp()), tables, "proven", as_of=row["at"])
        assert (row["frontier"], row["frontier_inclusive"]) == (
            now["frontier"],
            now["frontier_inclusive"],
        ), row["at"]
    assert (rows[0]["frontier"], rows[0]["frontier_inclusive"]) == (9, True)


@pytest.mark.parametrize(
    ("first_stable", "expected"),
    [
        # proven ineligible by its first receipt: e1 never blocks
        (True, [(2, 2)]),
        # its first receipt leaves it open (eligibility not stable): e1 blocks until
        # the receipt that proves it ineligible, at 3 s: the frontier stays at 0 (where
        # it was at 0 s, the page's events not yet known) until the write at 4 s
        (False, [(4, 2)]),
    ],
)
def test_an_ineligible_event_blocks_until_proven_ineligible(
    tmp_path: Path, first_stable: bool, expected: list[tuple[float, int]]
) -> None:
    """e1 and e2 on one page; e2 committed at 1 s, e1 found ineligible at 1 s and
    again, with eligibility_stable, at 3 s; checkpoints written at 0, 2 and 4 s. The
    proven frontier passes e1 from its first receipt only where that receipt proves
    it ineligible (§4.3)."""
    tables = {
        "checkpoints": [
            checkpoint("p0", 1, None, written=0),
            checkpoint("p0", 2, None, written=2),
            checkpoint("p0", 3, None, written=4),
        ],
        "pages": [page("g1", 0, 2, 1, 2, finality_through=2, finality_inclusive=True)],
        "receipts": [
            receipt("e2", 2, recorded=1, page_id="g1"),
            receipt(
                "e1", 1, "ineligible", recorded=1, page_id="g1", eligibility_stable=first_stable
            ),
            receipt("e1", 1, "ineligible", recorded=3, page_id="g1", eligibility_stable=True),
        ],
    }
    rows = history(tmp_path, tables, "proven")
    got = [(r["at"], r["frontier"]) for r in rows if r["at"] > at(0).replace(tzinfo=None)]
    assert got == [(at(t).replace(tzinfo=None), f) for t, f in expected]
