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
