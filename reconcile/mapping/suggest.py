"""``reconcile map suggest``: a first mapping, from the files' own schemas.

The files under the log directory (Parquet, CSV, JSON Lines; a folder of files of one
format is one source) are read for their columns and a few facts (DuckDB; no more
than a column's distinct values or its largest value). Each source is matched to the
contract table whose columns its own resemble most; a source holding several tables
told apart by a column (``kind``, ``type``, ...) whose values name tables gets a
section per table, with a filter. Each contract column is matched to the closest
column by name (exact, known synonyms, abbreviations, shared words); timestamps
stored as numbers get the epoch unit their name or size says, text timestamps
``rfc3339`` where they are RFC 3339, else a strptime format that reads them;
enumerations get a value map, guessed where the spellings
are known and marked ``"?"`` where not. What could not be matched is said in
comments. Files already in the contract's layout are left to it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from reconcile.db import connect, quote_identifier, quote_literal
from reconcile.errors import resource_error
from reconcile.logset.discover import is_hidden
from reconcile.logset.normalize import RFC3339_PATTERN, text_instant
from reconcile.mapping.bind import FILE, ROW, reader
from reconcile.mapping.names import (
    allowed_values,
    epoch_named,
    guess_truth,
    guess_value,
    match_columns,
    table_named,
    table_score,
)
from reconcile.mapping.spec import EXTENSIONS, MAPPING_FILE, RFC3339, ColumnSpec, TableSpec
from reconcile.mapping.toml_text import mapping_text, table_text
from reconcile_schemas import (
    REQUIRED_TABLES,
    TABLES,
    Logical,
    logical_type,
    table_schema,
)

TIME_FORMATS = (
    "%Y-%m-%dT%H:%M:%S.%fZ",
    "%Y-%m-%dT%H:%M:%S.%f%z",
    "%Y-%m-%dT%H:%M:%SZ",
    "%Y-%m-%dT%H:%M:%S%z",
    "%Y-%m-%dT%H:%M:%S.%f",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M:%S.%f",
    "%Y-%m-%d %H:%M:%S",
    "%d/%m/%Y %H:%M:%S",
    "%m/%d/%Y %H:%M:%S",
)
_RFC3339 = re.compile(RFC3339_PATTERN)
DISCRIMINATORS = ("kind", "type", "table", "record_type", "entry_type", "log_type", "record")
# a source is a table's from this score on (below TABLE_SCORE: a weak match)
TABLE_MIN = 0.3
TABLE_SCORE = 0.6


@dataclass
class Source:
    """Files read as one: a file, or a folder's files of one format."""

    pattern: str
    format: str
    files: tuple[Path, ...]
    columns: dict[str, str] = field(default_factory=dict)  # name -> DuckDB type


@dataclass
class Suggestion:
    """A table's suggested section and what to say about it."""

    spec: TableSpec
    score: float
    notes: list[str] = field(default_factory=list)
    column_notes: dict[str, str] = field(default_factory=dict)


def _sources(root: Path, notes: list[str]) -> list[Source]:
    """The candidate files under ``root``: top-level files one by one, and each
    folder's files of one format as one source. A file that is not regular, or that a
    link takes outside ``root``, is left out with a note (it is never read)."""
    grouped: dict[tuple[str, str], list[Path]] = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        fmt = EXTENSIONS.get(path.suffix.lower())
        if fmt is None or any(is_hidden(p) for p in relative.parts):
            continue
        if path.name == MAPPING_FILE:
            continue
        try:
            relative.as_posix().encode("utf-8")
        except UnicodeEncodeError:
            raw = os.fsencode(relative.as_posix()).decode("ascii", "backslashreplace")
            notes.append(f"{raw}: its name is not UTF-8, left out")
            continue
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):
            notes.append(f"{relative.as_posix()}: a link that leads nowhere, left out")
            continue
        if not real.is_relative_to(root):
            notes.append(f"{relative.as_posix()}: leads outside the folder, left out")
            continue
        if real.is_dir():
            continue
        if not real.is_file():
            notes.append(f"{relative.as_posix()}: not a regular file, left out")
            continue
        top = relative.parts[0] if len(relative.parts) > 1 else relative.as_posix()
        grouped.setdefault((top, fmt), []).append(path)
    sources = []
    for (top, fmt), files in grouped.items():
        if len(files) == 1 and files[0].relative_to(root).as_posix() == top:
            pattern = top
        else:
            suffixes = sorted({f.suffix for f in files})
            tail = f"*{suffixes[0]}" if len(suffixes) == 1 else "*"
            pattern = f"{top}/**/{tail}"
        sources.append(Source(pattern, fmt, tuple(files)))
    return sources


