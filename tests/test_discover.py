"""Discovery never takes what it cannot read as absent (issue 19, part 2).

A table's files that cannot be read (a folder of part files under a name ending in
``.parquet``, a folder that cannot be listed, a FIFO, a device or a looping link
named like a table, a name that differs from a table's only in case) are either
read as the table or refused with exit 2 naming them; they never leave the audit
running on fewer rows.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reconcile.cli import EXIT_INVALID, main
from reconcile.logset.discover import discover
from reconcile.spark.listing import layout
from tests.logsets import checkpoint, receipt, table, write_logset

DATA = Path(__file__).resolve().parents[1] / "data"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def refused(capsys: pytest.CaptureFixture[str], logset: Path) -> str:
    """The report of a validation that finds the log set invalid (exit 2)."""
    code, text, _ = run(capsys, "validate", str(logset))
    assert code == EXIT_INVALID, text
    return text


def copy_of(name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copytree(DATA / name, target)
    return target


def as_part_folder(logset: Path, table_name: str, parts: int = 1) -> None:
    """``<table>.parquet`` rewritten as Spark writes it: a folder of that name holding
    part files, a ``_SUCCESS`` marker and ``.crc`` files."""
    single = logset / f"{table_name}.parquet"
    rows = pq.read_table(single)
    single.unlink()
    single.mkdir()
    step = -(-rows.num_rows // parts)
    for index in range(parts):
        part = single / f"part-{index:05d}-c000.snappy.parquet"
        pq.write_table(rows.slice(index * step, step), part)
        (single / f".{part.name}.crc").write_bytes(b"crc")
    (single / "_SUCCESS").write_text("")


def findings_of(report: Path) -> pl.DataFrame:
    return pl.read_parquet(report / "findings.parquet").drop("message", "evidence")


@pytest.mark.slow
def test_part_folders_named_like_files_are_read_as_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """data/faults with receipts, pages and snapshot as ``X.parquet/`` folders audits
    to the same 28 findings, not to the 10 a log set without them gives."""
    logset = copy_of("faults", tmp_path)
    for name in ("receipts", "pages", "snapshot"):
        as_part_folder(logset, name, parts=3)
    code, text, _ = run(capsys, "validate", str(logset))
    assert code == 0, text
    assert "receipts         3 files, 20,401 rows" in text
    code, _, _ = run(capsys, "audit", str(logset), "--out", str(tmp_path / "parts"))
    code_direct, _, _ = run(capsys, "audit", str(DATA / "faults"), "--out", str(tmp_path / "one"))
    assert code == code_direct == 1
    facts = json.loads((tmp_path / "parts" / "summary.json").read_text())
    assert facts["findings"]["total"] == 28
    assert facts["inputs"]["tables"]["receipts"] == {"files": 3, "rows": 20401}
    parts, direct = findings_of(tmp_path / "parts"), findings_of(tmp_path / "one")
    assert parts.sort(parts.columns).equals(direct.sort(direct.columns))


def test_a_part_folder_beside_a_folder_of_the_same_table_is_ambiguous(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logset = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)]})
    as_part_folder(logset, "checkpoints")
    (logset / "checkpoints").mkdir()
    pq.write_table(table("checkpoints", [checkpoint("p0", 1, 5)]), logset / "checkpoints" / "a")
    text = refused(capsys, logset)
    assert "ambiguous_table" in text and "checkpoints.parquet/" in text
    # there twice, not missing: it was said to be missing as well
    assert "missing_table" not in text


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_named_like_a_table_is_refused_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Reading a FIFO would block for ever; it is refused before anything opens it."""
    logset = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)]})
    os.mkfifo(logset / "receipts.parquet")
    text = refused(capsys, logset)
    assert "not_a_file" in text and "receipts.parquet" in text and "FIFO" in text


def test_a_link_to_a_device_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logset = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)]})
    (logset / "receipts.parquet").symlink_to("/dev/zero")
    code, _, text = run(capsys, "audit", str(logset), "--out", str(tmp_path / "r"))
    assert code == EXIT_INVALID
    assert "outside_log_set" in text and "/dev/zero" in text
    assert not (tmp_path / "r").exists()


def test_a_link_to_itself_and_a_dangling_link_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logset = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)]})
    (logset / "receipts.parquet").symlink_to("receipts.parquet")
    (logset / "pages.parquet").symlink_to("gone.parquet")
    text = refused(capsys, logset)
    assert text.count("broken_link") == 2
    assert "receipts.parquet" in text and "pages.parquet" in text


