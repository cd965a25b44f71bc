"""summary.md: an audit as Markdown (CommonMark with tables), ready for a pull request.

The verdict against ``--fail-on`` first, then the counts by severity, the frontiers
(who holds each, or why it is a vector), the findings by rule with what each rule
means, and the most severe findings. Every value from the log set is escaped
(:func:`cell`): an identifier cannot end a table cell, open a link or bring HTML.
Documented in docs/outputs.md.
"""

from __future__ import annotations

import re
from typing import Any

import polars as pl

from reconcile.catalog import DOCS, RULES, SEVERITIES
from reconcile.render.exempt import not_applicable_lines
from reconcile.render.safe import for_terminal, inline
from reconcile.render.values import cert_text, times_as_text

SHOWN = 25  # findings listed, most severe first
HOLDERS = 5  # limiting partitions named per frontier

# what could end a cell, open a link, an emphasis, a code span or HTML, or name an
# entity: each backslash-escaped (CommonMark takes the escape of any ASCII punctuation)
_ACTIVE = re.compile(r"([\\`*_\[\]<>|&!~#])")
# a GFM renderer (GitHub's) makes a link of a bare URL or www. name: the URL's "://"
# escaped breaks the first, an escaped "." the second (a time's colons stay as they are)
_URL = re.compile(r"://")
_WWW = re.compile(r"(?i)\b(www)\.")


def cell(value: object) -> str:
    """A value as the text of one Markdown table cell: every character that could
    act in Markdown backslash-escaped, line breaks and controls shown as escapes."""
    if value is None:
        return ""
    text = for_terminal(inline(value))
    escaped = _ACTIVE.sub(r"\\\1", text)
    return _WWW.sub(r"\1\\.", _URL.sub(r"\\:\\/\\/", escaped))


def code(value: object) -> str:
    """An identifier shown as code, escaped as :func:`cell` escapes (a backtick in it
    cannot close the span: code spans take no escapes, so it is shown as text)."""
    return f"`{value}`" if _plain(value) else cell(value)


def _plain(value: object) -> bool:
    return value is not None and re.fullmatch(r"[A-Za-z0-9_.:@+=/-]+", str(value)) is not None


def _certificate(value: object, inclusive: object) -> str:
    # a scalar frontier's null value is +inf (docs/contract.md §2)
    return cert_text(value, inclusive, null="+inf")


def _frontier_rows(frontiers: pl.DataFrame) -> list[str]:
    rows = []
    for row in times_as_text(frontiers, " ").iter_rows(named=True):
        epoch = "" if row["epoch"] is None else str(row["epoch"])
        if row["kind"] == "scalar":
            value = _certificate(row["frontier"], row["frontier_inclusive"])
            held = row["limiting_partitions"] or []
            why = ", ".join(code(p) for p in held[:HOLDERS])
            if len(held) > HOLDERS:
                why += f" +{len(held) - HOLDERS} more"
            why = "held by " + why if why else ""
        else:
            value = "vector"
            why = ", ".join(code(r) for r in row["reasons"] or [])
        rows.append(
            f"| {code(row['scope_id'])} | {row['basis']} | {epoch} | {cell(value)} | {why} |"
        )
    return rows


def _where(row: dict[str, Any]) -> str:
    parts = [code(row["scope_id"])]
    for name in ("partition_id", "epoch", "event_id", "attempt_id", "generation"):
        if row[name] is not None:
            parts.append(f"{name.removesuffix('_id')} {code(row[name])}")
    return " ".join(parts)


def render_summary_md(
    findings: pl.DataFrame, frontiers: pl.DataFrame, facts: dict[str, Any]
) -> str:
    """summary.md for an audit whose summary.json is ``facts``."""
    fail_on = facts["fail_on"]
    failing = facts["failing_findings"]
    total = facts["findings"]["total"]
    verdict = (
        f"**FAIL**: {failing} finding(s) at or above `{fail_on}`"
        if failing
        else f"**PASS**: no finding at or above `{fail_on}`"
    )
    lines = [
        f"## reconcile audit: {verdict}",
        "",
        f"Log set {code(facts['inputs']['logset'])}, as of {cell(facts['as_of'])}:"
        f" {total} finding(s) in all. The full report, with every finding on its"
        " timeline, is `report.html` in the report folder; every rule, and what to do"
        f" about it, is in `{DOCS}`.",
        "",
        "| severity | findings |",
        "|---|---:|",
        *(f"| {s} | {facts['findings']['by_severity'].get(s, 0)} |" for s in SEVERITIES),
        "",
        "### Frontiers",
        "",
        "| scope | basis | epoch | frontier | held by, or why a vector |",
        "|---|---|---:|---|---|",
        *_frontier_rows(frontiers),
    ]
    exempt = not_applicable_lines(facts)
    if exempt:
        lines += ["", "### Rules not applied", "", *(f"- {cell(line)}" for line in exempt)]
    if total:
        by_rule = (
            findings.group_by("rule", "severity")
            .len()
            .sort("severity", "rule")
            .iter_rows(named=True)
        )
        lines += [
            "",
            "### Findings by rule",
            "",
            "| rule | severity | findings | fires when |",
            "|---|---|---:|---|",
            *(
                f"| `{r['rule']}` | {r['severity']} | {r['len']}"
                f" | {cell(RULES[r['rule']].meaning)} |"
                for r in by_rule
            ),
            "",
            f"### Most severe findings ({min(SHOWN, total)} of {total})",
            "",
            "| severity | rule | where | message |",
            "|---|---|---|---|",
            *(
                f"| {r['severity']} | `{r['rule']}` | {_where(r)} | {cell(r['message'])} |"
                for r in findings.head(SHOWN).iter_rows(named=True)
            ),
            *(
                ["", f"{total - SHOWN} more, less severe: findings.json and report.html have all."]
                if total > SHOWN
                else []
            ),
        ]
    return "\n".join(lines) + "\n"
