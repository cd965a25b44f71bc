"""The ``reconcile`` command: argument parsing, rendering, and exit codes.

Exit codes are decided here and nowhere else (:func:`failure` maps an error to its
status and its message), one meaning each:

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
import copy
import errno
import math
import os
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import urlparse

import duckdb
import polars as pl

from reconcile.api import open_logset
from reconcile.audit import AuditSettings, audit
from reconcile.audit.findings import SEVERITIES
from reconcile.audit.report import prepare_target, write_report
from reconcile.db import (
    THREADS_PER_CORE,
    EngineConfig,
    check_memory_limit,
    check_threads,
    threads_for,
)
from reconcile.engine import Analysis, watermarks
from reconcile.errors import (
    InputError,
    InternalError,
    InvalidLogSet,
    ReconcileError,
    ResourceError,
    UsageError,
    classify_engine_error,
    first_line,
)
from reconcile.mapping import NONE
from reconcile.mapping.suggest import suggest_mapping
from reconcile.progress import Progress, StepClock, Steps, check_profile, write_profile
from reconcile.render.audit_text import render_audit_text
from reconcile.render.html import render_html
from reconcile.render.safe import for_json, for_terminal
from reconcile.render.tables import (
    frame_json,
    render_frontiers_text,
    render_watermarks_json,
    render_watermarks_text,
)
from reconcile.render.validation import render_json, render_text
from reconcile.signals import Caught, terminations
from reconcile.simulate import FAULTS, SimOptions, simulate
from reconcile.simulate.options import Eligibility, Evidence, Membership
from reconcile.validate import DEFAULT_EXAMPLES, validate_logset

if TYPE_CHECKING:
    from reconcile.spark.run import SparkEngine

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_INVALID = 2
EXIT_INTERNAL = 3
EXIT_RESOURCES = 4
EXIT_INTERRUPTED = 130

EXIT_STATUSES = """\
exit status:
  0    done; for audit, no finding at or above --fail-on
  1    audit: findings at or above --fail-on
  2    invalid input or usage: a log set that cannot be read or breaks the
       contract, a bad mapping, option or argument
  3    internal error: the reconciler's own fault (please report it; --debug
       shows the traceback), or a Spark job that failed
  4    out of memory or spill space: set --memory-limit, --threads or --temp-dir
  130  interrupted (Ctrl-C); 143 terminated (SIGTERM), 129 hung up (SIGHUP)"""

DEBUG_HELP = "on an error, show Python's traceback too (for a report of it)"

LOGSET_HELP = (
    "the log set directory (with --engine spark, also a URL Spark's Hadoop file systems"
    " read, e.g. hdfs://namenode/logs/run-7 or s3a://bucket/logs)"
)


def _as_of_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--as-of",
        metavar="TIMESTAMP",
        help="evaluate as of this time (ISO 8601; naive means UTC); default: the end of"
        " the log set",
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
        " (default: 40%% of memory, at most 5GB)",
    )
    group.add_argument(
        "--temp-dir",
        metavar="DIR",
        type=Path,
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
        " partition phase, the partition rules, the frontier's exact points, the"
        " timelines); the scope's task takes the rest (0: all in the scope's task;"
        " default: 0 with a local master, else Spark's default parallelism)",
    )
    group.add_argument(
        "--spark-conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="with --engine spark: a Spark setting, e.g. spark.driver.memory=8g (repeatable)",
    )


def _config(args: argparse.Namespace) -> EngineConfig:
    env = EngineConfig.from_env()
    memory = args.memory_limit
    if memory is not None:
        memory = check_memory_limit(memory, "--memory-limit")
    config = EngineConfig(
        memory_limit=memory if memory is not None else env.memory_limit,
        temp_directory=args.temp_dir if args.temp_dir is not None else env.temp_directory,
        threads=args.threads if args.threads is not None else env.threads,
    )
    used = threads_for(config)
    if config.threads is not None and used < config.threads:
        _emit(
            f"reconcile: running {used} thread(s), not {config.threads}: the memory limit"
            " holds about 100MB per thread, below which DuckDB fails rather than spills",
            err=True,
        )
    return config


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


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="reconcile",
        description="Reconcile paginated event ingestion logs: watermarks, frontiers, audits.",
        epilog=EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--debug", action="store_true", help=DEBUG_HELP)
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
        " certificates (CONTRACT.md §4.1-§4.11), as of a time.",
    )
    marks.add_argument("logset", metavar="LOGSET", help=LOGSET_HELP)
    _as_of_option(marks)
    marks.add_argument("--json", action="store_true", help="print the rows as JSON")
    _engine_options(marks)

    auditing = commands.add_parser(
        "audit",
        help="compute everything and check every audit rule; write a report",
        description="Compute watermarks, frontiers and their history, check every rule of"
        " CONTRACT.md §5, write the report directory (watermarks, frontiers,"
        " frontier_history and findings as Parquet, summary.json, report.html) atomically,"
        " and print a summary. Exit 0 when no finding is at or above --fail-on, 1 when one"
        " is, 2 when the log set cannot be read or is invalid, 3 on an internal error, 4"
        " out of memory or spill space (nothing is written on 2, 3 or 4).",
    )
    auditing.add_argument("logset", metavar="LOGSET", help=LOGSET_HELP)
    auditing.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="the report directory"
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
        type=_finite(0.0),
        default=AuditSettings().stall_minutes,
        metavar="MINUTES",
        help="stalled_partition: how long a partition may hold the claimed frontier"
        " unchanged (default: 10)",
    )
    auditing.add_argument(
        "--profile",
        type=Path,
        metavar="FILE",
        help="write where the time went as JSON: seconds per step and per named query",
    )
    _engine_options(auditing)

    front = commands.add_parser(
        "frontier",
        help="the merged frontier of each scope, on both bases",
        description="Compute each scope's merged frontier (CONTRACT.md §4.12-§4.14): the"
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

    mapping = commands.add_parser(
        "map",
        help="mapping files: read your own logs as the contract's tables",
        description="Mapping files (TOML) say which of your files and columns are which"
        " contract tables and columns; every command reads LOGSET/reconcile.toml, or the"
        " file --mapping names.",
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
        type=Path,
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
    simulate.add_argument("out", type=Path, metavar="OUT", help="the log set directory to write")
    defaults = SimOptions()
    simulate.add_argument("--seed", type=_at_least(0), default=defaults.seed)
    simulate.add_argument("--scopes", type=_at_least(1), default=defaults.scopes)
    simulate.add_argument("--partitions", type=_at_least(1), default=defaults.partitions)
    simulate.add_argument(
        "--events", type=_at_least(1), default=defaults.events, help="source events per scope"
    )
    simulate.add_argument("--coordinate", choices=["int64", "timestamp"], default="int64")
    simulate.add_argument(
        "--evidence", choices=[e.value for e in Evidence], default=defaults.evidence.value
    )
    simulate.add_argument(
        "--membership",
        choices=[m.value for m in Membership],
        default=defaults.membership.value,
        help="a membership change in the first scope (membership faults imply split)",
    )
    simulate.add_argument(
        "--eligibility",
        choices=[e.value for e in Eligibility],
        default=defaults.eligibility.value,
    )
    simulate.add_argument(
        "--fault",
        action="append",
        default=[],
        choices=sorted(FAULTS),
        metavar="NAME",
        help="inject a fault (repeatable): " + ", ".join(sorted(FAULTS)),
    )
    simulate.add_argument("--page-size", type=_at_least(1), default=defaults.page_size)
    simulate.add_argument("--crash-rate", type=_finite(0.0, 1.0), default=defaults.crash_rate)
    simulate.add_argument("--finality-rate", type=_finite(0.0, 1.0), default=defaults.finality_rate)
    simulate.add_argument(
        "--layout",
        choices=["contract", "foreign"],
        default="contract",
        help="foreign: rewrite the log set as a user's own logs might be (other column"
        " names, epoch-ms timestamps, other outcome spellings, two tables in one file, CSV"
        " and JSON Lines), with the reconcile.toml mapping that reads it",
    )
    simulate.add_argument("--force", action="store_true", help="replace OUT if it exists")
    for command in [*commands.choices.values(), *mapping_commands.choices.values()]:
        # also after the command; given there only (the top level's default stays)
        command.add_argument(
            "--debug", action="store_true", default=argparse.SUPPRESS, help=DEBUG_HELP
        )
    return parser


def _spark(args: argparse.Namespace) -> SparkEngine:
    from reconcile.spark.listing import is_remote  # noqa: PLC0415
    from reconcile.spark.run import SparkEngine  # noqa: PLC0415 (optional dependency)
    from reconcile.spark.session import quiet, spark_session  # noqa: PLC0415

    conf = {}
    for item in args.spark_conf:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--spark-conf {item!r}: expected KEY=VALUE")
        conf[key.strip()] = value.strip()
    if args.spark_buckets is not None and args.spark_buckets < 0:
        raise UsageError("--spark-buckets must be 0 or more")
    if is_remote(args.logset) and args.mapping not in (None, NONE):
        raise UsageError(
            "--mapping reads a local log set only (a folder the driver and the executors"
            f" read): {args.logset} is a URL"
        )
    session = spark_session(args.spark_master, conf)
    if not args.debug:
        quiet(session)
    return SparkEngine(
        session,
        args.logset,
        buckets=args.spark_buckets,
        mapping=args.mapping,
    )


def _on_spark(args: argparse.Namespace, command: str, **extra: Any) -> Any:
    """``command`` (validate, watermarks, frontiers, audit) on the Spark engine."""
    from reconcile.spark import run  # noqa: PLC0415 (optional dependency)
    from reconcile.spark.kernel import Job  # noqa: PLC0415

    job = Job(
        command,
        {},
        as_of=getattr(args, "as_of", None),
        stall_minutes=getattr(args, "stall_threshold", AuditSettings().stall_minutes),
        max_examples=getattr(args, "max_examples", DEFAULT_EXAMPLES),
        memory_limit=args.memory_limit,
        threads=args.threads,
    )
    engine = _spark(args)
    try:
        return getattr(run, command)(engine, job, **extra)
    finally:
        engine.close()


def _validate(args: argparse.Namespace) -> int:
    if args.engine == "spark":
        report = _on_spark(args, "validate")
    else:
        report = validate_logset(
            args.logset,
            config=_config(args),
            max_examples=args.max_examples,
            mapping=args.mapping,
        )
    _emit(render_json(report) if args.json else render_text(report), as_json=args.json)
    return EXIT_OK if report.ok else EXIT_INVALID


def _watermarks(args: argparse.Namespace) -> int:
    if args.engine == "spark":
        frame = _on_spark(args, "watermarks")
    else:
        with open_logset(args.logset, config=_config(args), mapping=args.mapping) as logset:
            frame = watermarks(logset, as_of=args.as_of)
    _emit(
        render_watermarks_json(frame) if args.json else render_watermarks_text(frame),
        as_json=args.json,
    )
    return EXIT_OK


AUDIT_STEPS = [
    "validate",
    "watermarks",
    "frontiers",
    "frontier history",
    "findings",
    "timelines",
    "report",
]
# On Spark every engine step runs inside the scopes' tasks.
SPARK_AUDIT_STEPS = ["read the files", "audit the scopes", "report"]


def _emit(text: str, *, err: bool = False, as_json: bool = False) -> None:
    """Print ``text`` (on stderr with ``err``) with the input's control characters
    escaped: the one way the command line writes (reconcile.render.safe)."""
    safe = for_json(text) if as_json else for_terminal(text)
    print(safe, file=sys.stderr if err else sys.stdout)


def _waiting(message: str) -> None:
    _emit(f"reconcile: {message}", err=True)


def _local_logset(args: argparse.Namespace) -> str | None:
    """The log set as a local folder (None for a URL Spark reads: a scheme of two
    letters or more, as reconcile.spark.listing.is_remote says)."""
    return None if len(urlparse(str(args.logset)).scheme) > 1 else str(args.logset)


def _audit(args: argparse.Namespace, clock: StepClock) -> int:
    # everything that can be refused is refused before the computation
    prepare_target(args.out, _local_logset(args), _waiting)
    if args.profile is not None:
        check_profile(args.profile)
    spark = args.engine == "spark"
    steps = Steps(SPARK_AUDIT_STEPS if spark else AUDIT_STEPS)
    clock.forward = steps.step
    try:
        if spark:
            clock.step("read the files")
            result = _on_spark(args, "audit", step=clock.step)
        else:
            clock.step("validate")
            with open_logset(args.logset, config=_config(args), mapping=args.mapping) as logset:
                result = audit(
                    logset,
                    as_of=args.as_of,
                    settings=AuditSettings(stall_minutes=args.stall_threshold),
                    step=clock.step,
                )
        clock.step("report")
        with _writing(args.out):
            facts = write_report(
                args.out,
                result,
                args.fail_on,
                html=render_html,
                logset=_local_logset(args),
                waiting=_waiting,
            )
        clock.stop()
    finally:
        steps.close()
    if args.profile is not None:
        with _writing(args.profile):
            write_profile(args.profile, clock.seconds, result.timings)
    _emit(render_audit_text(result, facts, str(args.out)))
    return EXIT_FINDINGS if result.at_or_above(args.fail_on) else EXIT_OK


def _frontier(args: argparse.Namespace) -> int:
    if args.engine == "spark":
        frame = _on_spark(args, "frontiers")
    else:
        with open_logset(args.logset, config=_config(args), mapping=args.mapping) as logset:
            frame = Analysis(logset, args.as_of).frontiers()
    if args.basis:
        frame = frame.filter(pl.col("basis") == args.basis)
    _emit(frame_json(frame) if args.json else render_frontiers_text(frame), as_json=args.json)
    return EXIT_OK


def _simulate(args: argparse.Namespace) -> int:
    options = SimOptions(
        seed=args.seed,
        scopes=args.scopes,
        partitions=args.partitions,
        events=args.events,
        coordinate=args.coordinate,
        evidence=Evidence(args.evidence),
        membership=Membership(args.membership),
        eligibility=Eligibility(args.eligibility),
        faults=tuple(args.fault),
        page_size=args.page_size,
        crash_rate=args.crash_rate,
        finality_rate=args.finality_rate,
    )
    bar = Progress("simulating", total=1)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.advance(done - bar.done, f"{done}/{total} partitions")

    try:
        with _writing(args.out):
            result = simulate(
                args.out,
                options,
                force=args.force,
                progress=progress,
                foreign=args.layout == "foreign",
            )
    finally:
        bar.close()
    rows = ", ".join(f"{name} {count:,}" for name, count in sorted(result.rows.items()))
    _emit(f"wrote {result.path}: {rows}")
    print(f"{result.faults} fault(s) injected; truth.json lists {result.findings} finding(s)")
    return EXIT_OK


def _map(args: argparse.Namespace) -> int:
    folder = Path(args.logset)
    if not folder.is_dir():
        raise InputError(f"log set {folder}: no such directory")
    if args.out is not None and os.path.lexists(args.out):
        if args.out.is_dir() or not args.out.is_file():
            raise UsageError(f"--out {args.out} is not a file: name the mapping file to write")
        if not args.force:
            raise UsageError(f"{args.out} exists: pass --force to replace it")
    text = suggest_mapping(folder)
    if args.out is None:
        print(text, end="")
        return EXIT_OK
    temporary = args.out.with_name(f".{args.out.name}.tmp")
    with _writing(args.out):
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(args.out)
    _emit(
        f"wrote {args.out}: check it, then run reconcile validate {folder} --mapping FILE",
        err=True,
    )
    return EXIT_OK


@contextmanager
def _writing(path: Path) -> Iterator[None]:
    """An error of the operating system's while writing ``path`` (an output the user
    names) as the reconciler's: a full disk is a resource, anything else (a folder
    that cannot be written) the user's to fix."""
    try:
        yield
    except OSError as error:
        reason = error.strerror or str(error)
        if error.errno in (errno.ENOSPC, errno.EDQUOT):
            raise ResourceError(
                f"cannot write {path}: {reason}",
                resource="disk",
                hint=f"free some space on the disk of {path}, or write elsewhere",
            ) from error
        where = f" ({error.filename})" if error.filename else ""
        raise UsageError(f"cannot write {path}: {reason}{where}") from error


