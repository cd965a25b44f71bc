"""A log set someone hands you cannot read your files (issue 19, part 1).

A log set's own ``reconcile.toml`` is applied only when asked for (``--mapping
auto``); every report names the mapping in use. A mapping reads files inside the
log set only, and its SQL runs in a DuckDB that can open nothing but the log set's
files: each escape below ends in exit 2 with a clear message, and nothing of the
secret reaches any output.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import duckdb
import pytest

from reconcile import open_logset
from reconcile.cli import EXIT_INVALID, main
from reconcile.config import EngineConfig
from reconcile.db import Engine, connect
from reconcile.mapping import MappingError

DATA = Path(__file__).resolve().parents[1] / "data"
SECRET = "s3cr3t-do-not-leak"


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside every log set, as a user's own private file."""
    path = tmp_path / "private" / "secret.txt"
    path.parent.mkdir()
    path.write_text(f"{SECRET}\n")
    return path


@pytest.fixture
def foreign(tmp_path: Path) -> Path:
    logs = tmp_path / "foreign"
    shutil.copytree(DATA / "foreign", logs)
    return logs


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def edit_mapping(logs: Path, old: str, new: str) -> None:
    mapping = logs / "reconcile.toml"
    text = mapping.read_text(encoding="utf-8")
    assert old in text
    mapping.write_text(text.replace(old, new, 1), encoding="utf-8")


def outputs(tmp_path: Path) -> str:
    """Everything written under tmp_path but the secret itself, as text."""
    found = []
    for path in tmp_path.rglob("*"):
        if path.is_file() and "private" not in path.parts:
            found.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(found)


# -- default off ---------------------------------------------------------------------


