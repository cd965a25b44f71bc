"""``reconcile diff OLD NEW``: what changed between two audit reports.

Findings are matched by rule and key (docs/rules.md: a rule reports each key once):
*new* (in NEW alone), *resolved* (in OLD alone), *unchanged* (in both). Frontiers are
compared per scope and basis; watermarks per partition, listing every certificate
that went back (or was lost, with its partition where NEW has no row of it). A report
is read from its own files (its Parquet tables and ``summary.json``); a folder that is
not a reconcile report, or a file of it that cannot be read or holds a column of
another type, is an input error naming the file.

Comparing certificates of two reports takes the reading that never hides a loss:
a certificate present in OLD and absent in NEW went back; an endpoint unknown in NEW
is read as exclusive, in OLD as inclusive (one unknown in both, at one value, is the
same claim read twice: no change); a frontier in another epoch that stands lower went
back all the same, and one that became a vector is said so; one whose coordinate type
differs between the reports cannot be compared, and says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from reconcile.audit.findings import FINDING_SCHEMA, SEVERITY
from reconcile.catalog import RULES, at_or_above
from reconcile.errors import InputError
from reconcile.render.findings_json import at_text, key_json
from reconcile.render.values import times_as_text
from reconcile_schemas.types import CoordinateType, Logical, polars_dtype

GENERATOR = "reconcile audit"
FRONTIER_KEY = ("scope_id", "basis")
# certificates of a partition compared between the reports: (label, value, endpoint)
CERTIFICATES = (
    ("committed", "committed_position", None),
    ("proven", "proven_through", "proven_inclusive"),
    ("claimed", "claimed_through", "claimed_inclusive"),
)
# the columns diff reads of a report's frontiers and watermarks, by logical type
FRONTIER_COLUMNS = {
    "scope_id": Logical.STRING,
    "basis": Logical.STRING,
    "epoch": Logical.INT64,
    "kind": Logical.STRING,
    "frontier": Logical.COORDINATE,
    "frontier_inclusive": Logical.BOOL,
}
WATERMARK_COLUMNS = {
    "scope_id": Logical.STRING,
    "partition_id": Logical.STRING,
    "committed_event_id": Logical.STRING,
    **{value: Logical.COORDINATE for _, value, _ in CERTIFICATES},
    **{endpoint: Logical.BOOL for _, _, endpoint in CERTIFICATES if endpoint},
}


@dataclass(frozen=True)
class Report:
    """One audit report as ``reconcile diff`` reads it."""

    path: Path
    facts: dict[str, Any]
    findings: pl.DataFrame
    frontiers: pl.DataFrame
    watermarks: pl.DataFrame

    @property
    def coordinate(self) -> str | None:
        return _coordinate(self.facts)


def _coordinate(facts: dict[str, Any]) -> str | None:
    """The coordinate type ``summary.json`` names (``inputs.coordinate``), if any."""
    inputs = facts.get("inputs")
    value = inputs.get("coordinate") if isinstance(inputs, dict) else None
    return str(value) if value is not None else None


def _read_table(path: Path, name: str) -> pl.DataFrame:
    file = path / f"{name}.parquet"
    try:
        return pl.read_parquet(file, glob=False)  # a folder r[1] is no pattern
    except FileNotFoundError as error:
        raise InputError(f"{path} is not a reconcile report: {file.name} is missing") from error
    except Exception as error:  # polars raises several kinds for a bad file
        raise InputError(f"cannot read {file}: {str(error).splitlines()[0]}") from error


def _need(frame: pl.DataFrame, columns: dict[str, list[pl.DataType]], file: Path) -> pl.DataFrame:
    """``frame``, its columns of nulls alone (Parquet's null type, which a column
    written without a value may have) in the first of their types; an InputError
    (exit 2) naming ``file`` unless it has each of ``columns`` in one of its types: a
    column lacking, or the first of another type, with the type found and the type
    expected."""
    lacking = [c for c in columns if c not in frame.columns]
    if lacking:
        raise InputError(
            f"{file} is not a reconcile report's table: no column {', '.join(lacking)}"
        )
    for name, expected in columns.items():
        found = frame.schema[name]
        if not any(_fits(found, dtype) for dtype in expected):
            raise InputError(
                f"{file} is not a reconcile report's table: column {name} is {found},"
                f" expected {' or '.join(map(str, expected))}"
            )
    return frame.with_columns(
        pl.col(name).cast(expected[0])
        for name, expected in columns.items()
        if frame.schema[name] == pl.Null
    )


def _fits(found: pl.DataType, expected: pl.DataType) -> bool:
    """Whether a column of type ``found`` reads as ``expected``: an integer of any width
    as an integer, a time of any unit (without a zone, as the report writes UTC) as a
    time, a severity as text or categories; a column of nulls alone as any."""
    if found == pl.Null:
        return True
    if expected.is_integer():
        return found.is_integer()
    if isinstance(expected, pl.Enum):
        return isinstance(found, (pl.String, pl.Enum, pl.Categorical))
    if isinstance(expected, pl.Datetime):
        return isinstance(found, pl.Datetime) and found.time_zone is None
    return found == expected


def _types(columns: dict[str, Logical], coordinate: str | None) -> dict[str, list[pl.DataType]]:
    """The types each of ``columns`` may have in a report of ``coordinate`` (a report
    that names no coordinate type: either)."""
    kinds = [c for c in CoordinateType if c.value == coordinate] or list(CoordinateType)
    return {
        name: list(dict.fromkeys(polars_dtype(logical, kind) for kind in kinds))
        for name, logical in columns.items()
    }


def read_report(path: Path) -> Report:
    """The report in folder ``path``; an InputError (exit 2) naming what is wrong."""
    if not path.is_dir():
        raise InputError(f"{path} is not a folder: name an audit's --out folder")
    marker = path / "summary.json"
    try:
        facts = json.loads(marker.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise InputError(f"{path} is not a reconcile report: it has no summary.json") from error
    except (OSError, ValueError) as error:
        raise InputError(f"cannot read {marker}: {error}") from error
    if not isinstance(facts, dict) or facts.get("generator") != GENERATOR:
        raise InputError(f"{marker} was not written by {GENERATOR}")
    coordinate = _coordinate(facts)
    findings = _need(
        _read_table(path, "findings"),
        {name: [dtype] for name, dtype in FINDING_SCHEMA.items()},
        path / "findings.parquet",
    )
    frontiers = _need(
        _read_table(path, "frontiers"),
        _types(FRONTIER_COLUMNS, coordinate),
        path / "frontiers.parquet",
    )
    marks = _need(
        _read_table(path, "watermarks"),
        _types(WATERMARK_COLUMNS, coordinate),
        path / "watermarks.parquet",
    )
    try:
        findings = findings.with_columns(pl.col("severity").cast(pl.String).cast(SEVERITY))
    except pl.exceptions.PolarsError as error:
        raise InputError(
            f"{path / 'findings.parquet'}: a severity is not one of the four"
        ) from error
    _check_findings(findings, path / "findings.parquet")
    return Report(path, facts, findings, frontiers, marks)


def _check_findings(findings: pl.DataFrame, file: Path) -> None:
    """An InputError (exit 2) naming ``file``, the column and example rows (numbered
    from 0) unless every finding has a rule this version knows, so a key to be matched
    by (a rule of another version has no key here: matched by nothing, a report would
    differ from itself), and evidence that is JSON text or null."""
    numbered = findings.with_row_index("_row")
    unknown = numbered.filter(pl.col("rule").is_null() | ~pl.col("rule").is_in(RULES))
    if unknown.height:
        shown = ", ".join(
            f"row {r['_row']}: {r['rule']!r}" for r in unknown.head(3).iter_rows(named=True)
        )
        raise InputError(
            f"{file}: column rule: {unknown.height} finding(s) of no rule this version of"
            f" reconcile knows ({shown}): diff reports written by one version"
        )
    for row, text in numbered.select("_row", "evidence").iter_rows():
        if text is None:
            continue
        try:
            json.loads(text)
        except ValueError as error:
            raise InputError(
                f"{file}: column evidence: row {row} is not JSON text ({error}): {text[:60]!r}"
            ) from error


@dataclass(frozen=True)
class Diff:
    """What changed from ``old`` to ``new``."""

    old: Report
    new: Report
    new_findings: pl.DataFrame
    resolved: pl.DataFrame
    unchanged: pl.DataFrame
    frontiers: pl.DataFrame  # per scope and basis: old and new, and the movement
    went_back: pl.DataFrame  # per partition and certificate that went back or was lost
    comparable: bool  # the two reports' coordinates have one type

    def failing(self, fail_on: str) -> int:
        """New findings at or above ``fail_on``: ``diff`` exits 1 when there are any."""
        levels = list(at_or_above(fail_on))
        return self.new_findings.filter(pl.col("severity").cast(pl.String).is_in(levels)).height


def _keyed(findings: pl.DataFrame) -> pl.DataFrame:
    framed = findings.with_columns(at_text(findings))
    return framed.with_columns(
        pl.concat_str(pl.col("rule"), pl.lit(" "), key_json()).alias("_key")
    ).drop("at_text")


def _movement(old: dict[str, Any] | None, new: dict[str, Any] | None, comparable: bool) -> str:
    """How a scope's frontier on one basis moved from ``old`` to ``new`` (its rows)."""
    if old is None:
        return "new scope"
    if new is None:
        return "scope gone"
    if old["epoch"] != new["epoch"]:
        # the scope's members changed, but a scalar that stands lower still went back,
        # and one that is no longer a scalar is lost
        if old["kind"] == "scalar" and new["kind"] == "vector":
            return "other epoch, became a vector"
        if comparable and old["kind"] == new["kind"] == "scalar" and _order(new) < _order(old):
            return "other epoch, went back"
        return "other epoch"
    if old["kind"] != new["kind"]:
        return "became a vector" if new["kind"] == "vector" else "became a scalar"
    if new["kind"] == "vector":
        return "unchanged"  # a vector has no scalar to compare
    if not comparable:
        return "incomparable"
    before, after = _order(old), _order(new)
    if after == before:
        return "unchanged"
    return "advanced" if after > before else "went back"


