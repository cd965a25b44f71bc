"""`reconcile validate`: every rule of docs/contract.md §1 on a minimal log set.

Each test starts from one valid log set with all nine tables and breaks exactly one
thing; the command must exit 2 and name the table, the file and the column.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reconcile.cli import main
from tests.logsets import at, checkpoint, page, receipt, table, write_logset


def valid_tables() -> dict[str, list[dict[str, Any]]]:
    return {
        "scopes": [{"scope_id": "s", "ordering": "seq", "domain": "discrete"}],
        "checkpoints": [
            checkpoint("p0", 1, 2, page_id="g1", resume_token="t1", written=10),
            checkpoint("p1", 1, None, written=11),
        ],
        "receipts": [receipt("e1", 1, page_id="g1"), receipt("e2", 2, page_id="g1")],
        "pages": [
            page("g1", 0, 2, 1, 2, next_token="t1"),
            page("g2", 1, 0, next_token=None, finality_through=9, finality_inclusive=True),
        ],
        "snapshot": [
            {
                "scope_id": "s",
                "partition_id": "p1",
                "event_id": "x1",
                "position": 5,
                "eligible": True,
                "eligibility_stable": True,
                "visible_at": None,
            }
        ],
        "snapshot_bounds": [
            {
                "scope_id": "s",
                "partition_id": "p1",
                "complete_through": 9,
                "complete_inclusive": True,
            }
        ],
        "epochs": [
            {"scope_id": "s", "epoch": 1, "effective_at": at(0), "cutover": None},
            {
                "scope_id": "s",
                "epoch": 2,
                "effective_at": at(5),
                "cutover": 1,
                "cutover_inclusive": True,
            },
        ],
        "members": [
            {"scope_id": "s", "epoch": 1, "partition_id": "p0", "role": "member"},
            {"scope_id": "s", "epoch": 2, "partition_id": "p0", "role": "member"},
            {
                "scope_id": "s",
                "epoch": 2,
                "partition_id": "p1",
                "role": "member",
                "coverage_from": 0,
            },
        ],
        "published": [
            {
                "scope_id": "s",
                "epoch": 2,
                "published_at": at(12),
                "kind": "scalar",
                "frontier": 1,
                "frontier_inclusive": True,
            }
        ],
    }


def run(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[int, str]:
    code = main(["validate", str(path)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def run_json(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[int, dict[str, Any]]:
    code = main(["validate", "--json", str(path)])
    return code, json.loads(capsys.readouterr().out)


def problem(report: dict[str, Any], check: str) -> dict[str, Any]:
    found = [p for p in report["problems"] if p["check"] == check]
    assert found, f"no {check} problem in {[p['check'] for p in report['problems']]}"
    return found[0]


def test_valid_log_set_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, write_logset(tmp_path / "ls", valid_tables()))
    assert code == 0, out
    assert "VALID" in out


def test_valid_log_set_with_only_checkpoints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tables = {"checkpoints": valid_tables()["checkpoints"]}
    assert run(capsys, write_logset(tmp_path / "ls", tables))[0] == 0


def break_and_check(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    tables: dict[str, Any],
    check: str,
    table_name: str,
    column: str,
    failing_rows: int | None = 1,
) -> dict[str, Any]:
    path = write_logset(tmp_path / "ls", tables)
    code, text = run(capsys, path)
    assert code == 2, text
    assert table_name in text and column in text
    code, report = run_json(capsys, path)
    assert code == 2
    found = problem(report, check)
    assert found["table"] == table_name
    assert column in found["column"]
    assert found["file"] and found["file"].startswith(table_name)
    assert found["file"] in text
    if failing_rows is not None:
        assert found["failing_rows"] == failing_rows
    return found


def test_missing_required_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tables = valid_tables()
    for row in tables["receipts"]:
        del row["outcome"]
    found = break_and_check(tmp_path, capsys, tables, "missing_column", "receipts", "outcome", None)
    assert "missing" in found["message"]


def test_wrong_type(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tables: dict[str, Any] = valid_tables()
    broken = table("checkpoints", tables["checkpoints"])
    index = broken.schema.get_field_index("generation")
    tables["checkpoints"] = broken.set_column(
        index, "generation", pa.array(["1", "1"], pa.string())
    )
    found = break_and_check(
        tmp_path, capsys, tables, "wrong_type", "checkpoints", "generation", None
    )
    assert "int64" in found["message"] and "string" in found["message"]


def test_null_where_none_allowed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tables = valid_tables()
    tables["receipts"][1]["event_id"] = None
    found = break_and_check(tmp_path, capsys, tables, "not_nullable", "receipts", "event_id")
    assert found["examples"][0]["row"] == 1
    assert found["examples"][0]["file"] == "receipts.parquet"


def test_unknown_enumeration_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tables = valid_tables()
    tables["receipts"][0]["outcome"] = "skipped"
    found = break_and_check(tmp_path, capsys, tables, "isin", "receipts", "outcome")
    assert found["examples"][0]["outcome"] == "skipped"


def test_duplicate_page_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tables = valid_tables()
    tables["pages"][1]["page_id"] = "g1"
    found = break_and_check(tmp_path, capsys, tables, "unique", "pages", "page_id", 2)
    assert found["examples"][0]["page_id"] == "g1"


def test_same_page_id_in_two_scopes_is_valid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tables = valid_tables()
    tables["pages"][1]["page_id"] = "g1"
    tables["pages"][1]["scope_id"] = "other"
    assert run(capsys, write_logset(tmp_path / "ls", tables))[0] == 0


def test_generation_not_above_expected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tables = valid_tables()
    tables["checkpoints"][0]["expected_generation"] = 1
    found = break_and_check(
        tmp_path, capsys, tables, "generation_above_expected", "checkpoints", "generation"
    )
    assert found["examples"][0]["expected_generation"] == 1


def test_truncated_parquet_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_logset(tmp_path / "ls", valid_tables())
    data = (path / "receipts.parquet").read_bytes()
    (path / "receipts.parquet").write_bytes(data[: len(data) // 2])
    code, text = run(capsys, path)
    assert code == 2
    assert "receipts.parquet" in text and "cannot be read as Parquet" in text


def _text_not_utf8(raw: bytes) -> pa.Array:
    """A string array of one value holding ``raw``, whatever its bytes."""
    offsets = pa.array([0, len(raw)], pa.int32()).buffers()[1]
    return pa.Array.from_buffers(pa.string(), 1, [None, offsets, pa.py_buffer(raw)])


@pytest.mark.parametrize("column", ["resume_token", "watermark_event_id", "ordering"])
def test_text_not_utf8_in_a_column_no_check_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], column: str
) -> None:
    """A nullable text column no check names was never read by validation: "VALID",
    then the audit died in an internal error (exit 3) and frontier printed numbers."""
    row = checkpoint("p0", 1, 5)
    columns = {name: [value] for name, value in row.items() if name != column}
    data = pa.table(columns).append_column(column, _text_not_utf8(b"t\xff"))
    path = tmp_path / "ls"
    path.mkdir()
    pq.write_table(data, path / "checkpoints.parquet")
    code, report = run_json(capsys, path)
    assert code == 2
    found = problem(report, "unreadable_file")
    assert found["file"] == "checkpoints.parquet" and "not valid UTF8" in found["message"]


@pytest.mark.parametrize("column", ["resume_token", "watermark", "attempt_id"])
def test_a_page_that_does_not_decompress_in_any_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], column: str
) -> None:
    """One column's page garbled, the footer intact: where no check read the column
    the log set passed as VALID (then exit 3 in the audit), and where the table's scan
    failed the file was not named (unreadable_table: a filter on a hash that is never
    null was answered without decoding)."""
    rows = [
        checkpoint(f"p{i}", 1, i, resume_token=f"token-{i:06d}-" + "x" * (i % 37))
        for i in range(2000)
    ]
    data = table("checkpoints", rows, "int64")
    path = tmp_path / "ls"
    path.mkdir()
    target = path / "checkpoints.parquet"
    pq.write_table(data, target, compression="snappy", use_dictionary=False)
    chunk = pq.ParquetFile(target).metadata.row_group(0).column(data.schema.get_field_index(column))
    start, size = chunk.data_page_offset, chunk.total_compressed_size
    garbled = bytearray(target.read_bytes())
    for k in range(start + size // 3, start + 2 * size // 3):
        garbled[k] = (garbled[k] * 7 + 13) & 0xFF
    target.write_bytes(bytes(garbled))
    code, report = run_json(capsys, path)
    assert code == 2
    assert problem(report, "unreadable_file")["file"] == "checkpoints.parquet"


def test_corrupt_parquet_pages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file whose footer reads but whose data does not."""
    path = write_logset(tmp_path / "ls", valid_tables())
    target = path / "receipts.parquet"
    data = bytearray(target.read_bytes())
    footer_len = int.from_bytes(data[-8:-4], "little")
    for i in range(4, len(data) - footer_len - 8):  # scramble everything but the footer
        data[i] = (data[i] * 7 + 13) % 256
    target.write_bytes(bytes(data))
    code, report = run_json(capsys, path)
    assert code == 2
    found = [p for p in report["problems"] if p["check"].startswith("unreadable")]
    assert found and found[0]["table"] == "receipts"
    assert found[0]["file"] == "receipts.parquet"


