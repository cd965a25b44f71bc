"""dlt pipelines as a log set, read from their destination: a DuckDB database file, or
a filesystem destination's dataset folder (Parquet or JSON Lines tables), and an
optional source extract (``source.csv`` or ``source.parquet``, docs/readers.md).

What a destination can prove:
- ``_dlt_loads`` says which loads completed. A row of an incremental table, in the
  load its ``_dlt_load_id`` names, is a committed receipt when that load completed,
  and a failed one (not durable) when it never did.
- ``_dlt_pipeline_state`` keeps every version of the pipeline's state, compressed.
  Each incremental cursor's ``last_value`` in it is a checkpoint write without
  compare-and-swap, where dlt would restore that state: a SQL destination restores
  only a completed load's state, a filesystem destination the newest state file,
  whether its load completed or not. The claim is exclusive of ``last_value`` where
  the state keeps the boundary's row hashes (``unique_hashes``: the next run reads
  ``last_value`` again and skips only those rows), else inclusive.
- ``_dlt_version`` names each table's primary key (the event's id) and its
  incremental column (its position).

There is no page log, so the evidence is receipts only; a source extract lets the
audit prove rows lost. States are few (one per load at most) and are opened in
Python (base64 and zlib, which DuckDB lacks); every row is read by DuckDB, in a
sandbox that reads the destination's files alone and writes the log set's folder
alone.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from reconcile import sql
from reconcile.db import connect, glob_literal, quote_identifier, quote_literal
from reconcile.errors import InputError
from reconcile.readers.extract import (
    EXTRACT_TABLES,
    extract_says,
    find_extract,
    inside,
    load_extract,
    unreadable,
    write_tables,
)

TABLE_QUERIES = {
    "scopes": "readers/dlt_scopes",
    "checkpoints": "readers/dlt_checkpoints",
    "receipts": "readers/dlt_receipts",
}
LOADS, STATES, VERSIONS = "_dlt_loads", "_dlt_pipeline_state", "_dlt_version"
# The columns each of dlt's own tables is read by, typed (JSON Lines carry no types).
RAW_COLUMNS = {
    LOADS: {"load_id": "VARCHAR", "status": "BIGINT", "inserted_at": "VARCHAR"},
    STATES: {
        "pipeline_name": "VARCHAR",
        "version": "BIGINT",
        "_dlt_load_id": "VARCHAR",
        "created_at": "VARCHAR",
        "state": "VARCHAR",
    },
    VERSIONS: {"schema_name": "VARCHAR", "version": "BIGINT", "schema": "VARCHAR"},
}
RAW_VIEWS = {
    LOADS: "rc_dlt_loads_raw",
    STATES: "rc_dlt_states_raw",
    VERSIONS: "rc_dlt_versions_raw",
}
# dlt's data types of a cursor column, by the coordinate they give the log set.
CURSOR_KINDS = {"bigint": "int", "timestamp": "time", "date": "time"}
# dlt's typed JSON marks a datetime, date, decimal ... string by a first character in
# Unicode's private use area (U+F026 to U+F02D): the value is the rest.
_TYPED = range(0xF026, 0xF02E)
# A cursor value kept as plain text (not typed) that reads as an instant with a UTC
# offset other than zero: dlt compares such values as text, which is not their order
# in time (an hour that repeats when clocks go back: 01:15-05:00 is after 01:30-04:00).
_OFFSET_TEXT = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?\s*[+-](?!00(:?00)?$)\d{2}(:?\d{2})?"
)
DATA_SUFFIXES = (".parquet", ".jsonl", ".jsonl.gz")

WHAT_IT_PROVES = (
    "dlt destination: rows of completed loads (_dlt_loads) read as committed receipts, of"
    " loads never completed as failed; each incremental cursor's last_value in"
    " _dlt_pipeline_state as a checkpoint write without compare-and-swap (exclusive where"
    " the state keeps the boundary's row hashes, else inclusive, which with lag or"
    " without deduplication reports ties read later as overclaims); no page log, so"
    " receipts-only evidence; the pipeline's local state is not in the destination, and"
    " a filesystem destination keeps only its newest max_state_files states, so older"
    " claims are not judged"
)


def _fail(where: Path, message: str) -> InputError:
    return InputError(f"dlt destination {where}: {message}")


@dataclass(frozen=True)
class Destination:
    """Where a dlt dataset lies: a DuckDB file (``database``, with its ``dataset``
    schema chosen once attached) or a filesystem dataset folder (``folder``)."""

    root: Path  # what the user named
    extract_folder: Path
    database: Path | None = None
    folder: Path | None = None

    def readable(self) -> list[Path]:
        if self.database is not None:
            # DuckDB looks for the write-ahead log beside the file, read-only too
            return [self.database, self.database.with_name(self.database.name + ".wal")]
        assert self.folder is not None
        return [p for p in sorted(self.folder.rglob("*")) if p.is_file()]


def _is_dataset(folder: Path) -> bool:
    return (folder / LOADS).is_dir()


def locate(path: Path) -> Destination:
    """The destination ``path`` names: a ``.duckdb`` file, a dataset folder (it holds
    ``_dlt_loads/``), or a folder holding exactly one of either."""
    if path.is_file():
        if path.suffix != ".duckdb":
            raise _fail(path, "is a file, not a DuckDB database (*.duckdb)")
        return Destination(path, path.parent, database=path)
    if not path.is_dir():
        raise _fail(path, "no such file or folder")
    if _is_dataset(path):
        return Destination(path, path, folder=path)
    files = sorted(p for p in path.glob("*.duckdb") if p.is_file())
    datasets = sorted(p for p in path.iterdir() if p.is_dir() and _is_dataset(p))
    if len(files) + len(datasets) == 1:
        if files:
            return Destination(path, path, database=files[0])
        return Destination(path, path, folder=datasets[0])
    if not files and not datasets:
        raise _fail(
            path,
            "holds no dlt destination: a DuckDB database (*.duckdb) or a filesystem"
            " dataset (a folder with _dlt_loads/)",
        )
    names = ", ".join(p.name for p in [*files, *datasets])
    raise _fail(path, f"holds several dlt destinations ({names}): name the one to audit")


@dataclass(frozen=True)
class Stream:
    """An incremental resource's root table, as the reader reads it."""

    name: str
    cursor_column: str
    key_columns: tuple[str, ...]
    kind: str  # int or time
    disposition: str


