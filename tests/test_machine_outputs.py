"""The audit's outputs for machines (issue 21): findings.json against the JSON Schema
the package ships, junit.xml against a JUnit XSD and through a JUnit consumer,
summary.md parsed as CommonMark; each equal to findings.parquet, and safe with
hostile identifiers."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

import jsonschema
import polars as pl
import pytest
import xmlschema
from junitparser import Failure, JUnitXml, Skipped
from markdown_it import MarkdownIt

from reconcile.audit.findings import FINDING_SCHEMA, SEVERITY, sort_findings
from reconcile.audit.report import RULE_NEEDS
from reconcile.catalog import RULES, key_fields
from reconcile.cli import main
from reconcile.render.findings_json import render_findings_json, schema
from reconcile.render.junit_xml import render_junit_xml
from reconcile.render.summary_md import render_summary_md

DATA = Path(__file__).resolve().parents[1] / "data"
XSD = Path(__file__).resolve().parent / "formats" / "junit.xsd"


@pytest.fixture(scope="module")
def faults(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("faults") / "report"
    assert main(["audit", str(DATA / "faults"), "--out", str(out)]) == 1
    return out


def _findings(out: Path) -> pl.DataFrame:
    return pl.read_parquet(out / "findings.parquet")


def test_findings_json_follows_its_schema_and_equals_the_parquet(faults: Path) -> None:
    document = json.loads((faults / "findings.json").read_text())
    jsonschema.Draft202012Validator(schema()).validate(document)
    table = _findings(faults)
    assert len(document["findings"]) == table.height == document["counts"]["total"] == 28
    summary = json.loads((faults / "summary.json").read_text())
    assert document["failing"] == summary["failing_findings"] == 23
    # every time in the JSON documents says UTC (Z), as a JSON reader needs it said
    assert document["as_of"] == summary["as_of"] == summary["frontiers"][0]["as_of"]
    assert summary["as_of"].endswith("Z")
    assert sum(f["failing"] for f in document["findings"]) == 23
    keys = set()
    for row, item in zip(table.iter_rows(named=True), document["findings"], strict=True):
        for name in ("rule", "scope_id", "partition_id", "event_id", "attempt_id", "message"):
            assert item[name] == row[name]
        assert item["severity"] == row["severity"]
        assert item["generation"] == row["generation"]
        assert item["epoch"] == row["epoch"]
        assert item["evidence"] == json.loads(row["evidence"])
        assert item["doc"] == f"docs/rules.md#{row['rule']}"
        assert list(item["key"]) == list(key_fields(row["rule"]))
        keys.add((item["rule"], json.dumps(item["key"], sort_keys=True)))
        if row["at"] is not None:  # to the nanosecond, in UTC
            shown = datetime.fromisoformat(item["at"].removesuffix("Z")[:26])
            assert shown == row["at"].replace(microsecond=row["at"].microsecond)
    assert len(keys) == table.height  # a rule reports each key once


def test_findings_json_schema_refuses_what_is_not_a_report() -> None:
    validator = jsonschema.Draft202012Validator(schema())
    assert not validator.is_valid({"format": "reconcile.findings/1"})
    bad_rule = {"rule": "made_up"}
    assert not validator.is_valid(
        {
            "format": "reconcile.findings/1",
            "generator": "reconcile audit",
            "as_of": "x",
            "logset": "x",
            "fail_on": "error",
            "failing": 0,
            "severities": ["critical", "error", "warning", "info"],
            "counts": {
                "total": 0,
                "by_severity": {"critical": 0, "error": 0, "warning": 0, "info": 0},
                "by_rule": {},
            },
            "findings": [bad_rule],
        }
    )


def test_junit_xml_is_valid_and_a_consumer_reads_one_case_per_rule_and_scope(
    faults: Path,
) -> None:
    path = faults / "junit.xml"
    xmlschema.XMLSchema(XSD).validate(path)
    suites = list(JUnitXml.fromfile(str(path)))
    assert [s.name for s in suites] == ["s0"]
    cases = list(suites[0])
    assert [c.name for c in cases] == list(RULES)
    table = _findings(faults)
    failing_rules = set(
        table.filter(pl.col("severity").is_in(["critical", "error"]))["rule"].to_list()
    )
    failed = {c.name for c in cases if any(isinstance(r, Failure) for r in c.result)}
    assert failed == failing_rules
    assert suites[0].failures == len(failing_rules) == 14
    # below --fail-on: listed, not failed (warning and info here)
    unknown = next(c for c in cases if c.name == "unknown_endpoint")
    assert unknown.is_passed and "1 finding(s) below error" in (unknown.system_out or "")
    overclaim = next(c for c in cases if c.name == "overclaim")
    assert "8 overclaim finding(s)" in overclaim.result[0].message


def test_junit_skips_rules_whose_tables_are_absent(tmp_path: Path) -> None:
    out = tmp_path / "report"
    assert main(["audit", str(DATA / "clean"), "--out", str(out)]) == 0
    xmlschema.XMLSchema(XSD).validate(out / "junit.xml")
    suite = next(iter(JUnitXml.fromfile(str(out / "junit.xml"))))
    skipped = {c.name for c in suite if any(isinstance(r, Skipped) for r in c.result)}
    facts = json.loads((out / "summary.json").read_text())
    present = set(facts["inputs"]["tables"])
    expected = {
        rule for rule, needs in RULE_NEEDS.items() if not any(set(n) <= present for n in needs)
    }
    assert skipped == expected and skipped  # data/clean has no snapshot, epochs, ...
    assert suite.failures == 0


def test_junit_never_passes_a_rule_that_had_no_events_to_check(tmp_path: Path) -> None:
    # checkpoints alone: no event is known, so the event rules checked nothing
    logset = tmp_path / "logset"
    logset.mkdir()
    for name in ("scopes", "checkpoints"):
        shutil.copy(DATA / "clean" / f"{name}.parquet", logset / f"{name}.parquet")
    out = tmp_path / "report"
    main(["audit", str(logset), "--out", str(out)])
    suite = next(iter(JUnitXml.fromfile(str(out / "junit.xml"))))
    why = {
        c.name: c.result[0].message for c in suite if any(isinstance(r, Skipped) for r in c.result)
    }
    assert (
        why["skipped_event"]
        == why["ordering_mutated"]
        == "not applicable: the log set has no receipts or snapshot"
    )
    assert why["replayed_events"] == "not applicable: the log set has no receipts"
    # with receipts they apply, and pass
    with_receipts = tmp_path / "with"
    shutil.copytree(logset, with_receipts)
    shutil.copy(DATA / "clean" / "receipts.parquet", with_receipts / "receipts.parquet")
    main(["audit", str(with_receipts), "--out", str(tmp_path / "report2")])
    suite = next(iter(JUnitXml.fromfile(str(tmp_path / "report2" / "junit.xml"))))
    passed = {c.name for c in suite if c.is_passed}
    assert {"skipped_event", "ordering_mutated", "replayed_events"} <= passed
    # a snapshot alone names events, and lists one at two positions: the rule applies
    snapshot_only = tmp_path / "snapshot-only"
    shutil.copytree(logset, snapshot_only)
    for name in ("snapshot", "snapshot_bounds"):
        shutil.copy(DATA / "example" / f"{name}.parquet", snapshot_only / f"{name}.parquet")
    main(["audit", str(snapshot_only), "--out", str(tmp_path / "report3")])
    suite = next(iter(JUnitXml.fromfile(str(tmp_path / "report3" / "junit.xml"))))
    cases = {c.name: c for c in suite}
    assert cases["ordering_mutated"].is_passed
    assert not cases["replayed_events"].is_passed


def _render(markdown: str) -> str:
    """CommonMark (with GFM tables) as HTML, cells' alignment styles left out."""
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    return html.replace(' style="text-align:right"', "")


