"""docs/ is the project's own reference (issue 21): it names every rule, validation
check, column and option the code has, its links resolve, and nothing points outside
the repository."""

from __future__ import annotations

import argparse
import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from reconcile.catalog import ACTIONS, RULES
from reconcile.cli import build_parser, main
from reconcile.engine.steps.rules import PARTITION_RULES, SCOPE_RULES
from reconcile.render.cli_doc import render_cli_doc
from reconcile_schemas import load_rules
from reconcile_schemas.declared import declared

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


def _markdown_pages() -> list[Path]:
    pages = [ROOT / "README.md", *DOCS.rglob("*.md"), *(ROOT / "bench").glob("*.md")]
    return [*pages, *(ROOT / "data").rglob("*.md")]


def test_every_code_block_is_closed_by_a_bare_fence() -> None:
    # A closing fence with text after it does not close the block (CommonMark): the
    # block runs on and swallows the headings below it (README's Performance once).
    for page in _markdown_pages():
        inside = False
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if not line.lstrip().startswith("```"):
                continue
            if inside:
                assert line.strip() == "```", f"{page.name}:{number}: {line!r}"
            inside = not inside
        assert not inside, f"{page.name}: a code block is never closed"


@pytest.mark.parametrize("command", ["audit", "validate", "watermarks", "frontier"])
def test_the_readme_s_synopsis_names_every_option(command: str) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(rf"^reconcile {command} LOGSET .*?(?=^```)", readme, re.M | re.S)
    assert block is not None, command
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[
        command
    ]
    options = {o for a in sub._actions for o in a.option_strings if o.startswith("--")}
    missing = {o for o in options - {"--help"} if o not in block.group(0)}
    assert not missing, f"README's reconcile {command} lacks {sorted(missing)}"


@pytest.mark.slow
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


# What makes a validation problem, or a row check that becomes one: the check is their
# ``check`` (keyword or first argument).
_MAKERS = ("Problem", "DataCheck")


def _declared_checks() -> set[str]:
    """The checks the contract's Pandera schemas declare (declared.json): a column's
    built-ins (isin, greater_than_or_equal_to) and a table's row rules."""
    names = set()
    for schema in declared().values():
        names.update(c.name for c in schema.checks)
        for column in schema.columns.values():
            names.update(c.name for c in column.checks)
    return names


# A check taken from an object that carries one made elsewhere, as written in the
# source: a DataCheck's (its makers are read too), a declared Pandera check's, a
# rule's (its SQL file's name), a problem's own as JSON (Spark merging its tasks').
_CARRIED: dict[str, set[str]] = {
    "check.check": set(),
    "check.name": _declared_checks(),
    "rule.name": {rule.name for rule in load_rules()},
    "p['check']": set(),
}