def _order(row: dict[str, Any]) -> tuple[int, Any, int]:
    """A scalar frontier row's order (:func:`_rank` of its value and endpoint)."""
    return _rank(row["frontier"], row["frontier_inclusive"])


def _rank(value: Any, inclusive: Any) -> tuple[int, Any, int]:
    """A scalar certificate's order: null is +inf, exclusive below inclusive."""
    if value is None:
        return (1, 0, 0)
    return (0, value, 1 if inclusive else 0)


def _frontier_changes(old: Report, new: Report, comparable: bool) -> pl.DataFrame:
    # times as exact text (a Python datetime would cut nanoseconds off), which orders
    # as the times do: a frontier moved by less than a microsecond still moved
    before = {
        (r["scope_id"], r["basis"]): r for r in times_as_text(old.frontiers).iter_rows(named=True)
    }
    after = {
        (r["scope_id"], r["basis"]): r for r in times_as_text(new.frontiers).iter_rows(named=True)
    }
    rows = []
    for key in sorted(set(before) | set(after)):
        a, b = before.get(key), after.get(key)
        row: dict[str, Any] = {"scope_id": key[0], "basis": key[1]}
        row["old"] = _certificate(a)
        row["new"] = _certificate(b)
        row["old_epoch"] = None if a is None else a["epoch"]
        row["new_epoch"] = None if b is None else b["epoch"]
        row["movement"] = _movement(a, b, comparable)
        rows.append(row)
    schema = {
        "scope_id": pl.String,
        "basis": pl.String,
        "old": pl.String,
        "new": pl.String,
        "old_epoch": pl.Int64,
        "new_epoch": pl.Int64,
        "movement": pl.String,
    }
    return pl.DataFrame(rows, schema=schema)


