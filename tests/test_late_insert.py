"""Rule late_insert (docs/contract.md §5) against a plain reference: an eligible snapshot
event became visible after a won claim of its partition, written at or before its
visible_at, already covered its position. The engine finds it through the running
highest claim (an ASOF join); the reference looks at every write."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconcile import open_logset
from reconcile.audit import audit
from tests.conftest import examples
from tests.logsets import at, checkpoint, receipt, write_logset

# won writes: (written_at, watermark, inclusive: True, False or None = unknown)
writes = st.lists(
    st.tuples(st.integers(0, 8), st.integers(0, 9), st.sampled_from([True, False, None])),
    min_size=1,
    max_size=6,
)
# snapshot rows: (event, position, eligible, visible_at or None)
rows = st.lists(
    st.tuples(
        st.sampled_from(["e0", "e1", "e2", "e3"]),
        st.integers(0, 9),
        st.booleans(),
        st.none() | st.integers(0, 9),
    ),
    min_size=1,
    max_size=8,
)


def _covers(watermark: int, inclusive: bool | None, position: int) -> bool:
    # an unknown endpoint is read as inclusive, its strongest reading
    return watermark >= position if inclusive in (True, None) else watermark > position


def reference(
    won: list[tuple[int, int, bool | None]], snapshot: list[tuple[str, int, bool, int | None]]
) -> dict[str, int]:
    """event -> generation of the first won write (by written_at, then generation)
    that covered it at or before it became visible."""
    late: dict[str, tuple[int, int]] = {}
    for event, position, eligible, visible in snapshot:
        if eligible and visible is not None:
            low, seen = late.get(event, (position, visible))
            late[event] = (min(low, position), min(seen, visible))
    found = {}
    for event, (position, visible) in late.items():
        covering = [
            (written, generation)
            for generation, (written, watermark, inclusive) in enumerate(won, start=1)
            if written <= visible and _covers(watermark, inclusive, position)
        ]
        if covering:
            found[event] = min(covering)[1]
    return found


def _tables(
    won: list[tuple[int, int, bool | None]], snapshot: list[tuple[str, int, bool, int | None]]
) -> dict[str, Any]:
    return {
        "checkpoints": [
            checkpoint("p0", generation, watermark, written=written, inclusive=inclusive)
            for generation, (written, watermark, inclusive) in enumerate(won, start=1)
        ],
        "snapshot": [
            {
                "scope_id": "s",
                "partition_id": "p0",
                "event_id": event,
                "position": position,
                "eligible": eligible,
                "eligibility_stable": True,
                "visible_at": None if visible is None else at(visible),
            }
            for event, position, eligible, visible in snapshot
        ],
        "snapshot_bounds": [
            {
                "scope_id": "s",
                "partition_id": "p0",
                "complete_through": 9,
                "complete_inclusive": True,
            }
        ],
        # T after every row
        "receipts": [receipt("x", 0, recorded=20)],
    }


@pytest.mark.slow
@given(writes, rows)
@settings(max_examples=examples(25), deadline=None)
def test_late_insert_equals_the_reference(
    tmp_path_factory: Any,
    won: list[tuple[int, int, bool | None]],
    snapshot: list[tuple[str, int, bool, int | None]],
) -> None:
    path = write_logset(Path(tmp_path_factory.mktemp("late")), _tables(won, snapshot))
    with open_logset(path) as logset:
        findings = audit(logset).findings.to_dicts()
    got = {f["event_id"]: f["generation"] for f in findings if f["rule"] == "late_insert"}
    assert got == reference(won, snapshot)


def test_writes_at_one_instant_count_together(tmp_path: Path) -> None:
    """Two won writes at the same instant, the later generation claiming less: the
    higher claim, written at that instant, covered the event."""
    won = [(3, 5, True), (3, 1, True)]
    snapshot = [("e0", 4, True, 3)]
    path = write_logset(tmp_path, _tables(won, snapshot))
    with open_logset(path) as logset:
        findings = audit(logset).findings.to_dicts()
    got = {f["event_id"]: f["generation"] for f in findings if f["rule"] == "late_insert"}
    assert got == {"e0": 1} == reference(won, snapshot)
