"""Mapping files: users' own layouts read as the contract's tables (issue 10).

The bundled ``data/foreign`` is the run of ``data/faults`` in a foreign layout; read
through its ``reconcile.toml`` it must audit exactly as ``data/faults`` with every
timestamp floored to the millisecond, and ``map suggest`` must find that mapping but
for the value maps. The rest: each feature of the mapping, its errors (exit 2), and
problems stated in the user's terms.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconcile import open_logset, validate_logset
from reconcile.audit import audit
from reconcile.cli import main
from reconcile.engine import Analysis
from reconcile.investigate import event_trail, membership, partition_pages
from reconcile.mapping import MappingError, load_mapping
from reconcile.mapping.names import guess_value, similarity
from reconcile.mapping.spec import LogMapping, TableSpec
from reconcile.mapping.suggest import suggest_mapping
from reconcile.simulate import SimOptions, simulate
from reconcile.simulate.foreign import floor_to_ms, to_foreign
from reconcile.simulate.options import Eligibility, Evidence, Membership
from tests.conftest import examples
from tests.logsets import at, checkpoint, own_mapping, receipt, write_logset

DATA = Path(__file__).resolve().parents[1] / "data"
FRAMES = ("watermarks", "frontiers", "frontier_history", "findings")


def _audit(path: Path, mapping: Path | None = None) -> dict[str, pl.DataFrame]:
    with open_logset(path, mapping=mapping or own_mapping(path)) as logset:
        result = audit(logset)
    return {name: getattr(result, name) for name in FRAMES}


@pytest.fixture(scope="module")
def twin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """data/faults with every timestamp floored to the ms: what data/foreign says."""
    path = tmp_path_factory.mktemp("twin") / "faults"
    shutil.copytree(DATA / "faults", path)
    floor_to_ms(path)
    return path


@pytest.fixture(scope="module")
def twin_audit(twin: Path) -> dict[str, pl.DataFrame]:
    return _audit(twin)


def _same(a: dict[str, pl.DataFrame], b: dict[str, pl.DataFrame]) -> None:
    for name in FRAMES:
        assert a[name].schema == b[name].schema, name
        assert a[name].equals(b[name]), (name, a[name], b[name])


def test_foreign_layout_audits_as_the_contract_layout(
    twin_audit: dict[str, pl.DataFrame],
) -> None:
    foreign = _audit(DATA / "foreign")
    _same(foreign, twin_audit)
    assert foreign["findings"].height == 28


@pytest.mark.slow
def test_foreign_layout_on_the_command_line(
    tmp_path: Path, twin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    foreign = ["audit", str(DATA / "foreign"), "--mapping", "auto", "--out", str(tmp_path / "f")]
    assert main(foreign) == 1
    assert main(["audit", str(twin), "--out", str(tmp_path / "t")]) == 1
    capsys.readouterr()
    for name in FRAMES:
        a = pl.read_parquet(tmp_path / "f" / f"{name}.parquet")
        assert a.equals(pl.read_parquet(tmp_path / "t" / f"{name}.parquet")), name
    summary = json.loads((tmp_path / "f" / "summary.json").read_text())
    assert summary["inputs"]["mapping"] == str(DATA / "foreign" / "reconcile.toml")
    assert summary["inputs"]["tables"]["checkpoints"] == {"files": 1, "rows": 227}
    assert summary["inputs"]["tables"]["pages"] == {"files": 1, "rows": 223}


def _shape(spec: TableSpec) -> dict[str, Any]:
    """A section without its value maps."""
    return {
        "files": spec.files,
        "filter": " ".join((spec.filter or "").split()),
        "columns": {n: (c.column, c.sql, c.timestamp, c.is_constant) for n, c in spec.columns},
    }


@pytest.mark.slow
def test_suggest_finds_the_mapping_but_for_value_maps(
    tmp_path: Path, twin_audit: dict[str, pl.DataFrame]
) -> None:
    reference = load_mapping(DATA / "foreign" / "reconcile.toml")
    text = suggest_mapping(DATA / "foreign")
    suggested = tomllib.loads(text)
    assert sorted(suggested) == sorted(t.table for t in reference.tables)
    # only the value maps may need editing: put the reference's in
    for spec in reference.tables:
        for name, column in spec.columns:
            if column.values:
                entry = suggested[spec.table]["columns"][name]
                assert entry["column"] == column.column
                entry["values"] = dict(column.values)
    edited = tmp_path / "edited.toml"
    edited.write_text(_toml(suggested), encoding="utf-8")
    mapping = load_mapping(edited)
    for spec in reference.tables:
        got = mapping.table(spec.table)
        assert got is not None
        assert _shape(got) == _shape(spec), spec.table
    _same(_audit(DATA / "foreign", edited), twin_audit)


def test_suggest_guesses_the_known_spellings() -> None:
    """The outcome and CAS spellings of data/foreign are known ones: no edit needed."""
    reference = load_mapping(DATA / "foreign" / "reconcile.toml")
    suggested = tomllib.loads(suggest_mapping(DATA / "foreign"))
    for spec in reference.tables:
        for name, column in spec.columns:
            if column.values:
                assert suggested[spec.table]["columns"][name]["values"] == dict(column.values)


@pytest.mark.parametrize(
    ("contract", "value"),
    [
        ("outcome", "UNCOMMITTED"),
        ("outcome", "NOT_COMMITTED"),
        ("outcome", "notfailed"),
        ("cas_result", "unlost"),
        ("outcome", "commited"),  # a typo is no known spelling either: "?", checked by a person
    ],
)
def test_suggest_guesses_no_value_by_likeness(contract: str, value: str) -> None:
    """UNCOMMITTED was guessed "committed" (difflib, 0.75 alike): a failure read as
    durable through the suggested mapping, exit 0. Only known spellings are guessed."""
    allowed = ("committed", "failed", "dead_lettered", "ineligible", "won", "lost")
    assert guess_value(contract, value, allowed) is None
    assert guess_value("outcome", "OK", allowed) == "committed"


def _toml(data: dict[str, Any]) -> str:
    """A parsed mapping written back (tables and their columns)."""
    lines = []
    for table, section in data.items():
        lines.append(f"[{table}]")
        for key in ("files", "format", "filter"):
            if key in section:
                lines.append(f"{key} = {json.dumps(section[key])}")
        lines.append(f"[{table}.columns]")
        for name, value in section.get("columns", {}).items():
            lines.append(f"{name} = {_inline(value)}")
    return "\n".join(lines) + "\n"


def _inline(value: Any) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_inline(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)


def test_suggest_command_writes_a_file_and_marks_what_it_could_not_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    pl.DataFrame(
        {
            "shard": ["p0"],
            "gen": [1],
            "prev_gen": [0],
            "outcome_code": ["WIN"],
            "ts": [1_700_000_000],
            "colour": ["red"],
        }
    ).write_parquet(logs / "writes.parquet")
    out = tmp_path / "m.toml"
    assert main(["map", "suggest", str(logs), "--out", str(out)]) == 0
    assert f"then run reconcile validate {logs} --mapping {out}" in capsys.readouterr().err
    text = out.read_text()
    parsed = tomllib.loads(text)
    columns = parsed["checkpoints"]["columns"]
    assert columns["scope_id"] == {"constant": "default"}
    assert columns["partition_id"] == "shard"
    assert columns["generation"] == "gen"
    assert columns["written_at"] == {"column": "ts", "timestamp": "epoch_s"}
    assert "NOT MATCHED (required): attempt_id" in text
    assert "your columns not used: " in text and "colour" in text
    # replacing needs --force
    assert main(["map", "suggest", str(logs), "--out", str(out)]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["map", "suggest", str(logs)]) == 0
    assert capsys.readouterr().out == text
    # written where --mapping auto reads it, it says so
    assert main(["map", "suggest", str(logs), "--out", str(logs / "reconcile.toml")]) == 0
    assert f"validate {logs} --mapping auto" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("contract", "user", "matches"),
    [
        ("partition_id", "shard", True),
        ("event_count", "n_events", True),
        ("min_position", "minPos", True),
        ("recorded_at", "recorded_ms", True),
        ("expected_generation", "expected_gen", True),
        ("partition_id", "page_seq", False),
        ("event_id", "attempt_id", False),
    ],
)
def test_name_similarity(contract: str, user: str, matches: bool) -> None:
    assert (similarity(contract, user) >= 0.6) is matches


# --- the mapping's features, on small hand-made files -------------------------


def _cp_rows(n: int = 3) -> list[dict[str, Any]]:
    return [checkpoint(generation=g + 1, written_at=at(10 * g), watermark=g) for g in range(n)]


def _foreign_checkpoints(rows: list[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "shard": [r["partition_id"] for r in rows],
            "run": [r["attempt_id"] for r in rows],
            "lease": [str(r["owner_epoch"]) for r in rows],
            "expected": [r["expected_generation"] for r in rows],
            "gen": [r["generation"] for r in rows],
            "cas": ["Y" if r["cas_result"] == "won" else "N" for r in rows],
            "written": [r["written_at"].strftime("%d/%m/%Y %H:%M:%S") for r in rows],
            "wm": [r["watermark"] for r in rows],
            "wm_incl": [r["watermark_inclusive"] for r in rows],
        }
    )


MAPPING = """
[checkpoints]
files = "cp/*.csv"

