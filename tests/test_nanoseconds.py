"""Times in nanoseconds (CONTRACT §1: Parquet timestamps in µs or ns) are kept to
the nanosecond everywhere: T, whether the end of the log set or ``--as-of``; a page
token read as a timestamp (rule token_as_watermark); and what the command line
prints. DuckDB's TIMESTAMPTZ and Python's datetime hold microseconds, and each once
cut a time there: a log set's last row, 500 ns past a whole second, was then left
out of T and a failed event was not seen (an overclaim reported as proven)."""

from __future__ import annotations

import html
import json
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reconcile.api import open_logset
from reconcile.cli import main
from reconcile.engine.namespace import iso_instant, parse_as_of
from reconcile.errors import UsageError
from reconcile.render.tables import frame_json
from reconcile.sql import load
from tests.logsets import write_logset

NS = pa.timestamp("ns", tz="UTC")
BASE = 1_767_225_600 * 10**9  # 2026-01-01T00:00:00Z


def at_ns(seconds: int, nanos: int = 0) -> int:
    return BASE + seconds * 10**9 + nanos


def claims(
    rows: list[tuple[str, int, int, int | None]], times: bool = True, **extra: list[object]
) -> pa.Table:
    """Won checkpoints of scope s: (partition, generation, written_at ns, watermark:
    ns where ``times``, else an integer; None: no watermark), and ``extra`` columns."""
    return pa.table(
        {
            "scope_id": ["s"] * len(rows),
            "partition_id": [r[0] for r in rows],
            "attempt_id": ["a-" + r[0] for r in rows],
            "owner_epoch": pa.array([1] * len(rows), pa.int64()),
            "expected_generation": pa.array([r[1] - 1 for r in rows], pa.int64()),
            "generation": pa.array([r[1] for r in rows], pa.int64()),
            "cas_result": ["won"] * len(rows),
            "written_at": pa.array([r[2] for r in rows], NS),
            "watermark": pa.array([r[3] for r in rows], NS if times else pa.int64()),
            "watermark_inclusive": [None if r[3] is None else True for r in rows],
            **extra,
        }
    )


def final_page(through: int, positions: pa.DataType) -> pa.Table:
    """p0's one page: empty, fetched at 1 s, with the provider's finality through
    ``through`` (positions of type ``positions``)."""
    return pa.table(
        {
            "scope_id": ["s"],
            "partition_id": ["p0"],
            "attempt_id": ["a1"],
            "page_id": ["g0"],
            "page_seq": pa.array([0], pa.int64()),
            "request_token": pa.array([None], pa.string()),
            "next_token": pa.array([None], pa.string()),
            "event_count": pa.array([0], pa.int64()),
            "min_position": pa.array([None], positions),
            "max_position": pa.array([None], positions),
            "finality_through": pa.array([through], positions),
            "finality_inclusive": [True],
            "fetched_at": pa.array([at_ns(1)], NS),
        }
    )


def last_row_logset(path: Path) -> Path:
    """p0: e1 committed at 1 s, e2 failed at 5 s + 500 ns (the log set's last row);
    an empty page with provider finality through 2; a won claim through 2 at 5 s."""
    receipts = pa.table(
        {
            "scope_id": ["s", "s"],
            "partition_id": ["p0", "p0"],
            "event_id": ["e1", "e2"],
            "position": pa.array([1, 2], pa.int64()),
            "outcome": ["committed", "failed"],
            "attempt_id": ["a1", "a1"],
            "recorded_at": pa.array([at_ns(1), at_ns(5, 500)], NS),
        }
    )
    pages = final_page(2, pa.int64())
    checkpoints = claims([("p0", 1, at_ns(5), 2)], times=False)
    return write_logset(path, {"receipts": receipts, "pages": pages, "checkpoints": checkpoints})


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


