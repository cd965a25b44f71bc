"""File names that are glob patterns to DuckDB's readers (and to Polars'): each file
is read as itself, once. They were read as patterns: a receipts file named
``[ab].parquet`` beside ``a.parquet`` read ``a.parquet`` twice and never itself
(validation passed, the audit made false findings), ``*.parquet`` read every file
beside it, and a log set in a folder ``run[1]`` beside ``run1`` read the other log
set's files (refused only because the sandbox kept them out)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reconcile import open_logset
from reconcile.audit import audit
from reconcile.cli import main
from reconcile.db import connect, glob_literal
from reconcile.errors import InputError
from reconcile.readers import read_airbyte
from reconcile.validate import validate_logset

DATA = Path(__file__).parent.parent / "data"


def _report(path: Path) -> dict[str, pl.DataFrame]:
    with open_logset(path) as logset:
        result = audit(logset)
        receipts = logset.lazyframe("receipts").drop("__file", "__row").collect()
    return {
        "watermarks": result.watermarks,
        "frontiers": result.frontiers,
        "findings": result.findings,
        "receipts": receipts.sort(pl.all()),
    }


def _split(source: Path, target: Path, names: list[str]) -> None:
    """``source``'s log set at ``target`` with its receipts in one file per name, a
    row each in turn (every file holds rows, so a file read twice or not at all
    changes the answer)."""
    shutil.copytree(source, target)
    rows = pq.read_table(target / "receipts.parquet")
    (target / "receipts.parquet").unlink()
    for number, name in enumerate(names):
        path = target / "receipts" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        taken = pa.array(range(number, rows.num_rows, len(names)), pa.int64())
        pq.write_table(rows.take(taken), path)


@pytest.mark.parametrize(
    "names",
    [
        ["a.parquet", "[ab].parquet"],
        pytest.param(["a.parquet", "b.parquet", "*.parquet"], marks=pytest.mark.slow),
        pytest.param(["a.parquet", "?.parquet"], marks=pytest.mark.slow),
        ["x/a.parquet", "[x]/b.parquet", "x*/c.parquet"],
    ],
    ids=["brackets", "star", "question-mark", "folders"],
)
def test_each_file_is_read_as_itself(tmp_path: Path, names: list[str]) -> None:
    want = _report(DATA / "stuck")
    _split(DATA / "stuck", tmp_path / "logs", names)
    got = _report(tmp_path / "logs")
    for table, frame in want.items():
        assert got[table].equals(frame), table


@pytest.mark.slow
def test_a_log_set_folder_named_as_a_pattern(tmp_path: Path) -> None:
    """``run[1]`` beside ``run1``, another log set: the pattern matched ``run1``."""
    shutil.copytree(DATA / "stuck", tmp_path / "run[1]")
    shutil.copytree(DATA / "clean", tmp_path / "run1")
    want = _report(DATA / "stuck")
    got = _report(tmp_path / "run[1]")
    for table, frame in want.items():
        assert got[table].equals(frame), table


def test_a_pattern_in_the_sandbox_reads_its_one_file(tmp_path: Path) -> None:
    """The sandbox lets a reader name a readable file as its pattern, and nothing
    else: the file beside it that the pattern would match unescaped stays shut."""
    pq.write_table(pa.table({"x": [1]}), tmp_path / "a.parquet")
    pq.write_table(pa.table({"x": [2]}), tmp_path / "[ab].parquet")
    con = connect([tmp_path / "[ab].parquet"])
    query = "SELECT list(x) FROM read_parquet(?)"
    assert con.execute(query, [[glob_literal(tmp_path / "[ab].parquet")]]).fetchall() == [([2],)]
    with pytest.raises(Exception, match="Permission"):
        con.execute(query, [[str(tmp_path / "[ab].parquet")]]).fetchall()


def test_an_airbyte_sync_named_as_a_pattern(tmp_path: Path) -> None:
    """Syncs ``sync1.jsonl`` and ``sync[1].jsonl``: each read once, as itself."""
    logs = tmp_path / "syncs"
    logs.mkdir()
    catalog = {
        "streams": [
            {
                "stream": {"name": "items", "json_schema": {}},
                "sync_mode": "incremental",
                "cursor_field": ["n"],
                "primary_key": [["id"]],
            }
        ]
    }
    (logs / "catalog.json").write_text(json.dumps(catalog))

    def sync(key: str, n: int) -> str:
        record = {"stream": "items", "data": {"id": key, "n": n}, "emitted_at": 1_796_000_000_000}
        state = {"type": "STREAM", "stream": {"stream_descriptor": {"name": "items"},
                                              "stream_state": {"n": n}}}  # fmt: skip
        lines = [{"type": "RECORD", "record": record}, {"type": "STATE", "state": state}]
        return "".join(json.dumps(line) + "\n" for line in lines)

    (logs / "sync1.jsonl").write_text(sync("a", 1))
    (logs / "sync[1].jsonl").write_text(sync("b", 2))
    out = tmp_path / "read"
    out.mkdir()
    read_airbyte(logs, out)
    receipts = pl.read_parquet(out / "receipts.parquet")
    assert sorted(receipts["event_id"].to_list()) == ["a", "b"]


def test_a_name_holding_a_backslash_is_refused_by_discovery(tmp_path: Path) -> None:
    """DuckDB's file reading takes a backslash for a folder separator, and no pattern
    escapes it: ``x\\[1].parquet`` was read as ``x/[1].parquet`` (or as no file), and
    a name ``x\\..\\..\\[s].parquet`` let the sandbox read a file outside the log set
    (the review of the escaping found both). Such a file is refused, by name."""
    _split(DATA / "stuck", tmp_path / "logs", ["a.parquet", "x\\[1].parquet"])
    report = validate_logset(tmp_path / "logs")
    assert [(p.check, p.table, p.files) for p in report.problems] == [
        ("backslash_in_name", "receipts", ("receipts/x\\[1].parquet",))
    ]
    with pytest.raises(InputError, match="backslash"):
        glob_literal(tmp_path / "x\\y.parquet")
    outside = tmp_path / "outside"
    outside.mkdir()
    pq.write_table(pa.table({"x": [1]}), outside / "[s].parquet")
    sneaky = tmp_path / "logs" / "receipts" / "x\\..\\..\\..\\outside\\[s].parquet"
    with pytest.raises(InputError, match="backslash"):
        connect([sneaky])


@pytest.mark.slow
def test_reports_in_folders_named_as_patterns_are_diffed_as_themselves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``reconcile diff r1 'r[1]'`` read r1's tables for r[1] (Polars globbed the
    path) and said nothing changed."""
    assert main(["audit", str(DATA / "stuck"), "--out", str(tmp_path / "r[1]")]) == 1
    assert main(["audit", str(DATA / "clean"), "--out", str(tmp_path / "r1")]) == 0
    capsys.readouterr()
    main(["diff", str(tmp_path / "r1"), str(tmp_path / "r[1]")])
    said = capsys.readouterr().out
    assert "findings: new 0" not in said
