"""The bundled log sets are what data/README.md says made them, and they are valid."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from reconcile import validate_logset
from reconcile.cli import main
from tests.logsets import FRAMEWORK_EXAMPLES, own_mapping

DATA = Path(__file__).resolve().parents[1] / "data"
COMMAND = re.compile(r"`(reconcile simulate data/([\w-]+)[^`]*)`")


def commands() -> list[tuple[str, str]]:
    text = (DATA / "README.md").read_text(encoding="utf-8")
    return [(m.group(2), m.group(1)) for m in COMMAND.finditer(text)]


def test_every_folder_is_described() -> None:
    described = {name for name, _ in commands()} | {"example", *FRAMEWORK_EXAMPLES}
    folders = {p.name for p in DATA.iterdir() if p.is_dir()}
    assert folders == described


@pytest.mark.parametrize(("name", "command"), commands())
def test_bundled_log_set_is_reproducible(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, command: str
) -> None:
    args = shlex.split(command)[1:]
    args[1] = str(tmp_path / name)
    assert main(args) == 0
    capsys.readouterr()
    committed = sorted(p.name for p in (DATA / name).iterdir())
    assert committed == sorted(p.name for p in (tmp_path / name).iterdir())
    for file in committed:
        assert (DATA / name / file).read_bytes() == (tmp_path / name / file).read_bytes(), file


@pytest.mark.parametrize(
    "name",
    sorted(p.name for p in DATA.iterdir() if p.is_dir() and p.name not in FRAMEWORK_EXAMPLES),
)
def test_bundled_log_set_is_valid(name: str) -> None:
    report = validate_logset(DATA / name, mapping=own_mapping(DATA / name))
    assert report.ok, report.problems
