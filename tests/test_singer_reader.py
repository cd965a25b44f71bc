"""The Singer reader's refusals: each a clear line and exit 2, never a traceback,
never a log set read as if it were whole (docs/readers.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from reconcile.cli import main
from reconcile.readers.extract import name_order
from reconcile.readers.singer import read_singer

SCHEMA = {
    "type": "SCHEMA",
    "stream": "items",
    "schema": {"properties": {"id": {"type": "string"}, "u": {"type": "integer"}}},
    "key_properties": ["id"],
    "bookmark_properties": ["u"],
}


def _record(key: str, cursor: Any, stream: str = "items") -> dict[str, Any]:
    return {
        "type": "RECORD",
        "stream": stream,
        "record": {"id": key, "u": cursor},
        "time_extracted": "2026-01-01T00:00:01+00:00",
    }


def _state(value: Any, stream: str = "items", **extra: Any) -> dict[str, Any]:
    bookmark = {"replication_key": "u", "replication_key_value": value, **extra}
    return {"type": "STATE", "value": {"bookmarks": {stream: bookmark}}}


def _audit(tmp: Path, messages: list[dict[str, Any]], capsys: Any) -> tuple[int, str]:
    logs = tmp / "logs"
    logs.mkdir(exist_ok=True)
    (logs / "run-1.jsonl").write_text("".join(json.dumps(m) + "\n" for m in messages))
    code = main(["audit", str(logs), "--source", "singer", "--out", str(tmp / "out")])
    got = capsys.readouterr()
    return code, " ".join((got.out + got.err).split())


def _report(tmp: Path, runs: list[list[Any]], extract: str | None, code: int) -> Path:
    """Audit runs (run1.jsonl, run2.jsonl, ...) and an extract: the exit status is
    ``code``; the report folder."""
    logs = tmp / "logs"
    logs.mkdir()
    for n, messages in enumerate(runs, 1):
        (logs / f"run{n}.jsonl").write_text("".join(json.dumps(m) + "\n" for m in messages))
    if extract is not None:
        (logs / "source.csv").write_text(extract)
    out = tmp / "out"
    assert main(["audit", str(logs), "--source", "singer", "--out", str(out)]) == code
    return out


def test_a_folder_without_runs_is_refused(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "logs").mkdir()
    assert (
        main(["audit", str(tmp_path / "logs"), "--source", "singer", "--out", str(tmp_path / "o")])
        == 2
    )
    assert "holds no run (*.jsonl, a Singer message stream each)" in capsys.readouterr().err


def test_a_record_outside_every_partition_is_refused(tmp_path: Path, capsys: Any) -> None:
    """Partitioned bookmarks name their partitions by context ({"p": 1}); a record
    without the field p cannot be placed in one."""
    messages = [SCHEMA, _record("a", 1), _state(1, partitions=[{"context": {"p": 1}}])]
    code, said = _audit(tmp_path, messages, capsys)
    assert code == 2
    assert "stream 'items' has partitioned bookmarks and a record without every field" in said


def test_partitioned_and_unpartitioned_bookmarks_are_refused(tmp_path: Path, capsys: Any) -> None:
    part = {"context": {"p": 1}, "replication_key": "u", "replication_key_value": 1}
    messages = [SCHEMA, _state(1), _state(1, partitions=[part])]
    # the second bookmark is partitioned; the first is not
    messages[2]["value"]["bookmarks"]["items"].pop("replication_key_value")
    code, said = _audit(tmp_path, messages, capsys)
    assert code == 2
    assert "has partitioned and unpartitioned bookmarks" in said


def test_partitioned_bookmarks_claim_for_their_partition(tmp_path: Path, capsys: Any) -> None:
    """Each partition (its context's fields, here region) is a partition of the
    stream's scope: its own checkpoints, receipts, and extract rows (placed by the
    extract's region column). A row missing in one partition is named there."""
    schema = {**SCHEMA}

    def rec(key: str, u: int, region: str) -> dict[str, Any]:
        message = _record(key, u)
        message["record"]["region"] = region
        return message

    def part(region: str, value: int) -> dict[str, Any]:
        return {
            "context": {"region": region},
            "replication_key": "u",
            "replication_key_value": value,
        }

    state = {
        "type": "STATE",
        "value": {"bookmarks": {"items": {"partitions": [part("eu", 2), part("us", 3)]}}},
    }
    messages = [schema, rec("a", 1, "eu"), rec("b", 2, "eu"), rec("c", 3, "us"), state]
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "run-1.jsonl").write_text("".join(json.dumps(m) + "\n" for m in messages))
    (logs / "source.csv").write_text("key,cursor,region\na,1,eu\nb,2,eu\nc,3,us\nd,2,us\n")
    out = tmp_path / "out"
    assert main(["audit", str(logs), "--source", "singer", "--out", str(out)]) == 1
    findings = pl.read_parquet(out / "findings.parquet")
    skipped = findings.filter(pl.col("rule") == "skipped_event")
    assert skipped.select("partition_id", "event_id").rows() == [("region=us", "d")]
    watermarks = pl.read_parquet(out / "watermarks.parquet")
    assert sorted(set(watermarks["partition_id"])) == ["region=eu", "region=us"]
    # an extract without the partition's column cannot place its rows
    (logs / "source.csv").write_text("key,cursor\na,1\n")
    assert main(["audit", str(logs), "--source", "singer", "--out", str(tmp_path / "o2")]) == 2
    assert "add the column(s) region" in " ".join(capsys.readouterr().err.split())


