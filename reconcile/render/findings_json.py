"""findings.json: every finding of an audit, for machines (CI jobs, review bots).

Its form is the JSON Schema shipped in the package
(``reconcile/formats/findings.schema.json``, :func:`schema`), documented in
docs/outputs.md. One object per finding, in report order (most severe first), with
its evidence as a JSON object, its ``key`` (the fields that identify it: a rule
reports each key once, and ``reconcile diff`` matches two reports' findings by it),
whether it is at or above ``--fail-on``, and where docs/rules.md says what to do.

The findings are encoded by Polars column by column: no Python object per finding.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import polars as pl

from reconcile.audit.findings import FINDING_SCHEMA
from reconcile.catalog import DOCS, RULES, SEVERITIES, at_or_above, key_fields
from reconcile.render.values import time_text

FORMAT = "reconcile.findings/1"
SCHEMA_FILE = "findings.schema.json"

# every column of a finding but its evidence, which is written as an object
SCALARS = tuple(c for c in FINDING_SCHEMA if c != "evidence")


def schema() -> dict[str, Any]:
    """The JSON Schema findings.json follows."""
    text = resources.files("reconcile.formats").joinpath(SCHEMA_FILE).read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def at_text(findings: pl.DataFrame) -> pl.Expr:
    """A finding's instant as text, the column ``at_text``: ISO 8601 in UTC, with six
    digits where there are microseconds and nine where there are nanoseconds, as every
    JSON output writes times (:func:`~reconcile.render.values.time_text`)."""
    return time_text(pl.col("at"), findings.schema["at"]).alias("at_text")


def key_json() -> pl.Expr:
    """Each finding's key as a JSON object (text): its rule's key fields, by rule;
    ``at`` read from the column ``at_text`` (the instant as :func:`at_text` writes
    it). Two findings are the same finding when their rules and keys are equal."""
    key = pl.lit(None, dtype=pl.String)
    for rule in RULES:
        fields = [
            pl.col("at_text").alias("at") if f == "at" else pl.col(f) for f in key_fields(rule)
        ]
        key = (
            pl.when(pl.col("rule") == rule)
            .then(pl.struct(fields).struct.json_encode())
            .otherwise(key)
        )
    return key


def finding_lines(findings: pl.DataFrame, fail_on: str) -> pl.Series:
    """One JSON object (text) per finding, in the frame's order."""
    if findings.is_empty():
        return pl.Series("line", [], dtype=pl.String)
    framed = findings.with_columns(
        pl.col("severity").cast(pl.String),
        at_text(findings),
    )
    failing = pl.col("severity").is_in(list(at_or_above(fail_on)))
    scalars = [pl.col("at_text").alias("at") if c == "at" else pl.col(c) for c in SCALARS]
    head = pl.struct([*scalars, failing.alias("failing")]).struct.json_encode()
    return framed.select(
        pl.concat_str(
            head.str.strip_suffix("}"),
            pl.lit(',"key":'),
            key_json(),
            pl.lit(',"evidence":'),
            pl.col("evidence").fill_null("null"),
            pl.lit(',"doc":"' + DOCS + "#"),
            pl.col("rule"),
            pl.lit('"}'),
        ).alias("line")
    )["line"]


def render_findings_json(findings: pl.DataFrame, facts: dict[str, Any]) -> str:
    """findings.json for an audit whose summary.json is ``facts``."""
    fail_on = facts["fail_on"]
    head = {
        "format": FORMAT,
        "generator": facts["generator"],
        "as_of": facts["as_of"],
        "logset": facts["inputs"]["logset"],
        "fail_on": fail_on,
        "failing": facts["failing_findings"],
        "severities": list(SEVERITIES),
        "counts": facts["findings"],
    }
    lines = finding_lines(findings, fail_on)
    text = json.dumps(head, indent=2, ensure_ascii=True)
    body = ",\n    ".join(lines.to_list())
    items = f"[\n    {body}\n  ]" if body else "[]"
    return text[:-2] + f',\n  "findings": {items}\n}}\n'
