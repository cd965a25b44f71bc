"""Putting the tasks' outputs together: the scopes' frames, and their validation
problems as one report in validation's own order."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from reconcile.audit.findings import FINDING_SCHEMA
from reconcile.engine.analysis import frame
from reconcile.problems import Problem
from reconcile.spark.scatter import from_ipc
from reconcile_schemas import TABLES, load_rules, table_schema


@dataclass
class Collected:
    """The scopes' outputs, put together."""

    coordinate: str = "int64"
    rows: dict[str, int] = field(default_factory=dict)
    # each scope's problems, in the order its validation reported them
    problems: list[list[dict[str, Any]]] = field(default_factory=list)
    frames: dict[str, list[pl.DataFrame]] = field(default_factory=dict)
    as_of: str | None = None
    timings: list[tuple[str, float]] = field(default_factory=list)

    def add(self, output: str, blob: bytes) -> None:
        if output != "meta":
            self.frames.setdefault(output, []).append(frame(from_ipc(blob)))
            return
        meta = json.loads(blob)
        self.coordinate = meta["coordinate"]
        for table, count in meta["rows"].items():
            if count is not None:
                self.rows[table] = self.rows.get(table, 0) + count
        self.problems.append(meta["problems"])
        self.as_of = meta.get("as_of", self.as_of)
        self.timings.extend((name, seconds) for name, seconds in meta.get("timings", []))

    def frame(self, name: str) -> pl.DataFrame:
        frames = self.frames.get(name, [])
        if not frames:
            return pl.DataFrame(schema=FINDING_SCHEMA) if name == "findings" else pl.DataFrame()
        return pl.concat(frames, how="diagonal_relaxed")


_NUMBER = re.compile(r"\d+")
_RULE_NAMES = frozenset(rule.name for rule in load_rules())


def _key(problem: dict[str, Any]) -> tuple[Any, ...]:
    return (
        problem["check"],
        problem["table"],
        problem["column"],
        _NUMBER.sub("#", problem["message"]),
    )


def _phase(problem: dict[str, Any]) -> tuple[int, int, int]:
    """Where validation reports a problem: layout and schemas first, then each table's
    rows (in contract order, column by column), then the rules between tables."""
    table, column = problem["table"], problem["column"]
    if problem["check"] in _RULE_NAMES:
        phase = 2
    elif problem["failing_rows"] is not None or problem["check"].startswith("unreadable"):
        phase = 1
    else:
        phase = 0
    columns = list(table_schema(table).columns) if table in TABLES else []
    return (
        phase,
        list(TABLES).index(table) if table in TABLES else -1,
        columns.index(column) if column in columns else len(columns),
    )


def _in_order(lists: Sequence[Sequence[dict[str, Any]]]) -> list[tuple[Any, ...]]:
    """Problem keys in the order validation reports them. Each scope's list is in
    that order, so a key goes after every key it follows in any list; between keys
    no list orders, by where validation reports them (:func:`_phase`)."""
    seen: dict[tuple[Any, ...], tuple[tuple[int, int, int], int]] = {}
    before: dict[tuple[Any, ...], set[tuple[Any, ...]]] = {}
    for problems in lists:
        keys = [_key(p) for p in problems]
        for i, (key, problem) in enumerate(zip(keys, problems, strict=True)):
            seen.setdefault(key, (_phase(problem), len(seen)))
            before.setdefault(key, set()).update(keys[:i])
    ordered: list[tuple[Any, ...]] = []
    placed: set[tuple[Any, ...]] = set()
    while len(ordered) < len(seen):
        ready = [k for k in seen if k not in placed and before[k] <= placed]
        # lists that disagree (a cycle) cannot happen; if they did, go by phase
        key = min(ready or [k for k in seen if k not in placed], key=seen.__getitem__)
        ordered.append(key)
        placed.add(key)
    return ordered


def merge_problems(found: Sequence[Sequence[dict[str, Any]]], max_examples: int) -> list[Problem]:
    """The scopes' problems (a list per scope) as one list, in validation's order: a
    problem found in several scopes (a file holding several scopes' rows) is one
    problem, its rows and examples added up."""
    order = _in_order(found)
    merged: dict[tuple[Any, ...], dict[str, Any]] = {}
    for problem in (p for problems in found for p in problems):
        key = _key(problem)
        seen = merged.get(key)
        if seen is None:
            merged[key] = {**problem, "files": list(problem["files"])}
            continue
        if seen == problem:
            continue
        seen["files"] = list(dict.fromkeys([*seen["files"], *problem["files"]]))
        if problem["failing_rows"] is not None:
            seen["failing_rows"] = (seen["failing_rows"] or 0) + problem["failing_rows"]
        seen["examples"] = sorted(
            [*seen["examples"], *problem["examples"]],
            key=lambda e: (str(e.get("file")), e.get("row") or 0),
        )[:max_examples]
        if seen["message"] != problem["message"]:
            # "(...) must be unique: 3 value(s) repeat": the counts add up
            first = _NUMBER.findall(seen["message"])
            other = _NUMBER.findall(problem["message"])
            if len(first) == len(other) == 1:
                total = str(int(first[0]) + int(other[0]))
                seen["message"] = _NUMBER.sub(total, seen["message"])
    return [
        Problem(
            check=p["check"],
            message=p["message"],
            table=p["table"],
            column=p["column"],
            files=tuple(p["files"]),
            failing_rows=p["failing_rows"],
            examples=tuple(p["examples"]),
            source=p.get("source"),
        )
        for p in (merged[key] for key in order)
    ]