def _partitioned(contexts: list[dict[str, Any]], records: list[dict[str, Any]]) -> list[Any]:
    """A stream whose records carry their partition's fields, and one STATE with a
    bookmark per context, each claiming through u = 1."""
    messages: list[Any] = [SCHEMA]
    for n, fields in enumerate(records):
        message = _record(f"r{n}", 1)
        message["record"].update(fields)
        messages.append(message)
    parts = [{"context": c, "replication_key": "u", "replication_key_value": 1} for c in contexts]
    messages.append({"type": "STATE", "value": {"bookmarks": {"items": {"partitions": parts}}}})
    return messages


@pytest.mark.parametrize(
    ("contexts", "names"),
    [
        # a value holding ',' and '=' must not spell another context's partition
        (
            [{"a": "1,b=2", "b": "3"}, {"a": "1", "b": "2,b=3"}],
            ["a=1,b=2\\,b\\=3", "a=1\\,b\\=2,b=3"],
        ),
        # a null value is not an empty text
        pytest.param([{"p": None}, {"p": ""}], ["p", "p="], marks=pytest.mark.slow),
    ],
)
def test_partitions_whose_names_would_read_alike_stay_apart(
    tmp_path: Path, contexts: list[dict[str, Any]], names: list[str]
) -> None:
    """Two contexts are two partitions, each with its own claim and records: merged
    into one, one partition's claim would stand for the other's records."""
    out = _report(tmp_path, [_partitioned(contexts, contexts)], None, 0)
    watermarks = pl.read_parquet(out / "watermarks.parquet")
    assert sorted(watermarks["partition_id"]) == sorted(names)


def test_contexts_that_name_different_fields_are_refused(tmp_path: Path, capsys: Any) -> None:
    """A context without one of the stream's partition fields names no partition of
    its own: read as the whole stream, it would merge partitions."""
    contexts = [{"region": "eu"}, {"shard": 1}]
    records = [{"region": "eu", "shard": 1}]
    code, said = _audit(tmp_path, _partitioned(contexts, records), capsys)
    assert code == 2
    assert "stream 'items' has partitioned bookmarks whose contexts name different fields" in said


def test_a_stream_without_a_replication_key_is_refused(tmp_path: Path, capsys: Any) -> None:
    schema = {**SCHEMA, "bookmark_properties": None}
    code, said = _audit(tmp_path, [schema, _record("a", 1)], capsys)
    assert code == 2
    assert "stream(s) items name no replication key" in said


def test_cursors_of_two_kinds_are_refused(tmp_path: Path, capsys: Any) -> None:
    """The refusal shows the first value of each kind, by its run and line (it named
    neither: one 2.0 among integers was to be searched for by hand)."""
    messages = [SCHEMA, _record("a", 1), _record("b", 1.5), _state(1)]
    code, said = _audit(tmp_path, messages, capsys)
    assert code == 2
    assert "a log set has one coordinate type" in said
    assert "(the first decimal: run-1.jsonl, line 3: 1.5;" in said
    assert "the first integer: run-1.jsonl, line 2: 1)" in said


@pytest.mark.parametrize("value", ["not a time", 18446744073709551616])
def test_a_record_the_cursor_cannot_read_is_refused_by_its_line(
    tmp_path: Path, capsys: Any, value: Any
) -> None:
    """An integer past 64 bits, or text among timestamps, gave a receipt with no
    position, refused as the reader's log set, naming no run or line."""
    first = "2026-02-01T00:00:00Z" if isinstance(value, str) else 1
    messages = [SCHEMA, _record("a", first), _record("b", value), _state(first)]
    code, said = _audit(tmp_path, messages, capsys)
    assert code == 2
    assert f'the RECORD at run-1.jsonl line 3 (stream items) has u "{value}"' in said


@pytest.mark.parametrize("value", ["not a time", 18446744073709551615, 99999999999999999999])
def test_a_bookmark_the_cursor_cannot_read_is_refused(
    tmp_path: Path, capsys: Any, value: Any
) -> None:
    """It was a claim of nothing: a row lost under it went unnamed (exit 0). An
    integer past 64 bits, a JSON double to DuckDB, had the whole log set refused as
    holding "decimals and integers", naming no run or line."""
    cursor = "2026-02-01T00:00:00Z" if isinstance(value, str) else 1
    messages = [SCHEMA, _record("a", cursor), _state(value)]
    code, said = _audit(tmp_path, messages, capsys)
    assert code == 2
    assert f'the STATE at run-1.jsonl line 3 bookmarks stream items at "{value}"' in said


