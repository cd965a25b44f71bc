"""``reconcile diff`` rendered: for a terminal, as Markdown, as JSON."""

from __future__ import annotations

import json
from typing import Any

import polars as pl

from reconcile.diff import Diff
from reconcile.render.safe import for_json, for_terminal, inline
from reconcile.render.summary_md import cell, code
from reconcile.render.values import time_text, times_as_text

SHOWN = 20  # findings listed per kind (new, resolved) in text and Markdown


def _where(row: dict[str, Any]) -> str:
    parts = [inline(row["scope_id"])]
    if row["partition_id"] is not None:
        parts[0] += "/" + inline(row["partition_id"])
    for name in ("epoch", "event_id", "attempt_id", "generation"):
        if row[name] is not None:
            parts.append(f"{name.removesuffix('_id')} {inline(row[name])}")
    if row["rule"].startswith("published_") and row["at"] is not None:
        parts.append(f"at {row['at']}")
    return " ".join(parts)


def _counts(result: Diff) -> dict[str, int]:
    return {
        "new": result.new_findings.height,
        "resolved": result.resolved.height,
        "unchanged": result.unchanged.height,
    }


def render_diff_text(result: Diff, fail_on: str) -> str:
    counts = _counts(result)
    lines = [
        f"reconcile diff: {inline(result.old.path)} -> {inline(result.new.path)}",
        f"as of {result.old.facts.get('as_of')} -> {result.new.facts.get('as_of')}",
        "",
        "findings: "
        + ", ".join(f"{k} {v}" for k, v in counts.items())
        + f"  ({result.failing(fail_on)} new at or above {fail_on})",
    ]
    for title, frame in (("new", result.new_findings), ("resolved", result.resolved)):
        if frame.height:
            lines.append(f"{title}:")
            for row in times_as_text(frame.head(SHOWN)).iter_rows(named=True):
                lines.append(f"  [{row['severity']}] {row['rule']} {_where(row)}")
            if frame.height > SHOWN:
                lines.append(f"  ... and {frame.height - SHOWN} more (--format json lists all)")
    lines += ["", "frontiers:"]
    for row in result.frontiers.iter_rows(named=True):
        lines.append(
            f"  {inline(row['scope_id'])} {row['basis']:<7} {row['old'] or '-'} -> "
            f"{row['new'] or '-'}: {row['movement']}"
        )
    if not result.comparable:
        lines.append(
            "  (the reports' coordinates differ in type: their certificates are not compared)"
        )
    lines += ["", f"watermarks that went back: {result.went_back.height}"]
    for row in result.went_back.head(SHOWN).iter_rows(named=True):
        lines.append(
            f"  {inline(row['scope_id'])}/{inline(row['partition_id'])} {row['certificate']}:"
            f" {row['old'] or 'none'} -> {row['new'] or 'none'} ({row['change']})"
        )
    if result.went_back.height > SHOWN:
        lines.append(f"  ... and {result.went_back.height - SHOWN} more (--format json)")
    return for_terminal("\n".join(lines))


def render_diff_markdown(result: Diff, fail_on: str) -> str:
    counts = _counts(result)
    failing = result.failing(fail_on)
    verdict = (
        f"**{failing} new finding(s) at or above `{fail_on}`**"
        if failing
        else f"no new finding at or above `{fail_on}`"
    )
    lines = [
        f"## reconcile diff: {verdict}",
        "",
        f"From {code(str(result.old.path))} to {code(str(result.new.path))}:"
        f" {counts['new']} new, {counts['resolved']} resolved, {counts['unchanged']}"
        " unchanged.",
    ]
    for title, frame in (("New findings", result.new_findings), ("Resolved", result.resolved)):
        if frame.height:
            lines += [
                "",
                f"### {title} ({min(SHOWN, frame.height)} of {frame.height})",
                "",
                "| severity | rule | where | message |",
                "|---|---|---|---|",
            ]
            lines += [
                f"| {r['severity']} | `{r['rule']}` | {cell(_where(r))} | {cell(r['message'])} |"
                for r in times_as_text(frame.head(SHOWN)).iter_rows(named=True)
            ]
    lines += [
        "",
        "### Frontiers",
        "",
        "| scope | basis | before | after | movement |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {code(r['scope_id'])} | {r['basis']} | {cell(r['old'] or '-')} |"
        f" {cell(r['new'] or '-')} | {r['movement']} |"
        for r in result.frontiers.iter_rows(named=True)
    ]
    if result.went_back.height:
        lines += [
            "",
            f"### Watermarks that went back ({result.went_back.height})",
            "",
            "| partition | certificate | before | after | change |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| {code(r['scope_id'])}/{code(r['partition_id'])} | {r['certificate']} |"
            f" {cell(r['old'] or 'none')} | {cell(r['new'] or 'none')} | {r['change']} |"
            for r in result.went_back.head(SHOWN).iter_rows(named=True)
        ]
    return "\n".join(lines) + "\n"


def _rows(frame: pl.DataFrame) -> list[dict[str, Any]]:
    if "at" in frame.columns:
        frame = frame.with_columns(time_text(pl.col("at"), frame.schema["at"]))
    if "severity" in frame.columns:
        frame = frame.with_columns(pl.col("severity").cast(pl.String))
    rows = frame.to_dicts()
    for row in rows:
        if isinstance(row.get("evidence"), str):
            row["evidence"] = json.loads(row["evidence"])
    return rows


def render_diff_json(result: Diff, fail_on: str) -> str:
    document = {
        "format": "reconcile.diff/1",
        "old": str(result.old.path),
        "new": str(result.new.path),
        "fail_on": fail_on,
        "failing": result.failing(fail_on),
        "counts": _counts(result),
        "comparable": result.comparable,
        "new_findings": _rows(result.new_findings),
        "resolved": _rows(result.resolved),
        "unchanged": _rows(result.unchanged),
        "frontiers": result.frontiers.to_dicts(),
        "went_back": result.went_back.to_dicts(),
    }
    return for_json(json.dumps(document, indent=2, ensure_ascii=True, default=str))
