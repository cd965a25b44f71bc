"""What every reader shares: the sandbox's view of the artifacts' folder and the
user's source extract (``source.csv`` or ``source.parquet``: ``key`` and ``cursor``,
and ``stream`` where there are several streams), one query's result of
``(key, cursor)`` from the source, written as the log set's ``snapshot`` and
``snapshot_bounds`` (docs/readers.md)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import duckdb

from reconcile import sql
from reconcile.db import glob_literal, quote_literal
from reconcile.errors import InputError, UsageError
from reconcile.readers.detect import WHAT, detect_path

SOURCE_FILES = ("source.csv", "source.parquet")
# The contract's tables the extract gives, by the query that writes each.
EXTRACT_TABLES = {
    "snapshot": "readers/source_snapshot",
    "snapshot_bounds": "readers/source_bounds",
}

Fail = Callable[[str], InputError]
# JSON's types of a cursor value, as a user reads them.
JSON_KINDS = {
    "BIGINT": "integers",
    "UBIGINT": "integers",
    "DOUBLE": "decimals",
    "VARCHAR": "text",
    "BOOLEAN": "booleans",
    "OBJECT": "objects",
    "ARRAY": "arrays",
}


def kinds_text(kinds: set[str]) -> str:
    """The JSON types of the cursor values, in words: ``integers and text``."""
    words = sorted({JSON_KINDS.get(k, k.lower()) for k in kinds})
    return " and ".join(words)


def cursor_kind(con: duckdb.DuckDBPyConnection, query: str, fail: Fail, values: str) -> str:
    """``int`` where every cursor value ``query`` lists (their JSON types, each with
    its first value and where it is) is an integer, ``time`` where every one is text;
    else refused, naming the ``values`` and the first of each kind."""
    examples = dict(con.execute(sql.load(query)).fetchall())
    kinds = set(examples)
    if kinds <= {"BIGINT", "UBIGINT"}:
        return "int"
    if kinds <= {"VARCHAR"}:
        return "time"
    shown: dict[str, str] = {}
    for kind in sorted(kinds):  # BIGINT and UBIGINT both integers: one shown
        shown.setdefault(JSON_KINDS.get(kind, kind.lower()).rstrip("s"), examples[kind])
    firsts = "; ".join(f"the first {word}: {where}" for word, where in shown.items())
    raise fail(
        f"{values} are {kinds_text(kinds)} ({firsts}): a log set has one coordinate type,"
        " integers or timestamps (ISO text)"
    )


def create_table(con: duckdb.DuckDBPyConnection, name: str, query: str, **params: Any) -> None:
    """Table ``name`` from the named ``query``, given those of ``params`` it takes."""
    text = sql.load(query)
    used = sql.parameters(text)
    con.sql(text, params={k: v for k, v in params.items() if k in used}).create(name)


def dated_messages(
    con: duckdb.DuckDBPyConnection, reader: str, runs: Sequence[Path], names: Sequence[str]
) -> None:
    """rc_<reader>_messages: the runs' messages as ``readers/<reader>_lines`` reads them
    (``runs``, the files in order, each read as itself; ``names``, each as shown), each
    with its time by the one rule of every message reader (``readers/message_times``,
    from ``readers/<reader>_message_order``)."""
    create_table(
        con,
        f"rc_{reader}_lines",
        f"readers/{reader}_lines",
        files=[str(run) for run in runs],
        reads=[glob_literal(run) for run in runs],
        names=list(names),
    )
    create_table(con, "rc_message_order", f"readers/{reader}_message_order")
    create_table(con, "rc_message_times", "readers/message_times")
    create_table(con, f"rc_{reader}_messages", f"readers/{reader}_messages")


def name_order(name: str) -> tuple[tuple[str | int, ...], str]:
    """A file name's place in the natural order of names: runs of digits compared as
    numbers (``run9`` before ``run10``, as a person numbers runs), the name itself
    breaking ties (``run-01`` before ``run-1``)."""
    parts = re.split(r"(\d+)", name)
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts)), name


def message_files(folder: Path, fail: Fail, what: str) -> list[Path]:
    """The ``*.jsonl`` files of ``folder``, in the natural order of their names
    (:func:`name_order`; hidden ones left out): one run's messages each; refused
    where there are none (``what`` says what one holds)."""
    if not folder.is_dir():
        raise fail("is not a folder")
    runs = sorted(
        (p for p in folder.glob("*.jsonl") if p.is_file() and not p.name.startswith(".")),
        key=lambda p: name_order(p.name),
    )
    if not runs:
        raise fail(f"holds no {what}")
    return runs


def other_reader(folder: Path, reader: str) -> str:
    """Words to add where ``reader`` found none of its messages: the reader whose
    artifacts the folder holds, where another's are recognised."""
    try:
        found = detect_path(folder)
    except UsageError:
        return ""  # the artifacts of several frameworks: the refusal stands alone
    if found is None or found == reader:
        return ""
    return f"; it holds {WHAT[found]}: read it with --source {found}"


