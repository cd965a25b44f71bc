"""The ``reconcile`` command's commands, once :mod:`reconcile.cli` has read the
arguments: each runs the library and renders its result; :func:`failure` turns an
error into its exit status (:mod:`reconcile.exits`) and one line on stderr.
"""

from __future__ import annotations

import argparse
import copy
import errno
import os
import shlex
import sys
import tempfile
import traceback
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import duckdb
import polars as pl

from reconcile.api import open_logset
from reconcile.audit import AuditResult, AuditSettings, audit
from reconcile.audit.report import prepare_target, write_report
from reconcile.config import (
    SYSTEM_TEMP,
    EngineConfig,
    check_memory_limit,
    refuse_inside,
    threads_for,
)
from reconcile.diff import diff_reports
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
    query_interrupted,
)
from reconcile.exits import (
    EXIT_FINDINGS,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_OK,
    EXIT_OUTPUT_CLOSED,
    EXIT_RESOURCES,
)
from reconcile.mapping import NONE
from reconcile.mapping.spec import MAPPING_FILE
from reconcile.mapping.suggest import suggest_mapping
from reconcile.problems import DEFAULT_EXAMPLES
from reconcile.progress import Progress, StepClock, Steps, check_profile, write_profile
from reconcile.readers import SOURCES
from reconcile.readers.detect import WHAT, detect_path, detect_source
from reconcile.render.audit_text import render_audit_text
from reconcile.render.diff_out import render_diff_json, render_diff_markdown, render_diff_text
from reconcile.render.html import render_html
from reconcile.render.safe import for_json, for_terminal
from reconcile.render.tables import (
    frame_json,
    render_frontiers_text,
    render_watermarks_json,
    render_watermarks_text,
)
from reconcile.render.validation import render_json, render_text
from reconcile.signals import Caught
from reconcile.validate import validate_logset
from reconcile_schemas import TABLES