def _certificate(row: dict[str, Any] | None) -> str | None:
    """A frontier as text: ``<= v`` / ``< v`` for a scalar (``+inf`` unbounded),
    ``vector`` for a vector, null where the scope has no row."""
    if row is None:
        return None
    if row["kind"] != "scalar":
        return "vector"
    value = row["frontier"]
    if value is None:
        return "+inf"
    shown = value.isoformat() if hasattr(value, "isoformat") else str(value)
    return ("<= " if row["frontier_inclusive"] else "< ") + shown


def _endpoint_text(value: pl.Expr, endpoint: str | None) -> pl.Expr:
    """A certificate as the frontiers are written, ``<= v`` or ``< v`` (a dense ``<= v``
    to ``< v`` went back with its value unchanged); the committed watermark, which has
    no endpoint, as its position."""
    text = value.cast(pl.String)
    if endpoint is None:
        return text
    inclusive = pl.col(endpoint)
    return (
        pl.when(value.is_null())
        .then(None)
        .when(inclusive.is_null())
        .then(text + pl.lit(" (endpoint unknown)"))
        .when(inclusive)
        .then(pl.lit("<= ") + text)
        .otherwise(pl.lit("< ") + text)
    )


def _went_back(old: Report, new: Report, comparable: bool) -> pl.DataFrame:
    """Per partition of OLD, each certificate that went back or was lost: every
    certificate of a partition NEW has no row of (``partition gone``)."""
    pieces = [_gone(old, new)]
    joined = old.watermarks.join(
        new.watermarks, on=["scope_id", "partition_id"], how="inner", suffix="_new"
    )
    for label, value, endpoint in CERTIFICATES:
        o, n = pl.col(value), pl.col(f"{value}_new")
        unsure = pl.lit(False)
        if endpoint is None:  # the committed watermark: (position, event_id)
            tie = pl.col("committed_event_id_new") < pl.col("committed_event_id")
        else:  # a certificate: exclusive below inclusive; an unknown endpoint is read
            # as inclusive in OLD, exclusive in NEW (one unknown in both is no change)
            oe, ne = pl.col(endpoint), pl.col(f"{endpoint}_new")
            unsure = oe.is_null() | ne.is_null()
            tie = oe.fill_null(True) & ~ne.fill_null(False) & ~(oe.is_null() & ne.is_null())
        lost = o.is_not_null() & n.is_null()
        if comparable:
            lower = o.is_not_null() & n.is_not_null() & ((n < o) | ((n == o) & tie))
            why = (
                pl.when(lost)
                .then(pl.lit("lost"))
                .when((n == o) & unsure)
                .then(pl.lit("may have gone back"))
                .otherwise(pl.lit("went back"))
            )
            picked = lost | lower
        else:
            why = pl.lit("lost")
            picked = lost
        pieces.append(
            joined.filter(picked).select(
                "scope_id",
                "partition_id",
                pl.lit(label).alias("certificate"),
                _endpoint_text(o, endpoint).alias("old"),
                _endpoint_text(n, endpoint and f"{endpoint}_new").alias("new"),
                why.alias("change"),
            )
        )
    return pl.concat(pieces).sort("scope_id", "partition_id", "certificate")