[checkpoints.columns]
scope_id = { constant = "s" }
partition_id = "shard"
attempt_id = "run"
owner_epoch = { sql = "CAST(lease AS BIGINT)" }
expected_generation = "expected"
generation = "gen"
cas_result = { column = "cas", values = { Y = "won", N = "lost" } }
written_at = { column = "written", timestamp = "%d/%m/%Y %H:%M:%S" }
watermark = "wm"
watermark_inclusive = "wm_incl"
"""


def _csv_logset(tmp_path: Path, rows: list[dict[str, Any]], mapping: str = MAPPING) -> Path:
    logs = tmp_path / "logs"
    (logs / "cp").mkdir(parents=True)
    frame = _foreign_checkpoints(rows)
    frame.head(1).write_csv(logs / "cp" / "a.csv")
    frame.slice(1).write_csv(logs / "cp" / "b.csv")
    (logs / "reconcile.toml").write_text(mapping, encoding="utf-8")
    return logs


def test_csv_constant_sql_value_map_and_time_format(tmp_path: Path) -> None:
    rows = _cp_rows()
    logs = _csv_logset(tmp_path, rows)
    contract = write_logset(tmp_path / "contract", {"checkpoints": rows})
    with open_logset(logs, mapping="auto") as mapped, open_logset(contract) as plain:
        a = pl.from_arrow(mapped.relation("checkpoints").to_arrow_table())
        b = pl.from_arrow(plain.relation("checkpoints").to_arrow_table())
        lazy = mapped.lazyframe("checkpoints").collect()
    assert isinstance(a, pl.DataFrame) and isinstance(b, pl.DataFrame)
    data = [c for c in b.columns if not c.startswith("__")]
    assert a.select(data).sort("generation").equals(b.select(data).sort("generation"))
    assert lazy.select(data).sort("generation").equals(a.select(data).sort("generation"))
    # where each row came from: the user's file, and its row in it
    where = a.select("__file", "__row", "generation").sort("generation").rows()
    assert [(Path(f).name, r, g) for f, r, g in where] == [
        ("a.csv", 0, 1),
        ("b.csv", 0, 2),
        ("b.csv", 1, 3),
    ]


def test_explicit_mapping_file_wins_over_the_folders(tmp_path: Path) -> None:
    rows = _cp_rows()
    logs = _csv_logset(tmp_path, rows, mapping="[receipts]\nfiles = 'nothing.parquet'\n")
    elsewhere = tmp_path / "mine.toml"
    elsewhere.write_text(MAPPING, encoding="utf-8")
    assert (
        main(["validate", str(logs), "--mapping", "auto"]) == 2
    )  # the folder's own mapping names no file
    assert main(["validate", str(logs), "--mapping", str(elsewhere)]) == 0


def test_epoch_units_and_identity_columns(tmp_path: Path) -> None:
    """Columns the mapping leaves out are read by their own name; epoch s/ms/µs/ns,
    whole or fractional, are exact."""
    ns = 1_767_225_600_123_456_789
    logs = tmp_path / "logs"
    logs.mkdir()
    stamp = datetime.fromtimestamp(ns // 10**9, UTC)
    base = checkpoint(written_at=stamp)
    frame = pa.table(
        {
            **{k: [v] for k, v in base.items() if k != "written_at"},
            "t_s": [ns // 10**9],
            "t_s_float": [ns // 10**6 / 1000],
            "t_ms": [ns // 10**6],
            "t_us": [ns // 10**3],
            "t_ns": [ns],
        }
    )
    pq.write_table(frame, logs / "log.parquet")
    expected = {
        "epoch_s": ns // 10**9 * 10**9,
        "epoch_ms": ns // 10**6 * 10**6,
        "epoch_us": ns // 10**3 * 10**3,
        "epoch_ns": ns,
    }
    for unit, column in [
        ("epoch_s", "t_s"),
        ("epoch_ms", "t_ms"),
        ("epoch_us", "t_us"),
        ("epoch_ns", "t_ns"),
        ("epoch_s", "t_s_float"),
    ]:
        mapping = tmp_path / f"{column}.toml"
        mapping.write_text(
            f'[checkpoints]\nfiles = "log.parquet"\n[checkpoints.columns]\n'
            f'written_at = {{ column = "{column}", timestamp = "{unit}" }}\n'
        )
        with open_logset(logs, mapping=mapping) as logset:
            got = logset.con.sql(
                "SELECT epoch_ns(written_at), generation FROM checkpoints"
            ).fetchall()
        want = expected[unit] if column != "t_s_float" else ns // 10**6 * 10**6
        assert got == [(want, base["generation"])], column


def test_jsonl_and_a_kind_column(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    cp = checkpoint(written=5, page_id="pg1")
    rc = receipt("e1", 5, recorded=3, page_id="pg1")
    lines = [
        {**{k: v for k, v in cp.items() if k != "written_at"}, "kind": "cp", "t": 1767225605},
        {**{k: v for k, v in rc.items() if k != "recorded_at"}, "kind": "rc", "t": 1767225603},
    ]
    (logs / "log.jsonl").write_text("\n".join(json.dumps(r) for r in lines) + "\n")
    (logs / "reconcile.toml").write_text(
        '[checkpoints]\nfiles = "log.jsonl"\nfilter = "kind = \'cp\'"\n'
        '[checkpoints.columns]\nwritten_at = { column = "t", timestamp = "epoch_s" }\n'
        '[receipts]\nfiles = "log.jsonl"\nfilter = "kind = \'rc\'"\n'
        '[receipts.columns]\nrecorded_at = { column = "t", timestamp = "epoch_s" }\n'
    )
    report = validate_logset(logs, mapping="auto")
    assert report.ok, report.problems
    assert {t.name: t.rows for t in report.tables} == {"checkpoints": 1, "receipts": 1}
    with open_logset(logs, mapping="auto") as logset:
        rows = logset.con.sql("SELECT __row, recorded_at FROM receipts").fetchall()
    assert rows == [(1, at(3).replace(tzinfo=None))]


def test_jsonl_text_is_read_as_written(tmp_path: Path) -> None:
    """DuckDB's JSON reader makes types of strings: an upper-case UUID came back in
    lower case, and an identifier that looks like a time as that time's text. Text
    the contract reads as text is the text in the file."""
    logs = tmp_path / "logs"
    logs.mkdir()
    ids = ["A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", "B0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A12"]
    lines = [
        {
            **receipt(e, n, recorded=n, attempt="2026-01-01T00:00:05Z"),
            "recorded_at": f"2026-01-01T00:00:0{n}.000000007Z",
        }
        for n, e in enumerate(ids, start=1)
    ]
    (logs / "r.jsonl").write_text("\n".join(json.dumps(r) for r in lines) + "\n")
    write_logset(logs, {"checkpoints": [checkpoint(written=5)]})
    (logs / "reconcile.toml").write_text('[receipts]\nfiles = "r.jsonl"\n')
    report = validate_logset(logs, mapping="auto")
    assert report.ok, report.problems
    with open_logset(logs, mapping="auto") as logset:
        rows = logset.con.sql(
            "SELECT event_id, attempt_id, epoch_ns(recorded_at) % 10 FROM receipts ORDER BY __row"
        ).fetchall()
    assert rows == [(e, "2026-01-01T00:00:05Z", 7) for e in ids]


def _jsonl_receipts(tmp_path: Path, fields: list[dict[str, Any]], mapping: str) -> Path:
    """A log set of one checkpoint and two receipts in JSON Lines, each receipt with
    its ``fields`` added, read through ``mapping`` (its [receipts] section)."""
    logs = tmp_path / "logs"
    logs.mkdir(parents=True)
    lines = [{**receipt(f"e{n}", n), **extra} for n, extra in enumerate(fields, start=1)]
    for line in lines:
        line.pop("recorded_at")
    (logs / "r.jsonl").write_text("\n".join(json.dumps(r) for r in lines) + "\n")
    write_logset(logs, {"checkpoints": [checkpoint(written=5)]})
    (logs / "reconcile.toml").write_text(f'[receipts]\nfiles = "r.jsonl"\n{mapping}')
    return logs


def _recorded(logs: Path) -> list[tuple[Any, ...]]:
    with open_logset(logs, mapping="auto") as logset:
        return logset.con.sql(
            "SELECT event_id, epoch_ns(recorded_at) FROM receipts ORDER BY __row"
        ).fetchall()


S5 = 1_767_225_605 * 10**9  # 2026-01-01T00:00:05Z


def test_json_times_in_another_format_are_read_by_the_mappings_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """DuckDB takes "01-02-2026" for the 1st of February; a format the mapping gives
    is what reads it (it was ignored: the 2nd of January read as the 1st of February).
    Without a format such text is text, as in CSV: refused, not guessed."""
    fields = [{"ts": "01-02-2026 00:00:05"}, {"ts": "01-02-2026 00:00:06"}]
    given = '[receipts.columns]\nrecorded_at = { column = "ts", timestamp = "%m-%d-%Y %H:%M:%S" }\n'
    logs = _jsonl_receipts(tmp_path / "given", fields, given)
    report = validate_logset(logs, mapping="auto")
    assert report.ok, report.problems
    jan2 = S5 + 86_400 * 10**9
    assert [ns for _, ns in _recorded(logs)] == [jan2, jan2 + 10**9]
    plain = _jsonl_receipts(tmp_path / "plain", fields, '[receipts.columns]\nrecorded_at = "ts"\n')
    assert main(["validate", str(plain), "--mapping", "auto"]) == 2
    said = capsys.readouterr().out
    assert "column recorded_at should be timestamp, found string" in said
    assert 'timestamp = "rfc3339" or a strptime format' in said


def test_an_unrelated_field_costs_no_nanoseconds(tmp_path: Path) -> None:
    """A field of times in another format, or inside an object, read only by DuckDB's
    detection, made every field of the files DuckDB's reading, to the microsecond."""
    fields = [
        {"ts": "2026-01-01T00:00:05.000000007Z", "note": "02-01-2026 10:00:00"},
        {"ts": "2026-01-01T00:00:05.000000007Z", "note": "02-01-2026 10:00:00"},
    ]
    logs = _jsonl_receipts(tmp_path, fields, '[receipts.columns]\nrecorded_at = "ts"\n')
    report = validate_logset(logs, mapping="auto")
    assert report.ok, report.problems
    assert [ns for _, ns in _recorded(logs)] == [S5 + 7] * 2


