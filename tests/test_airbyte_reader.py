"""The Airbyte reader on syncs written here by hand, in the protocol's own shapes:
what each message becomes (STREAM, GLOBAL and LEGACY states alike), and what is
refused. tests/test_airbyte.py runs the real CDK."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from reconcile.cli import main
from reconcile.readers import read_airbyte

MS = 1_796_000_000_000  # an emitted_at, in milliseconds


def _catalog(**stream: Any) -> dict[str, Any]:
    entry = {
        "stream": {"name": "items", "json_schema": {}},
        "sync_mode": "incremental",
        "cursor_field": ["updated_at"],
        "primary_key": [["id"]],
        "destination_sync_mode": "append",
        **stream,
    }
    return {"streams": [entry]}


def _record(key: str, cursor: Any, n: int, stream: str = "items", **data: Any) -> dict[str, Any]:
    row = {"id": key, "updated_at": cursor, **data}
    return {"type": "RECORD", "record": {"stream": stream, "data": row, "emitted_at": MS + n}}


def _stream_state(value: Any, name: str = "items") -> dict[str, Any]:
    blob = {"updated_at": value}
    descriptor = {"name": name}
    return {"type": "STATE", "state": {"type": "STREAM", "stream": {
        "stream_descriptor": descriptor, "stream_state": blob}}}  # fmt: skip


def _global_state(value: Any) -> dict[str, Any]:
    entry = {"stream_descriptor": {"name": "items"}, "stream_state": {"updated_at": value}}
    return {"type": "STATE", "state": {"type": "GLOBAL", "global": {
        "shared_state": {"lsn": 7}, "stream_states": [entry]}}}  # fmt: skip


def _legacy_state(value: Any, typed: bool = True) -> dict[str, Any]:
    state: dict[str, Any] = {"data": {"items": {"updated_at": value}}}
    if typed:
        state["type"] = "LEGACY"
    return {"type": "STATE", "state": state}


LOG = {"type": "LOG", "log": {"level": "INFO", "message": "Starting syncing"}}


def _logs(
    folder: Path,
    syncs: list[list[dict[str, Any]]],
    catalog: dict[str, Any] | None = None,
    extract: str | None = None,
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "catalog.json").write_text(json.dumps(catalog or _catalog()))
    for n, messages in enumerate(syncs, start=1):
        text = "".join(json.dumps(m) + "\n" for m in [LOG, *messages])
        (folder / f"sync-{n:03d}.jsonl").write_text(text)
    if extract is not None:
        (folder / "source.csv").write_text(extract)
    return folder


def _read(folder: Path, tmp: Path) -> tuple[dict[str, Any], dict[str, pl.DataFrame]]:
    out = tmp / "read"
    out.mkdir(parents=True)
    said = read_airbyte(folder, out)
    return said, {p.stem: pl.read_parquet(p) for p in out.glob("*.parquet")}


def _refused(folder: Path, tmp: Path, capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["audit", str(folder), "--source", "airbyte", "--out", str(tmp / "report")])
    assert code == 2
    assert not (tmp / "report").exists()
    return " ".join(capsys.readouterr().err.split())


@pytest.mark.parametrize("state", [_stream_state, _global_state, _legacy_state])
def test_every_kind_of_state_is_a_checkpoint(tmp_path: Path, state: Any) -> None:
    logs = _logs(
        tmp_path / "logs",
        [[_record("a", 1, 0), _record("b", 2, 1), state(2)], [_record("c", 3, 5), state(3)]],
    )
    said, tables = _read(logs, tmp_path)
    assert said["reader"] == "airbyte"
    assert said["runs"] == ["sync-001.jsonl", "sync-002.jsonl"]
    assert tables["scopes"].rows() == [("items", "updated_at", "discrete")]
    checkpoints = tables["checkpoints"]
    assert checkpoints.select("watermark", "watermark_inclusive", "attempt_id").rows() == [
        (2, True, "sync-001.jsonl"),
        (3, True, "sync-002.jsonl"),
    ]
    # a state is dated a microsecond after the last record before it
    assert str(checkpoints["written_at"][0]).endswith(".001001")
    receipts = tables["receipts"]
    assert receipts.select("event_id", "position", "outcome").rows() == [
        ("a", 1, "committed"),
        ("b", 2, "committed"),
        ("c", 3, "committed"),
    ]


def test_a_legacy_state_without_a_type(tmp_path: Path) -> None:
    logs = _logs(tmp_path / "logs", [[_record("a", 1, 0), _legacy_state(1, typed=False)]])
    _, tables = _read(logs, tmp_path)
    assert tables["checkpoints"]["watermark"].to_list() == [1]


def test_a_row_no_sync_delivered_is_named(tmp_path: Path) -> None:
    logs = _logs(
        tmp_path / "logs",
        [[_record("a", 1, 0), _record("c", 3, 1), _stream_state(3)]],
        extract="key,cursor\na,1\nb,2\nc,3\n",
    )
    out = tmp_path / "report"
    assert main(["audit", str(logs), "--source", "airbyte", "--out", str(out)]) == 1
    findings = pl.read_parquet(out / "findings.parquet")
    assert findings.filter(pl.col("rule") == "skipped_event")["event_id"].to_list() == ["b"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["inputs"]["source"]["source_extract"] == "source.csv"


def test_namespaces_nested_keys_and_times(tmp_path: Path) -> None:
    catalog = _catalog(
        stream={"name": "items", "namespace": "shop", "json_schema": {}},
        primary_key=[["id"], ["meta", "region"]],
        cursor_field=["meta", "changed"],
    )
    record = {
        "type": "RECORD",
        "record": {
            "stream": "items",
            "namespace": "shop",
            "emitted_at": MS,
            "data": {"id": "a", "meta": {"region": "eu", "changed": "2026-11-01T05:00:00+01:00"}},
        },
    }
    state = {"type": "STATE", "state": {"type": "STREAM", "stream": {
        "stream_descriptor": {"name": "items", "namespace": "shop"},
        "stream_state": {"meta": {"changed": "2026-11-01T04:00:00Z"}}}}}  # fmt: skip
    logs = _logs(tmp_path / "logs", [[record, state]], catalog=catalog)
    _, tables = _read(logs, tmp_path)
    assert tables["scopes"].rows() == [("shop.items", "meta.changed", "dense")]
    receipts = tables["receipts"]
    assert receipts["event_id"].to_list() == ["a|eu"]
    assert str(receipts["position"][0]) == "2026-11-01 04:00:00"  # the offset honoured
    assert str(tables["checkpoints"]["watermark"][0]) == "2026-11-01 04:00:00"


def _with_full_refresh_users(folder: Path, extract: str | None = None) -> Path:
    """Syncs of items (incremental) and users (full refresh), one record each."""
    catalog = _catalog()
    catalog["streams"].append(
        {"stream": {"name": "users", "json_schema": {}}, "sync_mode": "full_refresh",
         "destination_sync_mode": "overwrite"}
    )  # fmt: skip
    return _logs(
        folder,
        [[_record("a", 1, 0), _record("u", None, 1, stream="users"), _stream_state(1)]],
        catalog=catalog,
        extract=extract,
    )


def test_full_refresh_streams_are_not_audited(tmp_path: Path) -> None:
    logs = _with_full_refresh_users(tmp_path / "logs")
    said, tables = _read(logs, tmp_path)
    assert said["streams"] == ["items"]
    assert said["not_audited"] == ["users"]
    assert said["source_extract_left_out"] == 0
    assert tables["receipts"]["event_id"].to_list() == ["a"]


def test_extract_rows_of_a_full_refresh_stream_are_counted_as_left_out(tmp_path: Path) -> None:
    """Rows of a stream not audited are left out of the audit, and the summary says
    how many, so that a user sees the extract was not judged whole."""
    extract = "stream,key,cursor\nitems,a,1\nusers,u,\nusers,w,\nusers,x,\n"
    logs = _with_full_refresh_users(tmp_path / "logs", extract)
    said, tables = _read(logs, tmp_path)
    assert (said["not_audited"], said["source_extract_left_out"]) == (["users"], 3)
    # proves, which the terminal and report.html show, says so too
    assert (
        "judge a claim by): users; its 3 rows in the source extract are left out" in said["proves"]
    )
    assert tables["snapshot"]["event_id"].to_list() == ["a"]


def test_a_stream_not_read_yet_claims_nothing(tmp_path: Path) -> None:
    empty = _stream_state(1)
    empty["state"]["stream"]["stream_state"] = {}
    logs = _logs(
        tmp_path / "logs", [[empty, _stream_state(None), _record("a", 1, 0), _stream_state(1)]]
    )
    _, tables = _read(logs, tmp_path)
    assert tables["checkpoints"]["watermark"].to_list() == [1]


def test_what_it_cannot_read_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sliced = _stream_state(1)
    sliced["state"]["stream"]["stream_state"] = {
        "state_type": "date-range",
        "slices": [{"start": "2026-11-01", "end": "2026-11-02"}],
    }
    cases = [
        ([[_record("a", 1, 0), sliced]], None, "does not hold its cursor field's value"),
        ([[_record("a", 1, 0)]], _catalog(primary_key=[]), "has no primary key or no cursor"),
        ([[_record("a", 1, 0), _record("x", 1, 1, stream="other")]], None,
         "records of stream other, which catalog.json does not name"),
        ([[_record("a", 1, 0), _record("b", "2026-11-01", 1)]], None,
         "cursor values are integers and text"),
        ([[_record("a", 1, 0)]], _catalog(sync_mode="full_refresh"), "no stream of catalog.json"),
        # no state: nothing claims how far the syncs read (never a clean report)
        ([[_record("a", 1, 0), _record("b", 2, 1)]], None,
         "no sync has a STATE holding an incremental stream's cursor"),
        ([[{"type": "TRACE", "trace": {"emitted_at": MS}}]], None,
         "no sync holds an Airbyte RECORD or STATE message"),
        # a state value the cursor cannot read: it was a claim of nothing (exit 0)
        ([[_record("a", 1, 0), _stream_state(18446744073709551615)]], None,
         'holds "18446744073709551615" for stream items, which is not a value of the kind'),
        # past 64 bits: a JSON double to DuckDB, once refused as "decimals and integers"
        ([[_record("a", 1, 0), _stream_state(99999999999999999999)]], None,
         'holds "99999999999999999999" for stream items, which is not a value of the kind'),
    ]  # fmt: skip
    for n, (syncs, catalog, said) in enumerate(cases):
        logs = _logs(tmp_path / f"logs{n}", syncs, catalog=catalog)
        assert said in _refused(logs, tmp_path / f"o{n}", capsys)
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "sync-001.jsonl").write_text(json.dumps(LOG) + "\n")
    assert "holds no catalog.json" in _refused(bare, tmp_path / "o-bare", capsys)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "holds no sync" in _refused(empty, tmp_path / "o-empty", capsys)
    # a line that is no JSON, named by its own file's line (the first file has three)
    torn = _logs(tmp_path / "torn", [[_record("a", 1, 0), _stream_state(1)], []])
    with (torn / "sync-002.jsonl").open("a") as handle:
        handle.write('{"type": "RECORD", "rec\n')
    assert "sync-002.jsonl, line 2 is not JSON" in _refused(torn, tmp_path / "o-torn", capsys)


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ({"record": _record("b", 2, 1)["record"]}, "sync-001.jsonl, line 4 (no type)"),
        ({**_record("b", 2, 1), "type": "record"}, "sync-001.jsonl, line 4 (type record)"),
        ({**_stream_state(1), "type": "State"}, "sync-001.jsonl, line 4 (type State)"),
    ],
    ids=["no-type", "lower-case-record", "misspelt-state"],
)
def test_a_line_of_no_message_type_is_refused_not_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: dict[str, Any], said: str
) -> None:
    """README: a message line a reader cannot place is refused by its file and line,
    never dropped. Left out, such a RECORD made its row a skipped_event, and such a
    last STATE left the claim at the state before it (9, where it went down to 1)."""
    logs = _logs(tmp_path / "logs", [[_record("a", 1, 0), _stream_state(9), line]])
    message = _refused(logs, tmp_path / "o", capsys)
    assert said in message and "is no message of the Airbyte protocol" in message


def test_a_discovered_catalog_is_refused_naming_the_catalog(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An AirbyteCatalog (discover's output: streams without sync_mode) in place of
    the configured catalog: the refusal blamed the first STATE's shape."""
    entry = {"name": "items", "json_schema": {}, "default_cursor_field": ["updated_at"]}
    discovered = {"streams": [entry]}
    logs = _logs(tmp_path / "logs", [[_record("a", 1, 0), _stream_state(1)]], catalog=discovered)
    said = _refused(logs, tmp_path / "o", capsys)
    assert "stream 1 of catalog.json (counted from 1) has no stream or no sync_mode" in said
    assert "STATE" not in said