def test_a_record_of_a_stream_without_a_schema_is_refused(tmp_path: Path, capsys: Any) -> None:
    """Its rows were dropped (exit 0, a claim over no receipts); another stream's, a
    delivered row reported skipped."""
    messages = [SCHEMA, _record("a", 1), _record("z", 1, stream="other"), _state(1)]
    code, said = _audit(tmp_path, messages, capsys)
    assert code == 2
    assert "the RECORD at run-1.jsonl, line 3 (stream other) belongs to a stream no SCHEMA" in said


def test_an_extract_without_its_columns_is_refused(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "source.csv").write_text("id,cursor\na,1\n")
    code, said = _audit(tmp_path, [SCHEMA, _record("a", 1), _state(1)], capsys)
    assert code == 2
    assert "source.csv lacks column(s) key" in said


def test_timestamp_cursors_are_read_as_instants(tmp_path: Path, capsys: Any) -> None:
    """ISO cursors with an offset: the row at 01:00+01:00 is the row at 00:00 UTC,
    under the bookmark, and the extract names the one no run delivered."""
    messages = [
        SCHEMA,
        _record("a", "2026-01-01T00:00:00+00:00"),
        _record("b", "2026-01-01T01:00:00+01:00"),
        _state("2026-01-01T00:00:00Z"),
    ]
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "source.csv").write_text(
        "key,cursor\na,2026-01-01T00:00:00Z\nb,2026-01-01T00:00:00Z\nc,2025-12-31T23:59:00Z\n"
    )
    code, said = _audit(tmp_path, messages, capsys)
    assert code == 1
    assert "event c at 2025-12-31 23:59:00 has no durable outcome" in said
    assert "read by the singer reader" in said