def test_json_time_out_of_range_is_named_by_its_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sentinel year 9999 is a problem of its row, not an unreadable table."""
    fields = [{"ts": "2026-01-01T00:00:05Z"}, {"ts": "9999-12-31T23:59:59Z"}]
    logs = _jsonl_receipts(tmp_path, fields, '[receipts.columns]\nrecorded_at = "ts"\n')
    assert main(["validate", str(logs), "--mapping", "auto", "--json"]) == 2
    (problem,) = json.loads(capsys.readouterr().out)["problems"]
    assert (problem["check"], problem["column"]) == ("timestamp_in_range", "recorded_at")
    assert problem["examples"][0]["row"] == 1


def test_json_uuids_and_nested_times_keep_duckdbs_types(tmp_path: Path) -> None:
    """A filter on a UUID compares as UUIDs (any case), and a time inside an object,
    mapped through sql, reads as a time: as before the JSON reading kept text."""
    fields = [
        {
            "src": "3F2504E0-4F89-11D3-9A0C-0305E82C3301",
            "meta": {"at": "2026-01-01T01:00:05+01:00"},
        },
        {
            "src": "4F2504E0-4F89-11D3-9A0C-0305E82C3301",
            "meta": {"at": "2026-01-01T01:00:06+01:00"},
        },
    ]
    mapping = (
        "filter = \"src = '3f2504e0-4f89-11d3-9a0c-0305e82c3301'\"\n"
        '[receipts.columns]\nrecorded_at = { sql = "meta.at" }\n'
    )
    logs = _jsonl_receipts(tmp_path, fields, mapping)
    report = validate_logset(logs, mapping="auto")
    assert report.ok, report.problems
    assert _recorded(logs) == [("e1", S5)]


@pytest.mark.parametrize(
    ("at", "nanos"),
    [
        ("2026-01-01T01:00:05+01:00", 7),  # read in DuckDB's default format: kept
        ("01-01-2026 00:00:05", 7),  # another format: the object is read as JSON
    ],
)
def test_json_nested_times_beside_a_top_level_one(tmp_path: Path, at: str, nanos: int) -> None:
    """A time inside an object does not cost a top-level RFC 3339 time its
    nanoseconds, unless DuckDB can only read the nested one by its own detection."""
    fields = [{"ts": "2026-01-01T00:00:05.000000007Z", "meta": {"at": at}}] * 2
    mapping = '[receipts.columns]\nrecorded_at = "ts"\n'
    logs = _jsonl_receipts(tmp_path, fields, mapping)
    report = validate_logset(logs, mapping="auto")
    assert report.ok, report.problems
    assert [ns for _, ns in _recorded(logs)] == [S5 + nanos] * 2


def test_rfc3339_on_numbers_names_the_epoch_units(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fields = [{"ts": 1767225605000}, {"ts": 1767225606000}]
    mapping = '[receipts.columns]\nrecorded_at = { column = "ts", timestamp = "rfc3339" }\n'
    logs = _jsonl_receipts(tmp_path, fields, mapping)
    assert main(["validate", str(logs), "--mapping", "auto"]) == 2
    assert "rfc3339 reads text; for numbers give an epoch unit" in capsys.readouterr().err


def test_rfc3339_text_times_and_their_suggestion(tmp_path: Path) -> None:
    """Text times in RFC 3339 are read to the nanosecond with their offsets
    (``timestamp = "rfc3339"``), and suggest proposes that reading for them."""
    rows = _cp_rows()
    logs = _csv_logset(tmp_path, rows)
    for name in ("a.csv", "b.csv"):
        frame = pl.read_csv(logs / "cp" / name, infer_schema=False)
        frame.with_columns(
            pl.lit("2026-01-01t02:00:05.123456789+02:00").alias("written")
        ).write_csv(logs / "cp" / name)
    text = suggest_mapping(logs)
    written = tomllib.loads(text)["checkpoints"]["columns"]["written_at"]
    assert written == {"column": "written", "timestamp": "rfc3339"}
    (logs / "reconcile.toml").write_text(text)
    with open_logset(logs, mapping="auto", validate=False) as logset:
        got = logset.con.sql("SELECT DISTINCT epoch_ns(written_at) FROM checkpoints").fetchall()
    assert got == [(1_767_225_605_123_456_789,)]


# --- errors in the mapping: clear, exit 2 -------------------------------------


@pytest.mark.parametrize(
    ("mapping", "says"),
    [
        ("[checkpoints\n", "is not valid TOML"),
        ("[receits]\nfiles = 'x'\n", "receits: no such contract table"),
        (
            "[checkpoints]\nfiles = 'cp/*.csv'\n[checkpoints.columns]\nparttion_id = 'shard'\n",
            "parttion_id: no such column of checkpoints",
        ),
        (
            "[checkpoints]\nfiles = 'cp/*.csv'\n[checkpoints.columns]\npartition_id = 'shrd'\n",
            "partition_id = 'shrd': no such column; the files' columns are shard",
        ),
        ("[checkpoints]\nfiles = 'cp/*.parquet'\n", "matches no file"),
        (
            "[checkpoints]\nfiles = 'cp/*.csv'\nfilter = 'nokind = 1'\n",
            "filter 'nokind = 1' does not apply",
        ),
        (
            "[checkpoints]\nfiles = 'cp/*.csv'\n[checkpoints.columns]\n"
            "written_at = { column = 'written', timestamp = 'epoch_ms' }\n",
            "written_at = written (epoch_ms): cannot convert VARCHAR",
        ),
        (
            "[checkpoints]\nfiles = 'cp/*.csv'\n[checkpoints.columns]\n"
            "written_at = { column = 'written', timestamp = 'fortnights' }\n",
            "neither an epoch unit (epoch_s, epoch_ms, epoch_us, epoch_ns), rfc3339 nor",
        ),
        (
            "[checkpoints]\nfiles = 'cp/*.csv'\n[checkpoints.columns]\n"
            "generation = { column = 'gen', constant = 1 }\n",
            "exactly one of column, sql or constant",
        ),
        ("[checkpoints]\nfiles = 'cp/*.csv'\nfrom = 'x'\n", "unknown key(s) from"),
    ],
)
def test_mapping_errors_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mapping: str, says: str
) -> None:
    logs = _csv_logset(tmp_path, _cp_rows(), mapping=mapping)
    for command in (
        ["validate", str(logs), "--mapping", "auto"],
        ["audit", str(logs), "--mapping", "auto", "--out", str(tmp_path / "r")],
    ):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert says in err, err
        assert "reconcile.toml" in err
    assert not (tmp_path / "r").exists()
    with pytest.raises(MappingError):
        validate_logset(logs, mapping="auto")


@pytest.mark.parametrize("other", ["CAS", "cas"])
def test_a_column_name_twice_in_a_file_is_refused(tmp_path: Path, other: str) -> None:
    """A display column "CAS" (or a second "cas") before the real one: DuckDB reads the
    two as one name and the mapping took the first, every lost write read as won,
    without a word. CSV and Parquet alike."""
    logs = _csv_logset(tmp_path, _cp_rows())
    for name in ("a.csv", "b.csv"):
        lines = (logs / "cp" / name).read_text().splitlines()
        lines = [f"{other},{lines[0]}"] + [f"Y,{line}" for line in lines[1:]]
        (logs / "cp" / name).write_text("\n".join(lines) + "\n")
    said = "column 'cas' twice" if other == "cas" else "columns 'CAS' and 'cas'"
    with pytest.raises(MappingError, match=f"file cp/a.csv has {said}"):
        validate_logset(logs, mapping="auto")
    if other == "CAS":
        frame = pl.read_csv(logs / "cp" / "b.csv", infer_schema=False)
        for name in ("a.csv", "b.csv"):
            (logs / "cp" / name).unlink()
        frame.write_parquet(logs / "cp" / "c.parquet")
        (logs / "reconcile.toml").write_text(MAPPING.replace("cp/*.csv", "cp/*.parquet"))
        with pytest.raises(MappingError, match=r"file cp/c\.parquet has columns 'CAS' and 'cas'"):
            validate_logset(logs, mapping="auto")


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('{"cas": "N", ', "column 'cas' twice"),  # the object's own key again
        ('{"CAS": "Y", ', "columns 'CAS' and 'cas'"),
    ],
)
def test_a_key_twice_in_a_json_lines_file_is_refused(tmp_path: Path, line: str, said: str) -> None:
    """JSON Lines alike: one object (the last of its file, past any sample) holding
    ``cas`` twice, or ``CAS`` beside ``cas``; DuckDB reads one of the two values."""
    logs = _csv_logset(tmp_path, _cp_rows(5))
    (logs / "reconcile.toml").write_text(MAPPING.replace("cp/*.csv", "cp/*.jsonl"))
    for name in ("a", "b"):
        frame = pl.read_csv(logs / "cp" / f"{name}.csv")
        (logs / "cp" / f"{name}.csv").unlink()
        lines = [json.dumps(row) for row in frame.to_dicts()]
        if name == "b":
            lines[-1] = line + lines[-1][1:]
        (logs / "cp" / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(MappingError, match=f"file cp/b.jsonl has {said}"):
        validate_logset(logs, mapping="auto")
    (logs / "cp" / "b.jsonl").write_text((logs / "cp" / "b.jsonl").read_text().replace(line, "{"))
    report = validate_logset(logs, mapping="auto")
    assert report.ok, report.problems


@pytest.mark.parametrize("written", ["1767225600000000001.0", "1.767225600000000001e18"])
def test_epoch_ns_read_as_floating_point_is_refused(tmp_path: Path, written: str) -> None:
    """One file wrote its epoch with a fraction: DuckDB read the column as a double
    in every file, and whole nanoseconds became the nearest 256 (a lost write at
    04.000000000 and a won one at 04.000000001 then tied), without a word."""
    logs = _csv_logset(tmp_path, _cp_rows())
    mapping = MAPPING.replace(
        'written_at = { column = "written", timestamp = "%d/%m/%Y %H:%M:%S" }',
        'written_at = { column = "written", timestamp = "epoch_ns" }',
    )
    (logs / "reconcile.toml").write_text(mapping)
    for number, name in enumerate(("a.csv", "b.csv")):
        frame = pl.read_csv(logs / "cp" / name, infer_schema=False)
        epoch = [str(1767225600000000001 + i) for i in range(frame.height)]
        if number:
            epoch[0] = written
        frame.with_columns(written=pl.Series(epoch)).write_csv(logs / "cp" / name)
    with pytest.raises(MappingError, match="epoch_ns values read as floating point"):
        validate_logset(logs, mapping="auto")


def test_a_csv_bool_column_without_a_value_reads_as_null(tmp_path: Path) -> None:
    """Every wm_incl field empty: DuckDB reads such a column as text, and the nullable
    watermark_inclusive was refused as "should be bool, found string"."""
    logs = _csv_logset(tmp_path, _cp_rows())
    for name in ("a.csv", "b.csv"):
        frame = pl.read_csv(logs / "cp" / name, infer_schema=False)
        frame.with_columns(wm_incl=pl.lit(None, pl.String)).write_csv(logs / "cp" / name)
    report = validate_logset(logs, mapping="auto")
    assert report.ok, report.problems
    with open_logset(logs, mapping="auto") as logset:
        claims = Analysis(logset).watermarks()
    assert claims["claimed_inclusive"].null_count() == claims.height


def test_a_hive_folder_named_like_a_column_of_the_file_is_refused(tmp_path: Path) -> None:
    """cp/shard=bucket-0/ over files with their own shard column: DuckDB read the
    folder's value in the column's place, moving rows to partitions that were not
    theirs (a claim past a failure then passed clean)."""
    logs = _csv_logset(tmp_path, _cp_rows())
    (logs / "cp" / "shard=bucket-0").mkdir()
    (logs / "cp" / "a.csv").rename(logs / "cp" / "shard=bucket-0" / "a.csv")
    (logs / "reconcile.toml").write_text(MAPPING.replace("cp/*.csv", "cp/**/*.csv"))
    with pytest.raises(MappingError, match=r"lies under a folder shard=\.\.\. and has a column"):
        validate_logset(logs, mapping="auto")


def test_a_value_the_map_does_not_cover(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _cp_rows()
    logs = _csv_logset(tmp_path, rows, mapping=MAPPING.replace(', N = "lost"', ""))
    (logs / "cp" / "b.csv").write_text((logs / "cp" / "b.csv").read_text().replace(",Y,", ",N,", 1))
    report = validate_logset(logs, mapping="auto")
    [problem] = report.problems
    assert problem.check == "unmapped_value"
    assert (problem.table, problem.column, problem.source) == (
        "checkpoints",
        "cas_result",
        "cas (value map)",
    )
    assert problem.files == ("cp/b.csv",)
    assert problem.examples == ({"file": "cp/b.csv", "row": 0, "cas": "N"},)
    assert "'N'" in problem.message
    assert main(["validate", str(logs), "--mapping", "auto"]) == 2
    out = capsys.readouterr().out
    assert "column cas_result (mapped from cas (value map))" in out
    assert "mapping: " in out


def test_problems_name_the_users_file_row_and_column(tmp_path: Path) -> None:
    """A broken row of a mapped table: the user's file, its row there, their column."""
    rows = _cp_rows()
    rows[2]["owner_epoch"] = -4
    logs = _csv_logset(tmp_path, rows)
    report = validate_logset(logs, mapping="auto")
    [problem] = report.problems
    assert (problem.table, problem.column, problem.check) == (
        "checkpoints",
        "owner_epoch",
        "greater_than_or_equal_to",
    )
    assert problem.source == "sql CAST(lease AS BIGINT)"
    assert problem.files == ("cp/b.csv",)
    assert problem.examples[0]["file"] == "cp/b.csv"
    assert problem.examples[0]["row"] == 1
    assert report.to_dict()["problems"][0]["source"] == "sql CAST(lease AS BIGINT)"