def _plain(value: Any) -> str | None:
    """A cursor value of dlt's typed JSON as text (None stays None)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value[1:] if value and ord(value[0]) in _TYPED else value
    return json.dumps(value)


def _count(hashes: Any) -> int:
    """How many boundary hashes a cursor's state keeps (none, where it keeps no list)."""
    return len(hashes) if isinstance(hashes, list) else 0


def _open_state(text: str) -> Any:
    """A stored state: base64 of zlib of JSON, or (dlt before compression) JSON."""
    try:
        raw = zlib.decompress(base64.b64decode(text, validate=True))
    except (binascii.Error, zlib.error, ValueError):
        raw = text.encode("utf-8")
    return json.loads(raw)


def _cursors(state: Any) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """(source, resource, cursor path, entry) of every incremental cursor a state
    holds (``sources.S.resources.R.incremental.PATH``)."""
    for source, body in _member(state, "sources").items():
        for resource, rbody in _member(body, "resources").items():
            for path, entry in _member(rbody, "incremental").items():
                if isinstance(entry, dict):
                    yield source, resource, path, entry


def _member(body: Any, key: str) -> dict[str, Any]:
    """``body[key]`` where both are objects, else nothing (a state of another shape
    holds no cursor there)."""
    found = body.get(key) if isinstance(body, dict) else None
    return found if isinstance(found, dict) else {}


def _attach(con: duckdb.DuckDBPyConnection, where: Destination) -> str:
    """Attach the DuckDB file read-only and return its one dlt dataset (schema)."""
    assert where.database is not None
    con.execute(f"ATTACH {quote_literal(str(where.database))} AS rc_src (READ_ONLY)").fetchall()
    datasets = [
        row[0]
        for row in con.execute(
            "SELECT DISTINCT schema_name FROM duckdb_tables()"
            " WHERE database_name = 'rc_src' AND table_name = ? ORDER BY 1",
            [LOADS],
        ).fetchall()
    ]
    if len(datasets) != 1:
        found = f"several ({', '.join(datasets)})" if datasets else "none"
        raise _fail(
            where.root, f"a DuckDB destination holds one dlt dataset with {LOADS}: it holds {found}"
        )
    views = [
        row[0]
        for row in con.execute(
            "SELECT view_name FROM duckdb_views() WHERE database_name = 'rc_src'"
            " AND schema_name = ? AND NOT internal ORDER BY 1",
            [datasets[0]],
        ).fetchall()
    ]
    if views:
        # a view runs its author's SQL when read: the log set's, never run (dlt writes
        # tables; _dlt_pipeline_state as a view read what its author chose)
        shown = ", ".join(views[:5]) + (f" +{len(views) - 5} more" if len(views) > 5 else "")
        raise _fail(
            where.root,
            f"dataset {datasets[0]} of the DuckDB destination holds views ({shown}): a view"
            " is SQL its author wrote, which the reader does not run; dlt writes tables",
        )
    return str(datasets[0])