def test_summary_md_renders_as_commonmark_tables(faults: Path) -> None:
    text = (faults / "summary.md").read_text()
    html = _render(text)
    assert html.startswith("<h2>reconcile audit: <strong>FAIL</strong>: 23 finding(s)")
    assert html.count("<table>") == 4
    # the findings by rule: one row per rule found, each its count
    table = _findings(faults)
    counts = table.group_by("rule", "severity").len()
    for rule, severity, n in counts.iter_rows():
        assert f"<td><code>{rule}</code></td>\n<td>{severity}</td>\n<td>{n}</td>" in html
    assert "report.html" in text


def _hostile() -> tuple[pl.DataFrame, pl.DataFrame, dict[str, Any]]:
    nasty = "p|1 <script>alert(1)</script> `x` *b* [l](http://e)\n# h & \x1b[2J \ufffe"
    row = {
        "rule": "skipped_event",
        "severity": "critical",
        "scope_id": "s|0",
        "partition_id": nasty,
        "epoch": None,
        "at": datetime(2026, 1, 1),
        "event_id": "e`1",
        "attempt_id": None,
        "generation": 3,
        "page_id": None,
        "message": nasty,
        "evidence": '{"position": 5}',
    }
    findings = sort_findings(pl.DataFrame([row], schema=FINDING_SCHEMA))
    frontiers = pl.DataFrame(
        {
            "scope_id": ["s|0"],
            "basis": ["proven"],
            "epoch": [1],
            "kind": ["scalar"],
            "frontier": [10],
            "frontier_inclusive": [True],
            "limiting_partitions": [[nasty]],
            "reasons": [[]],
        }
    )
    facts = {
        "generator": "reconcile audit",
        "as_of": "2026-01-01T00:00:00Z",
        "inputs": {"logset": "/tmp/x|y", "tables": {"checkpoints": {}, "receipts": {}}},
        "findings": {
            "total": 1,
            "by_severity": {"critical": 1, "error": 0, "warning": 0, "info": 0},
            "by_rule": {"skipped_event": 1},
        },
        "fail_on": "error",
        "failing_findings": 1,
    }
    return findings, frontiers, facts