@pytest.mark.parametrize(
    "as_of", [pytest.param(None, marks=pytest.mark.slow), "2026-01-01T00:00:05.000000500Z"]
)
def test_the_last_row_counts_at_t(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], as_of: str | None
) -> None:
    logset = last_row_logset(tmp_path / "logs")
    extra = [] if as_of is None else ["--as-of", as_of]
    code, out = run(capsys, "watermarks", str(logset), "--json", *extra)
    assert code == 0
    (row,) = json.loads(out)
    assert row["as_of"] == "2026-01-01T00:00:05.000000500Z"
    assert (row["blocking_event_id"], row["blocking_reason"]) == ("e2", "failed")
    assert (row["proven_through"], row["claim_status"]) == (1, "overclaim")

    report = tmp_path / "report"
    assert main(["audit", str(logset), "--out", str(report), *extra]) == 1
    capsys.readouterr()
    findings = pl.read_parquet(report / "findings.parquet")
    assert findings.select("rule", "event_id").rows() == [("skipped_event", "e2")]
    summary = json.loads((report / "summary.json").read_text())
    assert summary["as_of"] == "2026-01-01T00:00:05.000000500Z"


def test_a_nanosecond_before_the_last_row_leaves_it_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logset = last_row_logset(tmp_path / "logs")
    code, out = run(
        capsys, "watermarks", str(logset), "--json", "--as-of", "2026-01-01T00:00:05.000000499Z"
    )
    assert code == 0
    (row,) = json.loads(out)
    assert row["blocking_event_id"] is None
    assert (row["proven_through"], row["claim_status"]) == (2, "ok")


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        ("2026-01-01T00:00:05.000000500Z", "2026-01-01 00:00:05.0000005"),
        ("2026-01-01t00:00:05.123456789z", "2026-01-01 00:00:05.123456789"),
        ("2026-01-01T00:00:05.123456789-01:30", "2026-01-01 01:30:05.123456789"),
        # past the ninth digit: floored (row times are whole nanoseconds)
        ("2026-01-01T00:00:05.9999999999Z", "2026-01-01 00:00:05.999999999"),
        ("2026-01-01T00:00:05.25", "2026-01-01 00:00:05.25"),
        ("2026-01-01", "2026-01-01 00:00:00"),
    ],
)
def test_t_is_read_to_the_nanosecond(text: str, literal: str) -> None:
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    assert parse_as_of(con, text)[0] == literal


def test_a_t_that_is_no_timestamp_is_said_so() -> None:
    con = duckdb.connect()
    with pytest.raises(UsageError, match="is not a timestamp"):
        parse_as_of(con, "2026-13-01")
    with pytest.raises(UsageError, match="outside the times"):
        parse_as_of(con, "2262-04-11T23:47:16.854775807Z")


@pytest.mark.parametrize(
    ("literal", "iso"),
    [
        ("2026-01-01 00:00:05", "2026-01-01T00:00:05"),
        ("2026-01-01 00:00:05.5", "2026-01-01T00:00:05.500000"),
        ("2026-01-01 00:00:05.0000005", "2026-01-01T00:00:05.000000500"),
        ("2026-01-01 00:00:05.123456789", "2026-01-01T00:00:05.123456789"),
    ],
)
def test_t_as_iso_text_keeps_datetime_form(literal: str, iso: str) -> None:
    assert iso_instant(literal) == iso


@pytest.mark.parametrize(
    ("token", "nanos", "fires"),
    [
        ("2026-01-01t00:00:05z", 0, True),  # RFC 3339 allows lower-case t and z
        pytest.param("2026-01-01T00:00:05.000000001Z", 1, True, marks=pytest.mark.slow),
        ("2026-01-01T00:00:05.000000001Z", 0, False),  # one nanosecond apart
        ("2026-01-01T01:00:05.0000000010+01:00", 1, True),
        # an offset no clock has is no time: DuckDB read it as 24 hours, the watermark
        ("2026-01-02T00:00:05+24:00", 0, False),
    ],
)
def test_a_token_is_read_to_the_nanosecond(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], token: str, nanos: int, fires: bool
) -> None:
    checkpoints = claims([("p0", 1, at_ns(1), at_ns(5, nanos))], resume_token=[token])
    logset = write_logset(tmp_path / "logs", {"checkpoints": checkpoints})
    report = tmp_path / "report"
    main(["audit", str(logset), "--out", str(report)])
    capsys.readouterr()
    rules = pl.read_parquet(report / "findings.parquet")["rule"].to_list()
    assert ("token_as_watermark" in rules) is fires