def _table_files(where: Destination, table: str, *, empty_ok: bool = False) -> list[Path]:
    """The files of a table's folder: Parquet or JSON Lines only; a file of another
    format, a name leading elsewhere, or a link leading outside is refused."""
    assert where.folder is not None
    if (
        not table
        or any(part in ("", ".", "..") for part in table.replace("\\", "/").split("/"))
        or "/" in table
    ):
        raise _fail(where.root, f"table name {table!r} is not a folder's name: it is not read")
    folder = where.folder / table
    entries = [folder, *sorted(folder.rglob("*"))] if folder.exists() else []
    inside(where.folder, [e for e in entries if e.is_symlink()], partial(_fail, where.root))
    files = [p for p in entries if p.is_file()]
    other = [p for p in files if not p.name.endswith(DATA_SUFFIXES)]
    if other:
        raise _fail(
            where.root,
            f"table {table} holds {other[0].relative_to(where.folder)}, neither Parquet nor"
            " JSON Lines: its rows would go unread",
        )
    if not files and not empty_ok:
        raise _fail(where.root, f"table {table} has no Parquet or JSON Lines file under {table}/")
    if len({p.suffix == ".parquet" for p in files}) > 1:
        raise _fail(where.root, f"table {table} mixes Parquet and JSON Lines files")
    return files


def _relation(where: Destination, dataset: str | None, table: str, columns: dict[str, str]) -> str:
    """A FROM item for one of the dataset's tables: the attached file's table, or the
    table folder's files (JSON Lines read with ``columns``' types)."""
    if dataset is not None:
        return f"rc_src.{quote_identifier(dataset)}.{quote_identifier(table)}"
    if table in RAW_COLUMNS and not _table_files(where, table, empty_ok=True):
        # one of dlt's own tables with no row yet (no state stored, say): empty
        typed = ", ".join(f"CAST(NULL AS {t}) AS {quote_identifier(c)}" for c, t in columns.items())
        return f"(SELECT {typed} WHERE false)"
    files = _table_files(where, table)
    paths = "[" + ", ".join(quote_literal(glob_literal(p)) for p in files) + "]"
    if files[0].suffix == ".parquet":
        return f"read_parquet({paths}, union_by_name = true)"
    spec = ", ".join(f"{quote_literal(k)}: {quote_literal(v)}" for k, v in columns.items())
    return f"read_json({paths}, format = 'newline_delimited', columns = {{{spec}}})"


def _raw_views(con: duckdb.DuckDBPyConnection, where: Destination, dataset: str | None) -> None:
    for table, view in RAW_VIEWS.items():
        columns = RAW_COLUMNS[table]
        if where.folder is not None and not (where.folder / table).is_dir():
            raise _fail(where.root, f"has no {table} table: is it a dlt dataset?")
        select = ", ".join(
            f"{quote_identifier(c)} AS load_id" if c == "_dlt_load_id" else quote_identifier(c)
            for c in columns
        )
        con.execute(
            f"CREATE TEMP VIEW {view} AS SELECT {select}"
            f" FROM {_relation(where, dataset, table, columns)}"
        ).fetchall()


def _schema_tables(root: Path, name: str, text: str | None) -> dict[str, dict[str, Any]]:
    """The tables of a stored schema (JSON text), each a dict whose ``columns`` is a
    dict of dicts; refused where the schema is not of that shape."""
    try:
        schema = json.loads(text or "")
    except ValueError:
        schema = None
    tables = schema.get("tables") if isinstance(schema, dict) else None
    ok = isinstance(tables, dict) and all(
        isinstance(t, dict)
        and isinstance(t.get("columns", {}), dict)
        and all(isinstance(c, dict) for c in t.get("columns", {}).values())
        for t in tables.values()
    )
    if not ok:
        raise _fail(root, f"the newest stored version of schema {name} ({VERSIONS}) cannot be read")
    assert isinstance(tables, dict)
    return tables


