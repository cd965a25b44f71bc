"""Valid values that crashed or misled (issue 19, part 3): every value the contract
admits is either audited correctly or rejected by ``validate`` with exit 2, naming
the table, the column and the rows.

The engine computes times in DuckDB's TIMESTAMP_NS (int64 nanoseconds, 1677 to
2262, whose very ends DuckDB reads as -infinity and infinity): a Parquet timestamp
outside that (year 1 or 9999 in microseconds, the int64 maximum in any unit) is a
row validation names (``timestamp_in_range``), never a claim read as "no claim" or
a conversion error without a row. Column names the reader cannot tell apart (a name
twice in a file, a hive key that is also a column, the reader's own
``file_row_number``, a contract name in another case) are refused; extra columns
named ``__file`` or ``__row`` are read past like any other extra column.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings

from reconcile import open_logset
from reconcile.audit import audit
from reconcile.audit.report import summary
from reconcile.cli import EXIT_INVALID, main
from reconcile.render.html import render_html
from tests import reference
from tests.conftest import examples
from tests.logsets import at, checkpoint, page, receipt, table, write_logset
from tests.strategies import logsets

DATA = Path(__file__).resolve().parents[1] / "data"
INT64_MAX = 2**63 - 1


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def validate_json(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[int, dict[str, Any]]:
    code, out, _ = run(capsys, "validate", str(path), "--json")
    return code, json.loads(out)


def with_column(data: pa.Table, name: str, values: pa.Array) -> pa.Table:
    return data.set_column(data.schema.get_field_index(name), name, values)


def timestamp_logset(tmp_path: Path, watermark: pa.Array) -> Path:
    """One claim in a log set of timestamps, its watermark as given."""
    path = tmp_path / "ls"
    path.mkdir()
    claims = table("checkpoints", [checkpoint("p0", 1, at(5))], "timestamp")
    pq.write_table(with_column(claims, "watermark", watermark), path / "checkpoints.parquet")
    pq.write_table(
        table("receipts", [receipt("e0", at(1))], "timestamp"), path / "receipts.parquet"
    )
    return path


def int64_as_time(value: int, unit: str) -> pa.Array:
    return pa.array([value], pa.int64()).cast(pa.timestamp(unit, tz="UTC"))


@pytest.mark.parametrize(
    ("watermark", "what"),
    [
        (int64_as_time(INT64_MAX, "us"), "the int64 maximum in µs (infinity)"),
        (int64_as_time(INT64_MAX, "ns"), "the int64 maximum in ns (infinity)"),
        (int64_as_time(-(2**63) + 1, "ns"), "the int64 minimum + 1 in ns (-infinity)"),
        (int64_as_time(-(2**63), "ns"), "the int64 minimum in ns (a value to DuckDB)"),
        (int64_as_time(-(2**63), "ns").cast(pa.timestamp("ns")), "the same, naive"),
        (pa.array([datetime(1, 1, 1, tzinfo=UTC)], pa.timestamp("us", tz="UTC")), "year 1"),
        (
            pa.array([datetime(9999, 12, 31, tzinfo=UTC)], pa.timestamp("us")),
            "year 9999, naive",
        ),
    ],
)
def test_a_claim_at_a_time_the_engine_cannot_hold_is_rejected_with_its_row(
    watermark: pa.Array,
    what: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Not read as "no claim" (an overclaim missed, exit 0), not a conversion error
    without a row (exit 3): exit 2 naming table, column and row."""
    path = timestamp_logset(tmp_path, watermark)
    code, report = validate_json(capsys, path)
    assert code == EXIT_INVALID, what
    (problem,) = report["problems"]
    assert (problem["check"], problem["table"], problem["column"]) == (
        "timestamp_in_range",
        "checkpoints",
        "watermark",
    )
    assert problem["failing_rows"] == 1
    assert problem["examples"][0]["file"] == "checkpoints.parquet"
    assert problem["examples"][0]["row"] == 0
    # the value as the file holds it, not the null it normalizes to
    shown = problem["examples"][0]["watermark"]
    assert shown is not None, what
    code, _, err = run(capsys, "audit", str(path), "--out", str(tmp_path / "r"))
    assert code == EXIT_INVALID
    assert "timestamp_in_range" in err
    assert not (tmp_path / "r").exists()


