"""`reconcile diff OLD NEW`: findings new, resolved and unchanged by rule and key,
frontier movement, watermarks that went back; its formats and exit statuses."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from reconcile.audit.findings import FINDING_SCHEMA
from reconcile.catalog import RULES, key_fields
from reconcile.cli import main
from reconcile.diff import diff_reports

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("reports")
    out = {}
    for name in ("clean", "faults"):
        out[name] = base / name
        main(["audit", str(DATA / name), "--out", str(out[name])])
    return out


def diff(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["diff", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.slow
def test_a_report_against_itself_changes_nothing(
    reports: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = diff(capsys, str(reports["faults"]), str(reports["faults"]), "--format", "json")
    document = json.loads(out)
    assert code == 0
    assert document["counts"] == {"new": 0, "resolved": 0, "unchanged": 28}
    assert {f["movement"] for f in document["frontiers"]} == {"unchanged"}
    assert document["went_back"] == []


def test_new_findings_fail_and_resolved_ones_do_not(
    reports: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = diff(capsys, str(reports["clean"]), str(reports["faults"]), "--format", "json")
    document = json.loads(out)
    assert code == 1
    assert document["counts"]["new"] == 28 and document["failing"] == 23
    code, out, _ = diff(capsys, str(reports["faults"]), str(reports["clean"]), "--format", "json")
    document = json.loads(out)
    assert code == 0
    assert document["counts"] == {"new": 0, "resolved": 28, "unchanged": 0}
    # info findings alone never fail at the default threshold, and do at --fail-on info
    code, _, _ = diff(capsys, str(reports["clean"]), str(reports["faults"]), "--fail-on", "info")
    assert code == 1


def _copy(report: Path, to: Path) -> Path:
    shutil.copytree(report, to)
    return to


def test_findings_matched_by_key_frontiers_and_watermarks_compared(
    reports: dict[str, Path], tmp_path: Path
) -> None:
    old = _copy(reports["faults"], tmp_path / "old")
    new = _copy(reports["faults"], tmp_path / "new")
    findings = pl.read_parquet(old / "findings.parquet")
    # three findings missing from the old report: new in the new one; the message of
    # another changed: still the same finding (same rule and key)
    findings.slice(3).with_columns(
        pl.when(pl.int_range(pl.len()) == 0)
        .then(pl.lit("reworded"))
        .otherwise(pl.col("message"))
        .alias("message")
    ).write_parquet(old / "findings.parquet")
    marks = pl.read_parquet(new / "watermarks.parquet")
    first = pl.int_range(pl.len()) == 0
    second = pl.int_range(pl.len()) == 1
    marks.with_columns(
        pl.when(first).then(pl.col("proven_through") - 1).otherwise(pl.col("proven_through")),
        pl.when(second).then(None).otherwise(pl.col("claimed_through")).alias("claimed_through"),
    ).write_parquet(new / "watermarks.parquet")
    result = diff_reports(old, new)
    assert result.new_findings.height == 3
    assert result.new_findings["message"].to_list() == findings.head(3)["message"].to_list()
    assert result.resolved.height == 0 and result.unchanged.height == 25
    back = result.went_back.select("partition_id", "certificate", "change").rows()
    p0, p1 = marks["partition_id"][0], marks["partition_id"][1]
    assert (p0, "proven", "went back") in back
    assert (p1, "claimed", "lost") in back
    assert len(back) == 2


def _frontier(path: Path, **values: Any) -> None:
    frame = pl.read_parquet(path / "frontiers.parquet")
    frame.with_columns(**{k: pl.lit(v) for k, v in values.items()}).write_parquet(
        path / "frontiers.parquet"
    )


def test_frontier_movement_normalizes_the_endpoint(
    reports: dict[str, Path], tmp_path: Path
) -> None:
    old = _copy(reports["clean"], tmp_path / "old")
    new = _copy(reports["clean"], tmp_path / "new")
    _frontier(old, frontier=100, frontier_inclusive=True, kind="scalar")
    _frontier(new, frontier=100, frontier_inclusive=False, kind="scalar")
    assert set(diff_reports(old, new).frontiers["movement"]) == {"went back"}
    assert set(diff_reports(new, old).frontiers["movement"]) == {"advanced"}
    _frontier(new, frontier=None, kind="scalar")  # +inf
    assert set(diff_reports(old, new).frontiers["movement"]) == {"advanced"}
    _frontier(new, kind="vector")
    assert set(diff_reports(old, new).frontiers["movement"]) == {"became a vector"}


def test_what_is_not_a_report_exits_2_naming_it(
    reports: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = diff(capsys, str(tmp_path), str(reports["clean"]))
    assert code == 2 and "has no summary.json" in err
    broken = _copy(reports["clean"], tmp_path / "broken")
    (broken / "findings.parquet").write_bytes(b"not parquet")
    code, _, err = diff(capsys, str(reports["clean"]), str(broken))
    assert code == 2 and "findings.parquet" in err and "Traceback" not in err
    code, _, err = diff(capsys, str(reports["clean"]), str(tmp_path / "absent"))
    assert code == 2 and "is not a folder" in err


def test_markdown_and_text(reports: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = diff(
        capsys, str(reports["clean"]), str(reports["faults"]), "--format", "markdown"
    )
    html = MarkdownIt("commonmark").enable("table").render(out)
    assert code == 1
    assert html.startswith("<h2>reconcile diff: <strong>23 new finding(s) at or above")
    assert html.count("<table>") == 3  # new findings, frontiers, watermarks that went back
    code, out, _ = diff(capsys, str(reports["clean"]), str(reports["faults"]))
    assert "findings: new 28, resolved 0, unchanged 0" in out
    assert "... and 8 more" in out


# -- against a plain reference: set differences of (rule, key) -------------------

T0 = datetime(2026, 1, 1)


@st.composite
def finding_rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    rows = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "rule": st.sampled_from(sorted(RULES)),
                    "scope_id": st.sampled_from(["s0", "s1"]),
                    "partition_id": st.sampled_from(["p0", "p1", None]),
                    "epoch": st.sampled_from([1, 2, None]),
                    "at": st.integers(0, 3).map(lambda n: T0 + timedelta(microseconds=n)),
                    "event_id": st.sampled_from(["e0", "e1", None]),
                    "attempt_id": st.sampled_from(["a0", "a1", None]),
                    "generation": st.sampled_from([1, 2, None]),
                    "message": st.sampled_from(["m", "n"]),
                }
            ),
            max_size=12,
        )
    )
    seen, unique = set(), []
    for row in rows:  # a report holds each key once
        key = (row["rule"], *(row[f] for f in key_fields(row["rule"])))
        if key not in seen:
            seen.add(key)
            row["severity"] = RULES[row["rule"]].severity
            row["page_id"] = None
            row["evidence"] = "{}"
            unique.append(row)
    return unique


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    path.mkdir()
    pl.DataFrame(rows, schema=FINDING_SCHEMA).write_parquet(path / "findings.parquet")
    pl.DataFrame(
        schema={
            "scope_id": pl.String,
            "basis": pl.String,
            "epoch": pl.Int64,
            "kind": pl.String,
            "frontier": pl.Int64,
            "frontier_inclusive": pl.Boolean,
        }
    ).write_parquet(path / "frontiers.parquet")
    marks = dict.fromkeys(("committed_position", "proven_through", "claimed_through"), pl.Int64)
    pl.DataFrame(
        schema={
            "scope_id": pl.String,
            "partition_id": pl.String,
            "committed_event_id": pl.String,
            "proven_inclusive": pl.Boolean,
            "claimed_inclusive": pl.Boolean,
            **marks,
        }
    ).write_parquet(path / "watermarks.parquet")
    (path / "summary.json").write_text(
        json.dumps({"generator": "reconcile audit", "inputs": {"coordinate": "int64"}})
    )


def _keys(rows: list[dict[str, Any]]) -> set[tuple[Any, ...]]:
    return {(r["rule"], *(r[f] for f in key_fields(r["rule"]))) for r in rows}


@settings(max_examples=60, deadline=None)
@given(old=finding_rows(), new=finding_rows())
def test_matching_equals_the_set_difference_of_keys(
    tmp_path_factory: pytest.TempPathFactory, old: list[dict[str, Any]], new: list[dict[str, Any]]
) -> None:
    base = tmp_path_factory.mktemp("pair")
    _write(base / "old", old)
    _write(base / "new", new)
    result = diff_reports(base / "old", base / "new")
    got = {
        name: _keys(frame.to_dicts())
        for name, frame in (
            ("new", result.new_findings),
            ("resolved", result.resolved),
            ("unchanged", result.unchanged),
        )
    }
    assert got["new"] == _keys(new) - _keys(old)
    assert got["resolved"] == _keys(old) - _keys(new)
    assert got["unchanged"] == _keys(old) & _keys(new)


def test_a_certificate_that_went_back_is_shown_with_its_endpoint(tmp_path: Path) -> None:
    """Went back from <= v to < v, one value: shown as "v" and "v", it read as no change
    at all; the old and new certificates are written as the frontiers are."""
    old, new = tmp_path / "old", tmp_path / "new"
    assert main(["audit", str(DATA / "faults"), "--out", str(old)]) == 1
    shutil.copytree(old, new)
    marks = pl.read_parquet(new / "watermarks.parquet")
    first = pl.int_range(pl.len()) == 0
    marks.with_columns(
        pl.when(first).then(False).otherwise(pl.col("proven_inclusive")).alias("proven_inclusive")
    ).write_parquet(new / "watermarks.parquet")
    row = marks.row(0, named=True)
    assert row["proven_inclusive"] is True
    back = diff_reports(old, new).went_back.row(0, named=True)
    assert (back["certificate"], back["change"]) == ("proven", "went back")
    value = str(row["proven_through"])
    assert (back["old"], back["new"]) == (f"<= {value}", f"< {value}")


def test_a_frontier_lower_in_another_epoch_went_back(
    reports: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A scope's membership changed and its frontier fell from <= 100 to <= 50: it went
    back all the same, in every format (it read "other epoch" alone)."""
    old = _copy(reports["clean"], tmp_path / "old")
    new = _copy(reports["clean"], tmp_path / "new")
    _frontier(old, epoch=1, frontier=100, frontier_inclusive=True, kind="scalar")
    _frontier(new, epoch=2, frontier=50, frontier_inclusive=True, kind="scalar")
    assert set(diff_reports(old, new).frontiers["movement"]) == {"other epoch, went back"}
    assert set(diff_reports(new, old).frontiers["movement"]) == {"other epoch"}
    code, out, _ = diff(capsys, str(old), str(new), "--format", "json")
    assert code == 0
    moved = {(f["old"], f["new"], f["movement"]) for f in json.loads(out)["frontiers"]}
    assert moved == {("<= 100", "<= 50", "other epoch, went back")}
    _, out, _ = diff(capsys, str(old), str(new), "--format", "markdown")
    assert "| \\<= 100 | \\<= 50 | other epoch, went back |" in out
    _, out, _ = diff(capsys, str(old), str(new))
    assert "<= 100 -> <= 50: other epoch, went back" in out