# An incremental resource, by its source and its name.
Resource = tuple[str, str]
# A cursor's owner: (pipeline, source, resource, cursor path).
Owner = tuple[str, str, str, str]


def _owners_text(owners: list[Owner]) -> str:
    """Cursors' owners in words: ``orders_eu: pipeline p_eu, source eu, cursor updated_at``."""
    return "; ".join(
        f"{resource}: pipeline {pipeline}, source {source}, cursor {path}"
        for pipeline, source, resource, path in sorted(owners, key=lambda o: (o[2], *o))
    )


def _streams(
    con: duckdb.DuckDBPyConnection,
    root: Path,
    wanted: dict[Resource, list[Owner]],
    moved: set[Resource],
) -> dict[Resource, Stream]:
    """The root table of each incremental resource (``wanted``: (source, resource) ->
    the owners of its cursors; ``moved``: those whose cursor left its initial value),
    from the newest stored schemas: its cursor column, primary key and write
    disposition. A table holding the cursors of several owners (pipelines, resources
    or cursor paths: two resources writing one table with ``table_name``) is refused,
    naming the table and each owner."""
    schemas = {
        name: _schema_tables(root, name, text)
        for name, text in con.execute(sql.load("readers/dlt_schemas")).fetchall()
    }
    found: dict[Resource, tuple[str, dict[str, Any]]] = {}
    for source, resource in sorted(wanted):
        order = [schemas[source]] if source in schemas else list(schemas.values())
        tables = [
            (name, table)
            for schema in order
            for name, table in schema.items()
            if table.get("resource", name) == resource
            and "parent" not in table
            and not name.startswith("_dlt")
        ]
        if not tables:
            if (source, resource) in moved:
                raise _fail(
                    root,
                    f"resource {resource} stored a cursor past its initial value but has no"
                    " table of its own (does it write into another resource's table?)",
                )
            continue  # a resource that never yielded a row: no table, nothing to audit
        if len(tables) > 1:
            names = ", ".join(name for name, _ in tables)
            raise _fail(root, f"resource {resource} writes several tables ({names})")
        found[(source, resource)] = tables[0]
    by_table: dict[str, list[Owner]] = {}
    for key, (name, _) in found.items():
        by_table.setdefault(name, []).extend(wanted[key])
    for name, owners in sorted(by_table.items()):
        if len(owners) > 1:
            raise _fail(
                root,
                f"table {name} has cursors of several pipelines, resources or cursor paths"
                f" ({_owners_text(owners)}): one cursor per table is audited",
            )
    streams: dict[Resource, Stream] = {}
    for (source, resource), (name, table) in sorted(found.items()):
        path = wanted[(source, resource)][0][3]
        if str(table.get("table_format") or "native") not in ("native", "None"):
            raise _fail(
                root,
                f"table {name} is a {table['table_format']} table: its files are not its"
                " rows (old versions stay), and this reader does not read that format",
            )
        columns = table.get("columns") or {}
        hinted = [c for c, spec in columns.items() if spec.get("incremental")]
        plain = path.removeprefix("$.").lower()
        # a nested cursor path (meta.ts) is the column dlt flattens it into (meta__ts)
        flat = "__".join(plain.split("."))
        named = plain if plain in columns else flat if flat in columns else None
        cursor = hinted[0] if len(hinted) == 1 else named
        if cursor is None:
            raise _fail(root, f"resource {resource}'s cursor {path} is not a column of {name}")
        kind = CURSOR_KINDS.get(str(columns[cursor].get("data_type")))
        if kind is None:
            raise _fail(
                root,
                f"{name}.{cursor} is {columns[cursor].get('data_type')}: a cursor is read as"
                " an integer (bigint) or a time (timestamp, date)",
            )
        keys = tuple(c for c, spec in columns.items() if spec.get("primary_key"))
        if not keys:
            raise _fail(
                root,
                f"table {name} has no primary key: its rows have no key to name them by, or"
                " to match the source extract's",
            )
        disposition = str(table.get("write_disposition", "append"))
        if disposition == "replace":
            raise _fail(
                root,
                f"table {name} is replaced on every load: it keeps no earlier load's rows to audit",
            )
        streams[(source, resource)] = Stream(name, cursor, keys, kind, disposition)
    return streams