def test_the_last_microsecond_the_engine_holds_is_audited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    last = datetime(2262, 4, 11, 23, 47, 16, 854775, tzinfo=UTC)
    path = timestamp_logset(tmp_path, pa.array([last], pa.timestamp("us", tz="UTC")))
    code, _, _ = run(capsys, "audit", str(path), "--out", str(tmp_path / "r"))
    assert code == 0
    marks = pl.read_parquet(tmp_path / "r" / "watermarks.parquet")
    assert marks["claimed_through"].to_list() == [last.replace(tzinfo=None)]
    assert marks["claim_status"].to_list() == ["no_proof"]


def test_a_receipt_time_out_of_range_is_rejected_where_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Any time column, not only coordinates: recorded_at of the second row."""
    path = write_logset(
        tmp_path / "ls",
        {"checkpoints": [checkpoint("p0", 1, 5)], "receipts": [receipt("e0", 1), receipt("e1", 2)]},
    )
    rows = pq.read_table(path / "receipts.parquet")
    times = pa.array(
        [datetime(2026, 1, 1, tzinfo=UTC), datetime(1, 1, 1, tzinfo=UTC)],
        pa.timestamp("us", tz="UTC"),
    )
    pq.write_table(with_column(rows, "recorded_at", times), path / "receipts.parquet")
    code, report = validate_json(capsys, path)
    assert code == EXIT_INVALID
    (problem,) = report["problems"]
    assert (problem["column"], problem["examples"][0]["row"]) == ("recorded_at", 1)
    assert problem["examples"][0]["event_id"] == "e1"


def test_a_hive_key_time_out_of_range_is_rejected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)]})
    folder = path / "receipts" / "recorded_at=9999-01-01T00:00:00"
    folder.mkdir(parents=True)
    row = {k: v for k, v in receipt("e0", 1).items() if k != "recorded_at"}
    pq.write_table(table("receipts", [row]), folder / "part.parquet")
    code, report = validate_json(capsys, path)
    assert code == EXIT_INVALID
    assert [(p["check"], p["column"]) for p in report["problems"]] == [
        ("wrong_type", "recorded_at")
    ]


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("20260101T000000Z", False),  # ISO's basic form
        ("2026-W01-4", False),  # a week date
        ("2026-01-01T00:00:00,5", False),  # a comma before the fraction
        ("2026-01-01", True),
        ("2026-01-01 00:00:05+0530", True),
        ("2026-01-01T00:00:05.5+05", True),
    ],
)
def test_a_hive_key_time_duckdb_cannot_read_is_named_by_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, valid: bool
) -> None:
    """Python's fromisoformat reads forms DuckDB's hive reading does not: they passed
    the hive value's check and failed as the table's 'cannot be read', naming no file
    or column."""
    path = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)]})
    folder = path / "receipts" / f"recorded_at={value}"
    folder.mkdir(parents=True)
    row = {k: v for k, v in receipt("e0", 1).items() if k != "recorded_at"}
    pq.write_table(table("receipts", [row]), folder / "part.parquet")
    code, report = validate_json(capsys, path)
    if valid:
        assert code == 0
        return
    assert code == EXIT_INVALID
    assert [(p["check"], p["column"]) for p in report["problems"]] == [
        ("wrong_type", "recorded_at")
    ]


def test_mapped_epoch_milliseconds_at_the_int64_maximum_are_rejected_with_the_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``CAST(ms AS BIGINT) * 1000000`` overflowed in the audit, after validation
    passed; now the conversion saturates and validation names the row."""
    logs = tmp_path / "logs"
    logs.mkdir()
    pl.DataFrame(
        {
            "shard": ["p0", "p0"],
            "gen": [1, 2],
            "ts_ms": [1_767_225_600_000, INT64_MAX],
        }
    ).write_parquet(logs / "progress.parquet")
    (logs / "reconcile.toml").write_text(
        '[checkpoints]\nfiles = "progress.parquet"\n[checkpoints.columns]\n'
        'scope_id = { constant = "s" }\npartition_id = "shard"\nattempt_id = { constant = "a" }\n'
        "owner_epoch = { constant = 0 }\n"
        'expected_generation = { sql = "gen - 1" }\ngeneration = "gen"\n'
        'cas_result = { constant = "won" }\n'
        'written_at = { column = "ts_ms", timestamp = "epoch_ms" }\n'
    )
    code, out, _ = run(capsys, "validate", str(logs), "--mapping", "auto", "--json")
    assert code == EXIT_INVALID
    (problem,) = json.loads(out)["problems"]
    assert (problem["check"], problem["column"], problem["source"]) == (
        "timestamp_in_range",
        "written_at",
        "ts_ms (epoch_ms)",
    )
    example = problem["examples"][0]
    assert (example["file"], example["row"]) == ("progress.parquet", 1)
    # the user's column as the file holds it, not the converted time's saturated end
    assert example["ts_ms"] == f"{INT64_MAX} (as written)"
    assert "written_at" not in example


