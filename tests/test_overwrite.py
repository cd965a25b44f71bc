"""Checkpoints written without compare-and-swap (docs/contract.md §3): a checkpoints
file without owner_epoch, expected_generation, generation and cas_result holds
writes that all win, in written_at order, each generation its rank; the rules that
need compare-and-swap do not apply, and every output says so."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconcile import open_logset
from reconcile.audit import audit
from reconcile.cli import main
from reconcile.validate import validate_logset
from reconcile_schemas.names import CAS_COLUMNS
from tests.conftest import fast_tier

DATA = Path(__file__).resolve().parents[1] / "data"
CAS_RULES = {"cas_chain_broken", "stale_owner_won", "mixed_checkpoint"}
REPORT_TABLES = ("watermarks", "frontiers", "frontier_history")


def _won_ranked(checkpoints: pl.DataFrame) -> pl.DataFrame:
    """The won writes, generations remade as the reader ranks writes without
    compare-and-swap: by written_at, attempt_id, then the row's place in its file."""
    return (
        checkpoints.filter(pl.col("cas_result") == "won")
        .with_row_index("n")
        .sort("written_at", "attempt_id", "n")
        .with_columns(
            pl.int_range(1, pl.len() + 1).over("scope_id", "partition_id").alias("generation")
        )
        .with_columns(
            (pl.col("generation") - 1).alias("expected_generation"),
            pl.lit(0, dtype=pl.Int64).alias("owner_epoch"),
        )
        .sort("n")
        .drop("n")
        .select(checkpoints.columns)
    )


def _pair(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """The log set ``name`` twice, with its won writes only: once with compare-and-swap
    columns as the reader would make them, once without those columns."""
    with_cas, without = tmp_path / f"{name}-cas", tmp_path / f"{name}-overwrite"
    for folder in (with_cas, without):
        shutil.copytree(DATA / name, folder)
    ranked = _won_ranked(pl.read_parquet(DATA / name / "checkpoints.parquet"))
    ranked.write_parquet(with_cas / "checkpoints.parquet")
    ranked.drop(*CAS_COLUMNS).write_parquet(without / "checkpoints.parquet")
    return with_cas, without


@pytest.mark.parametrize(
    "name", fast_tier(["example", "stuck", "clean", "timestamps"], keep=["example"])
)
def test_writes_without_cas_audit_as_their_won_chain(tmp_path: Path, name: str) -> None:
    """Dropping the four columns from a log of won writes ranked in time changes no
    watermark, frontier or history, and no finding but those of the rules that need
    compare-and-swap, which say they do not apply."""
    with_cas, without = _pair(tmp_path, name)
    with open_logset(with_cas) as a, open_logset(without) as b:
        mine, theirs = audit(a), audit(b)
    for table in REPORT_TABLES:
        assert getattr(mine, table).equals(getattr(theirs, table)), table
    kept = pl.col("rule").is_in(list(CAS_RULES)).not_()
    assert mine.findings.filter(kept).equals(theirs.findings.filter(kept))
    assert theirs.findings.filter(~kept).is_empty()
    assert mine.not_applicable.is_empty()
    scopes = sorted(set(pl.read_parquet(without / "checkpoints.parquet")["scope_id"]))
    assert theirs.not_applicable.rows() == [
        (s, r, "no compare-and-swap in these logs") for s in scopes for r in sorted(CAS_RULES)
    ]


@pytest.mark.slow  # a whole audit and its outputs read (2 s): outside the fast tier
def test_every_output_says_the_cas_rules_do_not_apply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, without = _pair(tmp_path, "stuck")
    out = tmp_path / "report"
    main(["audit", str(without), "--out", str(out)])
    said = "cas_chain_broken, mixed_checkpoint, stale_owner_won not applicable: no"
    assert said in " ".join(capsys.readouterr().out.split())
    summary = json.loads((out / "summary.json").read_text())
    assert {r["rule"] for r in summary["not_applicable"]} == CAS_RULES
    assert said in (out / "summary.md").read_text().replace("\\_", "_")
    assert said in (out / "report.html").read_text()
    junit = (out / "junit.xml").read_text()
    for rule in CAS_RULES:
        case = junit.split(f'name="{rule}"', 1)[1].split("</testcase>", 1)[0]
        assert 'skipped message="not applicable: no compare-and-swap in these logs"' in case
    # with compare-and-swap: nothing said, every rule applies
    main(["audit", str(DATA / "stuck"), "--out", str(tmp_path / "cas")])
    assert json.loads((tmp_path / "cas" / "summary.json").read_text())["not_applicable"] == []
    assert "not applicable: no compare" not in capsys.readouterr().out


def _write(folder: Path, rows: list[dict[str, object]]) -> None:
    shutil.copytree(DATA / "example", folder)
    pl.DataFrame(
        rows,
        schema={
            "scope_id": pl.String,
            "partition_id": pl.String,
            "attempt_id": pl.String,
            "written_at": pl.Datetime("us"),
            "watermark": pl.Int64,
            "watermark_inclusive": pl.Boolean,
            "resume_token": pl.String,
        },
    ).write_parquet(folder / "checkpoints.parquet")


T0 = datetime(2026, 1, 1)

write = st.fixed_dictionaries(
    {
        "partition_id": st.sampled_from(["p1", "p2"]),
        "attempt_id": st.sampled_from(["a", "b"]),
        "second": st.integers(0, 4),
        "watermark": st.integers(0, 6),
        "resume_token": st.sampled_from([None, "t1", "t2"]),
    }
)


@pytest.mark.slow  # a property test of about 20 s: outside the fast tier
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(write, min_size=1, max_size=8))
def test_generations_are_ranks_in_time_and_state_ties_are_refused(
    tmp_path_factory: pytest.TempPathFactory, writes: list[dict[str, object]]
) -> None:
    """Against a plain reading: a partition's writes sorted by (written_at,
    attempt_id, row) are generations 1, 2, ...; two writes of a partition at one
    instant that differ in state make the log set invalid; the claimed certificate
    at T is the last write's watermark."""
    folder = tmp_path_factory.mktemp("overwrite") / "logs"
    rows = [
        {
            "scope_id": "s",
            "partition_id": w["partition_id"],
            "attempt_id": w["attempt_id"],
            "written_at": T0 + timedelta(seconds=int(w["second"])),  # type: ignore[call-overload]
            "watermark": w["watermark"],
            "watermark_inclusive": True,
            "resume_token": w["resume_token"],
        }
        for w in writes
    ]
    _write(folder, rows)
    states: dict[tuple[object, object], set[tuple[object, object]]] = {}
    for r in rows:
        states.setdefault((r["partition_id"], r["written_at"]), set()).add(
            (r["watermark"], r["resume_token"])
        )
    tie = any(len(s) > 1 for s in states.values())
    report = validate_logset(folder)
    assert report.ok == (not tie)
    if tie:
        assert "checkpoints_overwrite_tie" in {p.check for p in report.problems}
        return
    expected: dict[int, int] = {}
    last: dict[object, object] = {}
    for partition in ("p1", "p2"):
        mine = sorted(
            (r["written_at"], r["attempt_id"], n)
            for n, r in enumerate(rows)
            if r["partition_id"] == partition
        )
        for rank, (_, _, n) in enumerate(mine, start=1):
            expected[n] = rank
        if mine:
            last[partition] = rows[mine[-1][2]]["watermark"]
    with open_logset(folder) as logset:
        view = pl.from_arrow(
            logset.relation("checkpoints")
            .select("__row, generation, expected_generation, cas_result, owner_epoch")
            .to_arrow_table()
        )
        assert isinstance(view, pl.DataFrame)
        result = audit(logset)
    got = {r["__row"]: r["generation"] for r in view.iter_rows(named=True)}
    assert got == expected
    assert (view["expected_generation"] == view["generation"] - 1).all()
    assert set(view["cas_result"]) == {"won"} and set(view["owner_epoch"]) == {0}
    claimed = {
        r["partition_id"]: r["claimed_through"]
        for r in result.watermarks.iter_rows(named=True)
        if r["partition_id"] in last
    }
    assert claimed == last


