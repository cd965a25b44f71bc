"""The audit rules of §5 against their plain reference (tests/rules_reference.py), on
random small log sets: the same keys, each reported once."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconcile import open_logset
from reconcile.audit import audit
from tests import reference, rules_reference
from tests.conftest import examples
from tests.logsets import write_logset
from tests.strategies import logsets, moment

# Hypothesis against the reference: minutes; outside the fast tier.
pytestmark = pytest.mark.slow


def engine_keys(tables: dict[str, Any], coordinate: str, as_of: Any) -> dict[str, list[Any]]:
    with tempfile.TemporaryDirectory() as folder:
        path = write_logset(Path(folder) / "ls", {k: v for k, v in tables.items() if v}, coordinate)
        with open_logset(path) as logset:
            found = audit(logset, as_of, timelines=False).findings
    return {
        rule: [tuple(r[c] for c in columns) for r in found.filter(rule=rule).to_dicts()]
        for rule, columns in rules_reference.KEYS.items()
    }


def check(case: dict[str, Any], cut: int | None) -> None:
    tables = {k: v for k, v in case["tables"].items() if v}
    as_of = None if cut is None else moment(cut)
    if as_of is not None:
        # the log set's tables as of T: each still there, without its rows after T
        # (a rule that needs pages applies where the log set has them, none fetched yet)
        tables = {k: list(v) for k, v in reference.rows_until(tables, as_of).items() if k in tables}
        if not any(tables.get(name) for name in ("checkpoints", "receipts", "pages")):
            return
    T = reference.end_of_log(tables) if as_of is None else as_of
    got = engine_keys(case["tables"], case["coordinate"], as_of)
    for rule, rows in got.items():
        assert len(rows) == len(set(rows)), f"{rule} reports a key twice: {rows}"
        want = rules_reference.RULES[rule](tables, T)
        assert set(rows) == want, (
            f"{rule}: engine {sorted(map(str, rows))} != {sorted(map(str, want))}"
        )


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=logsets(), cut=st.one_of(st.none(), st.integers(0, 12)))
def test_rules_match_reference(case: dict[str, Any], cut: int | None) -> None:
    check(case, cut)