def test_json_keeps_times_in_vectors_to_the_nanosecond() -> None:
    vector = pl.DataFrame(
        {"partition_id": ["p0", "p1"], "through": [at_ns(20, 500), None], "inclusive": [True, None]}
    ).select(
        pl.struct(pl.col("partition_id"), pl.col("through").cast(pl.Datetime("ns")), "inclusive")
        .implode()
        .alias("vector")
    )
    frame = pl.DataFrame(
        {
            "as_of": pl.Series([at_ns(20, 500)]).cast(pl.Datetime("ns")),
            "stamp": pl.Series([at_ns(20, 500_000)])
            .cast(pl.Datetime("ns"))
            .cast(pl.Datetime("us")),
        }
    ).hstack(vector)
    (row,) = json.loads(frame_json(frame))
    # in UTC, said so (Z): JSON readers take a time without a zone for local time
    assert row["as_of"] == "2026-01-01T00:00:20.000000500Z"
    assert row["vector"] == [
        {"partition_id": "p0", "through": "2026-01-01T00:00:20.000000500Z", "inclusive": True},
        {"partition_id": "p1", "through": None, "inclusive": None},
    ]
    # microseconds in datetime.isoformat's form, as before
    assert row["stamp"] == "2026-01-01T00:00:20.000500Z"