@pytest.mark.parametrize("engine", ["spark"])
def test_a_source_is_read_by_duckdb_only(tmp_path: Path, capsys: Any, engine: str) -> None:
    (tmp_path / "logs").mkdir()
    code = main(
        [
            "audit",
            str(tmp_path / "logs"),
            "--source",
            "singer",
            "--engine",
            engine,
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert code == 2
    assert "--source is read by the DuckDB engine only" in capsys.readouterr().err


def test_map_suggest_names_the_singer_reader(tmp_path: Path, capsys: Any) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "run-1.jsonl").write_text(json.dumps(SCHEMA) + "\n" + json.dumps(_record("a", 1)))
    assert main(["map", "suggest", str(logs)]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert f"run reconcile audit {logs} --source singer --out DIR" in said
    # a JSON Lines file of something else: no reader named, a mapping suggested
    (logs / "run-1.jsonl").write_text(json.dumps({"id": 1, "ts": 2}) + "\n")
    main(["map", "suggest", str(logs)])
    assert "--source singer" not in capsys.readouterr().err


def test_a_run_that_leads_outside_the_folder_is_not_read(tmp_path: Path, capsys: Any) -> None:
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text(json.dumps(SCHEMA) + "\n")
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "run-1.jsonl").symlink_to(outside)
    assert main(["audit", str(logs), "--source", "singer", "--out", str(tmp_path / "o")]) == 2
    assert "run-1.jsonl leads outside the folder" in capsys.readouterr().err


def _singer_state(value: int) -> dict[str, Any]:
    return {"bookmarks": {"items": {"replication_key": "u", "replication_key_value": value}}}


@pytest.mark.parametrize(
    "stored",
    [
        {"singer_state": _singer_state(3)},
        pytest.param(
            {
                "completed": {"singer_state": _singer_state(1)},
                "partial": {"singer_state": _singer_state(3)},
            },
            marks=pytest.mark.slow,
        ),
        pytest.param(_singer_state(3), marks=pytest.mark.slow),
    ],
)  # fmt: skip
@pytest.mark.slow
def test_meltanos_stored_state_is_the_last_write(tmp_path: Path, stored: dict[str, Any]) -> None:
    """Meltano's stored state (``meltano state get``'s output, a state backend's file
    with completed and partial states, or a bare Singer state) is the state the next
    run resumes from: one more write after every run. Set past a row no run
    delivered (``meltano state set``), it loses that row, and the audit names it."""
    logs = tmp_path / "logs"
    logs.mkdir()
    messages = [SCHEMA, _record("a", 1), _state(1)]
    (logs / "run-1.jsonl").write_text("".join(json.dumps(m) + "\n" for m in messages))
    (logs / "source.csv").write_text("key,cursor\na,1\nb,2\n")
    (logs / "meltano-state.json").write_text(json.dumps(stored, indent=2))
    out = tmp_path / "out"
    assert main(["audit", str(logs), "--source", "singer", "--out", str(out)]) == 1
    findings = pl.read_parquet(out / "findings.parquet")
    assert findings.filter(pl.col("rule") == "skipped_event")["event_id"].to_list() == ["b"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["inputs"]["source"]["stored_state"] == "meltano-state.json"
    # without the stored state, the runs alone claim only through 1: nothing lost
    (logs / "meltano-state.json").unlink()
    assert main(["audit", str(logs), "--source", "singer", "--out", str(tmp_path / "o2")]) == 0


def test_a_null_bookmark_claims_nothing(tmp_path: Path, capsys: Any) -> None:
    """A bookmark whose value is null (a stream not read yet) is no claim, and no
    second coordinate type."""
    code, said = _audit(tmp_path, [SCHEMA, _state(None), _record("a", 1), _state(1)], capsys)
    assert code == 0, said


@pytest.mark.parametrize(
    "bookmarks",
    [5, {"items": 3}, {"items": {"partitions": 5}}, {"items": {"partitions": [{"context": 1}]}}],
)
def test_bookmarks_of_another_shape_are_refused(
    tmp_path: Path, capsys: Any, bookmarks: Any
) -> None:
    """A STATE whose bookmarks the reader cannot read is refused, naming where it
    is; it is never read as no bookmark."""
    state = {"type": "STATE", "value": {"bookmarks": bookmarks}}
    code, said = _audit(tmp_path, [SCHEMA, _record("a", 1), _state(1), state], capsys)
    assert code == 2
    assert "the STATE at run-1.jsonl, line 4 has bookmarks of another shape" in said


@pytest.mark.parametrize("missing", ["id", "u"])
def test_a_record_without_its_key_or_cursor_is_refused(
    tmp_path: Path, capsys: Any, missing: str
) -> None:
    record = _record("a", 1)
    del record["record"][missing]
    code, said = _audit(tmp_path, [SCHEMA, record, _state(1)], capsys)
    assert code == 2
    assert "the RECORD at run-1.jsonl, line 2 has no value for a key property" in said


def test_runs_without_a_bookmark_are_refused_not_reported_clean(
    tmp_path: Path, capsys: Any
) -> None:
    """With no STATE, nothing claims how far the runs read: the audit could only report
    a clean run it cannot prove, so the reader refuses."""
    code, said = _audit(tmp_path, [SCHEMA, _record("a", 1), _record("b", 2)], capsys)
    assert code == 2
    assert "no run has a STATE message with bookmarks that claim a value" in said
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "bookmark",
    [
        {"replication_key": "id", "replication_key_value": "d"},  # another replication key
        {"since": 4},  # singer-python's shape, under a field that is not the cursor
        {"replication_key": "u", "replication_key_value": None},  # a stream not read yet
    ],
    ids=["other key", "other field", "null"],
)
def test_bookmarks_that_claim_nothing_are_refused_not_reported_clean(
    tmp_path: Path, capsys: Any, bookmark: dict[str, Any]
) -> None:
    """Bookmarks that claim nothing on the stream's replication key say no more than
    no bookmark: the audit would report a clean run (no_claim) it cannot prove."""
    state = {"type": "STATE", "value": {"bookmarks": {"items": bookmark}}}
    code, said = _audit(tmp_path, [SCHEMA, _record("a", 1), state], capsys)
    assert code == 2
    assert "no run has a STATE message with bookmarks that claim a value" in said


def test_lines_that_are_no_singer_messages_are_refused(tmp_path: Path, capsys: Any) -> None:
    code, said = _audit(tmp_path, [{"a": 1}, {"b": 2}], capsys)
    assert code == 2
    assert "no run holds a Singer message (a line of type SCHEMA, RECORD or STATE)" in said


@pytest.mark.parametrize("bad", ["garbage", "[1, 2]"])
def test_a_line_that_is_no_json_object_is_named_by_its_file_and_line(
    tmp_path: Path, capsys: Any, bad: str
) -> None:
    """Lines count from 1 within the named file, as an editor counts them, whichever
    run the file is."""
    logs = tmp_path / "logs"
    logs.mkdir()
    good = [SCHEMA, _record("a", 1), _state(1)]
    (logs / "run-1.jsonl").write_text("".join(json.dumps(m) + "\n" for m in good))
    lines = [json.dumps(m) for m in good]
    lines.insert(2, bad)
    (logs / "run-2.jsonl").write_text("\n".join(lines) + "\n")
    code = main(["audit", str(logs), "--source", "singer", "--out", str(tmp_path / "out")])
    said = " ".join(capsys.readouterr().err.split())
    assert code == 2
    assert "run-2.jsonl, line 3 is" in said
    assert "Traceback" not in said


def test_a_refused_state_is_named_by_the_line_of_its_own_file(tmp_path: Path, capsys: Any) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    good = [SCHEMA, _record("a", 1), _state(1)]
    (logs / "run-1.jsonl").write_text("".join(json.dumps(m) + "\n" for m in good * 4))
    bad = {"type": "STATE", "value": {"bookmarks": {"items": 5}}}
    (logs / "run-2.jsonl").write_text("".join(json.dumps(m) + "\n" for m in [SCHEMA, bad]))
    code = main(["audit", str(logs), "--source", "singer", "--out", str(tmp_path / "out")])
    said = " ".join(capsys.readouterr().err.split())
    assert code == 2
    assert "the STATE at run-2.jsonl, line 2 has bookmarks of another shape" in said


@pytest.mark.parametrize(
    ("row", "said"),
    [
        ("late-9,", "source.csv row 2 (key 'late-9', cursor None; rows counted from 1"),
        (",5", "source.csv row 2 (key None, cursor '5'; rows counted"),
        ("late-9,soon", "after the header) has a cursor of another kind"),
        # never rounded to 8, nor read as 7
        ("late-9,7.5", "(key 'late-9', cursor '7.5'; rows counted from 1, after the header) has a"),
        ("late-9,7.0", "has a cursor of another kind"),
        # one key at two places would be the runs' ordering_mutated
        ("a,3", "source.csv row 2 (key 'a', cursor '3'; rows counted from 1, after the header)"
         " names the key row 1 names already"),
        ("\nlate-9,", "source.csv row 2"),  # a blank line holds no row
    ],
)  # fmt: skip
def test_an_extract_row_the_reader_cannot_place_is_named_by_its_line(
    tmp_path: Path, capsys: Any, row: str, said: str
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "source.csv").write_text(f"key,cursor\na,1\n{row}\n")
    code, told = _audit(tmp_path, [SCHEMA, _record("a", 1), _state(1)], capsys)
    assert code == 2
    assert said in told
    assert "reconcile-source-" not in told


def test_tables_that_break_the_contract_are_named_in_the_artifacts_words(
    tmp_path: Path, capsys: Any
) -> None:
    """A timestamp cursor that is no time is refused by its run and line (it gave a
    receipt with no position, refused as the reader's log set, naming no line), never
    naming the reader's temporary folder."""
    schema = {**SCHEMA, "schema": {"properties": {"id": {"type": "string"}}}}
    messages = [
        schema,
        _record("a", "2026-01-01T00:00:00+00:00"),
        _record("b", "soon"),
        _state("2026-01-01T00:00:00+00:00"),
    ]
    code, said = _audit(tmp_path, messages, capsys)
    assert code == 2
    assert 'the RECORD at run-1.jsonl line 3 (stream items) has u "soon", which is not' in said
    assert "reconcile-source-" not in said


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ({"type": "RECORD", "record": {"id": "b", "u": 2}}, "line 3 (type RECORD) is no Singer"),
        ({**_record("b", 2), "type": "record"}, "line 3 (type record) is no Singer message"),
        ({"type": "BATCH", "stream": "items", "encoding": {}}, "line 3 (type BATCH)"),
        ({"note": "no type"}, "line 3 (no type)"),
    ],
)
def test_a_line_the_reader_cannot_place_is_refused_not_dropped(
    tmp_path: Path, capsys: Any, line: dict[str, Any], said: str
) -> None:
    """Dropped, such a line's rows would look lost, and the audit would blame the tap."""
    code, told = _audit(tmp_path, [SCHEMA, _record("a", 1), line, _state(2)], capsys)
    assert code == 2
    assert said in told


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "meltano-state.json holds no Singer state"),
        ('{"foo": 1}', "meltano-state.json holds no Singer state"),
        ("not json", "meltano-state.json is no JSON document"),
    ],
)
def test_a_stored_state_that_holds_no_state_is_refused(
    tmp_path: Path, capsys: Any, text: str, said: str
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "meltano-state.json").write_text(text)
    code, told = _audit(tmp_path, [SCHEMA, _record("a", 1), _state(1)], capsys)
    assert code == 2
    assert said in told


