"""The Spark engine beside the DuckDB engine, on the same log sets.

    uv run python bench/spark.py                      # 10 M receipts: 1 scope, 4 scopes
    uv run python bench/spark.py --size 1M --scopes 1 # a quick run
    uv run python bench/spark.py --master 'local[2]' --results bench/SPARK.md

For each number of scopes it simulates a log set of about ``--size`` receipts
(``reconcile simulate``: 1,000 partitions in all, split evenly over the scopes; kept in
``--work`` and reused), then runs ``reconcile audit`` on it as a whole process of its
own with ``--engine duckdb`` and with ``--engine spark --spark-master MASTER``: wall
time, the peak of the resident memory summed over the process and its descendants
(Spark's JVM and its Python workers; sampled every 0.2 s), and whether the two
reports' tables are equal. From the Spark run's ``--profile`` it prints where the
time went: starting Spark and reading the files' facts, then the scopes' job.
Figures come from this script, never from assertions in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SIZES = {"1M": 1_000_000, "10M": 10_000_000, "100M": 100_000_000}
TABLES = ("watermarks", "frontiers", "frontier_history", "findings")


@dataclass(frozen=True)
class Run:
    seconds: float
    peak_mb: float
    code: int


def _tree_rss(pid: int) -> int:
    """Resident bytes of a process and all its descendants, from /proc."""
    total = 0
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            for line in status.splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
            for task in Path(f"/proc/{current}/task").iterdir():
                children = (task / "children").read_text().split()
                stack.extend(int(c) for c in children)
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return total


def run_measured(command: list[str], log: Path) -> Run:
    peak = 0
    started = time.perf_counter()
    with log.open("w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
        done = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not done.wait(0.2):
                peak = max(peak, _tree_rss(process.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        code = process.wait()
        done.set()
        sampler.join()
    return Run(time.perf_counter() - started, peak / 2**20, code)


def simulate(work: Path, size: str, scopes: int) -> Path:
    target = work / f"logset-{size}-{scopes}scopes"
    if (target / "truth.json").exists():
        return target
    print(f"simulating {size} receipts in {scopes} scope(s) into {target} ...", flush=True)
    command = [
        sys.executable, "-m", "reconcile", "simulate", str(target), "--force",
        "--scopes", str(scopes), "--partitions", str(1000 // scopes),
        "--events", str(SIZES[size] // scopes), "--page-size", "100", "--seed", "1",
    ]  # fmt: skip
    subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return target


def same_reports(first: Path, second: Path) -> bool:
    for table in TABLES:
        a = pl.read_parquet(first / f"{table}.parquet")
        b = pl.read_parquet(second / f"{table}.parquet")
        columns = [c for c, t in a.schema.items() if not t.is_nested()]
        if table == "findings":
            a, b = a.sort(columns, nulls_last=True), b.sort(columns, nulls_last=True)
        if not a.equals(b):
            return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=list(SIZES), default="10M")
    parser.add_argument("--scopes", default="1,4", help="scope counts, comma-separated")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--buckets", default="0,2", help="--spark-buckets values, comma-separated")
    parser.add_argument("--work", type=Path, default=Path("/tmp/reconcile-bench"))
    parser.add_argument("--results", type=Path, default=HERE / "SPARK.md")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    lines = [
        f"# Spark engine beside DuckDB ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})",
        "",
        f"`uv run python bench/spark.py --size {args.size} --scopes {args.scopes}"
        f" --master '{args.master}'`, on {os.cpu_count()} cores.",
        "",
        "| receipts | scopes | DuckDB s | DuckDB peak MB | buckets | Spark s | Spark peak MB"
        " | Spark start + facts s | Spark scopes s | equal |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for scopes in (int(s) for s in args.scopes.split(",")):
        logset = simulate(args.work, args.size, scopes)
        label = f"{args.size}-{scopes}"
        base = [sys.executable, "-m", "reconcile", "audit", str(logset), "--fail-on", "critical"]
        duck_out = args.work / f"report-duckdb-{label}"
        subprocess.run(["rm", "-rf", str(duck_out)], check=True)
        duck = run_measured([*base, "--out", str(duck_out)], args.work / f"duckdb-{label}.log")
        for buckets in args.buckets.split(","):
            spark_out = args.work / f"report-spark-{label}-{buckets}"
            profile = args.work / f"profile-spark-{label}-{buckets}.json"
            subprocess.run(["rm", "-rf", str(spark_out), str(profile)], check=True)
            spark_command = [
                *base, "--out", str(spark_out), "--engine", "spark",
                "--spark-master", args.master, "--profile", str(profile),
            ]  # fmt: skip
            spark_command += ["--spark-buckets", buckets]
            spark = run_measured(spark_command, args.work / f"spark-{label}-{buckets}.log")
            steps = json.loads(profile.read_text())["steps"] if profile.exists() else {}
            equal = duck.code == spark.code == 0 and same_reports(duck_out, spark_out)
            row = (
                f"| {args.size} | {scopes} | {duck.seconds:.1f} | {duck.peak_mb:,.0f}"
                f" | {buckets} | {spark.seconds:.1f} | {spark.peak_mb:,.0f}"
                f" | {steps.get('read the files', float('nan')):.1f}"
                f" | {steps.get('audit the scopes', float('nan')):.1f}"
                f" | {'yes' if equal else 'NO'} |"
            )
            print(row, flush=True)
            lines.append(row)
    lines += [
        "",
        "Peak MB: resident memory summed over the process and its descendants (for Spark:"
        " the driver, its JVM and the Python workers), sampled every 0.2 s. *Spark start +"
        " facts*: starting the session and reading each file's footer and end-of-log"
        " column; *Spark scopes*: the jobs after that: reading the files into pieces and"
        " running the tasks (with buckets, the audit's phases of"
        " reconcile/audit/phases.py: the buckets' validation, partition phase and"
        " partition rules; each scope's task; the timelines drawn). *buckets*:"
        " --spark-buckets (0: everything in the scope's task, on all of its rows)."
        " *equal*: the four report tables are the same.",
        "",
    ]
    args.results.write_text("\n".join(lines))
    print(f"wrote {args.results}")


if __name__ == "__main__":
    main()