def _interrupted(error: BaseException) -> bool:
    """Ctrl-C: Python's, or DuckDB's (a running query ends in RuntimeError("Query
    interrupted") in place of KeyboardInterrupt)."""
    if isinstance(error, (KeyboardInterrupt, duckdb.InterruptException)):
        return True
    return isinstance(error, RuntimeError) and str(error) == "Query interrupted"


def _from_spark(error: BaseException) -> bool:
    return type(error).__module__.split(".")[0] in ("pyspark", "py4j")


def _one_line(text: str) -> str:
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def failure(error: BaseException, step: str | None = None, debug: bool = False) -> tuple[int, str]:
    """The exit status for an error that ended a command in ``step``, and what to
    print on stderr: the one place where errors become exit codes. Wrong input or
    usage exits 2; want of memory or spill space 4; anything else, the reconciler's
    own errors and unexpected ones alike, is an internal error (3), reported in one
    line that asks for a report (``debug``: the traceback is printed too)."""
    if _interrupted(error):
        return EXIT_INTERRUPTED, "reconcile: interrupted"
    if isinstance(error, InvalidLogSet):
        return EXIT_INVALID, render_text(error.report)
    if isinstance(error, (InputError, UsageError)):
        return EXIT_INVALID, f"reconcile: {error}"
    if isinstance(error, duckdb.Error):
        error = classify_engine_error(error, step=step)
    elif isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        error = ResourceError(str(error), resource="disk", step=step)
    elif _from_spark(error) and isinstance(error, Exception):
        from reconcile.spark.run import spark_failure  # noqa: PLC0415 (optional dependency)

        error = spark_failure(f"complete step {step}", error)
    traceback_note = "" if debug else " (reconcile --debug ... shows the traceback)"
    if isinstance(error, (ResourceError, InternalError)):
        if step is not None and error.step != step:
            # the command's step, then the engine's (the table it was making)
            error = copy.copy(error)
            error.step = step if error.step is None else f"{step}: {error.step}"
        if isinstance(error, ResourceError):
            return EXIT_RESOURCES, _one_line(f"reconcile: {error}")
        return EXIT_INTERNAL, _one_line(f"reconcile: {error}{traceback_note}")
    if isinstance(error, ReconcileError):
        # neither the input nor resources: a Spark job that failed, an engine check
        where = f" in step {step}" if step else ""
        return EXIT_INTERNAL, _one_line(f"reconcile: error{where}: {error}{traceback_note}")
    detail = type(error).__name__ + (f": {first_line(error)}" if str(error).strip() else "")
    found = InternalError(detail, step=step)
    return EXIT_INTERNAL, _one_line(f"reconcile: {found}{traceback_note}")


