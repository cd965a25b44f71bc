"""The bundled examples of the frameworks' own artifacts (data/README.md), each made
by the real framework (tests/frameworks/make_*_example.py): the audit with its reader
reports what its truth.json says, and an audit without --source names the reader."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from reconcile.cli import main
from reconcile.readers import read_dlt
from tests.logsets import FRAMEWORK_EXAMPLES

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize("name", sorted(FRAMEWORK_EXAMPLES))
def test_the_bundled_example_reports_what_its_truth_says(name: str, tmp_path: Path) -> None:
    """The audit's skipped rows are exactly the rows truth.json says the fault lost."""
    data = DATA / name
    truth = json.loads((data / "truth.json").read_text())
    assert truth["source"] == FRAMEWORK_EXAMPLES[name]
    out = tmp_path / "report"
    assert main(["audit", str(data), "--source", truth["source"], "--out", str(out)]) == 1
    findings = pl.read_parquet(out / "findings.parquet")
    skipped = findings.filter(pl.col("rule") == "skipped_event")
    assert set(skipped["event_id"]) == set(truth["lost"])
    expected = {
        (f["rule"], f["scope_id"], f["partition_id"], f["event_id"]) for f in truth["findings"]
    }
    got = skipped.select("rule", "scope_id", "partition_id", "event_id").rows()
    assert set(got) == expected


@pytest.mark.parametrize("name", sorted(FRAMEWORK_EXAMPLES))
def test_an_audit_without_source_names_the_reader(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    assert main(["audit", str(DATA / name), "--out", str(out)]) == 2
    got = capsys.readouterr()
    said = " ".join((got.out + got.err).split())
    assert f"read it with --source {FRAMEWORK_EXAMPLES[name]}" in said
    assert not out.exists()


def test_the_dlt_example_says_where_it_read(tmp_path: Path) -> None:
    """The dlt reader's own inputs: the destination and its completed loads."""
    said = read_dlt(DATA / "dlt", tmp_path)
    assert said["destination"] == "filesystem shop"
    assert said["loads"] == 2
