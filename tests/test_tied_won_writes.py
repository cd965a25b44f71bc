"""Two won writes of one partition that tie on the whole order §4.11 names
(written_at, generation, attempt_id) but claim different watermarks: the contract
gives them no order, so the result must not depend on the order of the rows in the
files, and of the two readings the one taken is the strongest claim (as §4.11 reads
an unknown endpoint): an event under either tied claim is never left unreported."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reconcile import open_logset
from reconcile.audit import audit
from tests.logsets import checkpoint, receipt, write_logset


def _tables(higher_first: bool) -> dict[str, list[dict[str, Any]]]:
    tied = [checkpoint("A", 1, 10, written=1), checkpoint("A", 1, 90, written=1)]
    if higher_first:
        tied.reverse()
    return {
        "checkpoints": [*tied, checkpoint("B", 1, 100, written=1)],
        "receipts": [
            receipt("e10", 10, partition="A", recorded=0.5),
            receipt("e50", 50, "failed", partition="A", recorded=0.5),
            receipt("b1", 1, partition="B", recorded=0.5),
        ],
    }


@pytest.mark.parametrize("higher_first", [False, True])
def test_tied_won_writes_give_the_strongest_claim_whatever_the_row_order(
    tmp_path: Path, higher_first: bool
) -> None:
    path = write_logset(tmp_path / "logs", _tables(higher_first))
    with open_logset(path) as logset:
        result = audit(logset, timelines=False)
    claimed = result.frontiers.filter(result.frontiers["basis"] == "claimed").to_dicts()[0]
    assert (claimed["kind"], claimed["frontier"]) == ("scalar", 90)
    marks = {r["partition_id"]: r for r in result.watermarks.to_dicts()}
    assert marks["A"]["claimed_through"] == 90
    assert marks["A"]["claim_status"] == "overclaim"
    rules = sorted(r["rule"] for r in result.findings.to_dicts())
    # the later of the two, by the order the claim is read in, is the higher claim:
    # no regression between them, and e50 lies under the claim in force
    assert "skipped_event" in rules
    assert "watermark_regressed" not in rules
