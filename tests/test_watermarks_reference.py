"""The watermark engine against the plain reference of §4, on random small log sets."""

from __future__ import annotations

import random
import tempfile
from collections.abc import Iterable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconcile import open_logset
from reconcile.audit import audit
from reconcile.engine import Analysis, watermarks
from reconcile.errors import UsageError
from tests import reference
from tests.conftest import examples
from tests.logsets import checkpoint, page, receipt, write_logset
from tests.strategies import logsets, moment

# Hypothesis against the reference: minutes; outside the fast tier.
pytestmark = pytest.mark.slow

FIELDS = (
    "evidence",
    "committed_position",
    "committed_event_id",
    "blocking_event_id",
    "blocking_position",
    "blocking_reason",
    "claimed_generation",
    "claim_status",
    "eligible_events",
    "durable_events",
    "replayed_events",
)
CERTS = ("consumer", "provider", "proven", "claimed")


def engine_rows(tables: dict[str, Any], coordinate: str, as_of: Any) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as folder:
        path = write_logset(Path(folder) / "ls", {k: v for k, v in tables.items() if v}, coordinate)
        with open_logset(path) as logset:
            return watermarks(logset, as_of=as_of).to_dicts()


def expected_rows(tables: dict[str, Any], as_of: Any) -> list[dict[str, Any]]:
    return reference.watermarks({k: v for k, v in tables.items() if v}, as_of)


def compare(engine: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    assert [(r["scope_id"], r["partition_id"]) for r in engine] == [
        (r["scope_id"], r["partition_id"]) for r in expected
    ]
    for got, want in zip(engine, expected, strict=True):
        where = f"{want['scope_id']}/{want['partition_id']}"
        for name in FIELDS:
            assert got[name] == want[name], f"{where} {name}: {got[name]!r} != {want[name]!r}"
        for name in CERTS:
            pair = (got[f"{name}_through"], got[f"{name}_inclusive"])
            assert pair == want[name], f"{where} {name}: {pair!r} != {want[name]!r}"


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=logsets(), cut=st.one_of(st.none(), st.integers(0, 12)))
def test_engine_matches_reference(case: dict[str, Any], cut: int | None) -> None:
    as_of = None if cut is None else moment(cut)
    tables = case["tables"]
    compare(engine_rows(tables, case["coordinate"], as_of), expected_rows(tables, as_of))


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=st.sampled_from(["low", "high"]).flatmap(lambda end: logsets(extreme=end)),
    cut=st.one_of(st.none(), st.integers(0, 12)),
)
def test_engine_matches_reference_at_the_extremes(case: dict[str, Any], cut: int | None) -> None:
    """The same with every coordinate at the low or high end of its type (INT64_MIN
    upwards, up to INT64_MAX; the ends of TIMESTAMP_NS)."""
    as_of = None if cut is None else moment(cut)
    tables = case["tables"]
    compare(engine_rows(tables, case["coordinate"], as_of), expected_rows(tables, as_of))


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=logsets(), cut=st.integers(0, 12))
def test_as_of_equals_the_log_set_cut_at_that_time(case: dict[str, Any], cut: int) -> None:
    """The result at an earlier T is the result on the log set with every row after T
    removed, for the partitions and scopes both log sets judge alike (what exists,
    evidence and orderings are judged on the whole log set, §3)."""
    tables = case["tables"]
    as_of = moment(cut)
    early = {
        r["partition_id"] + r["scope_id"]: r for r in engine_rows(tables, case["coordinate"], as_of)
    }
    cut_tables = reference.rows_until(tables, as_of)
    if not cut_tables.get("checkpoints"):
        return  # the cut log set lacks the required table
    scopes_full, scopes_cut = reference.scopes(tables), reference.scopes(cut_tables)
    for row in engine_rows(cut_tables, case["coordinate"], None):
        before = early[row["partition_id"] + row["scope_id"]]
        if before["evidence"] != row["evidence"]:
            continue
        if scopes_full[row["scope_id"]] != scopes_cut[row["scope_id"]]:
            continue
        for name, value in row.items():
            if name != "as_of":
                assert before[name] == value, (row["partition_id"], name)


