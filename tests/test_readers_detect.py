"""A framework's artifacts given where a contract log set is expected: the error
names the reader that reads them (docs/readers.md), for each bundled example."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconcile.cli import main
from tests.logsets import FRAMEWORK_EXAMPLES

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize("name", sorted(FRAMEWORK_EXAMPLES))
def test_an_audit_without_source_names_the_reader(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    assert main(["audit", str(DATA / name), "--out", str(out)]) == 2
    got = capsys.readouterr()
    said = " ".join((got.out + got.err).split())
    assert f"read it with --source {FRAMEWORK_EXAMPLES[name]}" in said
    assert not out.exists()