def _read_cursors(
    con: duckdb.DuckDBPyConnection, root: Path
) -> tuple[list[dict[str, Any]], dict[Resource, list[Owner]], list[str]]:
    """Every incremental cursor of every stored state (opened here: a few per load),
    the resources they name with the owners of their cursors (pipeline, source,
    resource, cursor path: a table holding more than one is refused once each
    resource's table is known), and the pipelines."""
    cursors: list[dict[str, Any]] = []
    owners: dict[Resource, list[Owner]] = {}
    for pipeline, version, load_id, created_at, text in con.execute(
        sql.load("readers/dlt_states")
    ).fetchall():
        try:
            state = _open_state(text)
        except (ValueError, UnicodeDecodeError):
            raise _fail(
                root,
                f"state version {version} of pipeline {pipeline} (load {load_id}) cannot be read",
            ) from None
        for source, resource, path, entry in _cursors(state):
            last = entry.get("last_value")
            if isinstance(last, str) and _OFFSET_TEXT.fullmatch(last.strip()):
                raise _fail(
                    root,
                    f"state version {version} of pipeline {pipeline} (load {load_id}) keeps"
                    f" cursor {path} of resource {resource} as the text {last!r}: dlt orders"
                    " such values as text, and with a UTC offset other than zero text order"
                    " is not time order (an hour repeats when clocks go back), so its claim"
                    " cannot be read as an instant: give the resource's cursor datetimes,"
                    " or text in UTC",
                )
            owner = (pipeline, source, resource, path)
            found = owners.setdefault((source, resource), [])
            if owner not in found:
                found.append(owner)
            cursors.append(
                {
                    "pipeline_name": pipeline,
                    "load_id": load_id,
                    "version": version,
                    "created_at": created_at,
                    "resource": (source, resource),
                    "last_value": _plain(entry.get("last_value")),
                    "start_value": _plain(entry.get("start_value")),
                    "initial_value": _plain(entry.get("initial_value")),
                    "boundary_hashes": _count(entry.get("unique_hashes")),
                }
            )
    return cursors, owners, sorted({o[0] for found in owners.values() for o in found})


CURSOR_SCHEMA = pa.schema(
    [
        ("pipeline_name", pa.string()),
        ("load_id", pa.string()),
        ("version", pa.int64()),
        ("created_at", pa.timestamp("ns")),
        ("stream", pa.string()),
        ("last_value", pa.string()),
        ("start_value", pa.string()),
        ("boundary_hashes", pa.int64()),
    ]
)


def _rows_view(
    con: duckdb.DuckDBPyConnection, where: Destination, dataset: str | None, streams: list[Stream]
) -> None:
    """rc_dlt_rows (stream, key, cursor as text, load_id): every row of every
    incremental table."""
    parts = []
    for stream in streams:
        columns = dict.fromkeys([*stream.key_columns, stream.cursor_column], "VARCHAR")
        columns["_dlt_load_id"] = "VARCHAR"
        key = ", ".join(f"CAST({quote_identifier(c)} AS VARCHAR)" for c in stream.key_columns)
        parts.append(
            f"SELECT {quote_literal(stream.name)} AS stream, concat_ws('|', {key}) AS key,"
            f" CAST({quote_identifier(stream.cursor_column)} AS VARCHAR) AS cursor,"
            f" CAST(_dlt_load_id AS VARCHAR) AS load_id"
            f" FROM {_relation(where, dataset, stream.name, columns)}"
        )
    con.execute(f"CREATE TEMP VIEW rc_dlt_rows AS {' UNION ALL '.join(parts)}").fetchall()