@pytest.mark.slow
def test_runs_that_start_with_a_blank_line_are_detected(tmp_path: Path, capsys: Any) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    messages = [SCHEMA, _record("a", 1), _state(1)]
    (logs / "run-1.jsonl").write_text("\n" + "".join(json.dumps(m) + "\n" for m in messages))
    assert main(["audit", str(logs), "--out", str(tmp_path / "out")]) == 0
    assert "read by the singer reader" in capsys.readouterr().err


def test_runs_are_taken_in_the_natural_order_of_their_names(tmp_path: Path) -> None:
    """run9 comes before run10, as a person numbers runs: in the order of the
    characters run10's bookmark (5) would be written first and run9's (3) after it,
    a watermark going back that no run wrote."""
    logs = tmp_path / "logs"
    logs.mkdir()
    for number, value in ((9, 3), (10, 5)):
        messages = [SCHEMA, _record(f"k{value}", value), _state(value)]
        (logs / f"run{number}.jsonl").write_text("".join(json.dumps(m) + "\n" for m in messages))
    out = tmp_path / "out"
    assert main(["audit", str(logs), "--source", "singer", "--out", str(out)]) == 0
    assert (
        pl.read_parquet(out / "findings.parquet")
        .filter(pl.col("rule") != "replayed_events")
        .is_empty()
    )
    claimed = pl.read_parquet(out / "watermarks.parquet")["claimed_through"].to_list()
    assert claimed == [5]


