"""Terminal and file injection (issue 19, part 6): identifiers and file names from the
log set reach the terminal with their control characters escaped, JSON output keeps
them exactly, and ``map suggest`` writes TOML that parses to what it means whatever
the names and errors it quotes."""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path

import pytest

from reconcile.cli import main
from reconcile.render.safe import for_terminal
from tests.logsets import checkpoint, receipt, write_logset

# what a terminal acts on: C0 controls but tab and newline, DEL, C1 controls
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
SCOPE = "s\x1b[2J"
PARTITION = "p0\rfindings: 0   "
# a line feed would start a line of the attacker's
BROKEN = "p1\nfindings: 0\n"
EVENT = "e\x07\x9b1m"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    return write_logset(
        tmp_path / "ls",
        {
            "checkpoints": [
                checkpoint(PARTITION, 1, 9, scope=SCOPE, attempt="a\x1b]0;x\x07"),
                checkpoint(BROKEN, 1, 9, scope=SCOPE),
            ],
            "receipts": [
                receipt(EVENT, 1, partition=PARTITION, scope=SCOPE, outcome="failed"),
                receipt("e2", 2, partition=PARTITION, scope=SCOPE),
                receipt("e\n3", 1, partition=BROKEN, scope=SCOPE, outcome="failed"),
            ],
        },
    )


@pytest.mark.parametrize("command", ["audit", "watermarks", "frontier"])
def test_identifiers_reach_the_terminal_escaped(
    command: str, hostile: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = ["--out", str(tmp_path / "r")] if command == "audit" else []
    code, out, err = run(capsys, command, str(hostile), *extra)
    assert code in (0, 1), err
    assert not RAW.search(out + err), repr(out + err)
    assert for_terminal(PARTITION) in out  # shown, as an escape: p0\x0dfindings: 0
    assert "p1\\x0afindings: 0\\x0a" in out  # and the line feeds too
    forged = [line for line in out.splitlines() if line.lstrip("| ").startswith("findings: ")]
    assert len(forged) == (1 if command == "audit" else 0), out


@pytest.mark.parametrize("command", ["watermarks", "frontier"])
def test_json_keeps_identifiers_exactly(
    command: str, hostile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, command, str(hostile), "--json")
    assert code == 0
    assert not RAW.search(out)
    rows = json.loads(out)
    assert {row["scope_id"] for row in rows} == {SCOPE}


def test_problems_name_hostile_files_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = write_logset(tmp_path / "ls", {"checkpoints": [checkpoint("p0", 1, 5)]})
    (logs / "receipts").mkdir()
    (logs / "receipts" / "x\x1b[31m.parquet").write_bytes(b"not parquet")
    (logs / "receipts" / "y\nVALID: no problems found\n.parquet").write_bytes(b"not parquet")
    code, out, _ = run(capsys, "validate", str(logs))
    assert code == 2
    assert not RAW.search(out)
    assert not [line for line in out.splitlines() if line.startswith("VALID")], out
    assert "x\\x1b[31m.parquet" in out


def test_map_suggest_quotes_what_it_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file name holding a newline and a section header, a CSV whose read error
    spans lines, a file whose name is not UTF-8: the TOML still parses, and holds
    only the sections suggest meant."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "shards.csv").write_text(
        "shard,run,lease,expected_gen,gen,cas,ts_ms\np0,a1,1,0,1,OK,1767225600000\n"
    )
    (logs / 'evil\n[receipts]\nfiles = "x"\n#.csv').write_text("a,b\n1,2\n")
    (logs / "broken.csv").write_bytes(b'"a,b\n1,"2\n\x00\x00\xff\xfe,"\n')
    (logs / os.fsdecode(b"caf\xe9.csv")).write_text("a\n1\n")
    out = tmp_path / "mapping.toml"
    code, _, err = run(capsys, "map", "suggest", str(logs), "--out", str(out))
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    parsed = tomllib.loads(text)
    assert "receipts" not in parsed or parsed["receipts"]["files"] != "x"
    assert all(not RAW.search(line) for line in text.splitlines())
    assert "caf\\xe9.csv" in text  # named, left out
    code, printed, _ = run(capsys, "map", "suggest", str(logs))
    assert tomllib.loads(printed) == parsed