def test_a_partition_gone_from_new_loses_each_certificate(
    reports: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A partition OLD has and NEW has no row of is reported, each of its certificates
    lost with it, in every format (it was left out: the reports were joined)."""
    old = reports["faults"]
    new = _copy(old, tmp_path / "new")
    marks = pl.read_parquet(new / "watermarks.parquet")
    row = marks.row(0, named=True)
    marks.slice(1).write_parquet(new / "watermarks.parquet")
    back = diff_reports(old, new).went_back
    where = (row["scope_id"], row["partition_id"])
    assert back.select("scope_id", "partition_id", "certificate", "old").rows() == [
        (*where, "claimed", f"<= {row['claimed_through']}"),
        (*where, "committed", str(row["committed_position"])),
        (*where, "proven", f"<= {row['proven_through']}"),
    ]
    assert set(back["change"]) == {"partition gone"} and back["new"].null_count() == 3
    code, out, _ = diff(capsys, str(old), str(new), "--format", "json")
    assert code == 0 and len(json.loads(out)["went_back"]) == 3
    _, out, _ = diff(capsys, str(old), str(new), "--format", "markdown")
    assert out.count("| none | partition gone |") == 3
    _, out, _ = diff(capsys, str(old), str(new))
    assert "watermarks that went back: 3" in out
    assert f"{row['partition_id']} committed: {row['committed_position']} -> none" in out
    # a report with no partition: every partition of OLD gone
    _write(tmp_path / "empty", [])
    assert diff_reports(old, tmp_path / "empty").went_back.height == 3 * marks.height


@pytest.mark.parametrize(
    ("table", "column", "expected"),
    [
        ("watermarks", "proven_through", "Int64"),
        ("frontiers", "frontier", "Int64"),
        ("findings", "at", "Datetime"),
    ],
)
def test_a_column_of_another_type_exits_2_naming_it(
    reports: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    table: str,
    column: str,
    expected: str,
) -> None:
    """A column written as text where the audit writes numbers or times: exit 2 naming
    the file, the column and both types (it was an internal error, exit 3, or for a
    finding's time no error at all)."""
    new = _copy(reports["faults"], tmp_path / "new")
    file = new / f"{table}.parquet"
    pl.read_parquet(file).with_columns(pl.col(column).cast(pl.String)).write_parquet(file)
    code, _, err = diff(capsys, str(reports["faults"]), str(new))
    assert code == 2, err
    assert str(file) in err and f"column {column} is String, expected {expected}" in err
    assert "internal error" not in err


def test_an_endpoint_become_unknown_may_have_gone_back(tmp_path: Path) -> None:
    """From <= v to v with its endpoint unknown: it may be < v, so the reading that never
    hides a loss reports it (it read the unknown endpoint as inclusive: no change); an
    endpoint unknown in both reports is no change."""
    old, new = tmp_path / "old", tmp_path / "new"
    _write(old, [])
    _write(new, [])
    marks = {
        "scope_id": ["s0", "s0"],
        "partition_id": ["p0", "p1"],
        "committed_event_id": ["e1", "e1"],
        "committed_position": [1, 1],
        "proven_through": [5, 5],
        "proven_inclusive": [True, None],
        "claimed_through": [9, 9],
        "claimed_inclusive": [None, None],
    }
    endpoints = {"proven_inclusive": pl.Boolean, "claimed_inclusive": pl.Boolean}
    pl.DataFrame(marks, schema_overrides=endpoints).write_parquet(old / "watermarks.parquet")
    marks["proven_inclusive"] = [None, None]
    pl.DataFrame(marks, schema_overrides=endpoints).write_parquet(new / "watermarks.parquet")
    back = diff_reports(old, new).went_back
    assert back.rows() == [
        ("s0", "p0", "proven", "<= 5", "5 (endpoint unknown)", "may have gone back")
    ]


def test_a_frontier_become_a_vector_in_another_epoch_is_said_so(
    reports: dict[str, Path], tmp_path: Path
) -> None:
    old = _copy(reports["clean"], tmp_path / "old")
    new = _copy(reports["clean"], tmp_path / "new")
    _frontier(old, epoch=1, frontier=100, frontier_inclusive=True, kind="scalar")
    _frontier(new, epoch=2, frontier=None, frontier_inclusive=None, kind="vector")
    moved = set(diff_reports(old, new).frontiers["movement"])
    assert moved == {"other epoch, became a vector"}


def test_a_gone_partition_loses_only_the_certificates_it_had(
    reports: dict[str, Path], tmp_path: Path
) -> None:
    """A partition without a claim that NEW no longer has: its committed and proven
    certificates are lost, and no claim is said lost ("none -> none")."""
    old = _copy(reports["faults"], tmp_path / "old")
    new = _copy(reports["faults"], tmp_path / "new")
    marks = pl.read_parquet(old / "watermarks.parquet")
    marks.with_columns(
        claimed_through=pl.when(pl.int_range(pl.len()) == 0).then(None).otherwise("claimed_through")
    ).write_parquet(old / "watermarks.parquet")
    marks.slice(1).write_parquet(new / "watermarks.parquet")
    back = diff_reports(old, new).went_back
    assert back["certificate"].to_list() == ["committed", "proven"]


def test_reports_naming_no_coordinate_type_are_compared_by_their_columns(
    reports: dict[str, Path], tmp_path: Path
) -> None:
    """Without inputs.coordinate in either summary.json, an integer report and a time
    report are not compared value by value (a proven 9 against a time read as no loss):
    the diff says they cannot be compared."""
    old, new = (
        _copy(reports["faults"], tmp_path / "old"),
        _copy(reports["faults"], tmp_path / "new"),
    )
    coordinates = ["committed_position", "proven_through", "claimed_through", "consumer_through"]
    marks = pl.read_parquet(new / "watermarks.parquet")
    marks.with_columns(
        pl.col(c).cast(pl.Datetime("ns")) for c in coordinates if c in marks.columns
    ).write_parquet(new / "watermarks.parquet")
    fronts = pl.read_parquet(new / "frontiers.parquet")
    fronts.with_columns(pl.col("frontier").cast(pl.Datetime("ns"))).write_parquet(
        new / "frontiers.parquet"
    )
    for report in (old, new):
        facts = json.loads((report / "summary.json").read_text())
        del facts["inputs"]["coordinate"]
        (report / "summary.json").write_text(json.dumps(facts))
    result = diff_reports(old, new)
    assert result.comparable is False  # said so, as where the summaries differ
    scalar = result.frontiers.filter(pl.col("movement") != "unchanged")  # vectors: unchanged
    assert set(scalar["movement"]) <= {"incomparable"}
    assert result.went_back.is_empty()  # nothing compared value by value


@pytest.mark.parametrize(
    ("column", "value", "said"),
    [
        ("rule", "made_up", "column rule: 1 finding(s) of no rule this version"),
        ("rule", None, "column rule: 1 finding(s) of no rule this version"),
        ("evidence", "{", "column evidence: row 3 is not JSON text"),
    ],
)
def test_a_finding_diff_cannot_key_or_read_exits_2_naming_it(
    reports: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    column: str,
    value: str | None,
    said: str,
) -> None:
    """A finding of a rule this version does not know had a null key, matched by
    nothing: a report against itself said "new 1, resolved 1" and failed (exit 1); a
    null rule, or evidence that is not JSON (with --format json), was an internal
    error (exit 3). Each is a report diff cannot read: exit 2, naming the file, the
    column and the row."""
    new = _copy(reports["faults"], tmp_path / "new")
    file = new / "findings.parquet"
    frame = pl.read_parquet(file)
    changed = pl.int_range(pl.len()) == 3
    frame.with_columns(
        pl.when(changed).then(pl.lit(value, pl.String)).otherwise(pl.col(column)).alias(column)
    ).write_parquet(file)
    for old in (new, reports["faults"]):
        code, _, err = diff(capsys, str(old), str(new), "--format", "json")
        assert code == 2, err
        assert str(file) in err and said in err, err
        assert "internal error" not in err