def test_hostile_identifiers_cannot_break_the_markdown() -> None:
    findings, frontiers, facts = _hostile()
    html = _render(render_summary_md(findings, frontiers, facts))
    assert "<script>" not in html and "<a " not in html and "<em>" not in html
    assert "\x1b" not in html
    # every table keeps its shape: the findings table has one row of four cells
    last = html.rsplit("<table>", 1)[1]
    assert last.count("<tr>") == 2 and last.count("<td>") == 4


def test_a_url_in_an_identifier_is_no_link_in_the_markdown() -> None:
    """A scope "login at https://evil.example/reset s" became a live link in a job
    summary rendered by GitHub (bare URLs and www. names are linked there)."""
    findings, frontiers, facts = _hostile()
    lure = "login at https://evil.example/reset or www.evil.example s"
    findings = findings.with_columns(scope_id=pl.lit(lure))
    frontiers = frontiers.with_columns(scope_id=pl.lit(lure))
    text = render_summary_md(findings, frontiers, facts)
    assert "https://" not in text and "www.evil" not in text
    assert "login at https://evil.example/reset or www.evil.example s" in _render(text)


def test_hostile_identifiers_give_valid_junit_and_json(tmp_path: Path) -> None:
    findings, _, facts = _hostile()
    path = tmp_path / "junit.xml"
    path.write_text(render_junit_xml(findings, ["s|0"], facts, RULE_NEEDS), encoding="utf-8")
    xmlschema.XMLSchema(XSD).validate(path)
    suite = next(iter(JUnitXml.fromfile(str(path))))
    assert suite.name == "s|0" and suite.failures == 1
    document = json.loads(render_findings_json(findings, facts))
    jsonschema.Draft202012Validator(schema()).validate(document)
    assert document["findings"][0]["partition_id"] == findings["partition_id"][0]


def test_severity_is_ordered_in_frames_and_files(faults: Path) -> None:
    table = _findings(faults)
    assert table.schema["severity"] == SEVERITY
    shuffled = table.sample(fraction=1.0, shuffle=True, seed=1)
    order = shuffled.sort("severity")["severity"].unique(maintain_order=True).to_list()
    assert order == ["critical", "error", "warning", "info"]


def test_findings_json_writes_times_as_summary_json_does(tmp_path: Path) -> None:
    """Six digits where there are microseconds, in every JSON output: a finding's
    ``at`` at 01.410 s is ``01.410000Z`` as in ``as_of``, so that its key compares as
    text with another tool's (here the log set's own truth.json)."""
    out = tmp_path / "report"
    assert main(["audit", str(DATA / "foreign"), "--mapping", "auto", "--out", str(out)]) == 1
    written = json.loads((out / "findings.json").read_text())
    truth = json.loads((DATA / "foreign" / "truth.json").read_text())["findings"]
    timed = [f for f in truth if "at" in f]
    assert timed and all(f["at"].endswith("000Z") for f in timed)  # milliseconds
    keys = {
        json.dumps({"rule": f["rule"], **f["key"]}, sort_keys=True) for f in written["findings"]
    }
    for finding in timed:
        expected = {k: v for k, v in finding.items() if k != "severity"}
        assert json.dumps(expected, sort_keys=True) in keys, (finding, sorted(keys))
    assert all(len(f["at"]) == len("2026-01-01T00:00:01.410000Z") for f in written["findings"])