def test_a_required_column_left_unmapped(tmp_path: Path) -> None:
    logs = _csv_logset(tmp_path, _cp_rows(), mapping=MAPPING.replace('attempt_id = "run"\n', ""))
    report = validate_logset(logs, mapping="auto")
    [problem] = report.problems
    assert (problem.check, problem.column, problem.source) == (
        "missing_column",
        "attempt_id",
        "not mapped",
    )
    assert "map it in [checkpoints.columns]" in problem.message


def test_a_mapped_column_of_the_wrong_type(tmp_path: Path) -> None:
    mapping = MAPPING.replace('watermark = "wm"', 'watermark = "run"')
    [problem] = validate_logset(
        _csv_logset(tmp_path, _cp_rows(), mapping=mapping), mapping="auto"
    ).problems
    assert (problem.check, problem.column, problem.source) == ("wrong_type", "watermark", "run")
    assert problem.files == ("cp/a.csv", "cp/b.csv")


@pytest.mark.slow
def test_the_input_is_left_as_it_was(tmp_path: Path) -> None:
    logs = tmp_path / "foreign"
    shutil.copytree(DATA / "foreign", logs)
    before = {p.name: p.read_bytes() for p in logs.iterdir()}
    assert main(["audit", str(logs), "--mapping", "auto", "--out", str(tmp_path / "r")]) == 1
    assert main(["map", "suggest", str(logs)]) == 0
    assert {p.name: p.read_bytes() for p in logs.iterdir()} == before


