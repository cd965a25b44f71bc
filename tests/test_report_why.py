"""report.html says why each frontier is where it is (issue 21): who holds it, since
when, what blocks the holder, the claim against the proof; why a vector is one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reconcile.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"


def _panel(tmp_path: Path, name: str) -> str:
    out = tmp_path / name
    main(["audit", str(DATA / name), "--out", str(out)])
    page = (out / "report.html").read_text(encoding="utf-8")
    panel = page.split("<h2>Why is the frontier here?</h2>", 1)[1].split("<h2>", 1)[0]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", panel))


def test_stuck_names_the_holder_its_blocking_event_and_where_to_replay(tmp_path: Path) -> None:
    text = _panel(tmp_path, "stuck")
    assert "Proven: complete through ≤ 10,377 in epoch 1" in text
    assert "held by p0002." in text
    assert (
        "p0002: committed through 10,377 (event e0001948); blocked by event e0001949 at"
        " position 10,378: its event failed" in text
    )
    assert "claimed ≤ 20,001 against proven ≤ 10,377 (claim: overclaim)" in text
    assert "replay it from a checkpoint written before position 10,378" in text
    assert re.search(r"at this value since 2026-01-01 \d\d:\d\d:\d\d", text)


def test_faults_says_why_the_frontier_is_a_vector(tmp_path: Path) -> None:
    text = _panel(tmp_path, "faults")
    assert "Proven: no single value (a vector) in epoch 2" in text
    assert "a membership change of the epoch still lacks its proof" in text


@pytest.mark.slow
def test_many_limiting_partitions_are_capped(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    main(["simulate", str(logs), "--partitions", "40", "--events", "8000"])
    out = tmp_path / "report"
    main(["audit", str(logs), "--out", str(out)])
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.count("+35 more") == 4  # two bases, in the panel and the frontier table
    for held in re.findall(r"held by ([^.]*)\.", re.sub(r"<[^>]+>", "", page)):
        assert held.count(",") <= 4, held