def first_bad_line(files: Sequence[Path], folder: Path) -> str | None:
    """Where the first line of ``files`` that is no JSON object is (``run.jsonl, line
    3: ...``), or None. Read only after DuckDB refused a file, to name the line as the
    user counts it (DuckDB's own count is one off)."""
    for path in files:
        with path.open("rb") as handle:
            for number, raw in enumerate(handle, 1):
                text = raw.strip()
                if not text:
                    continue
                try:
                    value = json.loads(text)
                except ValueError:
                    what = "is not JSON"
                else:
                    if isinstance(value, dict):
                        continue
                    what = "is JSON but not an object"
                return f"{path.relative_to(folder).as_posix()}, line {number} {what}"
    return None


def unreadable(error: Exception, files: Sequence[Path], folder: Path) -> str:
    """The message for a message file (or the extract) DuckDB could not read: the
    file and line where that is a line that is no JSON object."""
    where = first_bad_line(files, folder) if "JSON" in str(error) else None
    if where is not None:
        return f"{where}: each line of a run's file is one message, a JSON object"
    return f"cannot be read: {str(error).strip().splitlines()[0]}"


def extract_says(extract: Path | None, run: str) -> str:
    """What the extract lets the audit prove, or what its absence hides (``run``: what
    delivers rows, "run", "sync", "load")."""
    if extract is not None:
        return (
            "; the source extract is a snapshot of the source, so rows no"
            f" {run} delivered are proven skipped"
        )
    return (
        f"; no source extract ({' or '.join(SOURCE_FILES)}), so a row no {run} delivered"
        " cannot be seen"
    )


def unaudited_says(not_audited: Sequence[str], left_out: int) -> str:
    """What the audit does not judge: the streams not audited (full-table,
    full-refresh: no cursor a claim could be held against) and how many of the
    extract's rows, theirs, were left out. The terminal and report.html show
    ``proves`` alone: without this an audit with no finding read as the whole extract
    judged."""
    if not not_audited:
        return ""
    text = f"; not audited (no cursor to judge a claim by): {', '.join(not_audited)}"
    if left_out:
        whose = "its" if len(not_audited) == 1 else "their"
        rows = "row" if left_out == 1 else "rows"
        are = "is" if left_out == 1 else "are"
        text += f"; {whose} {left_out} {rows} in the source extract {are} left out, unjudged"
    return text


def inside(folder: Path, files: Sequence[Path], fail: Fail) -> None:
    """Refuse a file that leads outside the folder (a link): a log set is read from
    inside its folder only."""
    base = folder.resolve()
    for path in files:
        if not path.resolve().is_relative_to(base):
            raise fail(f"{path.relative_to(folder)} leads outside the folder: it is not read")


def find_extract(folder: Path, fail: Fail) -> Path | None:
    """The source extract in ``folder``, if there is one (never two)."""
    found = [folder / name for name in SOURCE_FILES if (folder / name).is_file()]
    if len(found) > 1:
        raise fail("holds both source.csv and source.parquet: keep one extract")
    return found[0] if found else None