def test_mapping_objects_are_accepted(tmp_path: Path) -> None:
    mapping = load_mapping(DATA / "foreign" / "reconcile.toml")
    assert isinstance(mapping, LogMapping)
    report = validate_logset(DATA / "foreign", mapping=mapping)
    assert report.ok
    assert report.mapping == str(DATA / "foreign" / "reconcile.toml")


# --- a property: any renaming, spelling, unit and format reads back exactly -----

TEXT = st.text(alphabet="ab07 ,'_xY", min_size=1, max_size=5).filter(lambda t: t.strip() == t)
UNITS = {"epoch_s": 10**9, "epoch_ms": 10**6, "epoch_us": 10**3, "epoch_ns": 1, "rfc3339": 1}
OUTCOMES = ("committed", "dead_lettered", "failed", "ineligible")
COLUMNS = (
    "scope_id",
    "partition_id",
    "event_id",
    "position",
    "outcome",
    "eligibility_stable",
    "attempt_id",
    "owner_epoch",
    "page_id",
    "recorded_at",
)


@st.composite
def foreign_receipts(draw: st.DrawFn) -> dict[str, Any]:
    rows = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "scope_id": TEXT,
                    "partition_id": TEXT,
                    "event_id": TEXT,
                    "position": st.integers(-(10**12), 10**12),
                    "outcome": st.sampled_from(OUTCOMES),
                    "eligibility_stable": st.none() | st.booleans(),
                    "attempt_id": TEXT,
                    "owner_epoch": st.none() | st.integers(0, 10**6),
                    "page_id": st.none() | TEXT,
                    "recorded_at": st.integers(0, 4 * 10**18),
                }
            ),
            min_size=1,
            max_size=8,
        )
    )
    names = draw(
        st.lists(
            st.text(alphabet="abcdefgh_", min_size=3, max_size=8),
            min_size=len(COLUMNS),
            max_size=len(COLUMNS),
            unique=True,
        )
    )
    spellings = draw(st.lists(TEXT, min_size=4, max_size=4, unique=True))
    return {
        "rows": rows,
        "names": dict(zip(COLUMNS, names, strict=True)),
        "spellings": dict(zip(OUTCOMES, spellings, strict=True)),
        "unit": draw(st.sampled_from(sorted(UNITS))),
        "format": draw(st.sampled_from(["parquet", "csv", "jsonl"])),
        "split": draw(st.integers(0, len(rows))),
        # rfc3339: the offset in minutes, and how the text is spelled
        "offset": draw(st.integers(-14 * 60, 14 * 60)),
        "spelling": draw(st.sampled_from(["T", "t", " "])),
    }