def _in_contract_layout(source: Source) -> bool:
    """A file or folder already named and shaped as a contract table."""
    stem = source.pattern.split("/")[0].removesuffix(".parquet")
    if source.format != "parquet" or stem not in TABLES:
        return False
    required = [n for n, c in table_schema(stem).columns.items() if not c.nullable]
    return all(n in source.columns for n in required)


class Suggester:
    """Reads the sources' facts through one DuckDB connection."""

    def __init__(self, root: Path, con: duckdb.DuckDBPyConnection) -> None:
        self.root = root
        self.con = con

    def rows(self, source: Source, condition: str | None = None) -> duckdb.DuckDBPyRelation:
        tabs = all(f.suffix.lower() == ".tsv" for f in source.files)
        rows = reader(self.con, source.files, source.format, delimiter="\t" if tabs else ",")
        return rows.filter(condition) if condition else rows

    def read_columns(self, source: Source) -> None:
        rows = self.rows(source)
        source.columns = {
            c: str(t) for c, t in zip(rows.columns, rows.types, strict=True) if c not in (FILE, ROW)
        }

    def distinct(self, source: Source, column: str, condition: str | None, limit: int) -> list[Any]:
        ident = quote_identifier(column)
        rows = self.rows(source, condition).filter(f"{ident} IS NOT NULL")
        found = rows.aggregate(ident, ident).order(ident).limit(limit + 1).fetchall()
        return [r[0] for r in found]

    def non_null(self, source: Source, condition: str) -> set[str]:
        """The columns with a value in the rows a filter keeps."""
        names = list(source.columns)
        counts = self.rows(source, condition).aggregate(
            ", ".join(f"count({quote_identifier(n)})" for n in names)
        )
        values = counts.fetchall()[0]
        return {n for n, v in zip(names, values, strict=True) if v}

    def discriminator(self, source: Source) -> tuple[str, dict[str, str]] | None:
        """A column whose values name tables: (column, table -> value)."""
        for column, kind in source.columns.items():
            if column.lower() not in DISCRIMINATORS or kind != "VARCHAR":
                continue
            values = self.distinct(source, column, None, 20)
            if len(values) > 20:
                continue
            named = {}
            for value in values:
                table = table_named(str(value))
                if table is not None and table not in named:
                    named[table] = str(value)
            if named:
                return column, named
        return None

    def timestamp(
        self, source: Source, column: str, condition: str | None, coordinate: bool = False
    ) -> tuple[str | None, str]:
        """How a column holds a time: (conversion or None, note). A coordinate's
        numbers are left as they are (an int64 coordinate); its text is read as times."""
        kind = source.columns[column]
        if kind.startswith(("TIMESTAMP", "DATE")):
            return None, ""
        named = epoch_named(column)
        values = self.distinct(source, column, condition, 100)
        numeric = kind in _NUMBERS or all(_NUMBER.fullmatch(str(v)) for v in values)
        if numeric and coordinate:
            return None, ""
        if numeric and named is not None:
            return named, f"epoch unit from the name {column}"
        if numeric and values:
            ident = quote_identifier(column)
            largest = self.rows(source, condition).aggregate(
                f"max(abs(TRY_CAST({ident} AS DOUBLE)))"
            )
            size = float(largest.fetchall()[0][0] or 0)
            unit = (
                "epoch_s"
                if size < 1e11
                else "epoch_ms"
                if size < 1e14
                else "epoch_us"
                if size < 1e17
                else "epoch_ns"
            )
            return unit, "epoch unit guessed from the size of the values: check it"
        if kind == "VARCHAR" and values:
            if (
                all(_RFC3339.fullmatch(str(v)) for v in values)
                and not self.con.execute(
                    "SELECT count(*) FROM unnest($v) AS t(x)"
                    f" WHERE TRY({text_instant('x')}) IS NULL",
                    {"v": [str(v) for v in values]},
                ).fetchall()[0][0]
            ):
                return RFC3339, "RFC 3339 text, read to the nanosecond"
            reading = [
                fmt
                for fmt in TIME_FORMATS
                if not self.con.execute(
                    "SELECT count(*) FROM unnest($v) AS t(x) WHERE try_strptime(x, $f) IS NULL",
                    {"v": [str(v) for v in values], "f": fmt},
                ).fetchall()[0][0]
            ]
            if not reading:
                return "?", "text times in a format not recognized: give a strptime format"
            if {"%d/%m/%Y %H:%M:%S", "%m/%d/%Y %H:%M:%S"} <= set(reading):
                return reading[0], "day and month could be either way round: check the format"
            return reading[0], "format read from the values"
        if not values:
            return None, "no values to tell how it holds times: check it"
        return None, f"a {kind} column: check that it reads as a timestamp"

    def truths(
        self, source: Source, column: str, condition: str | None
    ) -> tuple[tuple[tuple[str, Any], ...], str]:
        """A value map from a text column's values to true and false."""
        pairs: list[tuple[str, Any]] = []
        unknown = []
        for value in self.distinct(source, column, condition, 20):
            truth = guess_truth(str(value))
            pairs.append((str(value), "?" if truth is None else truth))
            if truth is None:
                unknown.append(str(value))
        if unknown:
            return tuple(pairs), f"edit the value map: {', '.join(unknown)} not recognized"
        return tuple(pairs), "text read as true/false: check it"

    def values(
        self, source: Source, table: str, contract: str, column: str, condition: str | None
    ) -> tuple[tuple[tuple[str, Any], ...], str]:
        """A value map for an enumeration (empty when the values are the contract's)."""
        allowed = allowed_values(table, contract)
        found = self.distinct(source, column, condition, 50)
        if all(str(v) in allowed for v in found):
            return (), ""
        pairs, unknown = [], []
        for value in found:
            guess = guess_value(contract, str(value), allowed)
            pairs.append((str(value), guess or "?"))
            if guess is None:
                unknown.append(str(value))
        note = "value map guessed: check it"
        if unknown:
            note = f"edit the value map: {', '.join(unknown)} not recognized ({'/'.join(allowed)})"
        return tuple(pairs), note

    def section(
        self, table: str, source: Source, condition: str | None, columns: dict[str, str]
    ) -> Suggestion:
        matched = match_columns(table, columns)
        notes: dict[str, str] = {}
        specs: list[tuple[str, ColumnSpec]] = []
        schema = table_schema(table).columns
        for name, column in schema.items():
            if name not in matched:
                continue
            user, score = matched[name]
            logical = logical_type(column)
            spec = ColumnSpec(column=user)
            note = "" if score >= 0.9 else "matched by a similar name: check it"
            if logical in (Logical.TIMESTAMP, Logical.COORDINATE):
                coordinate = logical is Logical.COORDINATE
                conversion, why = self.timestamp(source, user, condition, coordinate)
                if conversion is not None:
                    spec = ColumnSpec(column=user, timestamp=conversion)
                    note = "; ".join(n for n in (note, why) if n)
            elif allowed_values(table, name):
                pairs, why = self.values(source, table, name, user, condition)
                if pairs:
                    spec = ColumnSpec(column=user, values=pairs)
                    note = "; ".join(n for n in (note, why) if n)
            elif logical is Logical.BOOL and source.columns.get(user) == "VARCHAR":
                pairs, why = self.truths(source, user, condition)
                spec = ColumnSpec(column=user, values=pairs)
                note = "; ".join(n for n in (note, why) if n)
            if user == name and spec == ColumnSpec(column=user):
                continue  # read by its own name
            specs.append((name, spec))
            if note:
                notes[name] = note
        lines = [f"{table}: from {source.pattern}" + (f" where {condition}" if condition else "")]
        missing = [n for n, c in schema.items() if n not in matched and not c.nullable]
        if "scope_id" in missing:
            specs.insert(0, ("scope_id", ColumnSpec(constant="default", is_constant=True)))
            notes["scope_id"] = "no scope column found: one scope; name it"
            missing.remove("scope_id")
        if missing:
            lines.append(f"NOT MATCHED (required): {', '.join(missing)}: map them below")
        # a column the files have under its own name is read by it, even if empty here
        unmatched_optional = [
            n
            for n, c in schema.items()
            if n not in matched and c.nullable and n not in source.columns
        ]
        if unmatched_optional:
            lines.append(f"not matched (optional, read as null): {', '.join(unmatched_optional)}")
        used = {u for u, _ in matched.values()}
        spare = [c for c in columns if c not in used and c != _filter_column(condition)]
        if spare:
            lines.append(f"your columns not used: {', '.join(spare)}")
        section = TableSpec(table, (source.pattern,), None, condition, tuple(specs))
        return Suggestion(section, table_score(table, matched), lines, notes)

    def suggest(
        self, sources: list[Source], notes: list[str]
    ) -> tuple[list[Suggestion], list[str]]:
        """Each table's best section, and notes on what was left."""
        offers: list[Suggestion] = []
        for source in sources:
            try:
                self.read_columns(source)
            except duckdb.Error as error:
                resources = resource_error(error, step="map suggest", query=source.pattern)
                if resources is not None:
                    raise resources from error
                notes.append(f"{source.pattern}: cannot be read as {source.format}: {error}")
                continue
            if _in_contract_layout(source):
                notes.append(f"{source.pattern}: in the contract's layout, read as it is")
                continue
            split = self.discriminator(source)
            if split is not None:
                column, named = split
                for table, value in named.items():
                    condition = f"{_identifier(column)} = {quote_literal(value)}"
                    filled = self.non_null(source, condition)
                    columns = {c: t for c, t in source.columns.items() if c in filled}
                    columns.pop(column, None)
                    offers.append(self.section(table, source, condition, columns))
                continue
            tables = sorted(
                (self.section(t, source, None, source.columns) for t in TABLES),
                key=lambda s: -s.score,
            )
            offers.extend(tables[:3])
        chosen: dict[str, Suggestion] = {}
        sources_used: set[tuple[str, str | None]] = set()
        for offer in sorted(offers, key=lambda s: -s.score):
            where = (offer.spec.files[0], offer.spec.filter)
            if offer.score < TABLE_MIN or offer.spec.table in chosen or where in sources_used:
                continue
            if offer.score < TABLE_SCORE:
                offer.notes.append("a weak match: check that these rows are this table's")
            chosen[offer.spec.table] = offer
            sources_used.add(where)
        for offer in offers:
            where = (offer.spec.files[0], offer.spec.filter)
            if where not in sources_used:
                sources_used.add(where)
                notes.append(f"{where[0]}: not matched to any table")
        return [chosen[t] for t in TABLES if t in chosen], notes