def test_name_order_compares_digits_as_numbers() -> None:
    names = ["run10.jsonl", "run9.jsonl", "run-1.jsonl", "run-01.jsonl", "sync-2026-01-02.jsonl"]
    assert sorted(names, key=name_order) == [
        "run9.jsonl",
        "run10.jsonl",
        "run-01.jsonl",
        "run-1.jsonl",
        "sync-2026-01-02.jsonl",
    ]


def test_a_state_before_any_timed_message_is_dated_just_before_the_first(tmp_path: Path) -> None:
    """A run that opens with the state it resumes from: that state is dated a second
    before the first time_extracted (a microsecond on, as every state), before every
    record; dated in 2000 it made a stall of decades, a stalled_partition no run had."""
    logs = tmp_path / "logs"
    logs.mkdir()
    messages = [_state(0), SCHEMA, _record("a", 1), _state(1)]
    (logs / "run-1.jsonl").write_text("".join(json.dumps(m) + "\n" for m in messages))
    read = tmp_path / "read"
    read.mkdir()
    read_singer(logs, read)
    written = pl.read_parquet(read / "checkpoints.parquet").sort("written_at")["written_at"]
    assert [str(t) for t in written] == ["2026-01-01 00:00:00.000001", "2026-01-01 00:00:01.000001"]
    out = tmp_path / "out"
    assert main(["audit", str(logs), "--source", "singer", "--out", str(out)]) == 0
    assert pl.read_parquet(out / "findings.parquet").is_empty()


@pytest.mark.parametrize("name", ['i"d', "id\\", 'x\\"y'])
def test_key_properties_named_with_quotes_or_backslashes_are_read(
    tmp_path: Path, name: str
) -> None:
    """A key property's name goes into a JSON path quoted: its quotes and backslashes
    are escaped there (a quote gave DuckDB's own 'JSON path error'); a record
    without it is still refused, by its line."""
    schema = {**SCHEMA, "key_properties": [name]}
    schema["schema"] = {"properties": {name: {"type": "string"}, "u": {"type": "integer"}}}
    records = [
        {**_record("a", 1), "record": {name: "a", "u": 1}},
        {**_record("b", 2), "record": {name: "b", "u": 2}},
    ]
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "run-1.jsonl").write_text(
        "".join(json.dumps(m) + "\n" for m in [schema, *records, _state(2)])
    )
    read = tmp_path / "read"
    read.mkdir()
    read_singer(logs, read)
    receipts = pl.read_parquet(read / "receipts.parquet").sort("position")
    assert receipts["event_id"].to_list() == ["a", "b"]
    (logs / "run-1.jsonl").write_text(
        "".join(json.dumps(m) + "\n" for m in [schema, records[0], _record("b", 2), _state(2)])
    )
    code = main(["audit", str(logs), "--source", "singer", "--out", str(tmp_path / "out")])
    assert code == 2


@pytest.mark.slow
def test_a_state_before_any_timed_message_stays_first_when_times_go_back(tmp_path: Path) -> None:
    """The first STATE is dated before the earliest time of the stream, not before the
    first in order: records extracted at 10 s and then at 0 s leave it first, and
    the later STATE (7) the claim; dated after the 0 s record it was a claim gone
    back (watermark_regressed) that no run made."""
    logs = tmp_path / "logs"
    logs.mkdir()
    late = {**_record("b", 6), "time_extracted": "2026-01-01T00:00:10+00:00"}
    early = {**_record("c", 7), "time_extracted": "2026-01-01T00:00:00+00:00"}
    messages = [_state(5), SCHEMA, late, early, _state(7)]
    (logs / "run-1.jsonl").write_text("".join(json.dumps(m) + "\n" for m in messages))
    out = tmp_path / "out"
    assert main(["audit", str(logs), "--source", "singer", "--out", str(out)]) == 0
    assert pl.read_parquet(out / "watermarks.parquet")["claimed_through"].to_list() == [7]


def _timed(key: str, cursor: int, at: str | None) -> dict[str, Any]:
    message = _record(key, cursor)
    if at is None:
        message.pop("time_extracted")
    else:
        message["time_extracted"] = at
    return message


def _overclaims(tmp: Path, runs: list[list[dict[str, Any]]], extract: str) -> list[str]:
    findings = pl.read_parquet(_report(tmp, runs, extract, 1) / "findings.parquet")
    return sorted(findings.filter(pl.col("rule") == "overclaim")["attempt_id"])


def test_a_record_after_a_state_in_its_instant_is_not_counted_for_it(tmp_path: Path) -> None:
    """b and c share u = 2 and their time: the STATE between them claims through 2
    with c not yet delivered. Dated at that same instant, c was counted for it."""
    at = "2026-01-01T00:00:01.000Z"
    run = [SCHEMA, _timed("a", 1, at), _timed("b", 2, at), _state(2), _timed("c", 2, at)]
    run += [_timed("d", 3, "2026-01-01T00:00:02Z"), _state(3)]
    extract = "key,cursor\na,1\nb,2\nc,2\nd,3\n"
    assert _overclaims(tmp_path, [run], extract) == ["run1.jsonl"]