def test_a_log_sets_own_mapping_is_not_applied_unasked(
    foreign: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in (
        ["validate", str(foreign)],
        ["audit", str(foreign), "--out", str(tmp_path / "r")],
        ["watermarks", str(foreign)],
        ["frontier", str(foreign)],
    ):
        code, out, err = run(capsys, *command)
        assert code == EXIT_INVALID, command
        assert out == ""
        assert "brings its own mapping (reconcile.toml)" in err
        assert "--mapping auto" in err and "--mapping none" in err
    assert not (tmp_path / "r").exists()
    with pytest.raises(MappingError, match="mapping='auto'"):
        open_logset(foreign)


@pytest.mark.slow
def test_mapping_none_reads_the_contract_layout_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = tmp_path / "faults"
    shutil.copytree(DATA / "faults", logs)
    (logs / "reconcile.toml").write_text("[receipts]\nfiles = 'nothing-*.csv'\n")
    out = tmp_path / "r"
    code, text, _ = run(capsys, "audit", str(logs), "--mapping", "none", "--out", str(out))
    assert code == 1
    assert "mapping: none (the contract's own layout)" in text
    facts = json.loads((out / "summary.json").read_text())
    assert facts["inputs"]["mapping"] is None
    assert facts["findings"]["total"] == 28
    assert "mapping:\nnone (the contract&#x27;s own layout)" in (out / "report.html").read_text()


@pytest.mark.slow
def test_mapping_auto_applies_it_and_every_report_names_it(
    foreign: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r"
    code, text, _ = run(capsys, "audit", str(foreign), "--mapping", "auto", "--out", str(out))
    assert code == 1
    mapping = str(foreign / "reconcile.toml")
    assert f"mapping: {mapping}" in text
    assert json.loads((out / "summary.json").read_text())["inputs"]["mapping"] == mapping
    assert mapping in (out / "report.html").read_text()
    code, text, _ = run(capsys, "validate", str(foreign), "--mapping", "auto", "--json")
    assert code == 0
    assert json.loads(text)["mapping"] == mapping


def test_mapping_auto_without_a_mapping_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(capsys, "validate", str(DATA / "faults"), "--mapping", "auto")
    assert code == EXIT_INVALID
    assert "has no reconcile.toml" in err


# -- files stay inside the log directory ---------------------------------------------


@pytest.mark.parametrize("pattern", ["absolute", "../private/secret.txt", "sub/../../private/*"])
def test_mapped_files_stay_inside_the_log_set(
    pattern: str,
    foreign: Path,
    secret: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    given = str(secret) if pattern == "absolute" else pattern
    edit_mapping(foreign, 'files = "listing.csv"', f'files = "{given}"\nformat = "csv"')
    code, _, err = run(
        capsys, "audit", str(foreign), "--mapping", "auto", "--out", str(tmp_path / "r")
    )
    assert code == EXIT_INVALID
    assert "stays inside it (no absolute path, no ..)" in err
    assert SECRET not in outputs(tmp_path) + err


def test_a_link_out_of_the_log_set_is_not_followed_by_a_mapping(
    foreign: Path, secret: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (foreign / "stolen.csv").symlink_to(secret)
    edit_mapping(foreign, 'files = "listing.csv"', 'files = "*.csv"')
    code, _, err = run(capsys, "validate", str(foreign), "--mapping", "auto")
    assert code == EXIT_INVALID
    assert "stolen.csv leads to" in err and "outside the log set" in err
    assert SECRET not in err


def test_a_mapping_that_is_a_link_out_of_the_log_set_is_refused(
    foreign: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "elsewhere.toml"
    shutil.move(foreign / "reconcile.toml", mine)
    (foreign / "reconcile.toml").symlink_to(mine)
    code, _, err = run(capsys, "validate", str(foreign), "--mapping", "auto")
    assert code == EXIT_INVALID
    assert "leads outside the log set" in err
    # the same file named by the user is the user's: trusted
    code, _, _ = run(capsys, "validate", str(foreign), "--mapping", str(mine))
    assert code == 0


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_mapping_that_is_a_fifo_is_refused_not_read(
    foreign: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (foreign / "reconcile.toml").unlink()
    os.mkfifo(foreign / "reconcile.toml")
    code, _, err = run(capsys, "validate", str(foreign), "--mapping", "auto")
    assert code == EXIT_INVALID
    assert "is not a file" in err


def test_a_mapping_that_is_not_utf8_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mapping = tmp_path / "latin1.toml"
    mapping.write_bytes("[receipts]\nfiles = 'caf\xe9.csv'\n".encode("latin-1"))
    code, _, err = run(capsys, "validate", str(DATA / "faults"), "--mapping", str(mapping))
    assert code == EXIT_INVALID
    assert "is not UTF-8 text" in err


# -- expressions cannot reach outside ------------------------------------------------


@pytest.mark.parametrize(
    ("where", "sql"),
    [
        ("column", "run || (SELECT content FROM read_text('{secret}'))"),
        ("column", "run || (SELECT string_agg(file, ',') FROM glob('{folder}/*'))"),
        ("column", "run || (SELECT count(*) FROM read_csv('{secret}'))"),
        ("filter", "kind = 'checkpoint' AND (SELECT count(*) FROM read_text('{secret}')) > 0"),
        ("column", "run || (SELECT content FROM read_text('/etc/passwd'))"),
    ],
)
def test_mapping_sql_cannot_read_outside_the_log_set(
    where: str,
    sql: str,
    foreign: Path,
    secret: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    expression = sql.format(secret=secret, folder=secret.parent)
    if where == "column":
        edit_mapping(foreign, 'attempt_id = "run"', f'attempt_id = {{ sql = "{expression}" }}')
    else:
        edit_mapping(foreign, "filter = \"kind = 'checkpoint'\"", f'filter = "{expression}"')
    out = tmp_path / "r"
    code, text, err = run(capsys, "audit", str(foreign), "--mapping", "auto", "--out", str(out))
    assert code == EXIT_INVALID
    assert "Permission Error" in err and "can open no other file" in err
    assert not out.exists()
    assert SECRET not in outputs(tmp_path) + text + err
    assert "root:" not in text + err


def test_a_url_in_a_mapping_installs_and_downloads_nothing(
    foreign: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    edit_mapping(
        foreign,
        'attempt_id = "run"',
        'attempt_id = { sql = "run || (SELECT content FROM'
        " read_text('https://example.com/x'))\" }",
    )
    code, _, err = run(capsys, "validate", str(foreign), "--mapping", "auto")
    assert code == EXIT_INVALID
    assert "Permission Error" in err
    assert not (home / ".duckdb").exists()


def test_the_engine_reads_the_log_sets_files_and_nothing_else(secret: Path) -> None:
    """From a notebook too: the log set's connection is shut in, and cannot be let out."""
    with open_logset(DATA / "faults") as logset:
        assert logset.con.sql("SELECT count(*) FROM receipts").fetchall() == [(20401,)]
        for sql in (
            f"SELECT content FROM read_text('{secret}')",
            "SELECT * FROM glob('/etc/*')",
            "INSTALL httpfs",
            "LOAD httpfs",
            "SET enable_external_access = true",
            "SET allowed_directories = ['/']",
            f"ATTACH '{secret.parent / 'x.db'}'",
        ):
            with pytest.raises(duckdb.Error):
                logset.con.execute(sql)


@pytest.mark.slow
def test_the_sandbox_still_spills(tmp_path: Path) -> None:
    """Spilling to the engine's own folder works with external access switched off."""
    config = EngineConfig(memory_limit="100MB", temp_directory=tmp_path, threads=2)
    with Engine(config) as engine:
        rows = engine.con.execute(
            "SELECT count(*) FROM (SELECT i % 10000000 AS k, count(*) FROM range(30000000) t(i)"
            " GROUP BY k)"
        ).fetchall()
        assert rows == [(10000000,)]
        folder = engine.spill_folder
        assert folder is not None and folder.parent == tmp_path
        assert any(p.name.startswith("duckdb_temp") for p in folder.iterdir())
    assert not folder.exists()


def test_a_helper_connection_is_shut_in_too(secret: Path) -> None:
    with connect() as con:
        with pytest.raises(duckdb.PermissionException):
            con.execute(f"SELECT content FROM read_text('{secret}')")
        with pytest.raises(duckdb.Error):
            con.execute("SET lock_configuration = false")


def test_a_helper_connection_reads_no_spill_folder_of_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DuckDB's default spill folder, .tmp of the current folder, was one the sandbox let
    a query read: a mapping's filter on a CSV table printed ./.tmp/secret.txt in an
    error (exit 3)."""
    (tmp_path / ".tmp").mkdir()
    (tmp_path / ".tmp" / "secret.txt").write_text(SECRET)
    monkeypatch.chdir(tmp_path)
    with connect() as con:
        assert con.execute("SELECT current_setting('allowed_directories')").fetchall() == [([],)]
        with pytest.raises(duckdb.PermissionException):
            con.execute("SELECT content FROM read_text('.tmp/secret.txt')")


def test_a_mapping_filter_that_fails_on_a_row_is_the_mappings_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A CSV table's filter failing while the mapping was bound (error('boom')) was an
    internal error asking to be reported (exit 3)."""
    logs = tmp_path / "logs"
    shutil.copytree(DATA / "example", logs)
    (logs / "scopes.parquet").unlink()
    (logs / "scopes.csv").write_text("scope_id,ordering,domain\ns,seq,discrete\n")
    (logs / "reconcile.toml").write_text(
        '[scopes]\nfiles = "scopes.csv"\nfilter = "error(\'boom\') IS NULL"\n'
        '[scopes.columns]\nordering = "ordering"\n'
    )
    code, _, err = run(capsys, "validate", str(logs), "--mapping", "auto")
    assert code == EXIT_INVALID
    assert "boom" in err and "internal error" not in err


def test_a_name_that_is_not_utf8_is_refused_not_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """receipts/bad\\xff.parquet: its name could not be handed to DuckDB's sandbox, and
    every command ended in an internal error (exit 3)."""
    logs = tmp_path / "logs"
    shutil.copytree(DATA / "example", logs)
    (logs / "receipts").mkdir()
    bad = os.fsdecode(b"bad\xff.parquet")
    (logs / "receipts.parquet").rename(logs / "receipts" / bad)
    code, out, _ = run(capsys, "validate", str(logs))
    assert code == EXIT_INVALID
    assert "unreadable_entry" in out and "not UTF-8" in out