# 30 examples: each audits the log set at up to 14 instants (85 s for 40 in CI)
@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=logsets())
def test_certificates_at_any_instant_equal_the_as_of_result(case: dict[str, Any]) -> None:
    """The time-aware evaluator gives, at every instant, what watermarks(as_of=t)
    gives: the step functions are exact, not an approximation (mutated orderings
    included: inside a page window an event sorts where it sorted at the instant,
    and an event that later falls below a page's range counts there until it falls).
    """
    tables = {k: v for k, v in case["tables"].items() if v}
    with tempfile.TemporaryDirectory() as folder:
        path = write_logset(Path(folder) / "ls", tables, case["coordinate"])
        with open_logset(path) as logset:
            end = Analysis(logset).as_of
            instants = sorted({moment(s) for s in range(13)} | {end})
            instants = [t for t in instants if t <= end]
            parts = reference.partitions(tables)
            points = pl.DataFrame(
                [{"scope_id": s, "partition_id": p, "t": t} for t in instants for s, p in parts],
                schema={"scope_id": pl.String, "partition_id": pl.String, "t": pl.Datetime("ns")},
            )
            got = Analysis(logset).certificates_at(points).to_dicts()
            for t in instants:
                want = {
                    (r["scope_id"], r["partition_id"]): r
                    for r in Analysis(logset, t).watermarks().to_dicts()
                }
                for row in (g for g in got if g["t"] == t):
                    expected = want[(row["scope_id"], row["partition_id"])]
                    for name in ("consumer", "provider", "proven", "claimed"):
                        pair = (row[f"{name}_through"], row[f"{name}_inclusive"])
                        wanted = (expected[f"{name}_through"], expected[f"{name}_inclusive"])
                        assert pair == wanted, (t, row["partition_id"], name)


def test_a_crowded_page_closes_when_its_count_th_event_becomes_known(tmp_path: Path) -> None:
    """A page whose range holds more known events than its count (ties, overlapping
    pages) stops blocking when the count-th of them becomes known, however many more
    there are: the history agrees with watermarks(as_of=t) at every instant."""
    receipts, pages, checkpoints = [], [], []
    for extra in range(7):  # events in range beyond the page's count of 2
        part = f"p{extra}"
        n = 2 + extra
        order = list(range(n))  # the order they become known: shuffled, seeded
        random.Random(extra).shuffle(order)
        pages.append(page(f"g{extra}", 1, 2, 10, 10 + n - 1, partition=part, fetched=0.5))
        for rank, i in enumerate(order):
            receipts.append(receipt(f"e{i}", 10 + i, partition=part, recorded=1 + rank))
        checkpoints.append(checkpoint(part, 1, 10 + n - 1, written=20))
    path = write_logset(
        tmp_path / "ls", {"receipts": receipts, "pages": pages, "checkpoints": checkpoints}
    )
    _assert_history_is_as_of(path, [f"p{extra}" for extra in range(7)], range(0, 22))


@pytest.mark.parametrize("higher_first", [True, False])
def test_receipts_on_a_page_at_one_instant_move_its_block_together(
    tmp_path: Path, higher_first: bool
) -> None:
    """Two receipts on an incomplete page recorded at the same instant: from that
    instant the page blocks after the later one in order, whichever the file lists
    first (found by Hypothesis: the history had taken the first row's block)."""
    tied = [
        receipt("e10", 10, page_id="g", recorded=2),
        receipt("e11", 11, page_id="g", recorded=2),
    ]
    receipts = [
        *(reversed(tied) if higher_first else tied),
        receipt("e13", 13, page_id="g", recorded=4),
    ]
    path = _one_page(tmp_path, receipts, page("g", 1, 5, 10, 14, fetched=1), claim=9, written=5)
    _assert_history_is_as_of(path, ["p0"], range(0, 7))