@pytest.mark.parametrize(
    "at",
    [pytest.param(None, marks=pytest.mark.slow), "2026-01-01t00:00:01z"],
    ids=["untimed", "lower-case"],
)
def test_runs_keep_their_order_whatever_times_their_records_carry(
    tmp_path: Path, at: str | None
) -> None:
    """Run 1 misses row 3 and bookmarks 4; run 2 delivers it. Without times (Singer's
    time_extracted is optional), every record was dated at one instant, before every
    STATE: run 2's row 3 proved run 1's claim. The same with times in lower case,
    which were read as none."""
    run1 = [SCHEMA, _timed("1", 1, at), _timed("2", 2, at), _timed("4", 4, at), _state(4)]
    run2 = [SCHEMA] + [_timed(str(u), u, at) for u in (1, 2, 3, 4)] + [_state(4)]
    extract = "key,cursor\n1,1\n2,2\n3,3\n4,4\n"
    assert _overclaims(tmp_path, [run1, run2], extract) == ["run1.jsonl"]


def test_a_time_extracted_that_is_no_time_is_refused(tmp_path: Path, capsys: Any) -> None:
    code, said = _audit(tmp_path, [SCHEMA, _timed("a", 1, "yesterday"), _state(1)], capsys)
    assert code == 2
    assert 'run-1.jsonl, line 2: time_extracted "yesterday" is no RFC 3339 time' in said


def test_a_bookmark_in_singer_pythons_shape_claims_its_value(tmp_path: Path) -> None:
    """singer-python's write_bookmark(state, "items", "u", 4) writes {"items": {"u":
    4}}, without replication_key_value: it claims through 4, and the row at 3 that no
    run delivered is named. It was read as no claim, the audit clean."""
    run = [SCHEMA, _record("a", 1), _record("b", 2), _record("d", 4)]
    run.append({"type": "STATE", "value": {"bookmarks": {"items": {"u": 4}}}})
    out = _report(tmp_path, [run], "key,cursor\na,1\nb,2\nc,3\nd,4\n", 1)
    findings = pl.read_parquet(out / "findings.parquet")
    assert findings.filter(pl.col("rule") == "skipped_event")["event_id"].to_list() == ["c"]
    watermarks = pl.read_parquet(out / "watermarks.parquet")
    assert watermarks["claimed_through"].to_list() == [4]


@pytest.mark.slow
def test_a_bookmark_of_another_replication_key_claims_nothing(tmp_path: Path) -> None:
    """The stream's replication key is u; a bookmark on id (a tap discards it and reads
    the stream from its start) claimed through its value on u."""
    run = [SCHEMA, _record("a", 1), _record("b", 2), _state(2)]
    other = {"replication_key": "id", "replication_key_value": 900}
    run.append({"type": "STATE", "value": {"bookmarks": {"items": other}}})
    out = _report(tmp_path, [run], None, 0)
    watermarks = pl.read_parquet(out / "watermarks.parquet")
    assert watermarks["claimed_through"].to_list() == [2]


@pytest.mark.parametrize("keys", [[], None], ids=["empty", "missing"])
def test_a_stream_without_key_properties_is_refused(
    tmp_path: Path, capsys: Any, keys: list[str] | None
) -> None:
    """Every record's event_id was '': one event seen at many positions."""
    schema = {**SCHEMA, "key_properties": keys}
    if keys is None:
        schema.pop("key_properties")
    code, said = _audit(tmp_path, [schema, _record("a", 1), _record("b", 2), _state(2)], capsys)
    assert code == 2
    assert "stream(s) items name no key properties" in said


@pytest.mark.slow
def test_a_full_table_stream_beside_incremental_ones_is_not_audited(tmp_path: Path) -> None:
    """A stream without a replication key (full-table, often without key properties
    too: a view) has no cursor to audit. Beside an incremental stream it is left out
    and named, as Airbyte's full-refresh streams are; it refused the whole log set."""
    view = {"type": "SCHEMA", "stream": "view", "schema": {}, "key_properties": []}
    row = {"type": "RECORD", "stream": "view", "record": {"n": 1}}
    full = {"type": "STATE", "value": {"bookmarks": {"view": {"version": 7}}}}
    messages = [SCHEMA, view, _record("a", 1), row, _state(1), full]
    out = _report(tmp_path, [messages], "stream,key,cursor\nitems,a,1\n", 0)
    watermarks = pl.read_parquet(out / "watermarks.parquet")
    assert watermarks.select("scope_id", "claimed_through").rows() == [("items", 1)]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["inputs"]["source"]["not_audited"] == ["view"]


