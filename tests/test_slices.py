"""The event level in slices of partitions gives what it gives in one piece."""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reconcile.engine.analysis as analysis_module
from reconcile import open_logset
from reconcile.audit import audit
from reconcile.engine import Analysis
from reconcile.engine.declare import Registry
from reconcile.engine.registry import REGISTRY
from reconcile.engine.steps.watermarks import EVENT_LEVEL
from tests.conftest import examples, fast_tier
from tests.logsets import write_logset
from tests.strategies import logsets, moment

DATA = Path(__file__).resolve().parents[1] / "data"


def slice_small(monkeypatch: pytest.MonkeyPatch, per_slice: int = 1_000) -> None:
    """From now on the engine cuts the event level into slices of ``per_slice``
    receipts and snapshot rows."""
    small = dataclasses.replace(EVENT_LEVEL, per_slice=per_slice)
    registry = Registry(
        tuple(small if p is EVENT_LEVEL else p for p in REGISTRY.producers),
        REGISTRY.guards,
        REGISTRY.phases,
    )
    monkeypatch.setattr(analysis_module, "REGISTRY", registry)


# faults and timestamps hold snapshots; membership does not
@pytest.mark.parametrize("name", fast_tier(["faults", "membership", "timestamps"], keep=[]))
def test_slices_change_nothing(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    with open_logset(DATA / name) as logset:
        whole = audit(logset)
    slice_small(monkeypatch)
    with open_logset(DATA / name) as logset, Analysis(logset) as sliced_analysis:
        sliced_analysis.watermarks()
        slices = [q for q, _ in sliced_analysis.timings if q == "watermarks/slice"]
        assert len(slices) > 1
    with open_logset(DATA / name) as logset:
        sliced = audit(logset)
    assert sliced.watermarks.equals(whole.watermarks)
    assert sliced.frontiers.equals(whole.frontiers)
    assert sliced.frontier_history.equals(whole.frontier_history)
    assert sliced.findings.equals(whole.findings)
    assert sliced.timelines.equals(whole.timelines)


@contextmanager
def sliced(per_slice: int) -> Iterator[None]:
    """Within: the event level in slices of ``per_slice`` rows (no fixture, so that a
    Hypothesis example can enter it)."""
    with pytest.MonkeyPatch.context() as patch:
        slice_small(patch, per_slice)
        yield


# Hypothesis: whole and sliced audits of many log sets; outside the fast tier.
@pytest.mark.slow
@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=logsets(), cut=st.one_of(st.none(), st.integers(0, 12)))
def test_slices_change_nothing_on_random_log_sets(case: dict[str, Any], cut: int | None) -> None:
    """A random log set (every table of the contract, mutated orderings, snapshots,
    pages that straddle events of other pages) audited with a slice per two rows, so
    that an event's partition and its neighbours' fall in different slices, gives the
    audit made in one piece: every table, at T or at its end."""
    as_of = None if cut is None else moment(cut)
    with tempfile.TemporaryDirectory() as folder:
        path = write_logset(
            Path(folder) / "logset",
            {k: v for k, v in case["tables"].items() if v},
            case["coordinate"],
        )
        with open_logset(path) as logset:
            whole = audit(logset, as_of=as_of)
        with sliced(2), open_logset(path) as logset:
            in_slices = audit(logset, as_of=as_of)
    assert in_slices.watermarks.equals(whole.watermarks)
    assert in_slices.frontiers.equals(whole.frontiers)
    assert in_slices.frontier_history.equals(whole.frontier_history)
    assert in_slices.findings.equals(whole.findings)
    assert in_slices.timelines.equals(whole.timelines)


@pytest.mark.slow
def test_sliced_page_receipts_equal_the_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each page's receipts (rc_page_receipts) in slices equal those made in one piece,
    and so does each page's status (rc_page_status; the event a block names only for
    incomplete pages: tests/test_page_blocks.py). In one piece, the slice holds
    data/faults' mutated event and every page is counted from receipts, its last event
    named; in slices, the pages of slices without it come from the page pass: a page
    pass that differs from the count shows here (the pages' own_min_pos, for one,
    never reaches an output)."""
    order = ["scope_id", "partition_id", "page_id"]
    with open_logset(DATA / "faults") as logset, Analysis(logset) as whole_analysis:
        whole = whole_analysis.read("rc_page_receipts").sort(order)
        whole_status = whole_analysis.read("rc_page_status").sort(order)
        mutated = whole_analysis.read("rc_mutated")
    assert mutated.height > 0
    assert whole["last_event_id"].null_count() == 0
    slice_small(monkeypatch)
    with open_logset(DATA / "faults") as logset, Analysis(logset) as sliced_analysis:
        sliced = sliced_analysis.read("rc_page_receipts").sort(order)
        sliced_status = sliced_analysis.read("rc_page_status").sort(order)
        assert len([q for q, _ in sliced_analysis.timings if q == "watermarks/slice"]) > 1
    # only the slice that holds the mutated event names the pages' last events
    assert 0 < sliced["last_event_id"].null_count() < sliced.height
    assert sliced.drop("last_event_id").equals(whole.drop("last_event_id"))
    incomplete = pl.col("incomplete")
    assert sliced_status.drop("block").equals(whole_status.drop("block"))
    assert sliced_status.filter(incomplete).equals(whole_status.filter(incomplete))
    block_positions = pl.col("block").struct.field("p")
    assert sliced_status.select(block_positions).equals(whole_status.select(block_positions))


@pytest.mark.parametrize(
    ("snapshot", "expected"),
    [
        # with a snapshot: the events at several positions go once their rows are read
        # again, receipt events once known_events is made, the snapshot slice and the
        # moved events once late_events has run, known events after the last
        # collected step
        (
            True,
            {
                2: ["rc_several_positions"],
                4: ["rc_receipt_events"],
                5: ["rc_moved", "rc_snapshot_slice"],
                13: ["rc_known_events"],
            },
        ),
        # without: rc_known_events is a view over rc_receipt_events, which stays as
        # long as the view is read (the view goes first)
        (
            False,
            {
                2: ["rc_several_positions"],
                5: ["rc_moved", "rc_snapshot_slice"],
                13: ["rc_known_events", "rc_receipt_events"],
            },
        ),
    ],
)
def test_a_slice_table_goes_after_its_last_reader(
    snapshot: bool, expected: dict[int, list[str]]
) -> None:
    rebuilt = [s for s in EVENT_LEVEL.each if s.when is None or s.when[1] == snapshot]
    order = [*rebuilt, *EVENT_LEVEL.collect]
    assert analysis_module.last_uses(order, {s.name for s in rebuilt}) == expected