def test_two_coordinate_types(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tables: dict[str, Any] = valid_tables()
    tables["receipts"] = table("receipts", tables["receipts"], coordinate="timestamp").set_column(
        3, "position", pa.array([at(1), at(2)], pa.timestamp("us", tz="UTC"))
    )
    found = break_and_check(
        tmp_path, capsys, tables, "mixed_coordinate_types", "receipts", "position", None
    )
    assert "int" in found["message"] and "timestamp" in found["message"]


def test_missing_log_set_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, text = run(capsys, tmp_path / "nowhere")
    assert code == 2
    assert "nowhere" in text and "no such directory" in text


def test_empty_log_set_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    code, text = run(capsys, tmp_path / "empty")
    assert code == 2
    assert "holds no contract table" in text
    assert "checkpoints" in text
    assert "coordinate type: none (no table)" in text  # not int64: nothing was read
    code, report = run_json(capsys, tmp_path / "empty")
    assert code == 2 and report["coordinate"] is None and report["tables"] == []


def test_missing_checkpoints_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tables = valid_tables()
    del tables["checkpoints"]
    path = write_logset(tmp_path / "ls", tables)
    code, report = run_json(capsys, path)
    assert code == 2
    found = problem(report, "missing_table")
    assert found["table"] == "checkpoints"


@pytest.mark.parametrize(
    ("table_name", "column", "value", "check"),
    [
        ("checkpoints", "owner_epoch", -1, "greater_than_or_equal_to"),
        pytest.param(
            "receipts", "owner_epoch", -3, "greater_than_or_equal_to", marks=pytest.mark.slow
        ),
        pytest.param(
            "checkpoints",
            "expected_generation",
            -1,
            "greater_than_or_equal_to",
            marks=pytest.mark.slow,
        ),
        pytest.param("pages", "page_seq", -1, "greater_than_or_equal_to", marks=pytest.mark.slow),
        ("epochs", "epoch", 0, "greater_than_or_equal_to"),
        pytest.param("published", "epoch", 0, "greater_than_or_equal_to", marks=pytest.mark.slow),
        ("checkpoints", "cas_result", "maybe", "isin"),
        pytest.param("scopes", "domain", "continuous", "isin", marks=pytest.mark.slow),
        ("members", "role", "observer", "isin"),
        pytest.param("published", "kind", "matrix", "isin", marks=pytest.mark.slow),
        ("snapshot", "eligible", None, "not_nullable"),
        pytest.param("pages", "fetched_at", None, "not_nullable", marks=pytest.mark.slow),
    ],
)
def test_row_rules(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    table_name: str,
    column: str,
    value: Any,
    check: str,
) -> None:
    tables = valid_tables()
    tables[table_name][0][column] = value
    break_and_check(tmp_path, capsys, tables, check, table_name, column)


def test_negative_event_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tables = valid_tables()
    tables["pages"][1]["event_count"] = -1
    found = break_and_check(
        tmp_path, capsys, tables, "greater_than_or_equal_to", "pages", "event_count"
    )
    assert found["examples"][0]["event_count"] == -1


@pytest.mark.parametrize(
    ("changes", "index"),
    [
        ({"min_position": None}, 0),  # non-empty page without min_position
        ({"max_position": None}, 0),
        ({"min_position": 3, "max_position": 3}, 1),  # empty page with positions
    ],
)
def test_positions_null_exactly_when_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], changes: dict[str, Any], index: int
) -> None:
    tables = valid_tables()
    tables["pages"][index].update(changes)
    break_and_check(tmp_path, capsys, tables, "positions_null_iff_empty", "pages", "min_position")


