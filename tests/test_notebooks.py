"""Every notebook runs end to end, headless, and leaves its pictures; a broken cell
fails the run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# Each notebook run headless in a process of its own; outside the fast tier.
pytestmark = pytest.mark.slow

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
FIGURES = {
    "stuck_frontier": {"stuck-lag.png", "stuck-timeline.png"},
    "audit_past_run": {"audit-by-rule.png", "audit-timeline.png"},
    "membership_change": {"membership-proven.png", "membership-unproven.png"},
}


def run_notebook(path: Path, figures: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RECONCILE_FIGURES": str(figures)}
    return subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )


def test_every_notebook_is_listed() -> None:
    assert {p.stem for p in NOTEBOOKS.glob("*.py")} == set(FIGURES)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_notebook_runs_and_draws(tmp_path: Path, name: str) -> None:
    result = run_notebook(NOTEBOOKS / f"{name}.py", tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    drawn = {p.name for p in tmp_path.iterdir()}
    assert drawn == FIGURES[name]
    assert all((tmp_path / f).stat().st_size > 10_000 for f in drawn)


def test_a_broken_cell_fails_the_run(tmp_path: Path) -> None:
    source = (NOTEBOOKS / "membership_change.py").read_text()
    broken_cell = (
        "@app.cell\ndef _(proven_run):\n"
        "    proven_run.watermarks()['no_such_column']\n    return\n\n\n"
    )
    broken = source.replace(
        'if __name__ == "__main__":', broken_cell + 'if __name__ == "__main__":'
    )
    assert broken != source
    path = NOTEBOOKS / "_broken_copy.py"
    path.write_text(broken)
    try:
        result = run_notebook(path, tmp_path)
    finally:
        path.unlink()
    assert result.returncode != 0
    assert "no_such_column" in result.stderr


def test_an_exported_notebook_reads_offline(tmp_path: Path) -> None:
    """The README's offline export: marimo's ipynb with outputs, then nbconvert's
    HTML; opened in Chromium without network, its text and figures show."""
    from tests.browser import browser_page, need_chromium  # noqa: PLC0415

    need_chromium()
    notebook = tmp_path / "stuck.ipynb"
    bin_dir = Path(sys.executable).parent
    subprocess.run(
        [
            str(bin_dir / "marimo"),
            "export",
            "ipynb",
            str(NOTEBOOKS / "stuck_frontier.py"),
            "-o",
            str(notebook),
            "--include-outputs",
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    subprocess.run(
        [
            str(bin_dir / "jupyter"),
            "nbconvert",
            "--to",
            "html",
            str(notebook),
            "--HTMLExporter.mathjax_url=",
            "--HTMLExporter.require_js_url=",
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    page_file = tmp_path / "stuck.html"
    text = page_file.read_text(encoding="utf-8")
    assert '<script src="http' not in text
    with browser_page() as page:
        page.open(page_file)
        images = page.evaluate(
            "[...document.images].filter(i => i.complete && i.naturalWidth > 0).length"
        )
        assert images >= 2  # the lag chart and the timeline
        # embedded in the page: nothing to fetch
        assert page.evaluate("[...document.images].every(i => i.src.startsWith('data:'))")
        assert "p0002" in page.evaluate("document.body.innerText")