@pytest.mark.parametrize("lower_at", [1.5, 3.5, 5])
def test_a_page_block_follows_an_event_where_it_sorts_at_each_instant(
    tmp_path: Path, lower_at: float
) -> None:
    """An incomplete page's block lies after its last event in the order of each
    instant (§4.5, §4.7): e12, received on the page at 2 s, is seen at 9 at
    ``lower_at`` (while the page's receipts still come, between them, or after the
    last) and at 13 later (higher: its place stays at 9). Before ``lower_at`` the block
    lies after 12, from then on after e11 at 11."""
    receipts = [
        receipt("e10", 10, page_id="g", recorded=1),
        receipt("e12", 12, page_id="g", recorded=2),
        receipt("e11", 11, page_id="g", recorded=3),
        receipt("e12", 9, recorded=lower_at),
        receipt("e12", 13, page_id="g", recorded=6),
    ]
    path = _one_page(tmp_path, receipts, page("g", 1, 5, 10, 14, fetched=0.5), claim=9, written=7)
    _assert_history_is_as_of(path, ["p0"], range(0, 9))
    with open_logset(path) as logset:
        points = pl.DataFrame(
            {"scope_id": ["s"] * 2, "partition_id": ["p0"] * 2, "t": [moment(2), moment(7)]},
            schema={"scope_id": pl.String, "partition_id": pl.String, "t": pl.Datetime("ns")},
        )
        got = Analysis(logset).certificates_at(points).to_dicts()
    # at 2 s the page blocks right after e12 at 12 (complete through 11), unless e12
    # was seen at 9 already; at 7 s e12 sorts at 9 and, mutated, blocks before it
    at_two = (8, True) if lower_at < 2 else (11, True)
    assert [(r["consumer_through"], r["consumer_inclusive"]) for r in got] == [
        at_two,
        (8, True),
    ]


def test_an_event_that_moves_into_a_page_range_counts_there_from_that_sighting(
    tmp_path: Path,
) -> None:
    """Page g [10, 14] holds 2 events; e20 is seen at 20 (outside) at 1 s and at 12
    (inside) at 3 s: before 3 s only e10 lies in the range, so the page blocks after it
    (found by review: the history took the page as complete from 1 s, where e20 became
    known, and could prove a frontier the as-of result does not give)."""
    receipts = [
        receipt("e10", 10, page_id="g", recorded=1),
        receipt("e20", 20, recorded=1),
        receipt("e20", 12, recorded=3),
    ]
    path = _one_page(tmp_path, receipts, page("g", 1, 2, 10, 14, fetched=0.5), claim=30, written=7)
    _assert_history_is_as_of(path, ["p0"], range(0, 9))


def test_an_event_that_falls_below_a_page_range_counts_there_until_it_falls(
    tmp_path: Path,
) -> None:
    """e12, received on page g [10, 14] (2 events) at 2 s, is seen at 9 at 3 s. At 2 s
    the contract counts it in g's range, so g is complete (consumer +inf). From 3 s g
    is incomplete again, but e12 is mutated and sorts at 9, below g: the partition
    blocks at e12 either way. The history is exact at every instant (it once kept g
    incomplete at 2 s, blocking after e12, through 11)."""
    receipts = [
        receipt("e10", 10, page_id="g", recorded=1),
        receipt("e12", 12, page_id="g", recorded=2),
        receipt("e12", 9, recorded=3),
    ]
    path = _one_page(tmp_path, receipts, page("g", 1, 2, 10, 14, fetched=0.5), claim=30, written=7)
    _assert_history_is_as_of(path, ["p0"], range(0, 9))
    with open_logset(path) as logset:
        points = pl.DataFrame(
            {"scope_id": ["s", "s"], "partition_id": ["p0", "p0"], "t": [moment(2), moment(3)]},
            schema={"scope_id": pl.String, "partition_id": pl.String, "t": pl.Datetime("ns")},
        )
        at_two, at_three = Analysis(logset).certificates_at(points).to_dicts()
    assert (at_two["consumer_through"], at_two["consumer_inclusive"]) == (None, None)
    assert (at_three["consumer_through"], at_three["consumer_inclusive"]) == (8, True)


def test_an_overclaim_before_an_event_falls_below_a_page_is_judged_at_its_write(
    tmp_path: Path,
) -> None:
    """The audit's rules read the history at each write: a claim of 9 written while
    page P [5, 9] held x and y (y seen at 3 only later) is within the proven 9 then;
    only the claim written after y fell is an overclaim."""
    receipts = [
        receipt("x", 5, page_id="P", recorded=1),
        receipt("y", 7, page_id="P", recorded=1),
        receipt("y", 3, recorded=5),
    ]
    tables = {
        "receipts": receipts,
        "pages": [page("P", 0, 2, 5, 9, fetched=0.5, finality_through=9, finality_inclusive=True)],
        "checkpoints": [
            checkpoint("p0", 1, 9, written=2, page_id="P"),
            checkpoint("p0", 2, 9, written=6, page_id="P"),
        ],
    }
    path = write_logset(tmp_path / "ls", tables)
    with open_logset(path) as logset:
        findings = audit(logset).findings
    overclaims = findings.filter(pl.col("rule") == "overclaim")
    assert overclaims["generation"].to_list() == [2]
    assert "ordering_mutated" in findings["rule"].to_list()