def read_dlt(path: str | Path, out: Path) -> dict[str, Any]:
    """Write the contract's tables of the dlt destination at ``path`` into ``out``
    (an empty folder) and return what the audit's ``inputs`` says of the source."""
    where = locate(Path(path))
    fail = partial(_fail, where.root)
    extract = find_extract(where.extract_folder, fail)
    readable = [*where.readable(), *([extract] if extract else [])]
    inside(where.extract_folder, readable, fail)
    try:
        with connect(readable, folders=[out]) as con:
            con.execute(sql.load("readers/clock")).fetchall()
            dataset = _attach(con, where) if where.database is not None else None
            _raw_views(con, where, dataset)
            con.sql(sql.load("readers/dlt_loads")).create("rc_dlt_loads")
            cursors, wanted, pipelines = _read_cursors(con, where.root)
            moved = {c["resource"] for c in cursors if c["last_value"] != c.pop("initial_value")}
            if not wanted:
                raise fail(
                    f"no stored state ({STATES}) holds an incremental cursor: only a"
                    " resource read with dlt.sources.incremental has one to audit"
                )
            by_resource = _streams(con, where.root, wanted, moved)
            if not by_resource:
                raise fail(
                    "no incremental resource has a table yet (none yielded a row): there"
                    " is nothing to audit"
                )
            kinds = {s.kind for s in by_resource.values()}
            if len(kinds) > 1:
                raise fail("its cursors are integers and times: a log set has one coordinate type")
            kind = kinds.pop()
            con.execute(sql.load(f"readers/cursor_{kind}")).fetchall()
            rows = [
                {**c, "stream": by_resource[c["resource"]].name}
                for c in cursors
                if c["resource"] in by_resource
            ]
            table = pa.Table.from_pylist(rows, schema=CURSOR_SCHEMA)
            con.register("rc_dlt_cursors_arrow", table)
            con.execute(
                "CREATE TEMP TABLE rc_dlt_cursors AS SELECT * FROM rc_dlt_cursors_arrow"
            ).fetchall()
            con.unregister("rc_dlt_cursors_arrow")
            streams = sorted(by_resource.values(), key=lambda s: s.name)
            con.register(
                "rc_dlt_streams_arrow",
                pa.Table.from_pylist(
                    [{"stream": s.name, "cursor_column": s.cursor_column} for s in streams]
                ),
            )
            con.execute(
                "CREATE TEMP TABLE rc_dlt_streams AS SELECT * FROM rc_dlt_streams_arrow"
            ).fetchall()
            _rows_view(con, where, dataset, streams)
            downwards, untimed, unloaded, uncursored = con.execute(
                sql.load("readers/dlt_refusals")
            ).fetchall()[0]
            if unloaded is not None:
                raise fail(
                    f"table {unloaded} has rows without _dlt_load_id (dlt loads an Arrow or"
                    " pandas resource's rows without it unless add_dlt_load_id is set):"
                    " their loads, and so their times, are unknown"
                )
            if uncursored is not None:
                raise fail(
                    f"table {uncursored} has rows without a cursor value (a resource with"
                    " on_cursor_value_missing='include'): they have no position to audit"
                )
            if downwards is not None:
                raise fail(
                    f"table {downwards}'s cursor went down (a row of a load above the"
                    " last_value that load stored, or a last_value below its run's start):"
                    " either the cursor is read downwards (last_value_func=min), which is"
                    " not audited, or its values are text that dlt ordered as text, not as"
                    " times (ISO times written with different digits: '10:00:00Z' sorts"
                    " after '10:00:00.500Z'), so the last_value stored is not the latest"
                    " read"
                )
            if untimed is not None:
                raise fail(
                    f"rows of load {untimed!r}, which never completed and whose id is not a"
                    " time: their receipts have no time"
                )
            tables = dict(TABLE_QUERIES)
            if extract is not None:
                load_extract(con, extract, [s.name for s in streams], fail)
                tables |= EXTRACT_TABLES
            loads = con.execute("SELECT count(*) FROM rc_dlt_loads").fetchall()[0][0]
            write_tables(
                con,
                out,
                tables,
                {"domain": "discrete" if kind == "int" else "dense", "any_state": dataset is None},
            )
    except duckdb.Error as error:
        raise fail(unreadable(error, [], where.extract_folder)) from None
    merged = [s.name for s in streams if s.disposition == "merge"]
    note = (
        f"; {', '.join(merged)} merged on its key, so only each key's last load of it is kept"
        if merged
        else ""
    )
    return {
        "reader": "dlt",
        "destination": (
            f"duckdb {where.database.name}, dataset {dataset}"
            if where.database is not None
            else f"filesystem {where.folder.relative_to(where.extract_folder).as_posix() or '.'}"
            if where.folder is not None
            else ""
        ),
        "pipelines": pipelines,
        "streams": [s.name for s in streams],
        "loads": loads,
        "source_extract": extract.name if extract else None,
        "proves": WHAT_IT_PROVES + extract_says(extract, "load") + note,
    }