if TYPE_CHECKING:
    from reconcile.spark.run import SparkEngine
    from reconcile.validate.report import ValidationReport


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
    try:
        framework = _framework_folder(args)
    except UsageError as several:
        # the artifacts of two frameworks: --source names one, on DuckDB alone
        raise UsageError(
            f"{several}; the readers run on the DuckDB engine only: leave out --engine spark"
        ) from None
    if framework is not None:
        # read as contract tables, it holds none: say what it is and what reads it
        raise UsageError(
            f"{args.logset} holds {WHAT[framework]}, which the {framework} reader reads"
            " on the DuckDB engine only: leave out --engine spark (docs/readers.md)"
        )
    from reconcile.spark import run  # noqa: PLC0415 (optional dependency)
    from reconcile.spark.kernel import Job  # noqa: PLC0415

    job = Job(
        command,
        {},
        as_of=getattr(args, "as_of", None),
        stall_minutes=getattr(args, "stall_threshold", AuditSettings().stall_minutes),
        max_examples=getattr(args, "max_examples", DEFAULT_EXAMPLES),
        memory_limit=(
            None
            if args.memory_limit is None
            else check_memory_limit(args.memory_limit, "--memory-limit")
        ),
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
# --source: the framework's artifacts read into a log set first
SOURCE_STEP = "read the framework's artifacts"


class OutputClosed(Exception):
    """The reader of the command's output closed it (``reconcile ... | head``)."""


def _emit(text: str, *, err: bool = False, as_json: bool = False) -> None:
    """Print ``text`` (on stderr with ``err``) with the input's control characters
    escaped: the one way the command line writes (reconcile.render.safe)."""
    safe = for_json(text) if as_json else for_terminal(text)
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        # started with the stream closed (>&- or 2>&-): an error line has nowhere to
        # go, and its status still holds; output has, as a reader gone
        if err:
            return
        raise OutputClosed
    encoding = getattr(stream, "encoding", None) or "utf-8"
    if encoding.lower().replace("-", "").replace("_", "") != "utf8":
        # a locale that is not UTF-8 (de_DE.ISO-8859-1): a character it lacks, in an
        # identifier, is written as its escape, not an encoding error after the work
        safe = safe.encode(encoding, "backslashreplace").decode(encoding)
    try:
        print(safe, file=stream)
        stream.flush()
    except OSError:
        # a closed pipe, a full device (>/dev/full): what is left unwritten goes
        # nowhere, and Python's own flush at exit would fail on it again. The work is
        # done (a report is written): the output, not the engine's resources, failed.
        with suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        if err:
            return  # an error line with nowhere to go: its status still holds
        raise OutputClosed from None


def _no_current_folder() -> bool:
    """Whether this process's current folder was removed: a relative path then names
    nothing, and resolving one fails without a file name."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


def _waiting(message: str) -> None:
    _emit(f"reconcile: {message}", err=True)


def _local_logset(args: argparse.Namespace) -> str | None:
    """The log set as a local folder (None for a URL Spark reads: a scheme of two
    letters or more, as reconcile.spark.listing.is_remote says)."""
    return None if len(urlparse(str(args.logset)).scheme) > 1 else str(args.logset)


def _check_places(args: argparse.Namespace) -> None:
    """Where the command writes, checked before any work: a --temp-dir (or
    RECONCILE_TEMP_DIR) and an audit's --profile outside the log set and the report."""
    folders: dict[str, str | Path | None] = {"the log set": _local_logset(args)}
    if args.command == "audit":
        folders["the report folder --out"] = args.out
        if args.profile is not None:
            refuse_inside("--profile", args.profile, folders)
    _names_readable(folders)
    temp = args.temp_dir if args.temp_dir is not None else EngineConfig.from_env().temp_directory
    if temp is not None:
        option = "--temp-dir" if args.temp_dir is not None else "RECONCILE_TEMP_DIR"
        refuse_inside(option, temp, folders)
    else:
        # the spill folder's default place, the system's temporary folder (TMPDIR)
        refuse_inside(SYSTEM_TEMP, tempfile.gettempdir(), folders)


def _names_readable(folders: dict[str, str | Path | None]) -> None:
    """Refuse a path of other characters than ASCII where this process reads file
    names in another encoding than UTF-8 (a locale such as de_DE.ISO-8859-1): DuckDB
    and Arrow open a file by its name's UTF-8 bytes, which are then not the file's, and
    a log set's every table read as unreadable."""
    encoding = sys.getfilesystemencoding()
    if encoding.lower().replace("-", "").replace("_", "") == "utf8":
        return
    for what, path in folders.items():
        if path is not None and not str(path).isascii():
            raise UsageError(
                f"{what} {path}: its name holds other characters than ASCII, and this"
                f" process reads file names as {encoding} (its locale: LC_ALL, LANG), where"
                " DuckDB and Arrow read UTF-8; run it in a UTF-8 locale (LC_ALL=C.UTF-8)"
                " or with PYTHONUTF8=1"
            )


def _detected_source(args: argparse.Namespace) -> str | None:
    """The reader of a log set given without --source that holds one framework's
    artifacts (readers.detect) and no contract table: the audit reads it with that
    reader, and says so. None where anything else is asked for (a mapping, Spark)."""
    return None if args.engine == "spark" else _framework_folder(args)


def _framework_folder(args: argparse.Namespace) -> str | None:
    """The framework whose artifacts a local log set given without --source or a
    mapping holds, with no contract table (readers.detect); None for anything else."""
    if getattr(args, "source", None) is not None or getattr(args, "mapping", None) is not None:
        return None
    local = _local_logset(args)
    if local is None:
        return None
    path = Path(local)
    if path.is_dir() and (
        (path / MAPPING_FILE).exists()
        or any((path / f"{table}.parquet").exists() or (path / table).is_dir() for table in TABLES)
    ):
        # a folder that brings a mapping says how to read it (its refusal says how to
        # choose), as does one with a contract table
        return None
    return detect_path(path)


def _audit(args: argparse.Namespace, clock: StepClock) -> int:
    # everything that can be refused is refused before the computation
    prepare_target(args.out, _local_logset(args), _waiting)
    if args.profile is not None:
        check_profile(args.profile)
    spark = args.engine == "spark"
    if spark and args.source is not None:
        raise UsageError("--source is read by the DuckDB engine only: leave out --engine spark")
    detected = _detected_source(args)
    if detected is not None:
        _waiting(
            f"{args.logset} holds {WHAT[detected]}: read by the {detected} reader, as with"
            f" --source {detected} (docs/readers.md)"
        )
        args = copy.copy(args)
        args.source = detected
    steps = Steps(
        SPARK_AUDIT_STEPS
        if spark
        else AUDIT_STEPS
        if args.source is None
        else [SOURCE_STEP, *AUDIT_STEPS]
    )
    clock.forward = steps.step
    try:
        if spark:
            clock.step("read the files")
            result = _on_spark(args, "audit", step=clock.step)
        elif args.source is not None:
            clock.step(SOURCE_STEP)
            result = _audit_source(args, clock)
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


def _audit_source(args: argparse.Namespace, clock: StepClock) -> AuditResult:
    """The audit of a framework's artifacts: its reader writes them as a log set in the
    contract's layout, in a temporary folder removed after, and the audit says which
    reader read what, and what that can prove (docs/readers.md)."""
    if args.mapping not in (None, NONE):
        raise UsageError("--source reads a framework's own files: it takes no --mapping")
    base = EngineConfig.from_env().temp_directory if args.temp_dir is None else args.temp_dir
    with tempfile.TemporaryDirectory(prefix="reconcile-source-", dir=base) as folder:
        read = SOURCES[args.source](args.logset, Path(folder))
        clock.step("validate")
        try:
            with open_logset(folder, config=_config(args)) as logset:
                result = audit(
                    logset,
                    as_of=args.as_of,
                    settings=AuditSettings(stall_minutes=args.stall_threshold),
                    step=clock.step,
                )
        except InvalidLogSet as error:
            raise InputError(_read_but_invalid(args, error.report)) from None
        except (InputError, UsageError) as error:
            # a message about the reader's temporary log set names the artifacts
            kind = UsageError if isinstance(error, UsageError) else InputError
            raise kind(
                str(error).replace(folder, f"{args.logset} (as read by --source {args.source})")
            ) from None
    result.inputs["logset"] = str(args.logset)
    result.inputs["source"] = read
    return result


def _read_but_invalid(args: argparse.Namespace, report: ValidationReport) -> str:
    """A reader's log set that breaks the contract, in the words of the artifacts:
    which table, column and rows, never the temporary folder's files."""
    first = report.problems[0]
    where = ".".join(part for part in (first.table, first.column) if part)
    example = ""
    if first.examples:
        shown = {k: v for k, v in first.examples[0].items() if k not in ("file", "row")}
        example = "; e.g. " + ", ".join(f"{k}={v!r}" for k, v in shown.items())
    more = len(report.problems) - 1
    return (
        f"{args.logset}, read by the {args.source} reader, gives rows the contract refuses"
        f" ({where}: {first.message}{example})"
        + (f", and {more} more problem(s)" if more > 0 else "")
        + ": a value in the artifacts or the source extract the reader could not place"
    )


def _diff(args: argparse.Namespace) -> int:
    result = diff_reports(args.old, args.new)
    if args.format == "json":
        _emit(render_diff_json(result, args.fail_on), as_json=True)
    elif args.format == "markdown":
        _emit(render_diff_markdown(result, args.fail_on))
    else:
        _emit(render_diff_text(result, args.fail_on))
    return EXIT_FINDINGS if result.failing(args.fail_on) else EXIT_OK


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
    # imported here: the simulator (and what it imports) is no part of an audit's price
    from reconcile.simulate import SimOptions, simulate  # noqa: PLC0415
    from reconcile.simulate.options import Eligibility, Evidence, Membership  # noqa: PLC0415

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
    source = detect_source(folder)
    if source is not None:
        # a framework's own artifacts: its reader, not a mapping (docs/readers.md)
        raise UsageError(
            f"{folder} holds {WHAT[source]}, which needs no mapping:"
            f" run reconcile audit {folder} --source {source} --out DIR (docs/readers.md)"
        )
    text = suggest_mapping(folder)
    if args.out is None:
        print(text, end="")
        return EXIT_OK
    temporary = args.out.with_name(f".{args.out.name}.tmp")
    with _writing(args.out):
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(args.out)
    own = args.out.resolve() == (Path(folder) / MAPPING_FILE).resolve()
    how = "auto" if own else shlex.quote(str(args.out))
    _emit(
        f"wrote {args.out}: check it, then run reconcile validate {folder} --mapping {how}",
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
        if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            # a full disk, a quota, a limit on a file's size (ulimit -f): room, not usage
            raise ResourceError(
                f"cannot write {path}: {reason}",
                resource="disk",
                hint=f"free some space on the disk of {path} (or raise the limit), or write"
                " elsewhere",
            ) from error
        where = f" ({error.filename})" if error.filename else ""
        raise UsageError(f"cannot write {path}: {reason}{where}") from error


def _interrupted(error: BaseException) -> bool:
    """Ctrl-C: Python's, or DuckDB's (a running query ends in RuntimeError("Query
    interrupted") in place of KeyboardInterrupt)."""
    return isinstance(error, KeyboardInterrupt) or query_interrupted(error)


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


def run(args: argparse.Namespace, caught: Caught) -> int:
    """Run the command that ``args`` (parsed by :func:`reconcile.cli.build_parser`)
    asks for, within :func:`reconcile.signals.terminations` (``caught``: the signal
    that ended it, if one did); returns its exit status."""
    clock = StepClock()
    try:
        if args.command in ("validate", "watermarks", "frontier", "audit"):
            if not str(args.logset).strip():
                raise InputError("the log set's path is empty: name its folder (. for this one)")
            _check_places(args)
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
        if args.command == "diff":
            return _diff(args)
        raise UsageError(f"unknown command {args.command}")
    except OutputClosed:
        return EXIT_OUTPUT_CLOSED
    except (Exception, KeyboardInterrupt) as error:
        if args.debug:
            traceback.print_exception(error, file=sys.stderr)
        if isinstance(error, FileNotFoundError) and _no_current_folder():
            error = UsageError(
                "the current folder no longer exists (removed while this shell was in it):"
                " cd to one that exists, or give every path in full"
            )
        status, message = failure(error, clock.current or _command(args), args.debug)
        if status == EXIT_INTERRUPTED and caught.signum is not None:
            status, message = 128 + caught.signum, f"reconcile: terminated by {caught.name}"
        with suppress(OutputClosed):
            _emit(message, err=True)
        return status