def rfc3339_text(ns: int, offset: int, separator: str) -> str:
    """An instant (ns since the epoch) as RFC 3339 text at an offset (minutes): the
    fraction's nine digits, trailing zeros dropped (none where it is whole)."""
    local = datetime.fromtimestamp(ns // 10**9, UTC) + timedelta(minutes=offset)
    fraction = f"{ns % 10**9:09d}".rstrip("0")
    sign, size = ("+" if offset >= 0 else "-"), abs(offset)
    zone = "Z" if offset == 0 else f"{sign}{size // 60:02d}:{size % 60:02d}"
    text = local.strftime(f"%Y-%m-%d{separator}%H:%M:%S") + (f".{fraction}" if fraction else "")
    return text + (zone.lower() if separator == "t" else zone)


def reference_rows(case: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What the mapping must read, by hand: the rows, times floored to the unit."""
    factor = UNITS[case["unit"]]
    return [
        (*(row[c] for c in COLUMNS[:-1]), row["recorded_at"] // factor * factor)
        for row in case["rows"]
    ]


def write_foreign(folder: Path, case: dict[str, Any]) -> None:
    names, factor = case["names"], UNITS[case["unit"]]
    frame = pl.DataFrame(
        {
            names[c]: [
                case["spellings"][r[c]]
                if c == "outcome"
                else rfc3339_text(r[c], case["offset"], case["spelling"])
                if c == "recorded_at" and case["unit"] == "rfc3339"
                else r[c] // factor
                if c == "recorded_at"
                else r[c]
                for r in case["rows"]
            ]
            for c in COLUMNS
        },
        schema_overrides={names["owner_epoch"]: pl.Int64, names["page_id"]: pl.String},
    )
    extension = {"parquet": "parquet", "csv": "csv", "jsonl": "jsonl"}[case["format"]]
    for number, part in enumerate((frame.head(case["split"]), frame.slice(case["split"]))):
        path = folder / "logs" / f"part{number}.{extension}"
        if case["format"] == "parquet":
            part.write_parquet(path)
        elif case["format"] == "csv":
            part.write_csv(path)
        else:
            part.write_ndjson(path)
    columns = [f'{c} = "{names[c]}"' for c in COLUMNS if c not in ("outcome", "recorded_at")]
    spelled = ", ".join(f'"{v}" = "{k}"' for k, v in case["spellings"].items())
    columns.append(f'outcome = {{ column = "{names["outcome"]}", values = {{ {spelled} }} }}')
    columns.append(
        f'recorded_at = {{ column = "{names["recorded_at"]}", timestamp = "{case["unit"]}" }}'
    )
    (folder / "mapping.toml").write_text(
        f'[receipts]\nfiles = "logs/*.{extension}"\n[receipts.columns]\n' + "\n".join(columns)
    )


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(case=foreign_receipts())
@pytest.mark.slow
def test_any_foreign_layout_reads_back_exactly(tmp_path: Path, case: dict[str, Any]) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    (folder / "logs").mkdir()
    (folder / "checkpoints.parquet").write_bytes(b"")  # not read: receipts alone
    write_foreign(folder, case)
    mapping = load_mapping(folder / "mapping.toml")
    with open_logset(folder, mapping=mapping, validate=False) as logset:
        got = logset.con.sql(
            f"SELECT {', '.join(COLUMNS[:-1])}, epoch_ns(recorded_at) FROM receipts"
            " ORDER BY __file, __row"
        ).fetchall()
    assert got == reference_rows(case)


def test_notebook_investigations_read_through_the_mapping(twin: Path) -> None:
    """The investigation helpers see the mapped views as they see the contract's."""
    frames = []
    for path in (DATA / "foreign", twin):
        with open_logset(path, mapping=own_mapping(path)) as logset:
            analysis = Analysis(logset)
            frames.append(
                (
                    event_trail(analysis, "s0", "p0002", "e0000100"),
                    partition_pages(analysis, "s0", "p0002"),
                    membership(analysis),
                )
            )
    for mapped, plain in zip(*frames, strict=True):
        assert mapped.height > 0
        assert mapped.equals(plain)


@pytest.mark.parametrize(
    "options",
    [
        SimOptions(
            seed=4,
            partitions=4,
            events=2000,
            coordinate="timestamp",
            evidence=Evidence.MIXED,
            scopes=2,
            eligibility=Eligibility.MUTABLE,
        ),
        SimOptions(seed=3, partitions=5, events=2500, membership=Membership.SPLIT),
        SimOptions(seed=7, partitions=3, events=1500, evidence=Evidence.SNAPSHOT),
    ],
    ids=["timestamps-two-scopes", "membership", "snapshot"],
)
@pytest.mark.slow
def test_simulated_foreign_layouts(tmp_path: Path, options: SimOptions) -> None:
    """Timestamp coordinates (text times in CSV), membership, snapshot evidence: the
    foreign layout audits as its twin, and suggest finds its mapping, value maps
    aside (those it proposes hold the values the data has, spelled right)."""
    contract = simulate(tmp_path / "contract", options).path
    foreign = tmp_path / "foreign"
    shutil.copytree(contract, foreign)
    to_foreign(foreign)
    floor_to_ms(contract)
    _same(_audit(foreign), _audit(contract))
    reference = load_mapping(foreign / "reconcile.toml")
    suggested = tmp_path / "suggested.toml"
    suggested.write_text(suggest_mapping(foreign), encoding="utf-8")
    mapping = load_mapping(suggested)
    assert sorted(t.table for t in mapping.tables) == sorted(t.table for t in reference.tables)
    for spec in reference.tables:
        got = mapping.table(spec.table)
        assert got is not None
        assert _shape(got) == _shape(spec), spec.table
        for name, column in spec.columns:
            proposed = got.column(name)
            assert proposed is not None
            assert set(proposed.values) <= set(column.values), (spec.table, name)
    _same(_audit(foreign, suggested), _audit(contract))


def test_suggest_reads_text_times_and_says_when_day_and_month_are_ambiguous(
    tmp_path: Path,
) -> None:
    rows = _cp_rows()
    logs = _csv_logset(tmp_path, rows)  # written as %d/%m/%Y: 01/01/2026, all ambiguous
    text = suggest_mapping(logs)
    columns = tomllib.loads(text)["checkpoints"]["columns"]
    assert columns["written_at"] == {"column": "written", "timestamp": "%d/%m/%Y %H:%M:%S"}
    assert "day and month could be either way round" in text
    frame = pl.read_csv(logs / "cp" / "b.csv", infer_schema=False)
    frame.with_columns(pl.lit("13/01/2026 00:00:00").alias("written")).write_csv(
        logs / "cp" / "b.csv"
    )
    again = suggest_mapping(logs)
    assert "day and month could be either way round" not in again
    assert tomllib.loads(again)["checkpoints"]["columns"]["written_at"]["timestamp"] == (
        "%d/%m/%Y %H:%M:%S"
    )


@pytest.mark.parametrize("name", ["clean", "example", "timestamps"])
def test_suggest_leaves_the_contract_layout_alone(name: str) -> None:
    text = suggest_mapping(DATA / name)
    assert tomllib.loads(text) == {}
    assert "checkpoints.parquet: in the contract's layout, read as it is" in text


def test_text_flags_through_a_value_map_and_their_suggestion(tmp_path: Path) -> None:
    """Y/N for a bool column: a value map to true/false reads as the contract's bool,
    and suggest proposes it."""
    rows = _cp_rows()
    mapping = MAPPING.replace(
        'watermark_inclusive = "wm_incl"',
        'watermark_inclusive = { column = "wm_incl", values = { Y = true, N = false } }',
    )
    logs = _csv_logset(tmp_path, rows, mapping=mapping)
    for name in ("a.csv", "b.csv"):
        path = logs / "cp" / name
        frame = pl.read_csv(path, infer_schema=False)
        frame.with_columns(pl.col("wm_incl").replace_strict({"true": "Y", "false": "N"})).write_csv(
            path
        )
    contract = write_logset(tmp_path / "contract", {"checkpoints": rows})
    with open_logset(logs, mapping="auto") as mapped, open_logset(contract) as plain:
        a = mapped.con.sql("SELECT generation, watermark_inclusive FROM checkpoints ORDER BY 1")
        b = plain.con.sql("SELECT generation, watermark_inclusive FROM checkpoints ORDER BY 1")
        assert a.fetchall() == b.fetchall()
    suggested = tomllib.loads(suggest_mapping(logs))["checkpoints"]["columns"]
    assert suggested["watermark_inclusive"] == {"column": "wm_incl", "values": {"Y": True}}
