"""Airbyte syncs as a log set: the protocol messages a source emitted in each sync
(RECORD, STATE, LOG, TRACE as JSON Lines), one ``*.jsonl`` file per sync, taken in
the order of their names; the configured catalog the syncs ran with
(``catalog.json``: each stream's sync mode, primary key and cursor field, which the
messages do not carry); and an optional source extract (``source.csv`` or
``source.parquet``: ``key`` and ``cursor``, and ``stream`` where there are several).

What they can prove (docs/readers.md): a RECORD is read as delivered (a committed
receipt, at its ``emitted_at``) and each per-stream state of a STATE message
(STREAM, GLOBAL or LEGACY) as a checkpoint written without compare-and-swap,
claiming through its cursor field's value, inclusive. There is no page log, so the
evidence is receipts only; with a source extract, a row under a state that no sync
delivered is a ``skipped_event``, named by its key. A STATE has no time of its own:
it is dated at the last time a message before it carried, plus a microsecond per
STATE since that time. Full-refresh streams have no cursor and are not audited; a
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
from reconcile.db import connect, quote_literal
from reconcile.errors import InputError
from reconcile.readers.extract import (
    EXTRACT_TABLES,
    find_extract,
    inside,
    kinds_text,
    load_extract,
    write_tables,
)

CATALOG = "catalog.json"
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
WITH_EXTRACT = (
    "; the source extract is a snapshot of the source, so rows no sync delivered are proven skipped"
)
WITHOUT_EXTRACT = (
    "; no source extract (source.csv or source.parquet), so a row no sync delivered cannot be seen"
)


def _fail(folder: Path, message: str) -> InputError:
    return InputError(f"Airbyte log set {folder}: {message}")


def _syncs(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise _fail(folder, "is not a folder")
    syncs = sorted(p for p in folder.glob("*.jsonl") if p.is_file() and not p.name.startswith("."))
    if not syncs:
        raise _fail(folder, "holds no sync (*.jsonl, a source's Airbyte messages each)")
    if not (folder / CATALOG).is_file():
        raise _fail(
            folder,
            f"holds no {CATALOG}: the configured catalog the syncs ran with names each"
            " stream's primary key and cursor field, which the messages do not carry",
        )
    return syncs


def _table(con: duckdb.DuckDBPyConnection, name: str, query: str, **params: Any) -> None:
    text = sql.load(query)
    used = sql.parameters(text)
    con.sql(text, params={k: v for k, v in params.items() if k in used}).create(name)


def _cursor_kind(con: duckdb.DuckDBPyConnection, fail: partial[InputError]) -> str:
    """int64 where every cursor is an integer, else timestamps (text)."""
    kinds = {row[0] for row in con.execute(sql.load("readers/airbyte_cursor_kinds")).fetchall()}
    if kinds <= {"BIGINT", "UBIGINT"}:
        return "int"
    if kinds <= {"VARCHAR"}:
        return "time"
    raise fail(
        f"cursor values are {kinds_text(kinds)}: a log set has one coordinate"
        " type, integers or timestamps (ISO text)"
    )


def _refuse(con: duckdb.DuckDBPyConnection, fail: partial[InputError]) -> None:
    unkeyed, unread, uncatalogued = con.execute(sql.load("readers/airbyte_refusals")).fetchall()[0]
    if unkeyed is not None:
        raise fail(
            f"incremental stream {unkeyed} has no primary key or no cursor field in"
            f" {CATALOG}: its rows have no key to name them by, or no cursor to audit"
        )
    if unread is not None:
        raise fail(
            f"a state of stream {unread[:200]} does not hold its cursor field's value"
            " (a per-partition or a sliced, concurrent state), which this reader does not"
            " read"
        )
    if uncatalogued is not None:
        raise fail(f"records of stream {uncatalogued}, which {CATALOG} does not name")


def read_airbyte(folder: str | Path, out: Path) -> dict[str, Any]:
    """Write the contract's tables of the Airbyte syncs under ``folder`` into ``out``
    (an empty folder) and return what the audit's ``inputs`` says of the source."""
    root = Path(folder)
    syncs = _syncs(root)
    fail = partial(_fail, root)
    extract = find_extract(root, fail)
    catalog = root / CATALOG
    readable = [*syncs, catalog, *([extract] if extract else [])]
    inside(root, readable, fail)
    names = [sync.relative_to(root).as_posix() for sync in syncs]
    try:
        with connect(readable, folders=[out]) as con:
            # a view takes no bound parameter: the path, ours, quoted
            con.execute(
                "CREATE TEMP VIEW rc_airbyte_catalog_raw AS SELECT * FROM"
                f" read_json({quote_literal(str(catalog))}, columns = {CATALOG_COLUMNS})"
            ).fetchall()
            _table(con, "rc_airbyte_streams", "readers/airbyte_streams")
            _table(
                con,
                "rc_airbyte_messages",
                "readers/airbyte_messages",
                files=[str(s) for s in syncs],
                names=names,
            )
            _table(con, "rc_airbyte_states", "readers/airbyte_states")
            _refuse(con, fail)
            streams = con.execute(
                "SELECT stream, sync_mode = 'incremental' FROM rc_airbyte_streams ORDER BY 1"
            ).fetchall()
            audited = [name for name, incremental in streams if incremental]
            if not audited:
                raise fail(
                    f"no stream of {CATALOG} is incremental: a full-refresh stream has no"
                    " cursor to audit"
                )
            kind = _cursor_kind(con, fail)
            con.execute(sql.load(f"readers/cursor_{kind}")).fetchall()
            tables = dict(TABLE_QUERIES)
            if extract is not None:
                load_extract(con, extract, audited, fail)
                tables |= EXTRACT_TABLES
            write_tables(con, out, tables, {"domain": "discrete" if kind == "int" else "dense"})
    except duckdb.Error as error:
        raise fail(f"cannot be read: {error}") from None
    return {
        "reader": "airbyte",
        "runs": names,
        "streams": audited,
        "not_audited": [name for name, incremental in streams if not incremental],
        "source_extract": extract.name if extract else None,
        "proves": WHAT_IT_PROVES + (WITH_EXTRACT if extract else WITHOUT_EXTRACT),
    }
