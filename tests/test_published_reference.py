"""Rule published_regressed (docs/rules.md) against a plain reference: a published
scalar below the highest scalar published strictly earlier in its scope and epoch (a
null epoch, in a scope without epochs, is epoch 1; a null frontier is +inf, above
every value). One finding per scope and instant. The engine finds the earlier highest
by a running maximum over the instants; the reference compares every pair."""

from __future__ import annotations

import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reconcile import open_logset
from reconcile.audit import audit
from tests.certs import Certificate, Domain, compare
from tests.conftest import examples
from tests.logsets import at, checkpoint, write_logset

Row = dict[str, Any]

rows = st.lists(
    st.fixed_dictionaries(
        {
            "published_at": st.integers(1, 6).map(float),
            "epoch": st.sampled_from([None, 1, 2]),
            "kind": st.sampled_from(["scalar", "scalar", "scalar", "vector"]),
            "frontier": st.one_of(st.none(), st.integers(0, 6)),
            "frontier_inclusive": st.sampled_from([True, False, None]),
        }
    ),
    max_size=12,
)


def _published(drawn: list[Row]) -> list[Row]:
    return [
        {
            "scope_id": "s",
            "epoch": r["epoch"],
            "published_at": at(r["published_at"]),
            "kind": r["kind"],
            "frontier": r["frontier"] if r["kind"] == "scalar" else None,
            "frontier_inclusive": r["frontier_inclusive"] if r["kind"] == "scalar" else None,
        }
        for r in drawn
    ]


def _inclusive(row: Row) -> bool:
    return True if row["frontier_inclusive"] is None else bool(row["frontier_inclusive"])


def _reference(published: list[Row], as_of: datetime) -> set[datetime]:
    """The instants at which a scalar went below the highest earlier one; an unknown
    endpoint read as inclusive on either side (docs/contract.md §8)."""
    scalars = [
        {**r, "epoch": 1 if r["epoch"] is None else r["epoch"]}
        for r in published
        if r["kind"] == "scalar" and r["published_at"] <= as_of
    ]
    fired = set()
    for p in scalars:
        if p["frontier"] is None:
            continue
        mine = Certificate(p["frontier"], _inclusive(p))
        for q in scalars:
            if q["epoch"] != p["epoch"] or not q["published_at"] < p["published_at"]:
                continue
            earlier = Certificate(q["frontier"], _inclusive(q))
            if compare(mine, earlier, Domain.DISCRETE) < 0:
                fired.add(p["published_at"])
    return fired


@pytest.mark.slow
@settings(max_examples=examples(45), deadline=None)
@given(drawn=rows, cut=st.one_of(st.none(), st.integers(1, 6)))
# an unknown endpoint is inclusive on either side: 5 unknown after 5 exclusive is no
# regression, 5 exclusive after 5 unknown is one
@example(
    drawn=[
        {
            "published_at": 1.0,
            "epoch": None,
            "kind": "scalar",
            "frontier": 5,
            "frontier_inclusive": False,
        },
        {
            "published_at": 2.0,
            "epoch": None,
            "kind": "scalar",
            "frontier": 5,
            "frontier_inclusive": None,
        },
        {
            "published_at": 3.0,
            "epoch": None,
            "kind": "scalar",
            "frontier": 5,
            "frontier_inclusive": False,
        },
    ],
    cut=None,
)
def test_published_regressed_matches_the_reference(drawn: list[Row], cut: int | None) -> None:
    published = _published(drawn)
    tables: dict[str, list[Row]] = {"checkpoints": [checkpoint("p0", 1, 3, written=7)]}
    if published:
        tables["published"] = published
    as_of = at(7) if cut is None else at(cut)
    with tempfile.TemporaryDirectory() as folder:
        path = write_logset(Path(folder) / "ls", tables)
        with open_logset(path) as logset:
            result = audit(logset, as_of=None if cut is None else as_of, timelines=False)
    found = result.findings.filter(result.findings["rule"] == "published_regressed")
    naive = {t.replace(tzinfo=None) for t in _reference(published, as_of)}
    assert set(found["at"].to_list()) == naive
    assert found.height == len(naive)  # one finding per instant