def test_a_file_with_some_cas_columns_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "partial"
    shutil.copytree(DATA / "example", folder)
    checkpoints = pl.read_parquet(folder / "checkpoints.parquet")
    checkpoints.drop("owner_epoch", "cas_result").write_parquet(folder / "checkpoints.parquet")
    assert main(["audit", str(folder), "--out", str(tmp_path / "out")]) == 2
    captured = capsys.readouterr()
    said = " ".join((captured.out + captured.err).split())
    assert "cas_columns_partial" in said
    assert "lacks owner_epoch, cas_result but has the other compare-and-swap columns" in said
    assert "checkpoints.parquet" in said


def test_a_scope_of_both_kinds_is_refused_and_scopes_of_each_kind_are_not(
    tmp_path: Path,
) -> None:
    """Hive folders by scope: s1's files with compare-and-swap, s2's without; a third
    file without it for s1 makes s1 of both kinds."""
    folder = tmp_path / "hive"
    shutil.copytree(DATA / "example", folder)
    (folder / "checkpoints.parquet").unlink()
    base = pl.read_parquet(DATA / "example" / "checkpoints.parquet").drop("scope_id")
    for scope, frame in (("s1", base), ("s2", base.drop(*CAS_COLUMNS))):
        part = folder / "checkpoints" / f"scope_id={scope}"
        part.mkdir(parents=True)
        frame.write_parquet(part / "part-0.parquet")
    with open_logset(folder) as logset:
        result = audit(logset)
    assert set(result.not_applicable["scope_id"]) == {"s2"}
    base.drop(*CAS_COLUMNS).write_parquet(folder / "checkpoints" / "scope_id=s1" / "part-1.parquet")
    report = validate_logset(folder)
    assert not report.ok
    assert "checkpoints_cas_mixed_scope" in {p.check for p in report.problems}


def test_a_mapping_that_maps_no_cas_column_reads_writes_without_it(tmp_path: Path) -> None:
    """foreign read through its mapping without the four columns (its won writes
    only): the audit runs, and the rules that need compare-and-swap say they do not
    apply rather than find anything."""
    folder = tmp_path / "foreign"
    shutil.copytree(DATA / "foreign", folder)
    toml = (folder / "reconcile.toml").read_text()
    toml = toml.replace(
        "filter = \"kind = 'checkpoint'\"", "filter = \"kind = 'checkpoint' AND cas = 'OK'\""
    )
    for line in (
        'owner_epoch = "lease_epoch"\n',
        'expected_generation = "expected_gen"\n',
        'generation = "gen"\n',
        'cas_result = { column = "cas", values = { OK = "won", CONFLICT = "lost" } }\n',
    ):
        assert line in toml
        toml = toml.replace(line, "", 1)
    (folder / "reconcile.toml").write_text(toml)
    out = tmp_path / "report"
    assert main(["audit", str(folder), "--mapping", "auto", "--out", str(out)]) == 1
    summary = json.loads((out / "summary.json").read_text())
    assert {r["rule"] for r in summary["not_applicable"]} == CAS_RULES
    assert not CAS_RULES & set(summary["findings"]["by_rule"])
    assert summary["inputs"]["tables"]["checkpoints"]["rows"] == 223