def test_finality_inclusive_required(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tables = valid_tables()
    tables["pages"][1]["finality_inclusive"] = None
    break_and_check(
        tmp_path, capsys, tables, "finality_endpoint_given", "pages", "finality_inclusive"
    )


def test_snapshot_without_bounds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tables = valid_tables()
    tables["snapshot"][0]["partition_id"] = "p9"
    found = break_and_check(
        tmp_path, capsys, tables, "snapshot_without_bounds", "snapshot", "partition_id"
    )
    assert found["examples"][0]["partition_id"] == "p9"


@pytest.mark.parametrize(
    ("table_name", "columns"),
    [
        ("scopes", "scope_id"),
        ("snapshot_bounds", "partition_id"),
        ("epochs", "epoch"),
        ("members", "partition_id"),
    ],
)
def test_keys_unique(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], table_name: str, columns: str
) -> None:
    tables = valid_tables()
    tables[table_name].append(dict(tables[table_name][-1]))
    break_and_check(tmp_path, capsys, tables, "unique", table_name, columns, 2)


@pytest.mark.parametrize(("present", "absent"), [("epochs", "members"), ("members", "epochs")])
def test_epochs_and_members_come_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], present: str, absent: str
) -> None:
    tables = valid_tables()
    del tables[absent]
    code, report = run_json(capsys, write_logset(tmp_path / "ls", tables))
    assert code == 2
    found = problem(report, "epochs_members_together")
    assert found["table"] == absent and present in found["message"]