def _one_page(
    tmp_path: Path, receipts: list[dict[str, Any]], g: dict[str, Any], *, claim: int, written: int
) -> Path:
    """A log set of partition p0: its receipts, one page and a won write claiming
    ``claim`` at ``written`` seconds."""
    tables = {
        "receipts": receipts,
        "pages": [g],
        "checkpoints": [checkpoint("p0", 1, claim, written=written)],
    }
    return write_logset(tmp_path / "ls", tables)


def _assert_history_is_as_of(path: Path, parts: list[str], seconds: Iterable[int]) -> None:
    """certificates_at at every instant of ``seconds`` equals watermarks(as_of=t)."""
    instants = [moment(s) for s in seconds]
    with open_logset(path) as logset:
        points = pl.DataFrame(
            [{"scope_id": "s", "partition_id": p, "t": t} for t in instants for p in parts],
            schema={"scope_id": pl.String, "partition_id": pl.String, "t": pl.Datetime("ns")},
        )
        got = Analysis(logset).certificates_at(points).to_dicts()
        for t in instants:
            want = {r["partition_id"]: r for r in Analysis(logset, t).watermarks().to_dicts()}
            for row in (g for g in got if g["t"] == t):
                expected = want[row["partition_id"]]
                for name in CERTS:
                    pair = (row[f"{name}_through"], row[f"{name}_inclusive"])
                    wanted = (expected[f"{name}_through"], expected[f"{name}_inclusive"])
                    assert pair == wanted, (t, row["partition_id"], name)


@pytest.mark.slow
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_pages_and_moving_events_agree_with_the_as_of_result(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    """One partition, two pages, events each seen at one or two positions at drawn
    instants, on a page or none: at every instant the history equals
    watermarks(as_of=t) (the general strategy seldom moves an event into or inside a
    page's range; this one does so every time)."""
    pos = st.integers(0, 8)
    receipts = []
    for n in range(data.draw(st.integers(1, 4))):
        first = data.draw(pos)
        when = data.draw(st.integers(1, 5))
        on = data.draw(st.sampled_from(["g", "h", None]))
        receipts.append(receipt(f"e{n}", first, page_id=on, recorded=when))
        if data.draw(st.booleans()):
            later = data.draw(st.integers(when, 6))
            again = data.draw(st.sampled_from(["g", "h", None]))
            receipts.append(receipt(f"e{n}", data.draw(pos), page_id=again, recorded=later))
    pages = []
    for name, fetched in (("g", 0.5), ("h", 2.5)):
        lo = data.draw(pos)
        hi = data.draw(st.integers(lo, 8))
        pages.append(page(name, 1, data.draw(st.integers(1, 3)), lo, hi, fetched=fetched))
    tables = {
        "receipts": receipts,
        "pages": pages,
        "checkpoints": [checkpoint("p0", 1, 8, written=7)],
    }
    path = write_logset(tmp_path_factory.mktemp("moving") / "ls", tables)
    _assert_history_is_as_of(path, ["p0"], range(0, 9))


def test_certificates_at_answers_every_point_or_refuses() -> None:
    """A point of a partition the log set lacks gets its row, with no certificate
    (it was left out); a point after T is refused (it was answered as at T, while
    watermarks(as_of=t) gives another value)."""
    data = Path(__file__).parent.parent / "data" / "stuck"
    at = datetime(2026, 1, 1, 0, 0, 2)
    points = pl.DataFrame(
        {"scope_id": ["s0", "s0", "s0"], "partition_id": ["p0002", "nope", "p0002"]}
    ).with_columns(pl.Series("t", [at, at, at - timedelta(seconds=1)], pl.Datetime("ns")))
    with open_logset(data) as logset:
        analysis = Analysis(logset, at)
        got = analysis.certificates_at(points)
        assert got["point_id"].to_list() == [0, 1, 2]
        assert got["partition_id"].to_list() == ["p0002", "nope", "p0002"]
        assert got["proven_through"][1] is None
        (now,) = analysis.watermarks().filter(pl.col("partition_id") == "p0002").to_dicts()
        assert got["proven_through"][0] == now["proven_through"]
        later = points.with_columns(pl.col("t") + pl.duration(nanoseconds=1))
        with pytest.raises(UsageError, match="after T"):
            analysis.certificates_at(later)
