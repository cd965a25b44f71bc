"""What a new user meets first (issue 21): --version, help and defaults on every
option, the extras named when missing, the summary pointing at report.html."""

from __future__ import annotations

import argparse
import re
import sys
from importlib.metadata import version
from pathlib import Path

import polars as pl
import pytest

from reconcile.cli import build_parser, main

DATA = Path(__file__).resolve().parents[1] / "data"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"reconcile {version('reconcile')}\n"


def _commands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += _commands(sub)
    return found


def test_every_option_has_help_and_every_default_is_said() -> None:
    for command in _commands(build_parser()):
        for action in command._actions:
            if isinstance(action, (argparse._SubParsersAction, argparse._HelpAction)):
                continue
            assert action.help, (command.prog, action.dest)
            shown = action.default not in (None, False, [], argparse.SUPPRESS)
            if action.option_strings and shown:
                assert "default" in action.help, (command.prog, action.option_strings)


def test_plots_name_the_extra_when_matplotlib_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from reconcile import plots  # noqa: PLC0415

    # matplotlib's modules loaded before, as another test of the worker may have done:
    # the error is the same whether or not they were
    pytest.importorskip("matplotlib.figure")
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import fails, as when absent
    findings = pl.DataFrame({"rule": ["overclaim"], "severity": ["error"]})
    with pytest.raises(ImportError, match=r"reconcile\[notebooks\]"):
        plots.findings_by_rule(findings)


def test_terminal_summary_points_to_report_html(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    assert main(["audit", str(DATA / "faults"), "--out", str(out)]) == 1
    text = capsys.readouterr().out
    assert f"report: {out}/report.html" in text
    # every finding is listed or counted: the listed, the more and the info add up
    total = int(re.search(r"^findings: (\d+)", text, re.M).group(1))  # type: ignore[union-attr]
    listed = len(re.findall(r"^  \[(critical|error|warning)\]", text, re.M))
    rest = re.search(
        r"^  \.\.\. and (\d+) more and (\d+) info \(not listed\) in report\.html$", text, re.M
    )
    assert rest is not None, text
    assert listed + int(rest.group(1)) + int(rest.group(2)) == total
    assert "findings.parquet" not in text