_NUMBERS = frozenset({"BIGINT", "INTEGER", "HUGEINT", "UBIGINT", "DOUBLE", "FLOAT", "DECIMAL"})
_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]*)?")


def _identifier(name: str) -> str:
    """A column name as SQL: bare when it is a plain lower-case word."""
    return name if re.fullmatch(r"[a-z_][a-z0-9_]*", name) else quote_identifier(name)


def _filter_column(condition: str | None) -> str | None:
    if condition is None:
        return None
    return condition.split(" = ")[0].strip('"')


def suggest_mapping(root: str | Path) -> str:
    """A first mapping for the files under ``root``, as TOML text with comments."""
    folder = Path(root).resolve()
    notes: list[str] = []
    sources = _sources(folder, notes)
    # a DuckDB that reads these files and nothing else
    with connect([f for source in sources for f in source.files]) as con:
        found, notes = Suggester(folder, con).suggest(sources, notes)
    missing = sorted(REQUIRED_TABLES - {s.spec.table for s in found})
    header = [
        f"A first mapping of {folder}, written by `reconcile map suggest`.",
        "Check every line marked in a comment, above all the value maps; then:",
        "  reconcile validate LOGSET --mapping THIS_FILE",
        "",
        *notes,
    ]
    if missing:
        header.append(f"NOT FOUND (required): {', '.join(missing)}")
    sections = [table_text(s.spec, notes=s.notes, column_notes=s.column_notes) for s in found]
    return mapping_text(sections, header)
