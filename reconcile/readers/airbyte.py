"""Airbyte syncs as a log set: the protocol messages a source emitted in each sync
(RECORD, STATE, LOG, TRACE as JSON Lines), one ``*.jsonl`` file per sync, taken in
the natural order of their names (sync9 before sync10); the configured catalog the
syncs ran with (``catalog.json``: each stream's sync mode, primary key and cursor
field, which the messages do not carry); and an optional source extract (``source.csv`` or
``source.parquet``: ``key`` and ``cursor``, and ``stream`` where there are several).

What they can prove (docs/readers.md): a RECORD is read as delivered (a committed
receipt, at its time) and each per-stream state of a STATE message
(STREAM, GLOBAL or LEGACY) as a checkpoint written without compare-and-swap,
claiming through its cursor field's value, inclusive. There is no page log, so the
evidence is receipts only; with a source extract, a row under a state that no sync
delivered is a ``skipped_event``, named by its key. The order of the messages is the
truth: each is dated at the time it carries (a RECORD's ``emitted_at``), no earlier
than the message before it, and a microsecond after it where either is a STATE (which
carries no time). Full-refresh streams have no cursor and are not audited; a
state that is not its cursor's value (per partition, or a concurrent source's
slices) is refused.

All reading is DuckDB's (``sql/readers/airbyte_*.sql``), in a sandbox that reads the
sync files, the catalog and the extract alone and writes the log set's folder alone.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import duckdb

from reconcile import sql
from reconcile.db import connect, glob_literal, quote_literal
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
    unaudited_says,
    unreadable,
    write_tables,
)

CATALOG = "catalog.json"
RAW = "raw"  # the destination's raw tables, a file (or a folder of files) per stream
RAW_SUFFIXES = (".jsonl", ".jsonl.gz", ".parquet", ".csv")
RAW_COLUMNS = ("_airbyte_raw_id", "_airbyte_extracted_at", "_airbyte_loaded_at", "_airbyte_data")
# An empty rc_airbyte_raw_files, where no raw table is given.
NO_RAW = (
    "SELECT NULL::VARCHAR AS stream_id, NULL::VARCHAR AS raw_id, NULL::VARCHAR AS extracted,"
    " NULL::VARCHAR AS loaded, NULL::JSON AS data, NULL::JSON AS meta WHERE false"
)
CATALOG_COLUMNS = (
    "{'streams': 'STRUCT(stream STRUCT(name VARCHAR, namespace VARCHAR,"
    " source_defined_primary_key VARCHAR[][], default_cursor_field VARCHAR[]),"
    " sync_mode VARCHAR, cursor_field VARCHAR[], primary_key VARCHAR[][])[]'}"
)
TABLE_QUERIES = {
    "scopes": "readers/airbyte_scopes",
    "checkpoints": "readers/airbyte_checkpoints",
    "receipts": "readers/airbyte_receipts",
}
WHAT_IT_PROVES = (
    "Airbyte messages: RECORDs read as delivered receipts, each stream's STATE (stream,"
    " global or legacy) as a checkpoint write without compare-and-swap; no page log, so"
    " receipts-only evidence"
)
WITHOUT_RAW = (
    "; without the destination's raw tables (raw/), a record the destination failed to"
    " load is not seen as failed"
)
WITH_RAW = (
    "; receipts from the destination's raw tables instead: a row is committed when it"
    " reached the final table (_airbyte_loaded_at), failed while it has not (a RECORD no"
    " raw row is of: failed, dropped by the destination), and a state"
    " is dated no earlier than the loading of the rows before it"
)


def _fail(folder: Path, message: str) -> InputError:
    return InputError(f"Airbyte log set {folder}: {message}")


def _syncs(folder: Path) -> list[Path]:
    syncs = message_files(
        folder, partial(_fail, folder), "sync (*.jsonl, a source's Airbyte messages each)"
    )
    if not (folder / CATALOG).is_file():
        raise _fail(
            folder,
            f"holds no {CATALOG}: the configured catalog the syncs ran with names each"
            " stream's primary key and cursor field, which the messages do not carry",
        )
    return syncs


def _raw_files(root: Path) -> list[Path]:
    folder = root / RAW
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name.endswith(RAW_SUFFIXES))


def _shown(namespace: str | None, name: str) -> str:
    """A stream of the catalog in words, its namespace (or none) said."""
    return f"{name} (namespace {namespace})" if namespace is not None else f"{name} (no namespace)"


# A stream of the catalog: (stream_id, its name as shown, namespace, name).
Catalogued = tuple[str, str, str | None, str]


def _stream_of(
    path: Path, raw: Path, streams: list[Catalogued], fail: partial[InputError]
) -> str | None:
    """The stream (its stream_id) a raw table's file belongs to: its name (or its
    folder's, under raw/) is the stream's (``items``, ``shop.items``) or Airbyte's raw
    table name (``shop_raw__stream_items``). ``streams``: (stream_id, stream as shown,
    namespace, name) of each stream of the catalog. A name that is two streams' is
    refused, naming both."""
    top = path.relative_to(raw).parts[0]
    stem = top
    for suffix in RAW_SUFFIXES:
        stem = stem.removesuffix(suffix)
    found = [s for s in streams if s[1] == stem]
    if not found:
        found = [s for s in streams if s[2] is not None and stem == f"{s[2]}_raw__stream_{s[3]}"]
    if not found:
        found = [s for s in streams if stem.endswith(f"_raw__stream_{s[3]}")]
    if len(found) > 1:
        both = " and ".join(_shown(s[2], s[3]) for s in found)
        raise fail(
            f"{path.relative_to(raw.parent)} is named after several streams of {CATALOG}"
            f" ({both}): name it after its raw table (ns_raw__stream_items)"
        )
    return found[0][0] if found else None


def _raw_view(
    con: duckdb.DuckDBPyConnection, root: Path, files: list[Path], fail: partial[InputError]
) -> None:
    """rc_airbyte_raw_files (stream, raw_id, extracted, loaded, data, meta): every row
    of every incremental stream's raw table under raw/, or none."""
    if not files:
        con.execute(f"CREATE TEMP VIEW rc_airbyte_raw_files AS {NO_RAW}").fetchall()
        return
    streams = con.execute(
        "SELECT stream_id, stream, namespace, name FROM rc_airbyte_streams ORDER BY ALL"
    ).fetchall()
    shown = {s[0]: s[1] for s in streams}
    incremental = {
        r[0]
        for r in con.execute(
            "SELECT stream_id FROM rc_airbyte_streams WHERE sync_mode = 'incremental'"
        ).fetchall()
    }
    by_stream: dict[str, list[Path]] = {}
    for path in files:
        stream = _stream_of(path, root / RAW, streams, fail)
        if stream is None:
            raise fail(
                f"{path.relative_to(root)} is the raw table of no stream of {CATALOG}: name"
                " it after its stream (items.jsonl) or its raw table (ns_raw__stream_items)"
            )
        by_stream.setdefault(stream, []).append(path)
    lacking = sorted(shown[s] for s in incremental - set(by_stream))
    if lacking:
        raise fail(f"{RAW}/ holds no raw table of incremental stream(s) {', '.join(lacking)}")
    parts = []
    for stream, paths in sorted(by_stream.items()):
        if stream not in incremental:
            continue
        formats = {p.suffix if p.suffix in (".parquet", ".csv") else ".jsonl" for p in paths}
        if len(formats) > 1:
            raise fail(
                f"the raw table of {shown[stream]} mixes file formats ({', '.join(formats)})"
            )
        listed = "[" + ", ".join(quote_literal(glob_literal(p)) for p in paths) + "]"
        if paths[0].suffix == ".parquet":
            source = f"read_parquet({listed}, union_by_name = true)"
        elif paths[0].suffix == ".csv":
            source = f"read_csv({listed}, all_varchar = true, union_by_name = true)"
        else:
            columns = ", ".join(
                f"{quote_literal(c)}: 'VARCHAR'" for c in RAW_COLUMNS if c != "_airbyte_data"
            )
            source = (
                f"read_json({listed}, format = 'newline_delimited', columns = {{{columns},"
                " '_airbyte_data': 'JSON', '_airbyte_meta': 'JSON'})"
            )
        meta = "CAST(_airbyte_meta AS JSON)"
        parts.append(
            f"SELECT {quote_literal(stream)} AS stream_id, CAST(_airbyte_raw_id AS VARCHAR) AS"
            " raw_id, CAST(_airbyte_extracted_at AS VARCHAR) AS extracted,"
            " CAST(_airbyte_loaded_at AS VARCHAR) AS loaded,"
            f" CAST(_airbyte_data AS JSON) AS data, {meta} AS meta FROM {source}"
        )
    con.execute(f"CREATE TEMP VIEW rc_airbyte_raw_files AS {' UNION ALL '.join(parts)}").fetchall()


