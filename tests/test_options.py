"""Option values that make no sense are usage errors (issue 19, part 5): exit 2 and
one line on stderr, never a traceback, and never minutes of work first."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconcile.cli import EXIT_INVALID, main

DATA = Path(__file__).resolve().parents[1] / "data"
CLEAN = str(DATA / "clean")


def usage_error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """The one line a command prints when its options are refused."""
    try:
        code = main(list(args))
    except SystemExit as stop:  # argparse's own refusal
        code = int(stop.code or 0)
    captured = capsys.readouterr()
    assert code == EXIT_INVALID, captured
    assert captured.out == ""
    assert "Traceback" not in captured.err
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    return lines[0]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["validate", CLEAN, "--memory-limit", "banana"], "memory limit 'banana'"),
        (["validate", CLEAN, "--memory-limit=-1GB"], "not a size"),
        (["validate", CLEAN, "--threads", "-1"], "give 1 or more"),
        (["validate", CLEAN, "--threads", "0"], "give 1 or more"),
        (["validate", CLEAN, "--threads", "10000"], "per core"),
        (["validate", CLEAN, "--threads", "many"], "not a whole number"),
        (["validate", CLEAN, "--max-examples", "-1"], "--max-examples"),
        (["audit", CLEAN, "--out", "r", "--stall-threshold", "nan"], "--stall-threshold"),
        (["audit", CLEAN, "--out", "r", "--stall-threshold", "inf"], "--stall-threshold"),
        (["audit", CLEAN, "--out", "r", "--stall-threshold", "-5"], "--stall-threshold"),
        (["audit", CLEAN, "--out", "r", "--stall-threshold", "2e8"], "from 0 to 1.5e+08"),
        (["validate", CLEAN, "--spark-buckets", "-1"], "--spark-buckets"),
        (["simulate", "s", "--page-size", "0"], "--page-size"),
        (["simulate", "s", "--seed", "-1"], "--seed"),
        (["simulate", "s", "--crash-rate", "2"], "--crash-rate"),
        (["map", "suggest", CLEAN, "--out", "."], "is not a file"),
        (["frontier", CLEAN, "--as-of", "2300-01-01"], "outside the times"),
        # Path("") is ".": --out "" was the folder the command ran in
        (["audit", CLEAN, "--out", ""], "the path is empty"),
        (["audit", CLEAN, "--out", "  "], "the path is empty"),
        (["simulate", ""], "the path is empty"),
        (["diff", "", "r"], "the path is empty"),
    ],
)
def test_a_senseless_value_is_a_usage_error(
    args: list[str],
    said: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert said in usage_error(capsys, *args)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("RECONCILE_MEMORY_LIMIT", "lots", "RECONCILE_MEMORY_LIMIT"),
        ("RECONCILE_THREADS", "many", "RECONCILE_THREADS"),
        ("RECONCILE_THREADS", "0", "RECONCILE_THREADS"),
    ],
)
def test_a_senseless_environment_variable_is_a_usage_error(
    variable: str,
    value: str,
    said: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(variable, value)
    assert said in usage_error(capsys, "validate", CLEAN)


def test_a_mapping_that_is_not_text_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mapping = tmp_path / "m.toml"
    mapping.write_bytes(b"\xff\xfe[checkpoints]\n")
    assert "is not UTF-8 text" in usage_error(capsys, "validate", CLEAN, "--mapping", str(mapping))
