"""`reconcile audit`: the report directory, exit codes, and bad input."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import polars as pl
import pytest

import reconcile.audit.report as report_module
from reconcile.cli import main
from tests.browser import FLAGS, need_chromium
from tests.logsets import checkpoint, receipt, write_logset

DATA = Path(__file__).resolve().parents[1] / "data"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["audit", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_clean_run_exits_0_and_writes_every_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    code, text, _ = run(capsys, str(DATA / "clean"), "--out", str(out))
    assert code == 0, text
    assert sorted(p.name for p in out.iterdir()) == [
        "findings.json",
        "findings.parquet",
        "frontier_history.parquet",
        "frontiers.parquet",
        "junit.xml",
        "report.html",
        "summary.json",
        "summary.md",
        "watermarks.parquet",
    ]
    facts = json.loads((out / "summary.json").read_text())
    assert facts["findings"]["by_severity"]["error"] == 0
    assert facts["inputs"]["tables"]["receipts"]["rows"] == 8000
    assert {f["basis"] for f in facts["frontiers"]} == {"claimed", "proven"}
    assert pl.read_parquet(out / "watermarks.parquet").height == 4
    history = pl.read_parquet(out / "frontier_history.parquet")
    assert set(history.columns) >= {
        "scope_id",
        "basis",
        "at",
        "epoch",
        "kind",
        "frontier",
        "frontier_inclusive",
        "limiting_partitions",
        "trigger_partition_id",
        "trigger_generation",
    }
    # the summary fits a terminal of 80 columns, but for the report's path, which is
    # as long as the user's (and pytest's, under its workers) folders make it
    assert all(len(line) <= 80 for line in text.splitlines() if str(out) not in line), text


def test_findings_at_or_above_fail_on_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, text, _ = run(capsys, str(DATA / "faults"), "--out", str(tmp_path / "a"))
    assert code == 1
    assert "critical" in text
    assert "most severe:" in text
    findings = pl.read_parquet(tmp_path / "a" / "findings.parquet")
    assert set(findings.columns) >= {
        "rule",
        "severity",
        "scope_id",
        "partition_id",
        "epoch",
        "at",
        "event_id",
        "attempt_id",
        "generation",
        "page_id",
        "message",
        "evidence",
    }
    # only info findings in the clean run: failing on info exits 1, on warning 0
    assert (
        run(capsys, str(DATA / "clean"), "--out", str(tmp_path / "b"), "--fail-on", "info")[0] == 0
    )  # the clean run has none at all
    assert (
        run(
            capsys, str(DATA / "membership"), "--out", str(tmp_path / "c"), "--fail-on", "critical"
        )[0]
        == 0
    )


def test_invalid_input_exits_2_writes_nothing_and_keeps_the_earlier_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    assert run(capsys, str(DATA / "clean"), "--out", str(out))[0] == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    bad = write_logset(
        tmp_path / "bad",
        {
            "checkpoints": [checkpoint("p0", 1, 5)],
            "receipts": [receipt("e1", 1, outcome="kept")],
        },
    )
    code, text, err = run(capsys, str(bad), "--out", str(out))
    assert code == 2
    assert "receipts" in text + err
    assert "outcome" in text + err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad", "report"]
    fresh = tmp_path / "never"
    assert run(capsys, str(bad), "--out", str(fresh))[0] == 2
    assert not fresh.exists()


@pytest.mark.slow
def test_interrupted_write_keeps_the_earlier_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "report"
    assert run(capsys, str(DATA / "clean"), "--out", str(out))[0] == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def broken(*args: object, **kwargs: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr("reconcile.commands.render_html", broken)
    code, _, err = run(capsys, str(DATA / "faults"), "--out", str(out))
    assert (code, err) == (130, "reconcile: interrupted\n")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


def test_refuses_to_replace_what_is_not_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    precious = tmp_path / "home"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    code, _, err = run(capsys, str(DATA / "clean"), "--out", str(precious))
    assert code == 2
    assert "not a reconcile report" in err
    assert (precious / "notes.txt").read_text() == "keep me"
    assert report_module.GENERATOR == "reconcile audit"


def test_as_of_evaluates_an_earlier_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, _ = run(
        capsys,
        str(DATA / "faults"),
        "--out",
        str(tmp_path / "r"),
        "--as-of",
        "2026-01-01T00:00:01Z",
    )
    assert code in (0, 1)
    facts = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert facts["as_of"].startswith("2026-01-01T00:00:01")
    assert "skipped_event" not in facts["findings"]["by_rule"]


def test_report_html_renders_in_headless_chromium(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    browser = need_chromium()
    out = tmp_path / "report"
    assert run(capsys, str(DATA / "faults"), "--out", str(out))[0] == 1
    page = (out / "report.html").read_text()
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in page
    # one inline script, and nothing it or the page fetches
    assert page.count("<script") == 1 and "<script src" not in page
    assert "fetch(" not in page and "XMLHttpRequest" not in page
    dom = subprocess.run(
        [
            browser,
            *FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            (out / "report.html").as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert 'class="timeline"' in dom
    assert "frontier-proven" in dom
    assert "frontier-claimed" in dom
    assert dom.count('class="finding-mark"') >= 10
    assert '<table class="findings">' in dom
    assert dom.count('<tr id="finding-') == 28
    assert "cas_chain_broken" in dom


def test_profile_names_where_the_time_went(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "profile.json"
    code, text, _ = run(
        capsys, str(DATA / "clean"), "--out", str(tmp_path / "report"), "--profile", str(profile)
    )
    assert code == 0, text
    document = json.loads(profile.read_text())
    assert {"validate", "watermarks"} <= set(document["steps"])
    queries = {row["query"]: row for row in document["queries"]}
    assert "watermarks/receipt_events" in queries
    assert all(row["runs"] >= 1 and row["seconds"] >= 0 for row in queries.values())
    seconds = [row["seconds"] for row in document["queries"]]
    assert seconds == sorted(seconds, reverse=True)
