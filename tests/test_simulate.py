"""`reconcile simulate`: deterministic, valid log sets whose truth says what was injected."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import reconcile.simulate.write as simulate_module
from reconcile import validate_logset
from reconcile.cli import main
from reconcile.errors import UsageError
from reconcile.simulate import FAULTS, SimOptions, simulate
from reconcile.simulate.options import SCOPE_FAULTS, Eligibility, Evidence, Membership
from tests.test_audit_truth import check

SMALL = {"partitions": 4, "events": 2400}


def truth(path: Path) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((path / "truth.json").read_text())
    return result


def table(path: Path, name: str) -> pl.DataFrame:
    return pl.read_parquet(path / f"{name}.parquet")


def test_same_arguments_give_byte_identical_files(tmp_path: Path) -> None:
    options = SimOptions(
        seed=7,
        partitions=17,
        events=17 * 1200,
        coordinate="timestamp",
        faults=tuple(FAULTS),
    )
    a, b = simulate(tmp_path / "a", options).path, simulate(tmp_path / "b", options).path
    files = sorted(p.name for p in a.iterdir())
    assert files == sorted(p.name for p in b.iterdir())
    assert "truth.json" in files
    for name in files:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_another_seed_gives_other_data(tmp_path: Path) -> None:
    a = simulate(tmp_path / "a", SimOptions(seed=1, **SMALL)).path
    b = simulate(tmp_path / "b", SimOptions(seed=2, **SMALL)).path
    assert (a / "receipts.parquet").read_bytes() != (b / "receipts.parquet").read_bytes()


def test_clean_run_truth_lists_no_faults(tmp_path: Path) -> None:
    path = simulate(tmp_path / "clean", SimOptions(seed=3, crash_rate=0.05, **SMALL)).path
    facts = truth(path)
    assert facts["faults"] == []
    assert {f["rule"] for f in facts["findings"]} <= {"replayed_events"}
    assert all(f["severity"] == "info" for f in facts["findings"])
    assert validate_logset(path).ok


def test_clean_run_keeps_the_consumer_rules(tmp_path: Path) -> None:
    """A correct consumer: per partition, won generations chain, owner epochs and
    claims never fall, and each page request follows a token already handed out."""
    path = simulate(tmp_path / "clean", SimOptions(seed=4, crash_rate=0.05, **SMALL)).path
    won = (
        table(path, "checkpoints")
        .filter(pl.col("cas_result") == "won")
        .sort("partition_id", "written_at", "generation")
    )
    chained = won.with_columns(
        prev_gen=pl.col("generation").shift(1, fill_value=0).over("partition_id"),
        prev_epoch=pl.col("owner_epoch").shift(1).over("partition_id"),
        prev_claim=pl.col("watermark").shift(1).over("partition_id"),
    )
    assert (chained["expected_generation"] == chained["prev_gen"]).all()
    assert chained.filter(pl.col("owner_epoch") < pl.col("prev_epoch")).height == 0
    assert chained.filter(pl.col("watermark") < pl.col("prev_claim")).height == 0
    pages = table(path, "pages")
    handed_out = set(pages["next_token"].drop_nulls())
    requested = set(pages["request_token"].drop_nulls())
    assert requested <= handed_out
    assert pages.filter(pl.col("request_token").is_null()).height >= 4


def test_crashes_replay_events(tmp_path: Path) -> None:
    path = simulate(tmp_path / "crashy", SimOptions(seed=5, crash_rate=0.3, **SMALL)).path
    receipts = table(path, "receipts")
    durable = receipts.filter(pl.col("outcome").is_in(["committed", "dead_lettered"]))
    replayed = (
        durable.group_by("partition_id", "event_id")
        .len()
        .filter(pl.col("len") > 1)
        .group_by("partition_id")
        .len()
    )
    facts = {
        f["partition_id"]: f["evidence"]["events"]
        for f in truth(path)["findings"]
        if f["rule"] == "replayed_events"
    }
    assert facts == dict(zip(replayed["partition_id"], replayed["len"], strict=True))
    assert facts  # a crash rate of 30 % per page replays something


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_every_fault_gives_a_valid_log_set_and_its_truth(tmp_path: Path, fault: str) -> None:
    options = SimOptions(seed=11, partitions=4, events=4 * 1000, faults=(fault,))
    path = simulate(tmp_path / fault, options).path
    report = validate_logset(path)
    assert report.ok, report.problems
    facts = truth(path)
    assert [f["fault"] for f in facts["faults"]] == [fault]
    injected = facts["faults"][0]
    assert injected["findings"], "a fault must say what an audit finds"
    assert injected["where"]["scope_id"] == "s0"
    if fault not in SCOPE_FAULTS:
        assert injected["where"]["partition_id"] == "p0001"
    for finding in injected["findings"]:
        assert finding in facts["findings"]


def test_token_watermark_writes_the_token(tmp_path: Path) -> None:
    path = simulate(tmp_path / "t", SimOptions(faults=("token_watermark",), **SMALL)).path
    where = truth(path)["faults"][0]["where"]
    row = table(path, "checkpoints").filter(
        (pl.col("partition_id") == where["partition_id"])
        & (pl.col("generation") == where["generation"])
        & (pl.col("cas_result") == "won")
    )
    assert row["watermark"][0] == int(row["resume_token"][0])


def test_past_failed_event_leaves_the_event_failed(tmp_path: Path) -> None:
    path = simulate(tmp_path / "f", SimOptions(faults=("past_failed_event",), **SMALL)).path
    where = truth(path)["faults"][0]["where"]
    receipts = table(path, "receipts").filter(
        (pl.col("partition_id") == where["partition_id"])
        & (pl.col("event_id") == where["event_id"])
    )
    assert set(receipts["outcome"]) == {"failed"}
    position = receipts["position"][0]
    last_claim = (
        table(path, "checkpoints")
        .filter((pl.col("partition_id") == where["partition_id"]) & (pl.col("cas_result") == "won"))
        .sort("written_at")["watermark"][-1]
    )
    assert last_claim > position


def test_membership_split(tmp_path: Path) -> None:
    path = simulate(tmp_path / "m", SimOptions(membership=Membership.SPLIT, **SMALL)).path
    epochs = table(path, "epochs").sort("epoch")
    members = table(path, "members")
    assert epochs["epoch"].to_list() == [1, 2]
    assert epochs["cutover"][0] is None
    retiring = members.filter(pl.col("role") == "retiring")
    assert retiring.height == 1
    assert retiring["sealed_through"][0] >= epochs["cutover"][1]
    joining = members.filter((pl.col("epoch") == 2) & pl.col("coverage_from").is_not_null())
    assert joining.height == 2
    assert (joining["coverage_from"] <= epochs["cutover"][1] + 1).all()
    assert validate_logset(path).ok


def test_timestamps_snapshot_and_mutable_eligibility(tmp_path: Path) -> None:
    options = SimOptions(
        coordinate="timestamp",
        evidence=Evidence.SNAPSHOT,
        eligibility=Eligibility.MUTABLE,
        **SMALL,
    )
    path = simulate(tmp_path / "ts", options).path
    assert validate_logset(path).ok
    receipts = table(path, "receipts")
    assert receipts.schema["position"] == pl.Datetime("us", "UTC")
    unstable = receipts.filter((pl.col("outcome") == "ineligible") & ~pl.col("eligibility_stable"))[
        "event_id"
    ]
    assert unstable.len() > 0
    # an unstable decision is later resolved: the event is committed after all
    resolved = receipts.filter(
        pl.col("event_id").is_in(unstable.implode()) & (pl.col("outcome") == "committed")
    )
    assert resolved.height >= unstable.n_unique()
    assert table(path, "snapshot_bounds").height == 4


def test_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    target = simulate(tmp_path / "x", SimOptions(**SMALL)).path
    with pytest.raises(UsageError):
        simulate(target, SimOptions(**SMALL))
    simulate(target, SimOptions(seed=9, **SMALL), force=True)
    assert truth(target)["options"]["seed"] == 9


def test_interrupted_run_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = {"n": 0}
    real = simulate_module.render_pages

    def failing(*args: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(simulate_module, "render_pages", failing)
    with pytest.raises(KeyboardInterrupt):
        simulate(tmp_path / "out", SimOptions(**SMALL))
    assert list(tmp_path.iterdir()) == []


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "simulate",
            str(tmp_path / "cli"),
            "--partitions",
            "4",
            "--events",
            "2400",
            "--fault",
            "lost_update",
            "--seed",
            "3",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "1 fault(s) injected" in out
    assert truth(tmp_path / "cli")["faults"][0]["fault"] == "lost_update"
    code = main(
        [
            "simulate",
            str(tmp_path / "cli2"),
            "--partitions",
            "2",
            "--fault",
            "lost_update",
            "--fault",
            "late_insert",
        ]
    )
    assert code == 2
    assert "need at least 4 partitions" in capsys.readouterr().err


def test_unproven_retirement_has_no_seal(tmp_path: Path) -> None:
    options = SimOptions(membership=Membership.RETIRE, faults=("unproven_membership",), **SMALL)
    path = simulate(tmp_path / "r", options).path
    retiring = table(path, "members").filter(pl.col("role") == "retiring")
    assert retiring["sealed_through"].to_list() == [None]
    finding = truth(path)["faults"][0]["findings"][0]
    assert finding["partition_id"] == retiring["partition_id"][0]
    assert finding["epoch"] == 2


def test_a_size_too_small_is_refused_with_the_size_needed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The refusal names the fault and the sizes, and the smallest --events that fits
    the partitions (799 for 4 partitions of 100-event pages was refused as if 200
    sufficed)."""
    assert main(["simulate", str(tmp_path / "a"), "--events", "799"]) == 2
    assert "--events 799 is too few for 4 partitions" in capsys.readouterr().err
    assert main(["simulate", str(tmp_path / "b"), "--events", "800"]) == 0
    capsys.readouterr()
    code = main(["simulate", str(tmp_path / "c"), "--events", "2400", "--fault", "stale_owner"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--fault stale_owner:" in err and "600 events of --events 2400" in err
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("fault", ["inflated_watermark", "empty_page_no_finality", "observed_max"])
def test_a_fault_a_snapshot_would_hide_is_refused_with_snapshot_evidence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fault: str
) -> None:
    """Its overclaim is judged against page finality; with --evidence snapshot the
    snapshot's bounds proved the claim, the audit found nothing, and truth.json listed
    an overclaim all the same (found by a probe). With mixed evidence the fault goes to
    the first scope, read by receipts, and the audit finds what truth.json lists."""
    args = ["simulate", str(tmp_path / "s"), "--events", "2400", "--fault", fault]
    assert main([*args, "--evidence", "snapshot"]) == 2
    err = capsys.readouterr().err
    assert f"fault(s) {fault} overclaim against the provider's page finality" in err
    assert not (tmp_path / "s").exists()
    assert main([*args, "--evidence", "mixed", "--scopes", "2", "--seed", "3"]) == 0
    capsys.readouterr()
    check(tmp_path / "s")


def test_a_stall_in_one_scope_of_several_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The stall moved T half an hour on, and every other scope's finished partitions
    held their claimed frontier until it: the audit rightly reported them stalled, and
    truth.json did not (found by a probe)."""
    args = ["simulate", str(tmp_path / "s"), "--events", "2400", "--fault", "stalled_partition"]
    assert main([*args, "--scopes", "2"]) == 2
    assert "fault stalled_partition needs --scopes 1" in capsys.readouterr().err
    assert main(args) == 0