def _command(args: argparse.Namespace) -> str:
    return f"map {args.map_command}" if args.command == "map" else str(args.command)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    caught = Caught()
    try:
        with terminations() as caught:
            return _run(args, caught)
    except KeyboardInterrupt:
        # a signal that came as the command was ending, after its own handling
        status = 128 + caught.signum if caught.signum is not None else EXIT_INTERRUPTED
        _emit(
            "reconcile: interrupted"
            if caught.signum is None
            else f"reconcile: terminated by {caught.name}",
            err=True,
        )
        return status


def _run(args: argparse.Namespace, caught: Caught) -> int:
    clock = StepClock()
    try:
        if args.command == "validate":
            return _validate(args)
        if args.command == "simulate":
            return _simulate(args)
        if args.command == "watermarks":
            return _watermarks(args)
        if args.command == "frontier":
            return _frontier(args)
        if args.command == "audit":
            return _audit(args, clock)
        if args.command == "map":
            return _map(args)
        raise UsageError(f"unknown command {args.command}")
    except (Exception, KeyboardInterrupt) as error:
        if args.debug:
            traceback.print_exception(error, file=sys.stderr)
        status, message = failure(error, clock.current or _command(args), args.debug)
        if status == EXIT_INTERRUPTED and caught.signum is not None:
            status, message = 128 + caught.signum, f"reconcile: terminated by {caught.name}"
        _emit(message, err=True)
        return status


if __name__ == "__main__":
    sys.exit(main())