class _Module:
    """One source file's tree, with each node's parent, to follow a check's value."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tree = ast.parse(path.read_text(encoding="utf-8"))
        self.parent: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node

    def function(self, node: ast.AST) -> ast.FunctionDef | ast.Module:
        while node in self.parent:
            node = self.parent[node]
            if isinstance(node, ast.FunctionDef):
                return node
        return self.tree

    def where(self, node: ast.expr) -> str:
        return f"{self.path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}"

    def checks(self, node: ast.expr, seen: set[int]) -> set[str]:
        """Every check name ``node`` can hold, following names through assignments,
        a function's parameters to its calls, and a loop over a dict's keys to the
        subscripts that fill it."""
        if id(node) in seen:
            return set()
        seen.add(id(node))
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return {node.value}
        if isinstance(node, ast.IfExp):
            return self.checks(node.body, seen) | self.checks(node.orelse, seen)
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "str" and node.args:
            return self.checks(node.args[0], seen)
        if ast.unparse(node) in _CARRIED:
            return _CARRIED[ast.unparse(node)]
        if isinstance(node, ast.Name):
            return self._name(node, seen)
        raise AssertionError(f"cannot follow the check of {self.where(node)}: teach this test")

    def _name(self, node: ast.Name, seen: set[int]) -> set[str]:
        scope = self.function(node)
        found: set[str] = set()
        bound = False
        if isinstance(scope, ast.FunctionDef):
            params = [a.arg for a in scope.args.args]
            if node.id in params:
                bound = True
                found |= self._arguments(scope, params.index(node.id), seen)
        for statement in ast.walk(scope):
            if isinstance(statement, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == node.id for t in statement.targets
            ):
                bound = True
                found |= self.checks(statement.value, seen)
            elif isinstance(statement, ast.For):
                path = _path_to(statement.target, node.id)
                if path is None:
                    continue
                bound = True
                found |= self._dict_keys(scope, statement, path, seen)
        assert bound, f"cannot follow the check of {self.where(node)}: teach this test"
        return found

    def _arguments(self, function: ast.FunctionDef, index: int, seen: set[int]) -> set[str]:
        """A parameter's values: the argument every call of the function gives it."""
        method = bool(function.args.args) and function.args.args[0].arg == "self"
        name = function.args.args[index].arg
        found: set[str] = set()
        for call in ast.walk(self.tree):
            if not isinstance(call, ast.Call):
                continue
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr == function.name:
                position = index - 1 if method else index
            elif isinstance(func, ast.Name) and func.id == function.name:
                position = index
            else:
                continue
            given = [k.value for k in call.keywords if k.arg == name]
            given += call.args[position : position + 1]
            for argument in given:
                found |= self.checks(argument, seen)
        return found

    def _dict_keys(
        self, scope: ast.AST, loop: ast.For, path: list[int], seen: set[int]
    ) -> set[str]:
        """A name bound by ``for (key, ...), value in D.items()``: the keys D is
        subscripted with in the same function (``D[("check", ...)].append(...)``)."""
        iterated = loop.iter
        assert (
            path[0] == 0
            and isinstance(iterated, ast.Call)
            and isinstance(iterated.func, ast.Attribute)
            and iterated.func.attr == "items"
        ), f"cannot follow the check of {self.where(loop.target)}: teach this test"
        mapping = ast.unparse(iterated.func.value)
        found: set[str] = set()
        for node in ast.walk(scope):
            if isinstance(node, ast.Subscript) and ast.unparse(node.value) == mapping:
                key: ast.expr = node.slice
                for step in path[1:]:
                    assert isinstance(key, ast.Tuple), self.where(node)
                    key = key.elts[step]
                found |= self.checks(key, seen)
        return found


def _path_to(target: ast.expr, name: str) -> list[int] | None:
    """Where ``name`` sits in a (nested) tuple target, as indexes; None: not there."""
    if isinstance(target, ast.Name):
        return [] if target.id == name else None
    if isinstance(target, ast.Tuple):
        for i, element in enumerate(target.elts):
            inner = _path_to(element, name)
            if inner is not None:
                return [i, *inner]
    return None


def _makers(module: _Module) -> Iterator[ast.expr]:
    """The check given to every Problem and DataCheck made in a module."""
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) in _MAKERS:
            given = [k.value for k in node.keywords if k.arg == "check"] or node.args[:1]
            assert given, f"no check in {module.where(node)}"
            yield given[0]


def emitted_checks() -> set[str]:
    """Every check a validation problem can carry, read from the source: the checks
    given to Problem and DataCheck, followed to where they are made."""
    found: set[str] = set()
    for folder in ("reconcile", "schemas"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            module = _Module(path)
            for check in _makers(module):
                found |= module.checks(check, set())
    return found


def test_validation_doc_names_every_check_the_code_can_report() -> None:
    """docs/validation.md has a section (and a row of its table) for each check a
    validation problem can carry, read from the source as above, and none other: a
    new check fails here until it is documented, a check gone until its section is."""
    page = _text("validation.md")
    documented = re.findall(r"^### (\w+)$", page, flags=re.M)
    assert len(documented) == len(set(documented)), "a check documented twice"
    emitted = emitted_checks()
    assert {"missing_table", "unique", "isin", "snapshot_without_bounds"} <= emitted
    assert not emitted - set(documented), (
        f"undocumented in docs/validation.md: {emitted - set(documented)}"
    )
    assert not set(documented) - emitted, (
        f"docs/validation.md names checks no code reports: {set(documented) - emitted}"
    )
    for name in documented:
        assert f"| [`{name}`](#{name}) |" in page, f"{name} is not in the page's table"