def load_extract(
    con: duckdb.DuckDBPyConnection,
    extract: Path,
    streams: Sequence[str],
    fail: Fail,
    unaudited: Sequence[str] = (),
) -> int:
    """rc_source_extract (stream, key, cursor as text, and the row as JSON: a
    partitioned stream's rows name their partition by its keys' columns) from the
    user's extract; its stream may be left out where the artifacts hold one stream
    (``streams``, the audited ones). Rows of a stream the artifacts hold but do not
    audit (``unaudited``: full-table, full-refresh) are left out, and their number
    returned; rows of any other stream are refused."""
    reader = "read_parquet" if extract.suffix == ".parquet" else "read_csv"
    options = "" if reader == "read_parquet" else ", all_varchar = true"
    # a view takes no bound parameter: the path, ours, quoted
    con.execute(
        "CREATE TEMP VIEW rc_source_raw AS SELECT *"
        f" FROM {reader}({quote_literal(glob_literal(extract))}{options})"
    ).fetchall()
    columns = {row[0] for row in con.execute("DESCRIBE rc_source_raw").fetchall()}
    lacking = {"key", "cursor"} - columns
    if lacking:
        raise fail(
            f"{extract.name} lacks column(s) {', '.join(sorted(lacking))}: an extract is"
            " one query's result of (key, cursor) from the source, with stream where the"
            " artifacts hold several streams"
        )
    if "stream" in columns:
        stream = "CAST(stream AS VARCHAR)"
    elif len(streams) == 1:
        stream = quote_literal(streams[0])
    else:
        raise fail(
            f"{extract.name} has no stream column, and the artifacts hold several streams"
            f" ({', '.join(streams)})"
        )
    con.execute(
        "CREATE TEMP TABLE rc_source_extract AS SELECT"
        f" {stream} AS stream, CAST(key AS VARCHAR) AS key, CAST(cursor AS VARCHAR) AS cursor,"
        " to_json(r) AS fields, row_number() OVER () AS row_no FROM rc_source_raw AS r"
    ).fetchall()
    # a name both audited and not (streams of two namespaces that read alike): the
    # extract's rows of it are the audited stream's, never left out
    unaudited = [name for name in unaudited if name not in streams]
    known = {"streams": list(streams), "unaudited": unaudited}
    bad = con.execute(sql.load("readers/source_refusals"), known).fetchall()
    if bad:
        row_no, key, cursor, what = bad[0]
        # rows count from 1, a CSV's header not among them (a CSV line can hold a
        # quoted line break, and blank lines hold no row: a line number would mislead)
        raise fail(
            f"{extract.name} row {row_no} (key {key!r}, cursor {cursor!r}; rows counted from"
            f" 1, after the header) {what}: every row of an extract is a row of the source,"
            " named by its key and placed by its cursor"
        )
    (left_out,) = con.execute(
        sql.load("readers/source_unaudited"), {"unaudited": list(unaudited)}
    ).fetchall()[0]
    partitions(con)
    unplaced = con.execute(sql.load("readers/source_unplaced")).fetchall()
    if unplaced:
        stream, keys = unplaced[0]
        raise fail(
            f"{extract.name} has rows of partitioned stream {stream} without its partition:"
            f" add the column(s) {', '.join(keys)}, as its records carry them"
        )
    return int(left_out)


def partitions(con: duckdb.DuckDBPyConnection) -> None:
    """rc_partition_of, and rc_partition_keys (empty where a reader made none: its
    streams are not partitioned)."""
    con.execute(sql.load("readers/partition_of")).fetchall()
    # in the main schema, as the readers' tables are: a temporary one would hide theirs
    con.execute(
        "CREATE TABLE IF NOT EXISTS rc_partition_keys (stream VARCHAR, keys VARCHAR[])"
    ).fetchall()


def write_tables(
    con: duckdb.DuckDBPyConnection, out: Path, tables: dict[str, str], params: dict[str, object]
) -> None:
    """Each contract table of ``tables`` (name -> named query) as ``out/NAME.parquet``,
    each query given those of ``params`` it takes (``domain``: the scopes',
    ``discrete`` or ``dense``)."""
    for table, query in tables.items():
        text = sql.load(query)
        target = quote_literal(str(out / f"{table}.parquet"))
        con.execute(
            f"COPY ({text}) TO {target} (FORMAT parquet)",
            {k: v for k, v in params.items() if k in sql.parameters(text)},
        ).fetchall()