def _refuse(con: duckdb.DuckDBPyConnection, root: Path, fail: partial[InputError]) -> int:
    """Refuse what the syncs' messages hold that the reader cannot read (the first
    such thing, in words); return how many states hold an incremental stream's cursor
    (none is refused once the more telling refusals had their say)."""
    (
        twice,
        alike,
        malformed,
        unkeyed,
        unread,
        uncatalogued,
        incomplete,
        messages,
        cursors,
        strange,
        unconfigured,
    ) = con.execute(sql.load("readers/airbyte_refusals")).fetchall()[0]
    if not messages:
        raise fail(
            "no sync holds an Airbyte RECORD or STATE message (a line with type RECORD and"
            " its record, or STATE and its state)" + other_reader(root, "airbyte")
        )
    if unconfigured is not None:
        raise fail(
            f"stream {unconfigured} of {CATALOG} (counted from 1) has no stream or no"
            " sync_mode: the syncs' configured catalog (ConfiguredAirbyteCatalog) is"
            " wanted, not a discovered one (AirbyteCatalog), whose streams say no sync"
            " mode, primary key or cursor field as configured"
        )
    if strange is not None:
        raise fail(
            f"{strange} is no message of the Airbyte protocol (its type one of RECORD,"
            " STATE, LOG, TRACE, CONTROL, SPEC, CONNECTION_STATUS, CATALOG,"
            " DESTINATION_CATALOG): it cannot"
            " be placed, and is not left out"
        )
    if twice is not None:
        raise fail(f"{CATALOG} names stream {twice} twice")
    if alike is not None:
        name, streams = alike
        raise fail(
            f"incremental streams {streams} of {CATALOG} read alike, as {name}: the name"
            " a stream's scope, its rows in the extract and its raw table go by, so the"
            " reader cannot tell them apart"
        )
    if malformed is not None:
        raise fail(
            f"the STATE at {malformed} is not of the Airbyte protocol's shape (STREAM,"
            " GLOBAL or LEGACY, each stream's state an object under the name of a stream"
            f" of {CATALOG}, with its namespace): it cannot be read"
        )
    if unkeyed is not None:
        raise fail(
            f"incremental stream {unkeyed} has no primary key or no cursor field in"
            f" {CATALOG}: its rows have no key to name them by, or no cursor to audit"
        )
    if unread is not None:
        raise fail(
            f"a state of stream {unread[:200]} does not hold its cursor field's value"
            " under the cursor field's name (a per-partition or a sliced, concurrent"
            " state, or a database source's cursor_based state, its value under"
            ' "cursor"), which this reader does not read'
        )
    if uncatalogued is not None:
        raise fail(f"records of stream {uncatalogued}, which {CATALOG} does not name")
    if incomplete is not None:
        raise fail(
            f"the RECORD at {incomplete} has no value for its stream's primary key or"
            " cursor field: it cannot be named or placed"
        )
    return int(cursors)


