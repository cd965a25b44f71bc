"""The ``reconcile`` command: argument parsing, rendering, and exit codes.

This module parses the command line and nothing else: it loads no engine, so that
``reconcile --help`` and a usage error answer at once. The commands themselves are
in :mod:`reconcile.commands`, imported once the arguments are read. Exit codes
(:mod:`reconcile.exits`) are decided there and nowhere else
(:func:`reconcile.commands.failure` maps an error to its status and its message),
one meaning each:

* 0: done; for ``audit``, no finding at or above ``--fail-on``;
* 1: ``audit`` found findings at or above ``--fail-on``;
* 2: the input or the command line is wrong: a log set that cannot be read or breaks
  the contract (``validate`` reports it), a bad mapping, option or argument;
* 3: an internal error: the reconciler's own fault (please report it), or a Spark job
  that failed;
* 4: out of memory or of spill space: set ``--memory-limit``, ``--threads`` or
  ``--temp-dir``;
* 130: interrupted (Ctrl-C); 128 + the signal's number for SIGTERM (143) and
  SIGHUP (129), which end a command as Ctrl-C does, its cleanup run.

An error prints one line on stderr that names the step that failed (and the query,
where known); no Python traceback unless ``--debug`` asks for it.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from reconcile.catalog import SEVERITIES
from reconcile.config import THREADS_PER_CORE, check_threads
from reconcile.engine.settings import STALL_MINUTES_MAX, AuditSettings
from reconcile.errors import UsageError
from reconcile.exits import (
    EXIT_FINDINGS,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_OK,
    EXIT_RESOURCES,
    EXIT_STATUSES,
)
from reconcile.problems import DEFAULT_EXAMPLES
from reconcile.signals import Caught, terminations
from reconcile.simulate.options import FAULTS, Eligibility, Evidence, Membership, SimOptions

__all__ = [
    "EXIT_FINDINGS",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_INVALID",
    "EXIT_OK",
    "EXIT_RESOURCES",
    "build_parser",
    "main",
]

DEBUG_HELP = "on an error, show Python's traceback too (for a report of it)"

LOGSET_HELP = (
    "the log set directory (with --engine spark, also a URL Spark's Hadoop file systems"
    " read, e.g. hdfs://namenode/logs/run-7 or s3a://bucket/logs)"
)


def _as_of_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--as-of",
        metavar="TIMESTAMP",
        help="evaluate as of this time (ISO 8601, to the nanosecond; naive means UTC);"
        " default: the end of the log set",
    )


def _mapping_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mapping",
        metavar="FILE|auto|none",
        help="read the log set through this mapping file (TOML: which of your files and"
        " columns are which contract tables and columns); auto: the log set's own"
        " LOGSET/reconcile.toml, which is never applied unless asked for (it runs SQL"
        " over the files); none: the contract's layout only. Default: the contract's"
        " layout, refused when LOGSET holds a reconcile.toml. Write a first mapping"
        " with: reconcile map suggest LOGSET",
    )


def _engine_options(parser: argparse.ArgumentParser) -> None:
    _mapping_option(parser)
    group = parser.add_argument_group("engine")
    group.add_argument(
        "--memory-limit",
        metavar="SIZE",
        help="DuckDB memory limit, past which work spills to disk"
        " (default: 40%% of memory, at most 3GB)",
    )
    group.add_argument(
        "--temp-dir",
        metavar="DIR",
        type=_path,
        help="where DuckDB spills (default: a fresh folder in the system temp dir)",
    )
    group.add_argument(
        "--threads",
        type=_threads,
        metavar="N",
        help=f"worker threads, 1 to {THREADS_PER_CORE} per core (default: every core)",
    )
    group.add_argument(
        "--engine",
        choices=["duckdb", "spark"],
        default="duckdb",
        help="duckdb: this machine (default); spark: every scope in a Spark task"
        " (needs pip install 'reconcile[spark]' and Java 17 or 21); --memory-limit and"
        " --threads then apply to each task's DuckDB",
    )
    group.add_argument(
        "--spark-master",
        metavar="URL",
        help="with --engine spark: local[N], spark://host:7077, yarn, or sc://host:15002"
        " for Spark Connect (default: spark-submit's --master, else local[*])",
    )
    group.add_argument(
        "--spark-buckets",
        type=_at_least(0),
        metavar="N",
        help="with --engine spark: split each scope's partitions into N buckets, whose"
        " tasks alone read and validate the receipts, snapshot and snapshot_bounds (the"
        " partition phase, the partition rules, the timelines); the scope's task takes"
        " the rest (0: all in the scope's task; default: 0 with a local master, else"
        " Spark's default parallelism)",
    )
    group.add_argument(
        "--spark-conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="with --engine spark: a Spark setting, e.g. spark.driver.memory=8g (repeatable)",
    )


# -- option values: each a usage error (exit 2, one line) when it makes no sense -----


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def _at_least(low: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        value = _whole(text)
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is below {low}")
        return value

    parse.__name__ = f"at least {low}"
    return parse


def _path(text: str) -> Path:
    """A path given on the command line: an empty one (Path reads it as ".", this
    folder) is refused rather than taken for the folder the command runs in."""
    if not text.strip():
        raise argparse.ArgumentTypeError("the path is empty: name the folder or file")
    return Path(text)


_path.__name__ = "path"


def _threads(text: str) -> int:
    try:
        return check_threads(_whole(text), "--threads")
    except UsageError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _finite(low: float, high: float = math.inf) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value) or not low <= value <= high:
            bounds = f"from {low:g} to {high:g}" if math.isfinite(high) else f"{low:g} or more"
            raise argparse.ArgumentTypeError(f"{text!r}: give a number {bounds}")
        return value

    parse.__name__ = "number"
    return parse


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors are one line (exit 2), with where to
    look for the rest."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_INVALID, f"{self.prog}: {message} (see {self.prog} --help)\n")


class _Version(argparse.Action):
    """``--version``: the installed package's version, looked up only when asked."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib.metadata import version  # noqa: PLC0415

        print(f"reconcile {version('reconcile')}")
        parser.exit(EXIT_OK)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="reconcile",
        description="Reconcile paginated event ingestion logs: watermarks, frontiers, audits.",
        epilog=EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--debug", action="store_true", help=DEBUG_HELP)
    parser.add_argument(
        "--version", action=_Version, nargs=0, help="print the version of reconcile and exit"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    validate = commands.add_parser(
        "validate",
        help="check a log set against the contract",
        description="Check every table of a log set against its schema and the rules of the"
        " contract; report every problem with table, file, column and example rows."
        " Exit 0 when valid, 2 when not (3: an internal error, 4: out of memory or"
        " spill space).",
    )
    validate.add_argument("logset", metavar="LOGSET", help=LOGSET_HELP)
    validate.add_argument("--json", action="store_true", help="print the report as JSON")
    validate.add_argument(
        "--max-examples",
        type=_at_least(0),
        default=DEFAULT_EXAMPLES,
        metavar="N",
        help=f"example rows per problem (default {DEFAULT_EXAMPLES})",
    )
    _engine_options(validate)

    marks = commands.add_parser(
        "watermarks",
        help="each partition's eligible-prefix watermark and certificates",
        description="Compute, for every partition, how far every eligible event has a"
        " durable outcome, what blocks it, and its consumer, provider, proven and claimed"
        " certificates (docs/contract.md §4.1-§4.11), as of a time.",
    )
    marks.add_argument("logset", metavar="LOGSET", help=LOGSET_HELP)
    _as_of_option(marks)
    marks.add_argument("--json", action="store_true", help="print the rows as JSON")
    _engine_options(marks)

    auditing = commands.add_parser(
        "audit",
        help="compute everything and check every audit rule; write a report",
        description="Compute watermarks, frontiers and their history, check every rule of"
        " docs/contract.md §5, write the report directory (watermarks, frontiers,"
        " frontier_history and findings as Parquet, summary.json, report.html, and for"
        " machines findings.json, summary.md and junit.xml; docs/outputs.md) atomically,"
        " and print a summary. Exit 0 when no finding is at or above --fail-on, 1 when one"
        " is, 2 when the log set cannot be read or is invalid, 3 on an internal error, 4"
        " out of memory or spill space (nothing is written on 2, 3 or 4).",
    )
    auditing.add_argument("logset", metavar="LOGSET", help=LOGSET_HELP)
    auditing.add_argument(
        "--out", type=_path, required=True, metavar="DIR", help="the report directory"
    )
    _as_of_option(auditing)
    auditing.add_argument(
        "--fail-on",
        choices=list(SEVERITIES),
        default="error",
        help="exit 1 when a finding is at or above this severity (default: error)",
    )
    auditing.add_argument(
        "--stall-threshold",
        type=_finite(0.0, STALL_MINUTES_MAX),
        default=AuditSettings().stall_minutes,
        metavar="MINUTES",
        help="stalled_partition: how long a partition may hold the claimed frontier"
        " unchanged (default: 10)",
    )
    auditing.add_argument(
        "--profile",
        type=_path,
        metavar="FILE",
        help="write where the time went as JSON: seconds per step and per named query",
    )
    auditing.add_argument(
        "--source",
        choices=["airbyte", "dlt", "singer"],
        default=None,
        help="LOGSET is a framework's own artifacts, read by its reader"
        " (docs/readers.md): airbyte, a folder of Airbyte syncs' messages (*.jsonl, one"
        " per sync) with the configured catalog (catalog.json); dlt, a destination (a"
        " DuckDB database file, a filesystem dataset folder, or a folder holding one);"
        " singer, a folder of Singer message streams (*.jsonl, one per run). A folder"
        " may hold a source extract (source.csv or source.parquet: key, cursor)."
        " Default: detected, where LOGSET holds one framework's artifacts and no"
        " contract table; else LOGSET is in the contract's layout",
    )
    _engine_options(auditing)

    front = commands.add_parser(
        "frontier",
        help="the merged frontier of each scope, on both bases",
        description="Compute each scope's merged frontier (docs/contract.md §4.12-§4.14): the"
        " lowest complete-through certificate of the members of the epoch in force, or"
        " the vector of their certificates with every reason no honest scalar exists.",
    )
    front.add_argument("logset", metavar="LOGSET", help=LOGSET_HELP)
    _as_of_option(front)
    front.add_argument(
        "--basis",
        choices=["claimed", "proven"],
        help="only this basis (default: both)",
    )
    front.add_argument("--json", action="store_true", help="print the rows as JSON")
    _engine_options(front)

    differ = commands.add_parser(
        "diff",
        help="what changed between two audit reports",
        description="Compare two audit reports (the --out folders of two audits, e.g. of"
        " successive runs): findings new, resolved and unchanged (matched by rule and key,"
        " docs/rules.md), each scope's frontier movement per basis, and every watermark"
        " that went back or was lost (a partition gone loses each it had). Exit 0 when"
        " nothing new is at or above --fail-on, 1 when something is, 2 when a folder is"
        " not a readable report (a file, or a column of the wrong type, is named).",
    )
    differ.add_argument("old", type=_path, metavar="OLD_REPORT", help="the earlier report folder")
    differ.add_argument("new", type=_path, metavar="NEW_REPORT", help="the later report folder")
    differ.add_argument(
        "--fail-on",
        choices=list(SEVERITIES),
        default="error",
        help="exit 1 when a new finding is at or above this severity (default: error)",
    )
    differ.add_argument(
        "--format",
        choices=["text", "markdown", "json"],
        default="text",
        help="text for a terminal, markdown for a pull request, json for machines (default: text)",
    )

    mapping = commands.add_parser(
        "map",
        help="mapping files: read your own logs as the contract's tables",
        description="Mapping files (TOML) say which of your files and columns are which"
        " contract tables and columns; validate, watermarks, frontier and audit read through"
        " the file --mapping names, or with --mapping auto the log set's own"
        " LOGSET/reconcile.toml (never applied unless asked for).",
    )
    mapping_commands = mapping.add_subparsers(dest="map_command", required=True, metavar="ACTION")
    suggest = mapping_commands.add_parser(
        "suggest",
        help="write a first mapping from the files' schemas",
        description="Read the schemas of the files under LOGSET (Parquet, CSV, JSON Lines)"
        " and write a first mapping: each file matched to the table its columns resemble"
        " most (one section per table, with a filter, where a kind column tells tables"
        " apart), each contract column to the closest column by name, timestamp"
        " conversions, value maps; what it could not match is said in comments.",
    )
    suggest.add_argument("logset", metavar="LOGSET", help="the folder of your log files")
    suggest.add_argument(
        "--out",
        type=_path,
        metavar="FILE",
        help="write the mapping here (default: print it); e.g. LOGSET/reconcile.toml",
    )
    suggest.add_argument("--force", action="store_true", help="replace FILE if it exists")

    simulate = commands.add_parser(
        "simulate",
        help="write a simulated ingestion log set, with faults and their truth",
        description="Simulate paginated ingestion runs and write their log set, with"
        " truth.json: each injected fault and the findings an audit must report."
        " The same arguments give byte-identical files.",
    )
    simulate.add_argument("out", type=_path, metavar="OUT", help="the log set directory to write")
    defaults = SimOptions()
    simulate.add_argument(
        "--seed",
        type=_at_least(0),
        default=defaults.seed,
        help="random seed: the same arguments give the same files (default: %(default)s)",
    )
    simulate.add_argument(
        "--scopes", type=_at_least(1), default=defaults.scopes, help="scopes (default: %(default)s)"
    )
    simulate.add_argument(
        "--partitions",
        type=_at_least(1),
        default=defaults.partitions,
        help="partitions per scope (default: %(default)s)",
    )
    simulate.add_argument(
        "--events",
        type=_at_least(1),
        default=defaults.events,
        help="source events per scope (default: %(default)s)",
    )
    simulate.add_argument(
        "--coordinate",
        choices=["int64", "timestamp"],
        default="int64",
        help="the ordering coordinate's type (default: %(default)s)",
    )
    simulate.add_argument(
        "--evidence",
        choices=[e.value for e in Evidence],
        default=defaults.evidence.value,
        help="receipts: receipts and pages, finality on page responses; snapshot: the"
        " source's snapshot and bounds as well; mixed: even scopes receipts, odd ones"
        " snapshot (default: %(default)s)",
    )
    simulate.add_argument(
        "--membership",
        choices=[m.value for m in Membership],
        default=defaults.membership.value,
        help="a membership change in the first scope (membership faults imply split;"
        " default: %(default)s)",
    )
    simulate.add_argument(
        "--eligibility",
        choices=[e.value for e in Eligibility],
        default=defaults.eligibility.value,
        help="stable: ineligible events carry a stable proof; mutable: their decision can"
        " change, and the consumer holds at them (default: %(default)s)",
    )
    simulate.add_argument(
        "--fault",
        action="append",
        default=[],
        choices=sorted(FAULTS),
        metavar="NAME",
        help="inject a fault (repeatable): " + ", ".join(sorted(FAULTS)),
    )
    simulate.add_argument(
        "--page-size",
        type=_at_least(1),
        default=defaults.page_size,
        help="events per page (default: %(default)s)",
    )
    simulate.add_argument(
        "--crash-rate",
        type=_finite(0.0, 1.0),
        default=defaults.crash_rate,
        help="share of pages where the worker crashes, 0 to 1 (default: %(default)s)",
    )
    simulate.add_argument(
        "--finality-rate",
        type=_finite(0.0, 1.0),
        default=defaults.finality_rate,
        help="share of non-empty page responses with the provider's finality, 0 to 1"
        " (default: %(default)s)",
    )
    simulate.add_argument(
        "--layout",
        choices=["contract", "foreign"],
        default="contract",
        help="foreign: rewrite the log set as a user's own logs might be (other column"
        " names, epoch-ms timestamps, other outcome spellings, two tables in one file, CSV"
        " and JSON Lines), with the reconcile.toml mapping that reads it (default:"
        " %(default)s)",
    )
    simulate.add_argument("--force", action="store_true", help="replace OUT if it exists")
    for command in [*commands.choices.values(), *mapping_commands.choices.values()]:
        # also after the command; given there only (the top level's default stays)
        command.add_argument(
            "--debug", action="store_true", default=argparse.SUPPRESS, help=DEBUG_HELP
        )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``reconcile`` command with ``argv`` (default: the process's); returns
    its exit status. From the first moment, Ctrl-C, SIGTERM and SIGHUP end it with
    one line and their own status, never a traceback: while the engine loads too."""
    caught = Caught()
    try:
        with terminations() as caught:
            args = build_parser().parse_args(argv)
            # the engine loads only now: --help and usage errors never wait for it
            from reconcile.commands import run  # noqa: PLC0415

            return run(args, caught)
    except KeyboardInterrupt:
        # before the command ran, or as it was ending, after its own handling
        if caught.signum is None:
            print("reconcile: interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        print(f"reconcile: terminated by {caught.name}", file=sys.stderr)
        return 128 + caught.signum


if __name__ == "__main__":
    raise SystemExit(main())