def test_cutover_null_outside_first_epoch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tables = valid_tables()
    tables["epochs"][1]["cutover"] = None
    found = break_and_check(
        tmp_path, capsys, tables, "cutover_null_after_first_epoch", "epochs", "cutover"
    )
    assert found["examples"][0]["epoch"] == 2


def test_members_name_existing_epochs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tables = valid_tables()
    tables["members"][2]["epoch"] = 7
    found = break_and_check(tmp_path, capsys, tables, "members_unknown_epoch", "members", "epoch")
    assert found["examples"][0]["epoch"] == 7


def test_discrete_scope_with_timestamps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tables: dict[str, Any] = {
        "scopes": [{"scope_id": "s", "ordering": "event_time", "domain": "discrete"}],
        "checkpoints": [checkpoint("p0", 1, at(3))],
    }
    path = write_logset(tmp_path / "ls", tables, coordinate="timestamp")
    code, report = run_json(capsys, path)
    assert code == 2
    assert problem(report, "discrete_scope_with_timestamps")["table"] == "scopes"
    tables["scopes"][0]["domain"] = "dense"
    shutil.rmtree(path)
    assert run(capsys, write_logset(path, tables, coordinate="timestamp"))[0] == 0


def test_epoch_effective_at_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tables = valid_tables()
    tables["epochs"][1]["effective_at"] = at(-5)
    found = break_and_check(
        tmp_path, capsys, tables, "epoch_effective_at_order", "epochs", "effective_at"
    )
    assert found["examples"][0]["epoch"] == 2


def test_every_problem_is_reported_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tables = valid_tables()
    tables["receipts"][0]["outcome"] = "skipped"
    tables["pages"][1]["page_id"] = "g1"
    tables["checkpoints"][0]["expected_generation"] = 5
    tables["members"][2]["epoch"] = 7
    code, report = run_json(capsys, write_logset(tmp_path / "ls", tables))
    assert code == 2
    checks = {p["check"] for p in report["problems"]}
    assert checks == {"isin", "unique", "generation_above_expected", "members_unknown_epoch"}


def test_validation_does_not_modify_the_log_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_logset(tmp_path / "ls", valid_tables())
    before = {p: p.read_bytes() for p in path.rglob("*")}
    run(capsys, path)
    assert {p: p.read_bytes() for p in path.rglob("*")} == before


def test_report_names_every_file_of_a_folder_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tables = valid_tables()
    path = write_logset(tmp_path / "ls", {k: v for k, v in tables.items() if k != "receipts"})
    folder = path / "receipts"
    folder.mkdir()
    good, bad = tables["receipts"][0], dict(tables["receipts"][1], outcome="lost")
    pq.write_table(table("receipts", [good]), folder / "part-0.parquet")
    pq.write_table(table("receipts", [bad]), folder / "part-1.parquet")
    code, report = run_json(capsys, path)
    assert code == 2
    found = problem(report, "isin")
    assert found["files"] == ["receipts/part-1.parquet"]
    assert found["examples"][0]["row"] == 0
