"""Singer (and Meltano) runs as a log set: the JSON Lines message stream of each run
(SCHEMA, RECORD, STATE), one ``*.jsonl`` file per run, taken in the natural order
of their names (run9 before run10), and an optional source extract (``source.csv``
or ``source.parquet``: ``key`` and ``cursor``, and ``stream`` where there are
several), one query's result of ``(key, cursor)`` from the source.

What they can prove (docs/readers.md): a RECORD is read as delivered (a committed
receipt) and a STATE bookmark as a checkpoint written without compare-and-swap,
claiming through its ``replication_key_value`` inclusive (singer-python's bookmark: the
field named by the stream's replication key). There is no page log, so
the evidence is receipts only; with a source extract, every row it lists is an event
the source has, so a row under a bookmark that no run delivered is a
``skipped_event``, named by its key. The order of the messages is the truth: each is
dated at the time it carries (a RECORD's ``time_extracted``), no earlier than the
message before it, and a microsecond after it where either is a STATE (which carries
no time), so that a record after a STATE is never counted for its claim.
Partitioned bookmarks (``partitions``, each with a ``context``) make a partition per
context; a record (and an extract's row) is in the partition its own
fields name.

Meltano's stored state (``meltano-state.json``: what ``meltano state get`` prints, or a
state backend's file with its completed and partial states) is read, where it is
given, as the STATE messages of one more run after every run: the state the next run
resumes from.

All reading is DuckDB's (``sql/readers/singer_*.sql``), in a sandbox that reads the
run files, the stored state and the extract alone and writes the log set's folder
alone.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import duckdb

from reconcile import sql
from reconcile.db import connect, glob_literal
from reconcile.errors import InputError
from reconcile.readers.extract import (
    EXTRACT_TABLES,
    create_table,
    cursor_kind,
    dated_messages,
    extract_says,
    find_extract,
    inside,
    load_extract,
    message_files,
    other_reader,
    partitions,
    unaudited_says,
    unreadable,
    write_tables,
)

# Meltano's stored state, where the user adds it (docs/readers.md)
STORED_STATE = "meltano-state.json"
TABLE_QUERIES = {
    "scopes": "readers/singer_scopes",
    "checkpoints": "readers/singer_checkpoints",
    "receipts": "readers/singer_receipts",
}
WHAT_IT_PROVES = (
    "Singer messages: RECORDs read as delivered receipts, STATE bookmarks as checkpoint"
    " writes without compare-and-swap; no page log, so receipts-only evidence; the"
    " messages are what the target received, so a record the target failed to load is"
    " not seen as failed"
)


def _fail(folder: Path, message: str) -> InputError:
    return InputError(f"Singer log set {folder}: {message}")


def _stored_state(con: duckdb.DuckDBPyConnection, root: Path, stored: Path) -> None:
    """Meltano's stored state as the STATE messages of one more run; refused where it
    is no JSON document, or holds no Singer state in any of its three shapes."""
    text = sql.load("readers/singer_stored_state")
    try:
        con.execute(
            f"INSERT INTO rc_singer_messages {text}",
            {"file": glob_literal(stored), "name": STORED_STATE},
        ).fetchall()
    except duckdb.Error as error:
        raise _fail(
            root, f"{STORED_STATE} is no JSON document: {str(error).strip().splitlines()[0]}"
        ) from None
    found = con.execute(
        "SELECT count(*) FROM rc_singer_messages WHERE run = $name", {"name": STORED_STATE}
    ).fetchall()[0][0]
    if not found:
        raise _fail(
            root,
            f"{STORED_STATE} holds no Singer state: neither what `meltano state get` prints"
            ' ({"singer_state": ...}), a state backend\'s file ({"completed": ...}), nor a'
            ' bare state ({"bookmarks": ...})',
        )


def read_singer(folder: str | Path, out: Path) -> dict[str, Any]:
    """Write the contract's tables of the Singer runs under ``folder`` into ``out``
    (an empty folder) and return what the audit's ``inputs`` says of the source."""
    root = Path(folder)
    fail = partial(_fail, root)
    runs = message_files(root, fail, "run (*.jsonl, a Singer message stream each)")
    extract = find_extract(root, fail)
    stored = root / STORED_STATE if (root / STORED_STATE).is_file() else None
    readable = [*runs, *([extract] if extract else []), *([stored] if stored else [])]
    inside(root, readable, fail)
    names = [run.relative_to(root).as_posix() for run in runs]
    try:
        with connect(readable, folders=[out]) as con:
            con.execute(sql.load("readers/clock")).fetchall()
            dated_messages(con, "singer", runs, names)
            if stored is not None:
                _stored_state(con, root, stored)
            create_table(con, "rc_singer_bookmarks", "readers/singer_bookmarks")
            create_table(con, "rc_singer_streams", "readers/singer_streams")
            create_table(con, "rc_partition_keys", "readers/singer_partition_keys")
            partitions(con)
            create_table(con, "rc_singer_claims", "readers/singer_claims")
            (
                malformed,
                mixed,
                unplaced,
                without_cursor,
                incomplete,
                messages,
                bookmarks,
                strange,
                undescribed,
                uneven,
                keyless,
                misnamed,
            ) = con.execute(sql.load("readers/singer_refusals")).fetchall()[0]
            if not messages:
                raise _fail(
                    root,
                    "no run holds a Singer message (a line of type SCHEMA, RECORD or STATE)"
                    + other_reader(root, "singer"),
                )
            if strange is not None:
                raise _fail(
                    root,
                    f"the line at {strange} is no Singer message the reader can place (a"
                    " SCHEMA, RECORD, STATE or ACTIVATE_VERSION; a RECORD or SCHEMA names its"
                    " stream; BATCH messages, whose records lie in other files, are not"
                    " read): read as is, its rows would look lost" + other_reader(root, "singer"),
                )
            if undescribed is not None:
                raise _fail(
                    root,
                    f"the RECORD at {undescribed} belongs to a stream no SCHEMA message"
                    " describes: its key properties are unknown, so its rows cannot be"
                    " named (Singer sends a stream's SCHEMA before its records)",
                )
            if malformed is not None:
                raise _fail(
                    root,
                    f"the STATE at {malformed} has bookmarks of another shape than Singer's"
                    " (bookmarks an object of stream bookmarks; partitions a list of"
                    " objects, each with an object context): it cannot be read",
                )
            if mixed is not None:
                raise _fail(
                    root,
                    f"stream {mixed!r} has partitioned and unpartitioned bookmarks: which"
                    " partition an unpartitioned one claims is unknown",
                )
            if uneven is not None:
                raise _fail(
                    root,
                    f"stream {uneven!r} has partitioned bookmarks whose contexts name"
                    " different fields: which partition a context without one of them"
                    " claims, and which partition a record is in, is unknown",
                )
            if unplaced is not None:
                raise _fail(
                    root,
                    f"stream {unplaced!r} has partitioned bookmarks and a record without"
                    " every field its partitions' contexts name: it cannot be placed",
                )
            if keyless:
                raise _fail(
                    root,
                    f"incremental stream(s) {', '.join(keyless)} name no key properties (SCHEMA"
                    " key_properties empty or missing): their records cannot be told apart,"
                    " so a lost row cannot be told from a replayed one",
                )
            audited = con.execute(sql.load("readers/singer_audited")).fetchall()
            if not audited:
                raise _fail(
                    root,
                    f"stream(s) {', '.join(without_cursor)} name no replication key (in"
                    " SCHEMA bookmark_properties or STATE bookmarks): only incremental"
                    " streams have a cursor to audit",
                )
            if misnamed is not None:
                orphan, stream = misnamed
                raise _fail(
                    root,
                    f"STATE bookmarks name stream {orphan!r}, which no SCHEMA describes,"
                    f" while stream {stream!r} has no bookmark claiming for it: bookmarks"
                    " keyed by a tap_stream_id, not by the records' stream, claim for no"
                    " stream that is audited",
                )
            if incomplete is not None:
                raise _fail(
                    root,
                    f"the RECORD at {incomplete} has no value for a key property or its"
                    " replication key: it cannot be named or placed",
                )
            if not bookmarks:
                raise _fail(
                    root,
                    "no run has a STATE message with bookmarks that claim a value of their"
                    " stream's replication key"
                    + (
                        f", nor has {STORED_STATE} one"
                        if stored
                        else f", nor is there a {STORED_STATE}"
                    )
                    + ":"
                    " with no claim nothing says how far the runs read, so a lost row"
                    " cannot be told from one not read yet (give the runs' whole message"
                    " streams, STATE messages included)" + other_reader(root, "singer"),
                )
            kind = cursor_kind(con, "readers/singer_cursor_kinds", fail, "replication key values")
            con.execute(sql.load(f"readers/cursor_{kind}")).fetchall()
            tables = dict(TABLE_QUERIES)
            left_out = 0
            if extract is not None:
                left_out = load_extract(
                    con, extract, [row[0] for row in audited], fail, list(without_cursor or [])
                )
                strays = con.execute(sql.load("readers/singer_extract_partitions")).fetchall()
                if strays:
                    row_no, stream, key, partition = strays[0]
                    raise fail(
                        f"{extract.name} row {row_no} (key {key!r}; rows counted from 1, after"
                        f" the header) is in partition {partition!r} of stream {stream!r},"
                        " and no row of the stream is in a partition a run names (a"
                        " bookmark's context, a record): write the partitions' values as"
                        " the runs write them (2.0 or 02 is not 2)"
                    )
                tables |= EXTRACT_TABLES
            write_tables(con, out, tables, {"domain": "discrete" if kind == "int" else "dense"})
    except duckdb.Error as error:
        raise _fail(root, unreadable(error, runs, root)) from None
    return {
        "reader": "singer",
        "runs": names,
        "stored_state": STORED_STATE if stored else None,
        "not_audited": list(without_cursor or []),
        "source_extract": extract.name if extract else None,
        "source_extract_left_out": left_out,
        "proves": WHAT_IT_PROVES
        + extract_says(extract, "run")
        + unaudited_says(list(without_cursor or []), left_out),
    }