def read_airbyte(folder: str | Path, out: Path) -> dict[str, Any]:
    """Write the contract's tables of the Airbyte syncs under ``folder`` into ``out``
    (an empty folder) and return what the audit's ``inputs`` says of the source."""
    root = Path(folder)
    syncs = _syncs(root)
    fail = partial(_fail, root)
    extract = find_extract(root, fail)
    catalog = root / CATALOG
    raw = _raw_files(root)
    readable = [*syncs, catalog, *raw, *([extract] if extract else [])]
    inside(root, readable, fail)
    names = [sync.relative_to(root).as_posix() for sync in syncs]
    try:
        with connect(readable, folders=[out]) as con:
            con.execute(sql.load("readers/clock")).fetchall()
            # a view takes no bound parameter: the path, ours, quoted
            con.execute(
                "CREATE TEMP VIEW rc_airbyte_catalog_raw AS SELECT * FROM"
                f" read_json({quote_literal(glob_literal(catalog))}, columns = {CATALOG_COLUMNS})"
            ).fetchall()
            create_table(con, "rc_airbyte_streams", "readers/airbyte_streams")
            if not con.execute("SELECT count(*) FROM rc_airbyte_streams").fetchall()[0][0]:
                # else every state would be refused as naming no stream of it
                raise fail(
                    f"{CATALOG} names no stream: the configured catalog the syncs ran with"
                    " (ConfiguredAirbyteCatalog, an object whose streams list each stream's"
                    " sync mode, primary key and cursor field) is wanted"
                )
            dated_messages(con, "airbyte", syncs, names)
            create_table(con, "rc_airbyte_states", "readers/airbyte_states")
            cursors = _refuse(con, root, fail)
            _raw_view(con, root, raw, fail)
            create_table(con, "rc_airbyte_raw", "readers/airbyte_raw")
            create_table(con, "rc_airbyte_records", "readers/airbyte_records")
            streams = con.execute(
                "SELECT stream, sync_mode = 'incremental' FROM rc_airbyte_streams ORDER BY 1"
            ).fetchall()
            audited = [name for name, incremental in streams if incremental]
            if not audited:
                raise fail(
                    f"no stream of {CATALOG} is incremental: a full-refresh stream has no"
                    " cursor to audit"
                )
            kind = cursor_kind(con, "readers/airbyte_cursor_kinds", fail, "cursor values")
            if not cursors:
                raise fail(
                    "no sync has a STATE holding an incremental stream's cursor: with no state"
                    " nothing claims how far the syncs read, so a lost row cannot be told from one"
                    " not read yet (give the syncs' whole message streams, STATE messages included)"
                    + other_reader(root, "airbyte")
                )
            con.execute(sql.load(f"readers/cursor_{kind}")).fetchall()
            tables = dict(TABLE_QUERIES)
            left_out = 0
            if raw:
                tables["receipts"] = "readers/airbyte_raw_receipts"
            if extract is not None:
                unaudited = [name for name, incremental in streams if not incremental]
                left_out = load_extract(con, extract, audited, fail, unaudited)
                tables |= EXTRACT_TABLES
            write_tables(con, out, tables, {"domain": "discrete" if kind == "int" else "dense"})
    except duckdb.Error as error:
        raise fail(unreadable(error, syncs, root)) from None
    return {
        "reader": "airbyte",
        "runs": names,
        "streams": audited,
        "not_audited": [name for name, incremental in streams if not incremental],
        "source_extract": extract.name if extract else None,
        "source_extract_left_out": left_out,
        "raw_tables": sorted({p.relative_to(root).as_posix() for p in raw}),
        "proves": WHAT_IT_PROVES
        + (WITH_RAW if raw else WITHOUT_RAW)
        + extract_says(extract, "sync")
        + unaudited_says([name for name, incremental in streams if not incremental], left_out),
    }
