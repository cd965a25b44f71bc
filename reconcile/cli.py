"""The ``reconcile`` command: argument parsing, rendering, and exit codes.

Exit codes are decided here and nowhere else: 0 success (no finding at or above
``--fail-on``), 1 findings at or above it, 2 input that cannot be read or is invalid
(and for a wrong command line, as argparse does).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from reconcile.db import EngineConfig
from reconcile.errors import InputError, InvalidLogSet, ReconcileError, UsageError
from reconcile.render.validation import render_json, render_text
from reconcile.validate import DEFAULT_EXAMPLES, validate_logset

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_INVALID = 2


def _engine_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("engine")
    group.add_argument(
        "--memory-limit",
        metavar="SIZE",
        help="DuckDB memory limit, past which work spills to disk (default 4GB)",
    )
    group.add_argument(
        "--temp-dir",
        metavar="DIR",
        type=Path,
        help="where DuckDB spills (default: a fresh folder in the system temp dir)",
    )
    group.add_argument("--threads", type=int, metavar="N", help="worker threads (default: all)")


def _config(args: argparse.Namespace) -> EngineConfig:
    env = EngineConfig.from_env()
    return EngineConfig(
        memory_limit=args.memory_limit or env.memory_limit,
        temp_directory=args.temp_dir or env.temp_directory,
        threads=args.threads or env.threads,
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reconcile",
        description="Reconcile paginated event ingestion logs: watermarks, frontiers, audits.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    validate = commands.add_parser(
        "validate",
        help="check a log set against the contract",
        description="Check every table of a log set against its schema and the rules of the"
        " contract; report every problem with table, file, column and example rows."
        " Exit 0 when valid, 2 when not.",
    )
    validate.add_argument("logset", type=Path, metavar="LOGSET", help="the log set directory")
    validate.add_argument("--json", action="store_true", help="print the report as JSON")
    validate.add_argument(
        "--max-examples",
        type=int,
        default=DEFAULT_EXAMPLES,
        metavar="N",
        help=f"example rows per problem (default {DEFAULT_EXAMPLES})",
    )
    _engine_options(validate)
    return parser


def _validate(args: argparse.Namespace) -> int:
    report = validate_logset(args.logset, config=_config(args), max_examples=args.max_examples)
    print(render_json(report) if args.json else render_text(report))
    return EXIT_OK if report.ok else EXIT_INVALID


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "validate":
            return _validate(args)
        raise UsageError(f"unknown command {args.command}")
    except InvalidLogSet as error:
        print(render_text(error.report), file=sys.stderr)
        return EXIT_INVALID
    except InputError as error:
        print(f"reconcile: {error}", file=sys.stderr)
        return EXIT_INVALID
    except UsageError as error:
        print(f"reconcile: {error}", file=sys.stderr)
        return EXIT_INVALID
    except ReconcileError as error:
        print(f"reconcile: {error}", file=sys.stderr)
        return EXIT_INVALID


if __name__ == "__main__":
    sys.exit(main())
