"""The validation report as text for a terminal, and as JSON."""

from __future__ import annotations

import json
from typing import Any

from reconcile.problems import Problem
from reconcile.render.safe import inline
from reconcile.validate.report import ValidationReport


def _value(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _example(example: dict[str, Any]) -> str:
    where = inline(example.get("file") or "")
    if example.get("row") is not None:
        where += f" row {example['row']}"
    values = " ".join(f"{k}={_value(v)}" for k, v in example.items() if k not in ("file", "row"))
    return f"{where}: {values}" if where else values


def _files(problem: Problem) -> str:
    shown = ", ".join(inline(f) for f in problem.files[:3])
    more = len(problem.files) - 3
    return shown + (f" and {more} more" if more > 0 else "")


def _problem(number: int, problem: Problem) -> list[str]:
    head = [problem.table or "log set"]
    if problem.column and problem.source:
        head.append(f"column {problem.column} (mapped from {inline(problem.source)})")
    elif problem.column:
        head.append(f"column {problem.column}")
    head.append(f"check {problem.check}")
    if problem.failing_rows is not None:
        rows = problem.failing_rows
        head.append(f"{rows:,} row{'s' if rows != 1 else ''}")
    lines = [f"{number}. " + " | ".join(head)]
    if problem.files:
        lines.append(f"   file{'s' if len(problem.files) > 1 else ''}: {_files(problem)}")
    lines.append(f"   {inline(problem.message)}")
    lines.extend(f"   e.g. {_example(e)}" for e in problem.examples)
    return lines


def mapping_text(mapping: str | None) -> str:
    """The mapping in use, as every report names it: a file, or none."""
    return mapping if mapping is not None else "none (the contract's own layout)"


def render_text(report: ValidationReport) -> str:
    """A report a person reads top to bottom: what was read, then each problem."""
    lines = [
        f"log set: {inline(report.logset)}",
        f"mapping: {inline(mapping_text(report.mapping))}",
    ]
    # with no table read there is no coordinate to type (the report's default is int64)
    lines.append(f"coordinate type: {report.coordinate if report.tables else 'none (no table)'}")
    for table in report.tables:
        rows = (
            "not scanned"
            if table.rows is None
            else f"{table.rows:,} row{'s' if table.rows != 1 else ''}"
        )
        lines.append(
            f"  {table.name:<16} {table.files} file{'s' if table.files != 1 else ''}, {rows}"
        )
    lines.append("")
    if report.ok:
        lines.append("VALID: no problems found")
        return "\n".join(lines)
    count = len(report.problems)
    lines.append(f"INVALID: {count} problem{'s' if count > 1 else ''}")
    for number, problem in enumerate(report.problems, 1):
        lines.append("")
        lines.extend(_problem(number, problem))
    return "\n".join(lines)


def render_json(report: ValidationReport) -> str:
    return json.dumps(report.to_dict(), indent=2, default=str)