def test_frontier_json_prints_a_vector_of_times(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A timestamp scope whose claimed frontier is a vector: p0 claims 20 s, p1 has
    a won write without a watermark."""
    checkpoints = claims([("p0", 1, at_ns(1), at_ns(20, 7)), ("p1", 1, at_ns(1), None)])
    logset = write_logset(tmp_path / "logs", {"checkpoints": checkpoints})
    code, out = run(capsys, "frontier", str(logset), "--json")
    assert code == 0
    claimed = next(row for row in json.loads(out) if row["basis"] == "claimed")
    assert claimed["kind"] == "vector"
    assert claimed["vector"][0] == {
        "partition_id": "p0",
        "through": "2026-01-01T00:00:20.000000007Z",
        "inclusive": True,
    }
    code, out = run(capsys, "frontier", str(logset))
    assert code == 0
    assert "p0: <= 2026-01-01 00:00:20.000000007" in out


def test_people_outputs_show_a_claim_to_the_nanosecond(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The terminal, summary.md and report.html say a timestamp frontier whole:
    20 s + 7 ns, never 20 s (a lower claim than was made)."""
    checkpoints = claims([("p0", 1, at_ns(1), at_ns(20, 7)), ("p1", 1, at_ns(2), at_ns(30, 5))])
    logset = write_logset(tmp_path / "logs", {"checkpoints": checkpoints})
    report = tmp_path / "report"
    code, out = run(capsys, "audit", str(logset), "--out", str(report))
    assert code == 0
    claim = "2026-01-01 00:00:20.000000007"
    assert f"claimed epoch 1: <= {claim} (held by p0)" in out
    assert f"≤ {claim}" in (report / "summary.md").read_text()
    html = (report / "report.html").read_text()
    assert f"<td>≤ {claim}</td>" in html
    assert f"complete through ≤ {claim}" in html


def test_diff_sees_a_frontier_go_back_by_nanoseconds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = []
    for name, claim in (("old", at_ns(20, 500)), ("new", at_ns(20, 100))):
        logset = write_logset(
            tmp_path / name, {"checkpoints": claims([("p0", 1, at_ns(1), claim)])}
        )
        reports.append(tmp_path / f"{name}-report")
        main(["audit", str(logset), "--out", str(reports[-1])])
    capsys.readouterr()
    code, out = run(capsys, "diff", *map(str, reports), "--format", "json")
    assert code == 0
    claimed = next(r for r in json.loads(out)["frontiers"] if r["basis"] == "claimed")
    assert claimed["movement"] == "went back"
    assert (claimed["old"], claimed["new"]) == (
        "<= 2026-01-01T00:00:20.000000500",
        "<= 2026-01-01T00:00:20.000000100",
    )


def test_the_longest_stay_wins_by_nanoseconds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """p0 holds the claimed frontier at 5 for 2 s, then at 10 for 2 s + 400 ns: the
    second stay is the longer (a DuckDB INTERVAL, in microseconds, tied them)."""
    rows = [
        ("p0", 1, at_ns(1), 5),
        ("p1", 1, at_ns(1), 100),
        ("p0", 2, at_ns(3), 10),
        ("p0", 3, at_ns(5, 400), 20),
        ("p1", 2, at_ns(5, 600), 100),
    ]
    logset = write_logset(tmp_path / "logs", {"checkpoints": claims(rows, times=False)})
    report = tmp_path / "report"
    main(["audit", str(logset), "--out", str(report), "--stall-threshold", "0.02"])
    capsys.readouterr()
    stalls = pl.read_parquet(report / "findings.parquet").filter(
        pl.col("rule") == "stalled_partition"
    )
    (evidence,) = stalls["evidence"].to_list()
    assert json.loads(evidence)["seconds"] == pytest.approx(2.0000004, abs=1e-9)
    assert json.loads(evidence)["claimed_through"] == 10


def test_a_hive_key_time_keeps_its_nanoseconds(tmp_path: Path) -> None:
    root = tmp_path / "logs"
    folder = root / "receipts" / "recorded_at=2026-01-01T02:00:05.000000500+02:00"
    folder.mkdir(parents=True)
    pq.write_table(
        pa.table(
            {
                "scope_id": ["s"],
                "partition_id": ["p0"],
                "event_id": ["e1"],
                "position": pa.array([1], pa.int64()),
                "outcome": ["committed"],
                "attempt_id": ["a1"],
            }
        ),
        folder / "part.parquet",
    )
    write_logset(root, {"checkpoints": claims([("p0", 1, at_ns(6), 1)], times=False)})
    logset = open_logset(root)
    (value,) = logset.con.execute("SELECT epoch_ns(recorded_at) FROM receipts").fetchone() or ()
    assert value == at_ns(5, 500)
    frame = logset.lazyframe("receipts").select(pl.col("recorded_at").cast(pl.Int64)).collect()
    assert frame.item() == at_ns(5, 500)


def test_report_files_name_a_findings_time_to_the_nanosecond(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report"
    assert main(["audit", str(last_row_logset(tmp_path / "logs")), "--out", str(report)]) == 1
    capsys.readouterr()
    stamp = "2026-01-01 00:00:05.000000500"
    assert f"at={stamp}:" in (report / "junit.xml").read_text()
    html = (report / "report.html").read_text()
    assert f'data-at="{stamp}"' in html
    assert f"skipped_event at {stamp}:" in html


@pytest.mark.parametrize(
    ("cursor", "nanos"),
    [
        ("2026-01-01T00:00:05.000000500Z", at_ns(5, 500)),
        ("2026-01-01t01:00:05.123456789+01:00", at_ns(5, 123_456_789)),
        ("2026-01-01 00:00:05", at_ns(5)),
        ("42", None),  # no timestamp: refused by the readers, never guessed
        ("2026-01-01T00:00:05+25:00", None),  # an offset no clock has: no time
    ],
)
def test_a_framework_cursor_keeps_its_nanoseconds(cursor: str, nanos: int | None) -> None:
    """The Singer, dlt and Airbyte readers read a cursor's text with
    rc_source_cursor (reconcile/sql/readers/cursor_time.sql, which calls rc_no_clock
    of readers/clock, installed first)."""
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute(load("readers/clock"))
    con.execute(load("readers/cursor_time"))
    row = con.execute("SELECT epoch_ns(rc_source_cursor($c))", {"c": cursor}).fetchone()
    assert row is not None and row[0] == nanos


def jsonl_twin(logset: Path, folder: Path) -> Path:
    """The log set with its receipts as JSON Lines, times as RFC 3339 text at +01:00
    to the nanosecond, read through a mapping that names no conversion (DuckDB
    detects the text as times); the mapping file's path."""
    shutil.copytree(logset, folder)
    receipts = pl.read_parquet(folder / "receipts.parquet")
    (folder / "receipts.parquet").unlink()
    texts = [
        datetime.fromtimestamp(ns // 10**9 + 3600, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        + f".{ns % 10**9:09d}+01:00"
        for ns in receipts["recorded_at"].dt.epoch("ns")
    ]
    receipts.with_columns(pl.Series("recorded_at", texts)).write_ndjson(folder / "r.jsonl")
    mapping = folder.parent / "mapping.toml"
    mapping.write_text('[receipts]\nfiles = "r.jsonl"\n')
    return mapping


@pytest.mark.parametrize(
    "as_of",
    [None, "2026-01-01T00:00:05.000000400Z", "2026-01-01T00:00:05.000000500Z"],
)
def test_json_lines_through_a_mapping_keep_their_nanoseconds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], as_of: str | None
) -> None:
    """DuckDB's JSON reader takes RFC 3339 text for a TIMESTAMPTZ, in microseconds:
    e2's failure, 500 ns past 5 s, read as 5 s, fell before a T of 5 s + 400 ns, and
    the mapped log set answered otherwise than its Parquet twin."""
    logset = last_row_logset(tmp_path / "logs")
    mapping = jsonl_twin(logset, tmp_path / "json" / "logs")
    extra = [] if as_of is None else ["--as-of", as_of]
    code, parquet = run(capsys, "watermarks", str(logset), "--json", *extra)
    assert code == 0
    code, mapped = run(
        capsys,
        "watermarks",
        str(mapping.parent / "logs"),
        "--mapping",
        str(mapping),
        "--json",
        *extra,
    )
    assert code == 0
    assert json.loads(mapped) == json.loads(parquet)
    (row,) = json.loads(mapped)
    before = as_of is not None and as_of.endswith("400Z")
    assert row["blocking_event_id"] == (None if before else "e2")


def test_validate_shows_an_example_row_to_the_nanosecond(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A problem's example rows name their times exactly: a published row 7 ns past
    3 s is not shown as the row at 3 s."""
    logset = last_row_logset(tmp_path / "logs")
    published = pa.table(
        {
            "scope_id": ["s"],
            "epoch": pa.array([1], pa.int64()),
            "kind": ["bogus"],
            "frontier": pa.array([1], pa.int64()),
            "frontier_inclusive": [True],
            "published_at": pa.array([at_ns(3, 7)], NS),
        }
    )
    pq.write_table(published, logset / "published.parquet")
    code, out = run(capsys, "validate", str(logset), "--json")
    assert code == 2
    (problem,) = json.loads(out)["problems"]
    assert problem["check"] == "isin"
    assert problem["examples"][0]["published_at"] == "2026-01-01T00:00:03.000000007"


def test_int96_times_finer_than_a_microsecond_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """INT96 (Impala, Hive) holds nanoseconds and DuckDB reads it to the microsecond:
    e2's failure, 500 ns past 5 s, was read at 5 s (a probe's claim 500 ns past an
    event, read cut, went unseen: exit 0).
    Whole microseconds in INT96 (Spark's) read exactly."""
    logset = last_row_logset(tmp_path / "ns")
    for name in ("receipts", "checkpoints"):
        rows = pq.read_table(logset / f"{name}.parquet")
        pq.write_table(rows, logset / f"{name}.parquet", use_deprecated_int96_timestamps=True)
    code, out = run(capsys, "validate", str(logset), "--json")
    assert code == 2
    (problem,) = json.loads(out)["problems"]
    assert (problem["check"], problem["table"], problem["column"]) == (
        "int96_nanoseconds",
        "receipts",
        "recorded_at",
    )
    assert problem["examples"][0]["recorded_at"] == "2026-01-01T00:00:05.000000500"

    whole = last_row_logset(tmp_path / "us")
    rows = pq.read_table(whole / "receipts.parquet")
    micros = rows.set_column(
        rows.schema.get_field_index("recorded_at"),
        "recorded_at",
        pa.array([at_ns(1), at_ns(5, 1000)], NS),
    )
    pq.write_table(micros, whole / "receipts.parquet", use_deprecated_int96_timestamps=True)
    assert run(capsys, "validate", str(whole))[0] == 0


def test_an_int96_time_past_2262_is_out_of_range_not_finer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Read as nanoseconds, an INT96 time in 2300 wraps into 1715 with digits below
    the microsecond: it was named int96_nanoseconds, with a time the file never held.
    It is out of range, and said so (timestamp_in_range, as DuckDB reads it)."""
    logset = last_row_logset(tmp_path / "far")
    rows = pq.read_table(logset / "receipts.parquet")
    far = pa.array([at_ns(1), at_ns(5)], NS).to_pylist()
    far[1] = datetime(2300, 1, 1)
    column = pa.array(far, pa.timestamp("us"))
    rows = rows.set_column(rows.schema.get_field_index("recorded_at"), "recorded_at", column)
    pq.write_table(rows, logset / "receipts.parquet", use_deprecated_int96_timestamps=True)
    code, out = run(capsys, "validate", str(logset), "--json")
    assert code == 2
    checks = [(p["check"], p["column"]) for p in json.loads(out)["problems"]]
    assert checks == [("timestamp_in_range", "recorded_at")]


def test_int96_through_a_mapping_is_refused_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logset = last_row_logset(tmp_path / "ns")
    rows = pq.read_table(logset / "receipts.parquet")
    (logset / "receipts.parquet").unlink()
    pq.write_table(
        rows.rename_columns(["when" if c == "recorded_at" else c for c in rows.column_names]),
        logset / "r.parquet",
        use_deprecated_int96_timestamps=True,
    )
    mapping = tmp_path / "mapping.toml"
    mapping.write_text(
        '[receipts]\nfiles = "r.parquet"\n[receipts.columns]\nrecorded_at = "when"\n'
    )
    code, out = run(capsys, "validate", str(logset), "--mapping", str(mapping), "--json")
    assert code == 2
    (problem,) = json.loads(out)["problems"]
    assert (problem["check"], problem["column"]) == ("int96_nanoseconds", "recorded_at")
    assert problem["files"] == ["r.parquet"]


def test_the_report_labels_stretches_to_the_nanosecond(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The chart's notes name a stretch's ends whole: the claimed frontier is a vector
    from p0's claim at 1 s + 5 ns (p1 has none yet) to p1's at 2 s + 7 ns, and p0
    stalls from 3 s to 6 s + 400 ns (labels read through Python datetimes said 1 s,
    2 s and 6 s)."""
    rows = [
        ("p0", 1, at_ns(1, 5), 5),
        ("p1", 1, at_ns(2, 7), 100),
        ("p0", 2, at_ns(3), 10),
        ("p0", 3, at_ns(6, 400), 200),
    ]
    logset = write_logset(tmp_path / "logs", {"checkpoints": claims(rows, times=False)})
    report = tmp_path / "report"
    main(["audit", str(logset), "--out", str(report), "--stall-threshold", "0.04"])
    capsys.readouterr()
    page = (report / "report.html").read_text(encoding="utf-8")
    notes = [html.unescape(n) for n in re.findall(r'class="vector-note">([^<]*)<', page)]
    claimed = next(n for n in notes if n.startswith("no claimed line"))
    assert claimed.startswith(
        "no claimed line from 2026-01-01 00:00:01.000000005 to 2026-01-01 00:00:02.000000007:"
    )
    stall = "from 2026-01-01 00:00:03 to 2026-01-01 00:00:06.000000400"
    (band,) = re.findall(r'<rect class="stall"[^>]*><title>([^<]*)</title>', page)
    assert stall in html.unescape(band)
    (legend,) = re.findall(r'class="stall-note">(?:<i[^>]*></i>)?([^<]*)<', page)
    assert f"p0 {stall}" in html.unescape(legend)


def test_a_proven_frontier_that_rose_by_nanoseconds_is_not_dated_by_the_last_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Positions are times: e1 at 10 s, e2 at 10 s + 1 ns, e3 at 10 s + 2 ns. At the
    last won write (5 s + 3 ns) e2 has failed: the proven frontier is just before it. e2 is
    committed at 7 s (T), e3 failed at 6 s: at T the frontier is just before e3, 1 ns
    higher. The report dates it after the history's last row, never "as at" it (the
    two compared equal as Python datetimes)."""
    receipts = pa.table(
        {
            "scope_id": ["s"] * 4,
            "partition_id": ["p0"] * 4,
            "event_id": ["e1", "e2", "e2", "e3"],
            "position": pa.array([at_ns(10), at_ns(10, 1), at_ns(10, 1), at_ns(10, 2)], NS),
            "outcome": ["committed", "failed", "committed", "failed"],
            "attempt_id": ["a1"] * 4,
            "recorded_at": pa.array([at_ns(1), at_ns(2), at_ns(7), at_ns(6)], NS),
        }
    )
    # the provider's finality through 20 s: the proof is the events' own
    pages = final_page(at_ns(20), NS)
    # a claim through e2 at 5 s + 3 ns: above the proof (just before e2) from then on
    checkpoints = claims([("p0", 1, at_ns(5, 3), at_ns(10, 1))])
    tables = {"receipts": receipts, "pages": pages, "checkpoints": checkpoints}
    logset = write_logset(tmp_path / "logs", tables)
    report = tmp_path / "report"
    main(["audit", str(logset), "--out", str(report)])
    capsys.readouterr()
    history = pl.read_parquet(report / "frontier_history.parquet").filter(
        pl.col("basis") == "proven"
    )
    assert history.sort("at")["frontier"].dt.nanosecond()[-1] == 1
    fronts = pl.read_parquet(report / "frontiers.parquet").filter(pl.col("basis") == "proven")
    assert fronts["frontier"].dt.nanosecond()[0] == 2
    page = (report / "report.html").read_text(encoding="utf-8")
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", page)))
    assert "< 2026-01-01 00:00:10.000000002 in epoch 1, at this value (reached after" in text
    assert "at this value (as at" not in text
    (mark,) = re.findall(r'class="at-t-proven"><title>([^<]*)<', page)
    assert "reached after the last instant the history records" in html.unescape(mark)
    lag = "claimed frontier above the proven one from 2026-01-01 00:00:05.000000003 on"
    assert lag in [html.unescape(t) for t in re.findall(r'class="lag"[^>]*><title>([^<]*)<', page)]
    (note,) = re.findall(r'class="lag-note">(?:<i[^>]*></i>)?([^<]*)<', page)
    assert "from 2026-01-01 00:00:05.000000003 on" in html.unescape(note)


def test_an_epoch_change_is_named_to_the_nanosecond(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The chart's line where epoch 2 comes into force is titled with its instant
    whole: 4 s + 9 ns, never 4 s."""
    epochs = pa.table(
        {
            "scope_id": ["s", "s"],
            "epoch": pa.array([1, 2], pa.int64()),
            "effective_at": pa.array([at_ns(0), at_ns(4, 9)], NS),
            "cutover": pa.array([None, 10], pa.int64()),
            "cutover_inclusive": pa.array([None, True], pa.bool_()),
        }
    )
    members = pa.table(
        {
            "scope_id": ["s", "s"],
            "epoch": pa.array([1, 2], pa.int64()),
            "partition_id": ["p0", "p0"],
            "role": ["member", "member"],
        }
    )
    checkpoints = claims([("p0", 1, at_ns(1), 5), ("p0", 2, at_ns(6), 20)], times=False)
    tables = {"checkpoints": checkpoints, "epochs": epochs, "members": members}
    logset = write_logset(tmp_path / "logs", tables)
    report = tmp_path / "report"
    main(["audit", str(logset), "--out", str(report)])
    capsys.readouterr()
    page = (report / "report.html").read_text(encoding="utf-8")
    titles = re.findall(r'<line class="epoch-change"[^>]*><title>([^<]*)<', page)
    assert titles == ["epoch 2 in force from 2026-01-01 00:00:04.000000009"]
