"""The watermark engine against the plain reference of §4, on random small log sets."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconcile import open_logset
from reconcile.engine import watermarks
from tests import reference
from tests.logsets import write_logset
from tests.strategies import logsets, moment

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


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=logsets(), cut=st.one_of(st.none(), st.integers(0, 12)))
def test_engine_matches_reference(case: dict[str, Any], cut: int | None) -> None:
    as_of = None if cut is None else moment(cut)
    tables = case["tables"]
    compare(engine_rows(tables, case["coordinate"], as_of), expected_rows(tables, as_of))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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
