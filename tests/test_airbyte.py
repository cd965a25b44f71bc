"""The Airbyte reader against a real Airbyte source (the Airbyte Python CDK,
tests/frameworks/airbyte_source.py, in its own locked environment) run here, offline,
over a paginated HTTP API this test serves on this machine. Each fault is injected
into the source or the syncs, the syncs' real messages and the source's final extract
are audited with ``--source airbyte``, and the audit must name exactly the rows the
fault lost, by key, and nothing on a sync without fault. The faults Airbyte shares
with Singer are in tests/test_framework_faults.py; here, Airbyte's own: a state
inside a tie, and the destination's raw tables."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from tests.frameworks.airbyte_pipeline import Pipeline
from tests.frameworks.airbyte_pipeline import rows as _rows

pytestmark = pytest.mark.slow  # a source's process per sync: seconds


def _skipped(findings: pl.DataFrame) -> set[str]:
    return set(findings.filter(pl.col("rule") == "skipped_event")["event_id"].to_list())


@pytest.mark.parametrize(("cursor", "lost"), [(">", {"k3"}), (">=", set())])
def test_a_sync_that_died_after_a_state_inside_a_tie(
    tmp_path: Path, cursor: str, lost: set[str]
) -> None:
    """The source emits a state every three records; rows come two to a cursor
    value, so the first state (after k0, k1, k2) claims value 1 while k3, also at 1,
    is on the next page. The sync dies there, that state committed: a '>' cursor
    never reads k3, a '>=' one reads it. Either way the state claimed a value whose
    rows were not all read: an overclaim."""
    pipe = Pipeline(tmp_path, cursor, checkpoint_every=3)
    pipe.source[:] = _rows(range(8))
    pipe.run(die_after_states=1)
    pipe.run()
    findings = pipe.audit(tmp_path)
    assert _skipped(findings) == lost
    assert findings.filter(pl.col("rule") == "overclaim").height >= 1


def _raw_pipeline(tmp_path: Path) -> Pipeline:
    pipe = Pipeline(tmp_path, ">=", raw=True)
    pipe.source[:] = _rows(range(10))
    return pipe


def test_raw_tables_of_a_fault_free_destination_find_no_loss(tmp_path: Path) -> None:
    """Through a real CDK destination writing Destinations V2 raw tables: the
    receipts are the raw rows, each committed when it reached the final table."""
    pipe = _raw_pipeline(tmp_path)
    pipe.run()
    pipe.source += _rows(range(10, 14))
    pipe.run()
    findings = pipe.audit(tmp_path)
    assert _skipped(findings) == set()
    assert set(findings["rule"]) <= {"replayed_events"}  # '>=' reads the boundary again
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert summary["inputs"]["source"]["raw_tables"] == ["raw/items.jsonl"]


def test_a_record_the_destination_dropped_is_named(tmp_path: Path) -> None:
    """The source emitted k3 and the destination never wrote it: the messages show
    it, the raw table does not, and the raw table is what the audit reads."""
    pipe = _raw_pipeline(tmp_path)
    pipe.run(destination={"fault": "drop", "drop_key": "k3"})
    findings = pipe.audit(tmp_path)
    assert _skipped(findings) == {"k3"}


def test_rows_typing_never_loaded_are_named_until_a_later_sync_loads_them(
    tmp_path: Path,
) -> None:
    """Typing and deduping did not run at the end of a sync: its rows are in the raw
    table and not in the final one. A later sync's typing loads them (nothing
    lost); where the last sync's did not run, its rows are named."""
    pipe = _raw_pipeline(tmp_path)
    pipe.run(destination={"fault": "no_typing"})
    pipe.source += _rows(range(10, 14))
    pipe.run()
    assert _skipped(pipe.audit(tmp_path / "a")) == set()
    pipe.source += _rows(range(14, 18))
    pipe.run(destination={"fault": "no_typing"})
    assert _skipped(pipe.audit(tmp_path / "b")) == {f"k{i}" for i in range(14, 18)}