@pytest.mark.parametrize(
    ("column", "moment"),
    [
        ("written_at", datetime(1677, 12, 1, tzinfo=UTC)),
        ("written_at", datetime(1678, 1, 1, tzinfo=UTC)),
        ("written_at", datetime(2262, 1, 1, tzinfo=UTC)),
    ],
)
def test_a_rows_own_time_at_the_engines_beginning_or_end_of_time_is_rejected(
    column: str, moment: datetime, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The engine stands 1678-01-01 for "before every row" and 2261-12-31 for
    "never": a written_at there (inside what TIMESTAMP_NS holds) would be taken for
    the beginning or the end of time, so validation names the row instead."""
    path = write_logset(
        tmp_path / "ls",
        {"checkpoints": [checkpoint("p0", 1, 5), checkpoint("p0", 2, 6, written=1)]},
    )
    rows = pq.read_table(path / "checkpoints.parquet")
    times = pa.array([datetime(2026, 1, 1, tzinfo=UTC), moment], pa.timestamp("us", tz="UTC"))
    pq.write_table(with_column(rows, column, times), path / "checkpoints.parquet")
    code, report = validate_json(capsys, path)
    assert code == EXIT_INVALID
    (problem,) = report["problems"]
    assert (problem["check"], problem["column"], problem["examples"][0]["row"]) == (
        "timestamp_in_range",
        column,
        1,
    )
    assert "at or before 1678-01-01" in problem["message"]


def test_a_coordinate_before_the_engines_beginning_of_time_is_audited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The beginning and the end of time bound a row's own time, not a coordinate:
    a claim in 1677 (after TIMESTAMP_NS's first microsecond) is a claim."""
    early = datetime(1677, 12, 1, tzinfo=UTC)
    path = timestamp_logset(tmp_path, pa.array([early], pa.timestamp("us", tz="UTC")))
    code, _, _ = run(capsys, "audit", str(path), "--out", str(tmp_path / "r"))
    assert code == 0
    marks = pl.read_parquet(tmp_path / "r" / "watermarks.parquet")
    assert marks["claimed_through"].to_list() == [early.replace(tzinfo=None)]


@pytest.mark.parametrize(
    ("key", "accepted"),
    [("recorded_at=1677-12-01T00:00:00", False), ("position=1677-12-01T00:00:00", True)],
)
def test_a_hive_key_time_is_bounded_as_its_column_is(
    key: str, accepted: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hive key's time is held to its column's range: a row's own time strictly
    inside the engine's beginning and end of time, a coordinate to TIMESTAMP_NS."""
    path = tmp_path / "ls"
    path.mkdir()
    pq.write_table(
        table("checkpoints", [checkpoint("p0", 1, at(5))], "timestamp"),
        path / "checkpoints.parquet",
    )
    folder = path / "receipts" / key
    folder.mkdir(parents=True)
    name = key.partition("=")[0]
    row = {k: v for k, v in receipt("e0", at(1)).items() if k != name}
    pq.write_table(table("receipts", [row], "timestamp"), folder / "part.parquet")
    code, report = validate_json(capsys, path)
    if accepted:
        assert code == 0, report
    else:
        assert code == EXIT_INVALID
        assert [(p["check"], p["column"]) for p in report["problems"]] == [("wrong_type", name)]


@pytest.mark.parametrize(
    "as_of", ["2300-01-01", "0001-01-01", "infinity", "1677-12-01", "2261-12-31"]
)
@pytest.mark.slow
def test_as_of_outside_the_engines_times_is_a_usage_error(
    as_of: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in ("frontier", "watermarks"):
        code, out, err = run(capsys, command, str(DATA / "clean"), "--as-of", as_of)
        assert code == EXIT_INVALID, err
        assert out == ""
        assert "outside the times the reconciler computes in" in err


def test_positions_of_epoch_nanoseconds_draw_the_report(tmp_path: Path) -> None:
    """int64 epoch nanoseconds (about 1.7e18) as positions: the report's scales."""
    base = 1_700_000_000_000_000_000
    path = write_logset(
        tmp_path / "ls",
        {
            "checkpoints": [
                checkpoint("p0", 1, base + 3, written=10),
                checkpoint("p0", 2, base + 3, written=20),
                checkpoint("p1", 1, base, written=15),
            ],
            "pages": [
                page(
                    "g1",
                    0,
                    4,
                    base,
                    base + 3,
                    finality_through=base + 3,
                    finality_inclusive=True,
                    next_token=None,
                    request_token=None,
                )
            ],
            "receipts": [receipt(f"e{i}", base + i, page_id="g1") for i in range(4)],
        },
    )
    with open_logset(path) as logset:
        result = audit(logset)
    text = render_html(result, summary(result, "error"))
    assert text.count("<svg") == 1 and "1,700,000,000,000,000,000" in text


# -- names ---------------------------------------------------------------------------


@pytest.mark.slow
def test_extra_columns_named_like_the_readers_own_are_read_past(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``__file`` and ``__row`` are extra columns like any other: the audit is the same."""
    plain = tmp_path / "plain"
    shutil.copytree(DATA / "clean", plain)
    extra = tmp_path / "extra"
    shutil.copytree(DATA / "clean", extra)
    rows = pq.read_table(extra / "receipts.parquet")
    rows = rows.append_column("__file", pa.array(["x"] * rows.num_rows))
    rows = rows.append_column("__row", pa.array([7] * rows.num_rows))
    pq.write_table(rows, extra / "receipts.parquet")
    assert run(capsys, "audit", str(plain), "--out", str(tmp_path / "a"))[0] == 0
    assert run(capsys, "audit", str(extra), "--out", str(tmp_path / "b"))[0] == 0
    for name in ("watermarks", "findings", "frontier_history"):
        a = pl.read_parquet(tmp_path / "a" / f"{name}.parquet")
        assert a.equals(pl.read_parquet(tmp_path / "b" / f"{name}.parquet")), name
    with open_logset(extra) as logset:
        frame = logset.lazyframe("receipts").collect()
        assert frame["__row"].to_list()[:3] == [0, 1, 2]
        assert frame["__file"].to_list()[0] == str(extra / "receipts.parquet")


@pytest.mark.parametrize(
    ("names", "check"),
    [
        (["position", "position"], "duplicate_column"),
        (["position", "POSITION"], "duplicate_column"),
        (["file_row_number"], "reserved_column"),
        (["File_Row_Number"], "reserved_column"),
        (["Position"], "misnamed_column"),
    ],
)
def test_names_a_reader_would_resolve_silently_are_refused(
    names: list[str], check: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_logset(
        tmp_path / "ls",
        {"checkpoints": [checkpoint("p0", 1, 5)], "receipts": [receipt("e0", 1)]},
    )
    rows = pq.read_table(path / "receipts.parquet")
    fields = list(rows.schema)
    arrays = list(rows.columns)
    for name in names:
        if name == "position":  # a second column named position, with other values
            fields.append(pa.field("position", pa.int64()))
            arrays.append(pa.array([99]))
        elif name == "Position":  # the contract's column, in another case only
            index = rows.schema.get_field_index("position")
            fields[index] = pa.field("Position", pa.int64())
        else:
            fields.append(pa.field(name, pa.int64()))
            arrays.append(pa.array([99]))
    pq.write_table(
        pa.Table.from_arrays(arrays, schema=pa.schema(fields)), path / "receipts.parquet"
    )
    code, report = validate_json(capsys, path)
    assert code == EXIT_INVALID
    assert check in [p["check"] for p in report["problems"]]
    assert all(p["table"] == "receipts" for p in report["problems"])
    code, _, err = run(capsys, "audit", str(path), "--out", str(tmp_path / "r"))
    assert code == EXIT_INVALID and check in err


def test_a_hive_key_that_is_also_a_column_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``partition_id=p1/`` above a file whose own partition_id says p0: one of them
    would win silently."""
    path = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)]})
    folder = path / "receipts" / "partition_id=p1"
    folder.mkdir(parents=True)
    pq.write_table(table("receipts", [receipt("e0", 1)]), folder / "part.parquet")
    code, report = validate_json(capsys, path)
    assert code == EXIT_INVALID
    (problem,) = report["problems"]
    assert (problem["check"], problem["column"]) == ("hive_key_shadows_column", "partition_id")


