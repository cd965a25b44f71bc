"""docs/ is the project's own reference (issue 21): it names every rule, column and
option the code has, its links resolve, and nothing points outside the repository."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest

from reconcile.catalog import ACTIONS, RULES
from reconcile.cli import main
from reconcile.engine.steps.rules import PARTITION_RULES, SCOPE_RULES
from reconcile.render.cli_doc import render_cli_doc

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _text(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def test_the_catalog_the_engine_and_the_docs_name_the_same_rules() -> None:
    engine = {step.query.removeprefix("audit/") for step in (*PARTITION_RULES, *SCOPE_RULES)}
    assert set(RULES) == engine
    rules = _text("rules.md")
    assert set(re.findall(r"^## (\w+)$", rules, flags=re.M)) == engine
    for name, rule in RULES.items():
        keys = ", ".join(k.removesuffix("_id") for k in rule.key)
        assert f"| [`{name}`](#{name}) | {rule.severity} | {keys} |" in rules
        assert f"**{rule.severity}** · key: {keys}" in rules


def test_the_contract_table_of_rules_matches_the_catalog() -> None:
    contract = _text("contract.md")
    found = dict(re.findall(r"^\| (\w+) \| (critical|error|warning|info) \|", contract, re.M))
    assert found == {name: rule.severity for name, rule in RULES.items()}


def test_cli_reference_is_written_from_the_parser() -> None:
    assert _text("cli.md") == render_cli_doc(), (
        "docs/cli.md is stale: uv run python -m reconcile.render.cli_doc > docs/cli.md"
    )


def test_the_map_help_says_a_log_set_s_own_mapping_is_applied_only_when_asked_for() -> None:
    """A LOGSET/reconcile.toml is read with --mapping auto alone (README, "Untrusted log
    sets"); the map command's description must not say every command reads it."""
    section = _text("cli.md").split("## `reconcile map`", 1)[1].split("\n## ", 1)[0]
    assert "every command reads" not in section
    assert "--mapping auto" in section


def test_every_link_in_docs_resolves() -> None:
    for page in DOCS.rglob("*.md"):
        for target in re.findall(r"\]\(([^)]+)\)", page.read_text(encoding="utf-8")):
            if target.startswith(("http://", "https://")):
                continue
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            assert file.exists(), f"{page.name}: {target}"
            if anchor:
                headings = re.findall(r"^#+ (.+)$", file.read_text(encoding="utf-8"), re.M)
                slugs = {re.sub(r"[^\w-]", "", h.lower().replace(" ", "-")) for h in headings}
                assert anchor in slugs, f"{page.name}: {target}"


def test_nothing_points_outside_the_repository() -> None:
    for folder in ("reconcile", "schemas", "tests", "docs", "data", "notebooks", "bench"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".md", ".sql", ".toml") and path != Path(__file__):
                text = path.read_text(encoding="utf-8", errors="replace")
                assert "../shared" not in text, path
                assert not re.search(r"(?<![/\w])CONTRACT\.md", text), path
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "../shared" not in readme and "docs/contract.md" in readme


@pytest.fixture(scope="module")
def faults(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("docs") / "report"
    main(["audit", str(ROOT / "data" / "faults"), "--out", str(out)])
    return out


def test_outputs_doc_names_every_column(faults: Path) -> None:
    outputs = _text("outputs.md")
    for table in ("watermarks", "frontiers", "frontier_history", "findings"):
        section = outputs.split(f"## `{table}.parquet`", 1)[1].split("\n## ", 1)[0]
        for column in pl.read_parquet_schema(faults / f"{table}.parquet"):
            assert f"`{column}`" in section, (table, column)


def test_rules_doc_lists_each_rules_evidence(faults: Path) -> None:
    rules = _text("rules.md")
    findings = pl.read_parquet(faults / "findings.parquet")
    for rule, evidence in findings.select("rule", "evidence").iter_rows():
        section = rules.split(f"\n## {rule}\n", 1)[1].split("\n## ", 1)[0]
        for field in json.loads(evidence):
            assert f"`{field}`" in section, (rule, field)


def test_the_report_s_what_to_do_is_the_docs_own() -> None:
    """report.html carries each rule's "What to do" (it travels without docs/): the
    package's text is docs/rules.md's paragraph, word for word."""
    sections = re.split(r"^## ", (DOCS / "rules.md").read_text(encoding="utf-8"), flags=re.M)
    written = {}
    for section in sections[1:]:
        name = section.split("\n", 1)[0].strip()
        found = re.search(r"\*\*What to do\.\*\* (.*?)(?:\n\n|\Z)", section, re.S)
        assert found is not None, name
        written[name] = " ".join(found.group(1).split())
    assert written == ACTIONS