def test_a_link_outside_the_log_set_is_refused_even_to_a_good_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The log set is untrusted: its links may not make the reconciler read outside it."""
    elsewhere = write_logset(tmp_path / "elsewhere", {"receipts": [receipt("e0", 1)]})
    logset = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)]})
    (logset / "receipts").mkdir()
    (logset / "receipts" / "part.parquet").symlink_to(elsewhere / "receipts.parquet")
    text = refused(capsys, logset)
    assert "outside_log_set" in text and "receipts/part.parquet" in text


def test_a_link_inside_the_log_set_is_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logset = write_logset(
        tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)], "receipts": [receipt("e0", 1)]}
    )
    (logset / "store").mkdir()
    (logset / "receipts.parquet").rename(logset / "store" / "r.parquet")
    (logset / "receipts.parquet").symlink_to(Path("store") / "r.parquet")
    code, text, _ = run(capsys, "validate", str(logset))
    assert code == 0, text
    assert "receipts         1 file, 1 row" in text


def test_a_folder_that_cannot_be_listed_is_a_problem_not_fewer_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One hive partition of receipts that cannot be listed (as a folder without the
    permission to read it is, for a user who is not root): exit 2 naming it."""
    logset = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)]})
    for part in ("p0", "p1"):
        folder = logset / "receipts" / f"partition_id={part}"
        folder.mkdir(parents=True)
        row = {k: v for k, v in receipt("e0", 1).items() if k != "partition_id"}
        pq.write_table(table("receipts", [row]), folder / "data.parquet")
    locked = logset / "receipts" / "partition_id=p1"
    original = os.scandir

    def scandir(path: str | os.PathLike[str] | int) -> Iterator[os.DirEntry[str]]:
        if not isinstance(path, int) and Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return original(path)

    monkeypatch.setattr(os, "scandir", scandir)
    code, _, text = run(capsys, "audit", str(logset), "--out", str(tmp_path / "r"))
    assert code == EXIT_INVALID
    assert "unreadable_folder" in text
    assert "receipts/partition_id=p1" in text and "Permission denied" in text
    assert not (tmp_path / "r").exists()


def test_a_log_set_folder_that_cannot_be_listed_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    logset = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)]})
    original = os.scandir

    def scandir(path: str | os.PathLike[str] | int) -> Iterator[os.DirEntry[str]]:
        if not isinstance(path, int) and Path(path) == logset:
            raise PermissionError(13, "Permission denied", str(path))
        return original(path)

    monkeypatch.setattr(os, "scandir", scandir)
    code, _, err = run(capsys, "validate", str(logset))
    assert code == EXIT_INVALID
    assert "cannot be listed: Permission denied" in err


def test_a_file_in_a_table_folder_is_part_of_it_whatever_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hive writes ``000000_0``: read as Parquet. A stray text file is not Parquet: it is
    reported, never skipped."""
    logset = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)]})
    (logset / "receipts").mkdir()
    pq.write_table(table("receipts", [receipt("e0", 1)]), logset / "receipts" / "000000_0")
    code, text, _ = run(capsys, "validate", str(logset))
    assert code == 0, text
    assert "receipts         1 file, 1 row" in text
    (logset / "receipts" / "notes.txt").write_text("not a table\n")
    text = refused(capsys, logset)
    assert "unreadable_file" in text and "receipts/notes.txt" in text


def test_a_name_that_differs_only_in_case_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logset = write_logset(
        tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)], "receipts": [receipt("e0", 1)]}
    )
    (logset / "receipts.parquet").rename(logset / "Receipts.parquet")
    text = refused(capsys, logset)
    assert "misnamed_table" in text and "Receipts.parquet" in text


def test_an_empty_file_named_like_a_table_is_unreadable_not_absent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logset = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)]})
    (logset / "pages.parquet").write_bytes(b"")
    text = refused(capsys, logset)
    assert "unreadable_file" in text and "pages.parquet" in text


def test_discovery_lists_every_file_the_engine_may_open(tmp_path: Path) -> None:
    logset = write_logset(
        tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)], "receipts": [receipt("e0", 1)]}
    )
    as_part_folder(logset, "receipts", parts=2)
    found = discover(logset)
    assert not found.problems
    assert sorted(f.relative_to(found.root).as_posix() for f in found.all_files) == [
        "checkpoints.parquet",
        "receipts.parquet/part-00000-c000.snappy.parquet",
        "receipts.parquet/part-00001-c000.snappy.parquet",
    ]


def test_spark_listing_reads_part_folders_as_the_table() -> None:
    """A log set listed by Spark's file systems (a URL) follows the same rules."""
    sources, problems = layout(
        "hdfs://n/logs",
        [
            "checkpoints.parquet",
            "receipts.parquet/part-00000.snappy.parquet",
            "receipts.parquet/_SUCCESS",
            "pages/000000_0",
            "snapshot/a.parquet",
            "snapshot.parquet",
        ],
    )
    tables = sorted((s.table, name) for name, s in sources.items())
    assert tables == [
        ("checkpoints", "checkpoints.parquet"),
        ("pages", "pages/000000_0"),
        ("receipts", "receipts.parquet/part-00000.snappy.parquet"),
    ]
    assert [(p.check, p.table) for p in problems] == [("ambiguous_table", "snapshot")]


def test_binary_garbage_named_like_a_table_is_unreadable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logset = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)]})
    (logset / "receipts.parquet").write_bytes(os.urandom(4096))
    pa_table = pa.table({"x": [1]})
    pq.write_table(pa_table, logset / "extra.parquet")  # not a contract table: not read
    text = refused(capsys, logset)
    assert "unreadable_file" in text and "receipts.parquet" in text
    assert "extra.parquet" not in text


def test_a_copy_hadoop_has_not_finished_is_not_a_file_of_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """part-1.parquet._COPYING_ (hdfs dfs -put's name until the copy is done): the
    local engine read it, Spark's listing of a file:// URL skipped it, and the two
    engines gave different audits of one log set, neither saying so."""
    logset = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)]})
    (logset / "receipts").mkdir()
    pq.write_table(table("receipts", [receipt("e1", 1)]), logset / "receipts" / "part-0.parquet")
    copying = logset / "receipts" / "part-1.parquet._COPYING_"
    pq.write_table(table("receipts", [receipt("e2", 2)]), copying)
    code, text, _ = run(capsys, "validate", str(logset))
    assert code == 0, text
    assert "receipts         1 file, 1 row" in text