def _gone(old: Report, new: Report) -> pl.DataFrame:
    """Each certificate each partition of OLD that NEW has no row of had (a null one
    had nothing to lose), lost with it (``partition gone``), whatever the
    coordinates: nothing of it is left to compare."""
    gone = old.watermarks.join(new.watermarks, on=["scope_id", "partition_id"], how="anti")
    return pl.concat(
        gone.filter(pl.col(value).is_not_null()).select(
            "scope_id",
            "partition_id",
            pl.lit(label).alias("certificate"),
            _endpoint_text(pl.col(value), endpoint).alias("old"),
            pl.lit(None, pl.String).alias("new"),
            pl.lit("partition gone").alias("change"),
        )
        for label, value, endpoint in CERTIFICATES
    )


def _coordinates_alike(old: Report, new: Report) -> bool:
    """Whether the two reports' coordinate columns hold values of one kind (integers,
    or times): a report whose summary names no coordinate type is compared by what
    its columns hold, never an integer against a time."""

    def kinds(report: Report) -> set[str]:
        columns = [report.frontiers.schema["frontier"]] + [
            report.watermarks.schema[value] for _, value, _ in CERTIFICATES
        ]
        return {
            "time" if isinstance(c, pl.Datetime) else "integer" for c in columns if c != pl.Null
        }

    return len(kinds(old) | kinds(new)) <= 1


def diff_reports(old_path: Path, new_path: Path) -> Diff:
    """Compare the audit report in ``old_path`` with the one in ``new_path``."""
    old, new = read_report(old_path), read_report(new_path)
    comparable = old.coordinate == new.coordinate and _coordinates_alike(old, new)
    a, b = _keyed(old.findings), _keyed(new.findings)
    return Diff(
        old=old,
        new=new,
        new_findings=b.join(a.select("_key"), on="_key", how="anti").drop("_key"),
        resolved=a.join(b.select("_key"), on="_key", how="anti").drop("_key"),
        unchanged=b.join(a.select("_key"), on="_key", how="semi").drop("_key"),
        frontiers=_frontier_changes(old, new, comparable),
        went_back=_went_back(old, new, comparable),
        comparable=comparable,
    )