# -- the whole int64 range, against the exact reference --------------------------------

TS_FIRST = datetime(1677, 9, 21, 0, 12, 43, 145225)
TS_LAST = datetime(2262, 4, 11, 23, 47, 16, 854775)


def _engine_holds(tables: dict[str, Any]) -> bool:
    """Whether every timestamp value of the log set is one the engine holds."""
    for rows in tables.values():
        for row in rows:
            for value in row.values():
                if isinstance(value, datetime) and not TS_FIRST <= value <= TS_LAST:
                    return False
    return True


@pytest.mark.slow
@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=logsets(extreme="spread"))
def test_the_audit_at_any_values_of_the_types_is_exact(case: dict[str, Any]) -> None:
    """Coordinates drawn across the whole int64 range (both ends likely among them),
    timestamps across every microsecond Python writes (years 1 to 9999): the audit,
    report included, never crashes; a log set whose times the engine cannot hold is
    refused (exit 2, naming them), and every other one gives each partition exactly
    the certificates the reference computes with Python's big integers, so that no
    claim is ever proven beyond them."""
    tables = {k: v for k, v in case["tables"].items() if v}
    with tempfile.TemporaryDirectory() as folder:
        path = write_logset(Path(folder) / "ls", tables, case["coordinate"])
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["audit", str(path), "--out", str(Path(folder) / "r")])
        assert "Traceback" not in err.getvalue()
        if not _engine_holds(tables):
            assert code == EXIT_INVALID, err.getvalue()
            assert "timestamp_in_range" in err.getvalue()
            return
        assert code in (0, 1), err.getvalue()
        got = pl.read_parquet(Path(folder) / "r" / "watermarks.parquet").to_dicts()
    want = reference.watermarks(tables)
    assert [(r["scope_id"], r["partition_id"]) for r in got] == [
        (r["scope_id"], r["partition_id"]) for r in want
    ]
    for row, expected in zip(got, want, strict=True):
        for name in ("consumer", "provider", "proven", "claimed"):
            pair = (row[f"{name}_through"], row[f"{name}_inclusive"])
            assert pair == expected[name], (row["partition_id"], name, pair, expected[name])
        assert row["claim_status"] == expected["claim_status"], row["partition_id"]


