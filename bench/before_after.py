"""The audit of two builds of reconcile, side by side, on the same log sets.

    uv run python bench/before_after.py --before /path/to/old/checkout \\
        --logsets /tmp/reconcile-bench/logset-10M,/tmp/reconcile-bench/logset-100M \\
        --time-ordered --repeat 2 --results bench/BEFORE_AFTER.md

``--before`` is a checkout of an earlier commit with its own ``.venv``
(``git worktree add /tmp/old <commit> && cd /tmp/old && uv sync --locked``); the
other build is this checkout. Each audit is ``reconcile audit LOGSET --out REPORT
--memory-limit 5GB`` as a whole process of its own: wall seconds and peak resident
memory (the kernel's accounting of that process and its children). The two builds
alternate run by run, so that the machine's drift touches both alike; every report
of one build must equal the other's (watermarks, frontiers, frontier_history,
findings, summary.json), else the script says so and exits 1.

``--time-ordered`` adds, for each log set, a copy whose receipts, pages and
checkpoints are rewritten in time order (recorded_at, fetched_at, written_at): every
row group then holds rows of many partitions, as an ingestion system appends them,
where the simulator writes one partition after another.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import polars as pl

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TABLES = ("watermarks", "frontiers", "frontier_history", "findings")
ORDER = {"receipts": "recorded_at", "pages": "fetched_at", "checkpoints": "written_at"}


@dataclass(frozen=True)
class Measure:
    seconds: float
    peak_mb: float
    status: int


def run_measured(command: list[str]) -> Measure:
    """Run ``command`` as a process of its own: wall time, its peak resident memory
    (from the kernel, by ``wait4``), exit status (0 or 1: the audit's own)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    output = process.stdout.read() if process.stdout else ""
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    process.returncode = code
    if code not in (0, 1):
        sys.stderr.write(output)
        raise SystemExit(f"{' '.join(command)} exited {code}")
    return Measure(seconds, usage.ru_maxrss / 1024, code)


def time_ordered(source: Path) -> Path:
    """A copy of ``source`` with receipts, pages and checkpoints in time order,
    written by a process of its own: this one stays small, so that the peak memory
    of the processes it starts is theirs (a child starts as a copy of its parent)."""
    target = source.with_name(source.name + "-time-ordered")
    if not (target / "done").exists():
        subprocess.run([sys.executable, __file__, "--rewrite", str(source)], cwd=ROOT, check=True)
    return target


def rewrite(source: Path) -> None:
    """Write the time-ordered copy of ``source`` (see :func:`time_ordered`)."""
    target = source.with_name(source.name + "-time-ordered")
    if target.exists():
        shutil.rmtree(target)
    target.mkdir()
    with duckdb.connect(":memory:") as con:
        con.execute("SET preserve_insertion_order = true")
        for file in sorted(source.iterdir()):
            if file.suffix != ".parquet":
                if file.is_file():
                    shutil.copy2(file, target / file.name)
                continue
            column = ORDER.get(file.stem)
            if column is None:
                shutil.copy2(file, target / file.name)
                continue
            print(f"rewriting {file.name} in {column} order ...", flush=True)
            con.execute(
                f"COPY (FROM read_parquet('{file}') ORDER BY {column})"
                f" TO '{target / file.name}' (FORMAT parquet, ROW_GROUP_SIZE 122880)"
            )
    (target / "done").write_text("")


def same_reports(first: Path, second: Path) -> list[str]:
    """Where two report directories differ (empty: identical)."""
    found = []
    for name in TABLES:
        a = pl.read_parquet(first / f"{name}.parquet")
        b = pl.read_parquet(second / f"{name}.parquet")
        if not a.equals(b):
            found.append(name)
    if json.loads((first / "summary.json").read_text()) != json.loads(
        (second / "summary.json").read_text()
    ):
        found.append("summary.json")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rewrite", type=Path, help=argparse.SUPPRESS)  # internal
    parser.add_argument("--before", type=Path, help="an earlier checkout")
    parser.add_argument("--logsets", help="comma-separated log set folders")
    parser.add_argument("--time-ordered", action="store_true")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--work", type=Path, default=Path("/tmp/reconcile-before-after"))
    parser.add_argument("--memory-limit", default="5GB")
    parser.add_argument("--results", type=Path)
    args = parser.parse_args()
    if args.rewrite is not None:
        rewrite(args.rewrite)
        return
    if args.before is None or args.logsets is None:
        parser.error("--before and --logsets are required")

    builds = {
        "before": args.before / ".venv" / "bin" / "reconcile",
        "after": ROOT / ".venv" / "bin" / "reconcile",
    }
    logsets = [Path(p) for p in args.logsets.split(",")]
    if args.time_ordered:
        logsets = [x for p in logsets for x in (p, time_ordered(p))]
    args.work.mkdir(parents=True, exist_ok=True)
    rows = []
    bad = []
    for logset in logsets:
        measures: dict[str, list[Measure]] = {name: [] for name in builds}
        for number in range(args.repeat):
            for name, command in builds.items():
                out = args.work / f"{logset.name}-{name}"
                if out.exists():
                    shutil.rmtree(out)
                measure = run_measured(
                    [str(command), "audit", str(logset), "--out", str(out), "--fail-on",
                     "critical", "--memory-limit", args.memory_limit]
                )  # fmt: skip
                measures[name].append(measure)
                print(
                    f"{logset.name} {name} run {number + 1}: {measure.seconds:.1f} s,"
                    f" {measure.peak_mb:,.0f} MB",
                    flush=True,
                )
        differ = same_reports(
            args.work / f"{logset.name}-before", args.work / f"{logset.name}-after"
        )
        if differ:
            bad.append(f"{logset.name}: {', '.join(differ)}")
        rows.append((logset.name, measures, differ))
    lines = [
        "# The audit before and after",
        "",
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by `uv run python bench/before_after.py"
        f" --before {args.before} --logsets {args.logsets}"
        + (" --time-ordered" if args.time_ordered else "")
        + f" --repeat {args.repeat}` on {os.cpu_count()} cores, Python"
        f" {platform.python_version()}, DuckDB {duckdb.__version__}; `before` is"
        f" {_commit(args.before)}, `after` {_commit(ROOT)}. Each figure is one whole"
        " process (`reconcile audit ... --memory-limit"
        f" {args.memory_limit}`): wall seconds and peak resident memory.",
        "",
        "| log set | before: runs (s) | after: runs (s) | before peak MB | after peak MB |"
        " after / before | reports |",
        "|---|---|---|---:|---:|---:|---|",
    ]
    for name, measures, differ in rows:
        before, after = measures["before"], measures["after"]
        ratio = min(m.seconds for m in after) / min(m.seconds for m in before)
        lines.append(
            f"| {name} | {', '.join(f'{m.seconds:.1f}' for m in before)}"
            f" | {', '.join(f'{m.seconds:.1f}' for m in after)}"
            f" | {max(m.peak_mb for m in before):,.0f} | {max(m.peak_mb for m in after):,.0f}"
            f" | {ratio:.2f}× | {'equal' if not differ else 'DIFFER: ' + ', '.join(differ)} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.results:
        args.results.write_text(text)
    if bad:
        raise SystemExit("reports differ: " + "; ".join(bad))


def _commit(checkout: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or "?"


if __name__ == "__main__":
    main()
