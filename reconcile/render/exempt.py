"""The rules an audit did not apply, and why, in words for people: the terminal,
summary.md and report.html say it alike (summary.json's ``not_applicable``). A rule
that cannot apply is said so, never counted as passed: "not applicable: no
compare-and-swap in these logs"."""

from __future__ import annotations

from typing import Any


def not_applicable_lines(facts: dict[str, Any]) -> list[str]:
    """One line per scope and reason: ``scope s0: cas_chain_broken, mixed_checkpoint,
    stale_owner_won not applicable: no compare-and-swap in these logs``."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for row in facts.get("not_applicable", []):
        grouped.setdefault((row["scope_id"], row["reason"]), []).append(row["rule"])
    return [
        f"scope {scope}: {', '.join(sorted(rules))} not applicable: {reason}"
        for (scope, reason), rules in sorted(grouped.items())
    ]
