"""report.html driven in headless Chromium as a user drives it (issue 21): filter and
search the findings and count the rows left, sort by a column, click a finding and
see its mark highlighted on the timeline, click a mark and land on its finding. And
a screenshot of every bundled log set's report, for looking at
(``RECONCILE_SCREENSHOTS=DIR`` keeps them)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from reconcile.cli import main
from tests.browser import Page, browser_page, need_chromium
from tests.logsets import FRAMEWORK_EXAMPLES

DATA = Path(__file__).resolve().parents[1] / "data"

VISIBLE = "[...document.querySelectorAll('table.findings > tbody > tr')].filter(r => !r.hidden)"


def _set(page: Page, element: str, value: str) -> None:
    page.evaluate(
        f"(() => {{ const e = document.getElementById('{element}'); e.value = {json.dumps(value)};"
        " e.dispatchEvent(new Event('input', {bubbles: true})); })()"
    )


def _visible(page: Page, attribute: str) -> list[str]:
    return list(page.evaluate(f"{VISIBLE}.map(r => r.dataset.{attribute})"))


@pytest.fixture(scope="module")
def faults_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    need_chromium()
    out = tmp_path_factory.mktemp("browser") / "report"
    assert main(["audit", str(DATA / "faults"), "--out", str(out)]) == 1
    return out / "report.html"


@pytest.mark.slow
def test_filters_and_search_leave_the_rows_asked_for(faults_report: Path) -> None:
    with browser_page() as page:
        page.open(faults_report)
        assert page.evaluate("performance.getEntriesByType('resource').length") == 0
        assert page.evaluate("document.getElementById('shown-count').textContent") == (
            "28 of 28 shown"
        )
        _set(page, "filter-severity", "critical")
        assert _visible(page, "severity") == ["critical"] * 7
        _set(page, "filter-rule", "skipped_event")
        assert _visible(page, "rule") == ["skipped_event"] * 2
        _set(page, "filter-severity", "")
        _set(page, "filter-rule", "")
        _set(page, "filter-search", "P0007")  # case-insensitive, over the row's text
        shown = page.evaluate(f"{VISIBLE}.map(r => r.textContent)")
        assert shown and all("p0007" in text for text in shown)
        assert page.evaluate("document.getElementById('shown-count').textContent") == (
            f"{len(shown)} of 28 shown"
        )


def test_sorting_by_severity_both_ways(faults_report: Path) -> None:
    with browser_page() as page:
        page.open(faults_report)
        head = "document.querySelector('th[data-sort=rank]')"
        page.evaluate(f"{head}.click()")
        ranks = [int(r) for r in _visible(page, "rank")]
        assert ranks == sorted(ranks)
        page.evaluate(f"{head}.click()")
        ranks = [int(r) for r in _visible(page, "rank")]
        assert ranks == sorted(ranks, reverse=True) and ranks[0] == 3  # info first


def test_a_finding_and_its_mark_lead_to_each_other(faults_report: Path) -> None:
    with browser_page() as page:
        page.open(faults_report)
        n = page.evaluate("document.querySelector('tr[data-rule=stale_owner_won]').dataset.n")
        page.evaluate(f"document.getElementById('finding-{n}').click()")
        highlighted = page.evaluate(
            "[...document.querySelectorAll('.finding-mark.hl')].map(m => m.id)"
        )
        assert highlighted == [f"mark-{n}"]
        # the other way: a mark on the chart takes the reader to its finding
        other = page.evaluate("document.querySelector('tr[data-rule=late_insert]').dataset.n")
        page.evaluate(
            f"document.getElementById('mark-{other}').closest('a')"
            ".dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true}))"
        )
        assert page.evaluate("location.hash") == f"#finding-{other}"
        assert page.evaluate(f"document.getElementById('finding-{other}').classList.contains('hl')")
        assert page.evaluate("document.querySelectorAll('.finding-mark.hl').length") == 1


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.name for p in DATA.iterdir() if p.is_dir()))
def test_every_bundled_report_renders(name: str, tmp_path: Path) -> None:
    out = tmp_path / "report"
    need_chromium()
    mapped = ["--mapping", "auto"] if (DATA / name / "reconcile.toml").exists() else []
    if name in FRAMEWORK_EXAMPLES:  # a framework's own artifacts, read by its reader
        mapped = ["--source", FRAMEWORK_EXAMPLES[name]]
    assert main(["audit", str(DATA / name), "--out", str(out), *mapped]) in (0, 1)
    keep = os.environ.get("RECONCILE_SCREENSHOTS")
    folder = Path(keep) if keep else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    with browser_page() as page:
        page.open(out / "report.html")
        assert page.evaluate("document.querySelectorAll('svg.timeline').length") >= 1
        assert page.evaluate("document.querySelector('.why') !== null")
        page.screenshot(folder / f"{name}.png")
    assert (folder / f"{name}.png").stat().st_size > 10_000
