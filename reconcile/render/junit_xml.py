"""junit.xml: an audit as JUnit test results, for CI systems that show them.

One test suite per scope, one test case per rule in it (``classname`` the scope,
``name`` the rule). A case fails (``<failure>``) where the rule has findings at or
above ``--fail-on`` in that scope; findings below it are listed in the case's
``<system-out>``, which passes; a rule whose tables the log set lacks is skipped,
saying which. Documented in docs/outputs.md; tests validate it against a JUnit XSD
and read it with a JUnit consumer.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

import polars as pl

from reconcile.catalog import RULES, at_or_above, doc_anchor
from reconcile.render.safe import for_terminal
from reconcile.render.values import times_as_text

LISTED = 50  # findings written out per test case

# characters XML 1.0 cannot hold at all, beyond the controls for_terminal escapes
_NOT_XML = re.compile("[\ufffe\uffff]")


def xml_text(value: object) -> str:
    """Text any XML 1.0 parser reads: controls and non-characters as escapes."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group(0)):04x}", for_terminal(str(value)))


def _line(row: dict[str, Any]) -> str:
    where = [
        f"{k}={row[k]}"
        for k in ("partition_id", "epoch", "event_id", "attempt_id", "generation", "at")
        if row[k] is not None
    ]
    return f"[{row['severity']}] {' '.join(where)}: {row['message']}"


def _listing(rows: pl.DataFrame) -> str:
    # times as exact text: a Python datetime would cut nanoseconds off
    lines = [_line(r) for r in times_as_text(rows.head(LISTED), " ").iter_rows(named=True)]
    if rows.height > LISTED:
        lines.append(f"... +{rows.height - LISTED} more in findings.json")
    return "\n".join(lines)


def _lacking(alternatives: tuple[tuple[str, ...], ...], present: set[str]) -> str | None:
    """Why a rule cannot check anything in a log set of the ``present`` tables (None
    where one of its ``alternatives`` is all there): "the log set has no receipts or
    snapshot"."""
    if any(set(tables) <= present for tables in alternatives):
        return None
    missing = (", ".join(t for t in tables if t not in present) for tables in alternatives)
    return "the log set has no " + " or ".join(missing)


def render_junit_xml(
    findings: pl.DataFrame,
    scopes: list[str],
    facts: dict[str, Any],
    needs: dict[str, tuple[tuple[str, ...], ...]],
) -> str:
    """junit.xml for an audit whose summary.json is ``facts``: ``scopes`` every scope
    of the log set, ``needs`` the contract tables each rule needs to check anything
    (alternatives, each a set of tables all present)."""
    fail_on = facts["fail_on"]
    failing = set(at_or_above(fail_on))
    present = set(facts["inputs"]["tables"])
    exempt = {(r["scope_id"], r["rule"]): r["reason"] for r in facts.get("not_applicable", [])}
    root = ET.Element("testsuites", name="reconcile audit")
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    groups = (
        findings.with_columns(pl.col("severity").cast(pl.String)).partition_by(
            "scope_id", "rule", as_dict=True
        )
        if findings.height
        else {}
    )
    empty = findings.clear().with_columns(pl.col("severity").cast(pl.String))
    for scope in scopes:
        suite = ET.SubElement(root, "testsuite", name=xml_text(scope))
        counts = {"tests": 0, "failures": 0, "skipped": 0}
        for rule in RULES:
            case = ET.SubElement(suite, "testcase", classname=xml_text(scope), name=rule, time="0")
            counts["tests"] += 1
            rows = groups.get((scope, rule), empty)
            why = _lacking(needs.get(rule, ((),)), present) or exempt.get((scope, rule))
            if why is not None and rows.is_empty():
                ET.SubElement(case, "skipped", message="not applicable: " + why)
                counts["skipped"] += 1
                continue
            if rows.is_empty():  # passed (and no frame filtered: a case per rule and scope)
                continue
            bad = rows.filter(pl.col("severity").is_in(failing))
            if bad.height:
                failure = ET.SubElement(
                    case,
                    "failure",
                    type=RULES[rule].severity,
                    message=f"{bad.height} {rule} finding(s) at or above {fail_on};"
                    f" see {doc_anchor(rule)}",
                )
                failure.text = xml_text(_listing(bad))
                counts["failures"] += 1
            rest = rows.filter(~pl.col("severity").is_in(failing))
            if rest.height:
                ET.SubElement(case, "system-out").text = xml_text(
                    f"{rest.height} finding(s) below {fail_on}:\n" + _listing(rest)
                )
        for name, value in counts.items():
            suite.set(name, str(value))
            totals[name] += value
        suite.set("errors", "0")
        suite.set("time", "0")
        suite.set("timestamp", facts["as_of"].removesuffix("Z"))
    for name, value in totals.items():
        root.set(name, str(value))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