@pytest.mark.parametrize(
    ("extract", "said"),
    [
        # one stream in the runs, another in the extract
        pytest.param(
            "stream,key,cursor\nItems,c,2\n",
            "names stream 'Items', which is none of the streams",
            marks=pytest.mark.slow,
        ),
        # a partition's value as the runs never write it
        ("key,cursor,region\nc,2,eu \n", "is in partition 'region=eu ' of stream 'items'"),
    ],
    ids=["stream", "partition"],
)
def test_extract_rows_that_name_nothing_the_runs_audit_are_refused(
    tmp_path: Path, capsys: Any, extract: str, said: str
) -> None:
    """Row c, which no run delivered, was kept under a stream or partition no claim
    covers: the audit was clean (exit 0), c never named."""
    run = _partitioned([{"region": "eu"}], [{"region": "eu"}]) if "region" in extract else None
    messages = run or [SCHEMA, _record("a", 1), _state(2)]
    code, _ = _audit(tmp_path, messages, capsys)
    assert code == 0  # without the extract
    (tmp_path / "logs" / "source.csv").write_text(extract)
    assert (
        main(["audit", str(tmp_path / "logs"), "--source", "singer", "--out", str(tmp_path / "o")])
        == 2
    )
    assert said in " ".join(capsys.readouterr().err.split())


def test_bookmarks_keyed_by_another_name_than_the_records_stream_are_refused(
    tmp_path: Path, capsys: Any
) -> None:
    """Records of stream items, bookmarks keyed public-items (a tap_stream_id): a claim
    for a scope of its own, items left with none, the audit clean."""
    state = _state(2, stream="public-items")
    code, said = _audit(tmp_path, [SCHEMA, _record("a", 1), _record("b", 2), state], capsys)
    assert code == 2
    assert "STATE bookmarks name stream 'public-items', which no SCHEMA describes" in said
    assert "stream 'items' has no bookmark claiming for it" in said


@pytest.mark.slow
def test_bookmarks_of_streams_not_selected_are_not_refused(tmp_path: Path, capsys: Any) -> None:
    """A state carries the bookmarks of every stream ever synced (Meltano keeps them,
    taps pass them on): one of a stream not selected in these runs is no claim for a
    stream that has none of its own yet."""
    messages = [SCHEMA, _record("a", 1), _state(5, stream="orders")]
    second = {**SCHEMA, "stream": "users"}  # a stream whose first run wrote no STATE yet
    user = _record("u1", 1, stream="users")
    code, said = _audit(tmp_path, [*messages, second, user, _state(1)], capsys)
    assert code == 0, said


def test_a_partition_newer_than_the_runs_is_read_as_unclaimed(tmp_path: Path) -> None:
    """An extract is taken after the runs: a partition the source made since (us,
    beside eu, which the runs name) is read, with no claim, never refused."""
    messages = _partitioned([{"region": "eu"}], [{"region": "eu"}])
    extract = "key,cursor,region\nr0,1,eu\nn1,1,us\n"
    out = _report(tmp_path, [messages], extract, 0)
    watermarks = pl.read_parquet(out / "watermarks.parquet")
    assert sorted(watermarks["partition_id"]) == ["region=eu", "region=us"]


def test_extract_rows_of_a_full_table_stream_are_left_out(tmp_path: Path) -> None:
    """One query over all the tap's tables: the full-table stream's rows have no claim
    to judge and are left out; they were refused."""
    view = {"type": "SCHEMA", "stream": "view", "schema": {}, "key_properties": []}
    messages = [SCHEMA, view, _record("a", 1), _state(1)]
    extract = "stream,key,cursor\nitems,a,1\nview,v1,7\nview,v2,8\n"
    out = _report(tmp_path, [messages], extract, 0)
    watermarks = pl.read_parquet(out / "watermarks.parquet")
    assert watermarks["scope_id"].to_list() == ["items"]
    # the summary says how many of the extract's rows were not judged
    source = json.loads((out / "summary.json").read_text())["inputs"]["source"]
    assert (source["not_audited"], source["source_extract_left_out"]) == (["view"], 2)


def test_the_terminal_and_report_say_which_extract_rows_were_not_judged(
    tmp_path: Path, capsys: Any
) -> None:
    """The terminal's second line and report.html's head show inputs.source.proves
    alone: it said the extract proves rows no run delivered skipped, and nothing of the
    stream left out, so an audit with no finding read as the whole extract judged. It
    names the stream not audited and how many extract rows were left out."""
    view = {"type": "SCHEMA", "stream": "view", "schema": {}, "key_properties": []}
    messages = [SCHEMA, view, _record("a", 1), _state(1)]
    extract = "stream,key,cursor\nitems,a,1\nview,v1,7\nview,v2,8\n"
    out = _report(tmp_path, [messages], extract, 0)
    said = " ".join(capsys.readouterr().out.split())
    assert "not audited (no cursor to judge a claim by): view" in said
    assert "its 2 rows in the source extract are left out, unjudged" in said
    html = (out / "report.html").read_text()
    assert "its 2 rows in the source extract are left out, unjudged" in html
