"""The bundled examples of the frameworks' own artifacts (data/README.md), each made
by the real framework (tests/frameworks/make_*_example.py): the audit with its reader
reports what its truth.json says, and an audit without --source detects the reader."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from reconcile.cli import main
from reconcile.readers import read_dlt
from reconcile.readers.detect import detect_source
from tests.conftest import fast_tier
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


@pytest.mark.parametrize("name", fast_tier(sorted(FRAMEWORK_EXAMPLES), keep=["dlt"]))
def test_an_audit_without_source_reads_it_with_the_reader_it_detects(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One command: a folder of one framework's artifacts (and no contract table) is
    read by that framework's reader, which the audit names; its report is the one
    --source gives."""
    source = FRAMEWORK_EXAMPLES[name]
    detected, given = tmp_path / "detected", tmp_path / "given"
    assert main(["audit", str(DATA / name), "--out", str(detected)]) == 1
    said = " ".join(capsys.readouterr().err.split())
    assert f"read by the {source} reader, as with --source {source}" in said
    assert main(["audit", str(DATA / name), "--source", source, "--out", str(given)]) == 1
    for table in ("findings", "watermarks"):
        assert pl.read_parquet(detected / f"{table}.parquet").equals(
            pl.read_parquet(given / f"{table}.parquet")
        )
    summary = json.loads((detected / "summary.json").read_text())
    assert summary["inputs"]["source"]["reader"] == source


def test_a_folder_of_two_frameworks_artifacts_is_refused_not_guessed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Singer runs beside a dlt destination: detection took the dlt reader (it looks
    first), the Singer runs unread, and the audit exited 0. Which one to audit is
    the user's to say."""
    folder = tmp_path / "both"
    shutil.copytree(DATA / "singer", folder)
    shutil.copytree(DATA / "dlt" / "shop", folder / "shop")  # a dlt filesystem dataset
    assert main(["audit", str(folder), "--out", str(tmp_path / "out")]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "holds a dlt destination and Singer message streams: name the one" in said
    assert not (tmp_path / "out").exists()


def test_a_contract_log_set_beside_framework_files_is_read_as_the_contract(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Detection never overrides a contract table: a folder holding both is audited
    in the contract's layout, without a reader."""
    folder = tmp_path / "both"
    shutil.copytree(DATA / "singer", folder)
    shutil.copytree(DATA / "example", folder, dirs_exist_ok=True)
    out = tmp_path / "report"
    main(["audit", str(folder), "--out", str(out)])
    assert "reader" not in capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    assert "source" not in summary["inputs"]


def test_the_dlt_example_says_where_it_read(tmp_path: Path) -> None:
    """The dlt reader's own inputs: the destination and its completed loads."""
    said = read_dlt(DATA / "dlt", tmp_path)
    assert said["destination"] == "filesystem shop"
    assert said["loads"] == 2


def test_detection_reads_no_link_leading_outside_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder whose only run is a link to a Singer stream outside it is not taken
    for Singer runs: detection reads nothing outside the log set."""
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "run-001.jsonl").symlink_to(DATA / "singer" / "run-001.jsonl")
    assert main(["audit", str(folder), "--out", str(tmp_path / "report")]) == 2
    said = capsys.readouterr().err
    assert "reader" not in said
    assert "holds no contract table" in said


def test_a_folder_that_brings_a_mapping_is_not_taken_for_a_framework(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Singer runs beside the folder's own reconcile.toml: the mapping says how the
    folder is read, so the audit asks the user to choose rather than detect a reader."""
    folder = tmp_path / "logs"
    shutil.copytree(DATA / "singer", folder)
    shutil.copy(DATA / "foreign" / "reconcile.toml", folder / "reconcile.toml")
    assert main(["audit", str(folder), "--out", str(tmp_path / "report")]) == 2
    said = capsys.readouterr().err
    assert "read by the singer reader" not in said
    assert "reconcile.toml" in said


def test_airbyte_syncs_that_start_with_a_record_are_airbyte_not_singer(tmp_path: Path) -> None:
    """An Airbyte RECORD or STATE has a type Singer also has: by type alone, syncs
    without their leading LOG line read as both frameworks' and were refused."""
    folder = tmp_path / "syncs"
    shutil.copytree(DATA / "airbyte", folder)
    for sync in folder.glob("*.jsonl"):
        lines = sync.read_text().splitlines(keepends=True)
        kept = [line for line in lines if json.loads(line)["type"] in ("RECORD", "STATE")]
        sync.write_text("".join(kept))
    assert detect_source(folder) == "airbyte"
