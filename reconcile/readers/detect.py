"""Which framework's artifacts a folder holds, where that is unambiguous: ``map
suggest`` names the reader to use instead of guessing a mapping (docs/readers.md).
Only the first line of each candidate JSON Lines file is read, and of a DuckDB file
its catalog."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from reconcile.db import connect, quote_literal
from reconcile.errors import UsageError

SINGER_TYPES = frozenset({"SCHEMA", "RECORD", "STATE", "ACTIVATE_VERSION", "BATCH"})
# An Airbyte message names its type and carries its body under that type's key.
AIRBYTE_BODIES = {
    "RECORD": "record",
    "STATE": "state",
    "LOG": "log",
    "TRACE": "trace",
    "CONTROL": "control",
    "CATALOG": "catalog",
    "SPEC": "spec",
    "CONNECTION_STATUS": "connectionStatus",
}


def _first_message(path: Path) -> object:
    """The first message of a JSON Lines file (blank lines before it skipped, a
    hundred at most, each read up to 1 MiB), or None."""
    try:
        with path.open("rb") as handle:
            for _ in range(100):
                line = handle.readline(1 << 20)
                if not line:
                    return None
                if line.strip():
                    return json.loads(line)
    except (OSError, ValueError):
        return None
    return None


# What each reader's artifacts are, as map suggest names them.
WHAT = {
    "airbyte": "Airbyte messages",
    "dlt": "a dlt destination",
    "singer": "Singer message streams",
}


def _holds_dlt_dataset(database: Path) -> bool:
    """Whether a DuckDB file holds a dlt dataset (a ``_dlt_loads`` table), read
    read-only in the sandbox; a file DuckDB cannot open holds none."""
    try:
        with connect([database, database.with_name(database.name + ".wal")]) as con:
            con.execute(f"ATTACH {quote_literal(str(database))} AS rc_probe (READ_ONLY)")
            found = con.execute(
                "SELECT count(*) FROM duckdb_tables()"
                " WHERE database_name = 'rc_probe' AND table_name = '_dlt_loads'"
            ).fetchall()
    except duckdb.Error:
        return False
    return bool(found[0][0])


def _inside(folder: Path, pattern: str) -> list[Path]:
    """The files of ``folder`` matching ``pattern``, in name order, but for a link
    leading outside it: detection reads nothing outside the log set either."""
    base = folder.resolve()
    return sorted(
        p for p in folder.glob(pattern) if p.is_file() and p.resolve().is_relative_to(base)
    )


def _is_dlt(folder: Path) -> bool:
    """A dlt filesystem dataset (``_dlt_loads/``), or a folder holding such a
    dataset or a DuckDB file with one (the dlt reader says which, where several)."""
    if (folder / "_dlt_loads").is_dir():
        return True
    if any((p / "_dlt_loads").is_dir() for p in folder.iterdir() if p.is_dir()):
        return True
    return any(_holds_dlt_dataset(p) for p in _inside(folder, "*.duckdb"))


def _is_airbyte(folder: Path) -> bool:
    """A configured catalog (``catalog.json``) beside ``*.jsonl`` files that each
    start with an Airbyte message (a body under its type's key, and no Singer
    ``stream`` beside it)."""
    runs = _inside(folder, "*.jsonl")
    if not runs or not (folder / "catalog.json").is_file():
        return False
    for run in runs:
        message = _first_message(run)
        if not isinstance(message, dict) or "stream" in message:
            return False
        body = AIRBYTE_BODIES.get(str(message.get("type")))
        if body is None or not isinstance(message.get(body), dict):
            return False
    return True


def _is_singer_message(message: object) -> bool:
    """A Singer message by its shape: a STATE carries ``value``, any other its
    ``stream`` (an Airbyte RECORD or STATE, of the same type names, carries neither
    at the top)."""
    if not isinstance(message, dict) or message.get("type") not in SINGER_TYPES:
        return False
    return "value" in message if message["type"] == "STATE" else "stream" in message


def _is_singer(folder: Path) -> bool:
    """Every ``*.jsonl`` file of ``folder`` starts with a Singer message (and there
    is one)."""
    runs = _inside(folder, "*.jsonl")
    if not runs:
        return False
    return all(_is_singer_message(_first_message(run)) for run in runs)


def detect_source(folder: Path) -> str | None:
    """The reader whose artifacts ``folder`` holds, where one does; else None. A
    folder holding the artifacts of several is refused: which to audit is the
    user's to say (``--source``), never a guess that leaves the others unread."""
    found = [
        name
        for name, holds in (("dlt", _is_dlt), ("airbyte", _is_airbyte), ("singer", _is_singer))
        if holds(folder)
    ]
    if len(found) > 1:
        raise UsageError(
            f"{folder} holds {' and '.join(WHAT[name] for name in found)}: name the one to"
            f" read with --source ({', '.join(found)}) (docs/readers.md)"
        )
    return found[0] if found else None


def detect_path(path: Path) -> str | None:
    """The reader of ``path``, a folder (:func:`detect_source`) or a DuckDB file
    holding a dlt dataset; else None."""
    if path.is_dir():
        return detect_source(path)
    if path.is_file() and path.suffix == ".duckdb" and _holds_dlt_dataset(path):
        return "dlt"
    return None