def test_a_hive_key_named_twice_on_a_path_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``partition_id=p1/partition_id=p0/``: the outer value won silently."""
    path = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)]})
    folder = path / "receipts" / "partition_id=p1" / "partition_id=p0"
    folder.mkdir(parents=True)
    rows = table("receipts", [receipt("e0", 1)]).drop_columns(["partition_id"])
    pq.write_table(rows, folder / "part.parquet")
    code, report = validate_json(capsys, path)
    assert code == EXIT_INVALID
    (problem,) = report["problems"]
    assert (problem["check"], problem["table"]) == ("hive_key_repeated", "receipts")
    assert problem["files"] == ["receipts/partition_id=p1/partition_id=p0/part.parquet"]
    code, _, err = run(capsys, "audit", str(path), "--out", str(tmp_path / "r"))
    assert code == EXIT_INVALID and "hive_key_repeated" in err


@pytest.mark.parametrize("folder", ["page_id=g1=x", "page_id=g1=="])
def test_a_hive_value_holding_an_equals_sign_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], folder: str
) -> None:
    """``page_id=g1=x/``: discovery read the key page_id as g1=x, DuckDB's hive
    reading took the folder for no key, and the receipts' page_id was read as null
    (validation passed; the page's receipts went uncounted, its partition's proven
    frontier lower). Percent-encoded (``g1%3Dx``) it is read as g1=x."""
    path = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)]})
    (path / "receipts" / folder).mkdir(parents=True)
    rows = table("receipts", [receipt("e0", 1)])
    assert "page_id" not in rows.column_names  # the folder's key is the column
    pq.write_table(rows, path / "receipts" / folder / "part.parquet")
    code, report = validate_json(capsys, path)
    assert code == EXIT_INVALID
    (problem,) = report["problems"]
    assert (problem["check"], problem["table"]) == ("hive_value_unencoded", "receipts")
    assert problem["files"] == [f"receipts/{folder}/part.parquet"]
    suggested = "page_id=g1%3Dx" if folder == "page_id=g1=x" else "page_id=g1%3D%3D"
    assert problem["message"].endswith(f"as Hive writes it ({suggested})")
    encoded = path / "receipts" / "page_id=g1%3Dx"
    (path / "receipts" / folder).rename(encoded)
    code, _ = validate_json(capsys, path)
    assert code == 0
    with open_logset(path) as logset:
        assert logset.relation("receipts").fetchall() and logset.con.execute(
            "SELECT list(page_id) FROM receipts"
        ).fetchall() == [(["g1=x"],)]
