"""The audit's terminal summary: at most 80 columns, most severe first."""

from __future__ import annotations

import textwrap
from typing import Any

import polars as pl

from reconcile.audit import AuditResult
from reconcile.audit.findings import SEVERITIES
from reconcile.render.exempt import not_applicable_lines
from reconcile.render.safe import inline
from reconcile.render.validation import mapping_text
from reconcile.render.values import cert_text, times_as_text

WIDTH = 80
WORST = 8


def _where(row: dict[str, Any]) -> str:
    parts = [inline(row["scope_id"])]
    if row["partition_id"]:
        parts.append(inline(row["partition_id"]))
    where = "/".join(parts)
    if row["epoch"] is not None:
        where += f" epoch {row['epoch']}"
    if row["event_id"]:
        where += f" event {inline(row['event_id'])}"
    if row["generation"] is not None:
        where += f" gen {row['generation']}"
    return where


def _frontier(row: dict[str, Any]) -> str:
    if row["kind"] == "scalar":
        shown = cert_text(row["frontier"], row["frontier_inclusive"], ascii_signs=True, null="+inf")
        held = ", ".join(inline(p) for p in row["limiting_partitions"][:4])
        return f"{shown} (held by {held}" + (
            ", ...)" if len(row["limiting_partitions"]) > 4 else ")"
        )
    return "vector: " + ", ".join(inline(r) for r in row["reasons"])


def render_audit_text(result: AuditResult, facts: dict[str, Any], out: str) -> str:
    lines = [
        f"reconcile audit: {inline(facts['inputs']['logset'])}",
        f"mapping: {inline(mapping_text(facts['inputs'].get('mapping')))}",
        f"as of {facts['as_of']}",
    ]
    source = facts["inputs"].get("source")
    if source:
        # what a framework's reader could read, and so what the audit can prove
        lines[1:2] = textwrap.wrap(
            inline(f"read by the {source['reader']} reader: {source['proves']}"),
            WIDTH,
            subsequent_indent="  ",
        )
    tables = facts["inputs"]["tables"]
    read = ", ".join(f"{name} {info['rows']:,}" for name, info in tables.items())
    lines.extend(textwrap.wrap(f"read: {read}", WIDTH, subsequent_indent="      "))
    counts = facts["findings"]["by_severity"]
    total = facts["findings"]["total"]
    lines.append("")
    lines.append(
        f"findings: {total}  (" + ", ".join(f"{s} {counts.get(s, 0)}" for s in SEVERITIES) + ")"
    )
    by_rule = (
        result.findings.group_by("severity", "rule").len().sort("rule") if total else pl.DataFrame()
    )
    for severity in SEVERITIES:
        if not total:
            break
        for row in by_rule.filter(pl.col("severity") == severity).iter_rows(named=True):
            label = f"  {severity:<9}{row['rule']} "
            lines.append(label + "." * max(2, WIDTH - len(label) - 8) + f"{row['len']:>7}")
    worst = result.findings.filter(pl.col("severity") != "info").head(WORST)
    if worst.height:
        lines.append("")
        lines.append("most severe:")
        for row in worst.iter_rows(named=True):
            head = f"  [{row['severity']}] {row['rule']} {_where(row)}"
            lines.append(head[:WIDTH])
            lines.extend(
                textwrap.wrap(
                    inline(row["message"]),
                    WIDTH,
                    initial_indent="      ",
                    subsequent_indent="      ",
                )
            )
        more = result.findings.filter(pl.col("severity") != "info").height - worst.height
        info = counts.get("info", 0)
        if more > 0 or info:
            rest = [f"{more} more" if more > 0 else "", f"{info} info" if info else ""]
            lines.append(
                f"  ... and {' and '.join(r for r in rest if r)} (not listed) in report.html"
            )
    exempt = not_applicable_lines(facts)
    if exempt:
        lines.append("")
        for line in exempt:
            lines.extend(textwrap.wrap(inline(line), WIDTH, subsequent_indent="      "))
    lines.append("")
    lines.append("frontier:")
    # times as exact text: a Python datetime would cut nanoseconds off
    for row in times_as_text(result.frontiers, " ").iter_rows(named=True):
        epoch = "-" if row["epoch"] is None else str(row["epoch"])
        text = f"  {inline(row['scope_id'])} {row['basis']:<7} epoch {epoch}: {_frontier(row)}"
        lines.extend(textwrap.wrap(text, WIDTH, subsequent_indent="      "))
    lines.append("")
    lines.append(f"report: {inline(out)}/report.html")
    lines.append("  (for machines: findings.json, summary.md, junit.xml; tables as Parquet)")
    return "\n".join(lines)