@pytest.mark.parametrize("catalog", ["[]", '{"streams": []}'])
def test_a_catalog_of_no_stream_is_refused_naming_the_catalog(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], catalog: str
) -> None:
    """A catalog.json that is a JSON array, or lists no stream: the refusal blamed a
    well-formed STATE of the first sync ("not of the Airbyte protocol's shape")."""
    logs = _logs(tmp_path / "logs", [[_record("a", 1, 0), _stream_state(1)]])
    (logs / "catalog.json").write_text(catalog)
    said = _refused(logs, tmp_path / "o", capsys)
    assert "catalog.json names no stream" in said
    assert "STATE" not in said


def test_a_database_sources_cursor_based_state_is_refused_in_its_own_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = _stream_state(1)
    state["state"]["stream"]["stream_state"] = {
        "cursor_field": ["updated_at"],
        "cursor": "1",
        "cursor_record_count": 1,
        "state_type": "cursor_based",
        "stream_name": "items",
        "version": 2,
    }
    logs = _logs(tmp_path / "logs", [[_record("a", 1, 0), state]])
    said = _refused(logs, tmp_path / "o", capsys)
    assert "a database source's cursor_based state" in said


def test_a_sync_that_leads_outside_the_folder_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = _logs(tmp_path / "logs", [[_record("a", 1, 0)]])
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text(json.dumps(_record("x", 1, 0)) + "\n")
    (logs / "sync-002.jsonl").symlink_to(outside)
    assert "sync-002.jsonl leads outside the folder" in _refused(logs, tmp_path / "o", capsys)


