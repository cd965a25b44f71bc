"""The Singer reader against a real Singer tap (Meltano's Singer SDK,
tests/frameworks/singer_tap.py) run here, offline, over a source this test controls.
Each fault is injected into the source or the runs, the runs' real message streams
and the source's final extract are audited with ``--source singer``, and the audit
must name exactly the rows the fault lost, by key, and nothing on a run without
fault. The faults Singer shares with Airbyte are in tests/test_framework_faults.py;
here, Singer's own: partitioned bookmarks."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from tests.frameworks.singer_pipeline import Pipeline
from tests.frameworks.singer_pipeline import rows as _rows

pytestmark = pytest.mark.slow  # a tap's process per run: seconds


def _skipped(findings: pl.DataFrame) -> set[str]:
    return set(findings.filter(pl.col("rule") == "skipped_event")["event_id"].to_list())


@pytest.mark.parametrize("cursor", [">=", ">"])
def test_a_late_row_in_one_partition_is_named_there(tmp_path: Path, cursor: str) -> None:
    """A stream the SDK partitions by region (a bookmark per region, in the state's
    partitions): a row that commits late under the eu bookmark is named in eu; the
    us partition, whose bookmark it is not under, is whole."""
    pipe = Pipeline(tmp_path, cursor, partitioned=True)
    pipe.source = [{**r, "region": ("eu", "us")[i % 2]} for i, r in enumerate(_rows(range(12)))]
    pipe.run()
    pipe.source += [
        {"id": "late", "updated_at": 1, "value": "v", "region": "eu"},
        *({**r, "region": "us"} for r in _rows(range(12, 14))),
    ]
    pipe.run()
    findings = pipe.audit(tmp_path)
    skipped = findings.filter(pl.col("rule") == "skipped_event")
    assert skipped.select("partition_id", "event_id").rows() == [("region=eu", "late")]
    assert (
        not findings.filter(pl.col("partition_id") == "region=us")
        .filter(pl.col("severity").is_in(["critical", "error"]))
        .height
    )