def test_map_suggest_names_the_airbyte_reader(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = _logs(tmp_path / "logs", [[_record("a", 1, 0), _stream_state(1)]])
    assert main(["map", "suggest", str(logs)]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "holds Airbyte messages, which needs no mapping" in said
    assert f"run reconcile audit {logs} --source airbyte --out DIR" in said
    # the same lines without a catalog: a mapping is suggested, no reader named
    (logs / "catalog.json").unlink()
    main(["map", "suggest", str(logs)])
    assert "--source airbyte" not in capsys.readouterr().err


def _raw_row(key: str, cursor: int, n: int, loaded: str | None) -> dict[str, Any]:
    return {
        "_airbyte_raw_id": f"raw-{key}",
        # the record's emitted_at
        "_airbyte_extracted_at": datetime.fromtimestamp((MS + n) / 1000, UTC).isoformat(),
        "_airbyte_loaded_at": loaded,
        "_airbyte_data": json.dumps({"id": key, "updated_at": cursor}),
        "_airbyte_meta": json.dumps({"sync_id": "s1"}),
    }


@pytest.mark.parametrize("name", ["items.parquet", "shop_raw__stream_items.parquet"])
def test_raw_tables_are_the_receipts(tmp_path: Path, name: str) -> None:
    """With the destination's raw tables (here as Parquet, by the stream's name or
    Airbyte's raw table name), a raw row is committed when it reached the final
    table and failed while it has not; the messages' RECORDs are not receipts."""
    logs = _logs(tmp_path / "logs", [[_record("a", 1, 0), _record("b", 2, 1), _stream_state(2)]])
    (logs / "raw").mkdir()
    pl.DataFrame(
        [_raw_row("a", 1, 0, "2026-11-30T01:00:00+00:00"), _raw_row("b", 2, 1, None)]
    ).write_parquet(logs / "raw" / name)
    said, tables = _read(logs, tmp_path)
    assert said["raw_tables"] == [f"raw/{name}"]
    assert "raw tables" in said["proves"]
    receipts = tables["receipts"].sort("event_id")
    assert receipts.select("event_id", "position", "outcome", "attempt_id").rows() == [
        ("a", 1, "committed", "s1"),
        ("b", 2, "failed", "s1"),
    ]
    assert [str(t) for t in receipts["recorded_at"]] == [
        "2026-11-30 01:00:00",
        "2026-11-30 00:53:20.001000",  # b, failed: when it was extracted
    ]
    # the state follows the loading of the rows before it (a's), a microsecond on
    assert str(tables["checkpoints"]["written_at"][0]) == "2026-11-30 01:00:00.000001"


def test_a_record_the_destination_dropped_is_named_without_an_extract(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The sync emitted a, b, c and a state through 3; the raw table holds a and c,
    loaded, and no row of b. b was a receipt of no kind: unknown, so the claim through
    3 passed clean (exit 0). It is a failed receipt of its sync, at its time, and the
    claim past it names it. A RECORD re-emitted by a later sync whose row the
    destination wrote is durable from then on."""
    logs = _logs(
        tmp_path / "logs",
        [[_record("a", 1, 0), _record("b", 2, 1), _record("c", 3, 2), _stream_state(3)]],
    )
    (logs / "raw").mkdir()
    loaded = "2026-11-30T01:00:00+00:00"
    pl.DataFrame([_raw_row("a", 1, 0, loaded), _raw_row("c", 3, 2, loaded)]).write_parquet(
        logs / "raw" / "items.parquet"
    )
    _, tables = _read(logs, tmp_path / "r")
    receipts = tables["receipts"].sort("event_id")
    assert receipts.select("event_id", "outcome", "attempt_id").rows() == [
        ("a", "committed", "s1"),
        ("b", "failed", "sync-001.jsonl"),
        ("c", "committed", "s1"),
    ]
    code = main(["audit", str(logs), "--source", "airbyte", "--out", str(tmp_path / "report")])
    assert code == 1
    findings = pl.read_parquet(tmp_path / "report" / "findings.parquet")
    skipped = findings.filter(pl.col("rule") == "skipped_event")
    assert skipped["event_id"].to_list() == ["b"]
    capsys.readouterr()


def test_raw_tables_that_match_no_stream_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = _logs(tmp_path / "logs", [[_record("a", 1, 0), _stream_state(1)]])
    (logs / "raw").mkdir()
    (logs / "raw" / "users.jsonl").write_text(json.dumps(_raw_row("a", 1, 0, None)) + "\n")
    assert "raw/users.jsonl is the raw table of no stream" in _refused(logs, tmp_path / "1", capsys)
    (logs / "raw" / "users.jsonl").rename(logs / "raw" / "other.csv")
    catalog = _catalog()
    catalog["streams"].append({**catalog["streams"][0], "stream": {"name": "other"}})
    (logs / "catalog.json").write_text(json.dumps(catalog))
    assert "holds no raw table of incremental stream(s) items" in _refused(
        logs, tmp_path / "2", capsys
    )


@pytest.mark.parametrize(
    "state",
    [
        {"type": "GLOBAL", "global": {"stream_states": 7}},
        {"type": "STREAM", "stream": 5},
        {"type": "STREAM", "stream": {"stream_descriptor": {"name": "items"}, "stream_state": 3}},
        {"type": "LEGACY", "data": [1]},
        {"type": "PER_PARTITION"},
        # a stream the catalog does not name (here: without its namespace)
        {
            "type": "STREAM",
            "stream": {"stream_descriptor": {"name": "other"}, "stream_state": {"updated_at": 5}},
        },
        {"type": "LEGACY", "data": {"cdc": True, "streams": []}},
    ],
)
def test_a_state_of_another_shape_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], state: dict[str, Any]
) -> None:
    """A STATE the reader cannot read is refused, naming where it is; it is never
    read as no state."""
    logs = _logs(tmp_path / "logs", [[_record("a", 1, 0), {"type": "STATE", "state": state}]])
    said = _refused(logs, tmp_path / "o", capsys)
    assert "the STATE at sync-001.jsonl, line 3 is not of the Airbyte protocol's shape" in said


def test_a_record_without_its_key_or_cursor_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    no_key = _record("a", 1, 0)
    del no_key["record"]["data"]["id"]
    no_stream = _record("b", 1, 1)
    del no_stream["record"]["stream"]
    cases = [
        (no_key, "the RECORD at sync-001.jsonl, line 2 has no value for its stream's primary key"),
        (_record("c", None, 0), "line 2 has no value for its stream's primary key or cursor"),
        (no_stream, "records of stream (none), which catalog.json does not name"),
    ]
    for n, (record, said) in enumerate(cases):
        logs = _logs(tmp_path / f"logs{n}", [[record, _stream_state(1)]])
        assert said in _refused(logs, tmp_path / f"o{n}", capsys)


def test_an_empty_configured_cursor_takes_the_sources_default(tmp_path: Path) -> None:
    """A source-defined cursor and key: the configured stream leaves them empty, and
    the stream's defaults are the ones read."""
    catalog = _catalog(cursor_field=[], primary_key=[])
    stream = catalog["streams"][0]["stream"]
    stream["default_cursor_field"] = ["updated_at"]
    stream["source_defined_primary_key"] = [["id"]]
    logs = _logs(tmp_path / "logs", [[_record("a", 1, 0), _stream_state(1)]], catalog=catalog)
    _, tables = _read(logs, tmp_path)
    assert tables["scopes"].rows() == [("items", "updated_at", "discrete")]
    assert tables["receipts"]["event_id"].to_list() == ["a"]


def test_a_state_before_any_timed_message_is_dated_just_before_the_first(tmp_path: Path) -> None:
    """A sync that opens with the state it resumes from: that state is dated a second
    before the first time a message carries (a microsecond on, as every state), so it
    stays before every record, and no stall of decades is measured before it."""
    logs = _logs(tmp_path / "logs", [[_stream_state(0), _record("a", 1, 0), _stream_state(1)]])
    _, tables = _read(logs, tmp_path)
    written = [str(t) for t in tables["checkpoints"].sort("written_at")["written_at"]]
    first = str(tables["receipts"]["recorded_at"][0])
    assert first == "2026-11-30 00:53:20"
    assert written == ["2026-11-30 00:53:19.000001", "2026-11-30 00:53:20.000001"]


@pytest.mark.parametrize("name", ['i"d', "id\\"])
def test_primary_keys_named_with_quotes_or_backslashes_are_read(tmp_path: Path, name: str) -> None:
    """A primary key's name goes into a JSON path quoted, its quotes and backslashes
    escaped (a name ending in a backslash gave DuckDB's own 'JSON path error')."""
    records = [
        {"type": "RECORD", "record": {"stream": "items", "data": {name: k, "updated_at": u},
                                      "emitted_at": MS + u}}
        for k, u in (("a", 1), ("b", 2))
    ]  # fmt: skip
    logs = _logs(tmp_path / "logs", [[*records, _stream_state(2)]], _catalog(primary_key=[[name]]))
    _, tables = _read(logs, tmp_path)
    assert tables["receipts"].sort("position")["event_id"].to_list() == ["a", "b"]


@pytest.mark.parametrize(
    "raw", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["messages", "raw tables"]
)
@pytest.mark.parametrize(
    "gap",
    [0, pytest.param(1, marks=pytest.mark.slow)],
    ids=["same millisecond", "a millisecond later"],
)
def test_a_record_after_a_state_is_never_counted_for_it(
    tmp_path: Path, gap: int, raw: bool
) -> None:
    """k2 and k3 share updated_at 2; the STATE between them claims through 2 before k3
    came. The CDK stamps records in milliseconds: k3 in the STATE's millisecond was
    dated before it, counted for it, and the overclaim went unseen. With raw tables,
    k3's row, extracted in that millisecond, dated the state after its loading."""
    sync = [_record("k1", 1, 1), _record("k2", 2, 2), _stream_state(2)]
    sync += [_record("k3", 2, 2 + gap), _record("k4", 3, 4), _stream_state(3)]
    extract = "key,cursor\nk1,1\nk2,2\nk3,2\nk4,3\n"
    logs = _logs(tmp_path / "logs", [sync], extract=extract)
    if raw:
        early, late = "2026-11-30T01:00:00+00:00", "2026-11-30T02:00:00+00:00"
        rows = [_raw_row("k1", 1, 1, early), _raw_row("k2", 2, 2, early)]
        rows += [_raw_row("k3", 2, 2 + gap, late), _raw_row("k4", 3, 4, late)]
        (logs / "raw").mkdir()
        pl.DataFrame(rows).write_parquet(logs / "raw" / "items.parquet")
    out = tmp_path / "out"
    assert main(["audit", str(logs), "--source", "airbyte", "--out", str(out)]) == 1
    findings = pl.read_parquet(out / "findings.parquet")
    assert findings.filter(pl.col("rule") == "overclaim")["attempt_id"].to_list() == [
        "sync-001.jsonl"
    ]


def _entry(name: str, namespace: str | None, mode: str = "incremental") -> dict[str, Any]:
    entry = _catalog()["streams"][0]
    entry["stream"] = {"name": name, "json_schema": {}}
    if namespace is not None:
        entry["stream"]["namespace"] = namespace
    return {**entry, "sync_mode": mode}


def _in(message: dict[str, Any], namespace: str) -> dict[str, Any]:
    """A RECORD or STREAM state of the stream of that name in ``namespace``."""
    if message["type"] == "RECORD":
        message["record"]["namespace"] = namespace
    else:
        message["state"]["stream"]["stream_descriptor"]["namespace"] = namespace
    return message


def test_streams_are_told_apart_by_namespace_and_name(tmp_path: Path) -> None:
    """Stream items of namespace shop and a full-refresh stream shop.items without
    namespace both read as "shop.items": the full-refresh stream's record is no
    receipt of the other, whose lost row 3 is named (it was hidden, exit 0)."""
    catalog = {"streams": [_entry("items", "shop"), _entry("shop.items", None, "full_refresh")]}
    sync = [
        _in(_record("1", 1, 0), "shop"),
        _in(_record("2", 2, 1), "shop"),
        _record("3", 3, 2, stream="shop.items"),
        _in(_record("4", 4, 3), "shop"),
        _in(_stream_state(4), "shop"),
    ]
    extract = "key,cursor\n1,1\n2,2\n3,3\n4,4\n"
    logs = _logs(tmp_path / "logs", [sync], catalog=catalog, extract=extract)
    said, tables = _read(logs, tmp_path)
    assert (said["streams"], said["not_audited"]) == (["shop.items"], ["shop.items"])
    assert tables["receipts"]["event_id"].to_list() == ["1", "2", "4"]
    out = tmp_path / "report"
    assert main(["audit", str(logs), "--source", "airbyte", "--out", str(out)]) == 1
    findings = pl.read_parquet(out / "findings.parquet")
    assert findings.filter(pl.col("rule") == "skipped_event")["event_id"].to_list() == ["3"]


def test_streams_that_read_alike_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two incremental streams whose names read alike (one scope, one extract stream,
    one raw table's name) are refused, naming both; so is a stream named twice, a
    state naming a stream without its namespace, and a raw table's file named after
    two streams."""
    alike = {"streams": [_entry("items", "shop"), _entry("shop.items", None)]}
    sync = [
        _in(_record("1", 1, 0), "shop"),
        _record("3", 3, 1, stream="shop.items"),
        _in(_stream_state(1), "shop"),
        _stream_state(3, name="shop.items"),
    ]
    logs = _logs(tmp_path / "alike", [sync], catalog=alike)
    assert (
        "incremental streams items (namespace shop) and shop.items (no namespace) of"
        " catalog.json read alike, as shop.items: the name a stream's scope"
    ) in _refused(logs, tmp_path / "o1", capsys)
    twice = {"streams": [_entry("items", "shop"), _entry("items", "shop", "full_refresh")]}
    logs = _logs(tmp_path / "twice", [sync[:1]], catalog=twice)
    said = _refused(logs, tmp_path / "o2", capsys)
    assert "catalog.json names stream items (namespace shop) twice" in said
    # a state without namespace is not the state of stream items of namespace shop
    one = {"streams": [_entry("items", "shop")]}
    for n, state in enumerate([_stream_state(1, name="shop.items"), _legacy_state(1)]):
        if n:
            state["state"]["data"] = {"shop.items": {"updated_at": 1}}
        logs = _logs(tmp_path / f"bare{n}", [[sync[0], state]], catalog=one)
        said = _refused(logs, tmp_path / f"o-bare{n}", capsys)
        assert "the STATE at sync-001.jsonl, line 3 is not of the Airbyte protocol's" in said
    logs = _logs(tmp_path / "records", [[_record("1", 1, 0, stream="shop.items")]], catalog=one)
    said = _refused(logs, tmp_path / "o3", capsys)
    assert "records of stream shop.items, which catalog.json does not name" in said
    # a raw table's file named after both streams, of which one is full-refresh
    mixed = {"streams": [_entry("items", "shop"), _entry("shop.items", None, "full_refresh")]}
    logs = _logs(tmp_path / "raw", [sync[:3]], catalog=mixed)
    (logs / "raw").mkdir()
    pl.DataFrame([_raw_row("1", 1, 0, None)]).write_parquet(logs / "raw" / "shop.items.parquet")
    said = _refused(logs, tmp_path / "o4", capsys)
    assert (
        "raw/shop.items.parquet is named after several streams of catalog.json (items (namespace"
        " shop) and shop.items (no namespace)): name it after its raw table"
    ) in said
    (logs / "raw" / "shop.items.parquet").rename(logs / "raw" / "shop_raw__stream_items.parquet")
    said, tables = _read(logs, tmp_path / "r4")
    assert tables["receipts"]["event_id"].to_list() == ["1"]


def test_raw_tables_of_one_name_in_two_namespaces(tmp_path: Path) -> None:
    """Streams items of namespaces eu and us: each raw table is known by its full raw
    table name (eu_raw__stream_items), which both end alike."""
    catalog = {"streams": [_entry("items", "eu"), _entry("items", "us")]}
    sync = [
        _in(_record("a", 1, 0), "eu"),
        _in(_record("b", 2, 1), "us"),
        _in(_stream_state(1), "eu"),
        _in(_stream_state(2), "us"),
    ]
    logs = _logs(tmp_path / "logs", [sync], catalog=catalog)
    (logs / "raw").mkdir()
    for key, cursor, n, region in (("a", 1, 0, "eu"), ("b", 2, 1, "us")):
        row = _raw_row(key, cursor, n, "2026-11-30T01:00:00+00:00")
        pl.DataFrame([row]).write_parquet(logs / "raw" / f"{region}_raw__stream_items.parquet")
    said, tables = _read(logs, tmp_path)
    assert said["streams"] == ["eu.items", "us.items"]
    assert tables["receipts"].sort("scope_id").select("scope_id", "event_id").rows() == [
        ("eu.items", "a"),
        ("us.items", "b"),
    ]


def test_states_whose_cursor_is_null_are_refused_not_reported_clean(
    tmp_path: Path, capsys: Any
) -> None:
    """A state holding null for the cursor claims nothing (a stream not read yet):
    syncs whose every state is such say no more than syncs without a state."""
    logs = _logs(tmp_path / "logs", [[_record("a", 1, 0), _stream_state(None)]])
    code = main(["audit", str(logs), "--source", "airbyte", "--out", str(tmp_path / "out")])
    assert code == 2
    assert "no sync has a STATE holding an incremental stream's cursor" in " ".join(
        capsys.readouterr().err.split()
    )


def test_extract_rows_of_a_stream_no_sync_audits_are_refused(tmp_path: Path, capsys: Any) -> None:
    """The stream is items of namespace shop (shop.items); rows named items were kept
    under a scope no claim covers, the lost row c never named (exit 0)."""
    catalog = _catalog()
    catalog["streams"][0]["stream"]["namespace"] = "shop"
    record = _record("a", 1, 0)
    record["record"]["namespace"] = "shop"
    state = _stream_state(2)
    state["state"]["stream"]["stream_descriptor"]["namespace"] = "shop"
    extract = "stream,key,cursor\nitems,a,1\nitems,c,2\n"
    logs = _logs(tmp_path / "logs", [[record, state]], catalog=catalog, extract=extract)
    code = main(["audit", str(logs), "--source", "airbyte", "--out", str(tmp_path / "out")])
    assert code == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "names stream 'items', which is none of the streams audited (shop.items)" in said


@pytest.mark.parametrize(
    ("emitted", "shown"),
    [("x", '"x"'), (True, "true"), ({"a": 1}, '{"a":1}'), (-1e15, "-1000000000000000.0")],
)
@pytest.mark.parametrize("line", [2, 3])
def test_an_emitted_at_that_is_no_time_is_refused_by_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], emitted: Any, shown: str, line: int
) -> None:
    """Text, a boolean or an object was taken for no time (the record dated as one
    without one, exit 0); a number past the engine's times, first, was an overflow
    naming no line, and later was moved up to the previous message's time."""
    records = [_record("a", 1, 0), _record("b", 2, 1)]
    records[line - 2]["record"]["emitted_at"] = emitted
    logs = _logs(tmp_path / "logs", [[*records, _stream_state(2)]])
    said = _refused(logs, tmp_path, capsys)
    assert f"sync-001.jsonl, line {line}: emitted_at {shown} is no time" in said


def test_an_emitted_at_written_as_text_of_a_number_is_read(tmp_path: Path) -> None:
    records = [_record("a", 1, 0), _record("b", 2, 1)]
    records[1]["record"]["emitted_at"] = str(MS + 1)
    logs = _logs(tmp_path / "logs", [[*records, _stream_state(2)]])
    _, tables = _read(logs, tmp_path)
    got = tables["receipts"].sort("event_id")["recorded_at"].dt.epoch("ms").to_list()
    assert got == [MS, MS + 1]


def test_a_record_the_cursor_cannot_read_is_refused_by_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Text among timestamps gave a receipt with no position, refused as the reader's
    log set, naming no sync or line."""
    records = [_record("a", "2026-01-01T00:00:00Z", 0), _record("b", "soon", 1)]
    logs = _logs(tmp_path / "logs", [[*records, _stream_state("2026-01-01T00:00:00Z")]])
    said = _refused(logs, tmp_path, capsys)
    assert 'the RECORD at sync-001.jsonl line 3 (stream items) has cursor value "soon"' in said
