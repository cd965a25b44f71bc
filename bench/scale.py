"""The audit at scale, beside the physical limit and the obvious approach.

    uv run python bench/scale.py                       # 1 M, 10 M and 100 M receipts
    uv run python bench/scale.py --sizes 1M,10M        # a quicker run
    uv run python bench/scale.py --work /big/disk --results bench/RESULTS.md

For each size it simulates a log set (``reconcile simulate``: 1,000 partitions, pages
of 100 events, a checkpoint per page; kept in ``--work`` and reused), then measures,
each as a whole process of its own (wall time, and peak resident memory from the
kernel's accounting of that process):

* ``validate``: ``reconcile validate LOGSET``;
* ``audit``: ``reconcile audit LOGSET --out REPORT --profile``: everything (watermarks,
  frontiers, their history, findings, the report);
* ``limit``: DuckDB reading every column of every table the audit reads, once, in one
  group-by-partition aggregate per table (the count and the maximum of each column);
* ``obvious``: the SQL a user would write by hand: group receipts by event, then per
  partition the first event without a durable outcome and the highest committed
  position, and a window over all events for the history.

It prints a table and writes it, with the machine, the ratios against the targets of
issue 8 and where the audit's time went at the largest size, to ``--results``.
Figures come from this script, never from assertions in tests.
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

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# Receipts per size label; the simulator makes about this many (replays add a few).
SIZES = {"1M": 1_000_000, "10M": 10_000_000, "100M": 100_000_000}

# The tables the audit reads and their partition key.
TABLES = (
    "receipts",
    "pages",
    "checkpoints",
    "published",
    "snapshot",
    "snapshot_bounds",
    "epochs",
    "members",
    "scopes",
)

OBVIOUS = """
CREATE TABLE events AS
SELECT scope_id, partition_id, event_id,
       min(position) AS position,
       bool_or(outcome IN ('committed', 'dead_lettered')) AS durable,
       min(recorded_at) FILTER (WHERE outcome IN ('committed', 'dead_lettered')) AS durable_at
FROM receipts
GROUP BY scope_id, partition_id, event_id;

CREATE TABLE watermarks AS
SELECT scope_id, partition_id,
       min(position) FILTER (WHERE NOT durable) AS first_blocking,
       max(position) FILTER (WHERE durable) AS max_committed
FROM events
GROUP BY scope_id, partition_id;

CREATE TABLE history AS
SELECT scope_id, partition_id, position,
       max(coalesce(durable_at, TIMESTAMPTZ '9999-12-31 00:00:00+00')) OVER (
           PARTITION BY scope_id, partition_id ORDER BY position
           ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
       ) AS complete_from
FROM events;
"""


@dataclass(frozen=True)
class Measure:
    seconds: float
    peak_mb: float
    ok: bool


def run_measured(command: list[str], log: Path, accept: tuple[int, ...] = (0,)) -> Measure:
    """Run a command as its own process; its wall time and peak resident memory, and
    whether it exited with one of the ``accept`` codes."""
    started = time.perf_counter()
    with log.open("w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
        _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    # ru_maxrss is in KiB on Linux
    return Measure(seconds, usage.ru_maxrss / 1024, code in accept)


def machine() -> str:
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    memory = ""
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        kib = int(meminfo.read_text().split()[1])
        memory = f", {kib / 1024**2:.1f} GiB memory"
    return (
        f"{model}, {os.cpu_count()} cores{memory}; Python {platform.python_version()},"
        f" DuckDB {duckdb.__version__}, {platform.system()} {platform.release()}"
    )


def simulate(work: Path, label: str) -> Path:
    target = work / f"logset-{label}"
    if (target / "truth.json").exists():
        return target
    events = SIZES[label]
    print(f"simulating {label} receipts into {target} ...", flush=True)
    command = [
        sys.executable, "-m", "reconcile", "simulate", str(target), "--force",
        "--partitions", "1000", "--events", str(events), "--page-size", "100", "--seed", "1",
    ]  # fmt: skip
    subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return target


def receipt_count(logset: Path) -> int:
    row = (
        duckdb.connect()
        .execute("SELECT count(*) FROM read_parquet($p)", {"p": str(logset / "receipts.parquet")})
        .fetchone()
    )
    assert row is not None
    return int(row[0])


def limit(logset: Path) -> None:
    """Read every column of every table once: a group-by-partition aggregate each."""
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    for table in TABLES:
        path = logset / f"{table}.parquet"
        if not path.exists():
            continue
        relation = con.read_parquet(str(path))
        columns = relation.columns
        keys = [c for c in ("scope_id", "partition_id") if c in columns]
        # The names come from the file's own schema, quoted.
        quoted = {c: '"' + c.replace('"', '""') + '"' for c in columns}
        aggregates = ", ".join(
            f"count({quoted[c]}), max({quoted[c]})" for c in columns if c not in keys
        )
        group = ", ".join(quoted[c] for c in keys)
        sql = f"SELECT {group}{', ' if group else ''}{aggregates} FROM relation"
        if group:
            sql += f" GROUP BY {group}"
        con.sql(sql).fetchall()


def obvious(logset: Path) -> None:
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.read_parquet(str(logset / "receipts.parquet")).create_view("receipts")
    for statement in OBVIOUS.split(";"):
        if statement.strip():
            con.execute(statement)


def profile_lines(path: Path, top: int = 12) -> list[str]:
    document = json.loads(path.read_text())
    lines = ["| step | seconds |", "|---|---:|"]
    lines += [f"| {name} | {seconds:.1f} |" for name, seconds in document["steps"].items()]
    lines += ["", "| named query | runs | seconds |", "|---|---:|---:|"]
    lines += [
        f"| `{q['query']}` | {q['runs']} | {q['seconds']:.1f} |" for q in document["queries"][:top]
    ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1M,10M,100M", help="comma-separated: 1M, 10M, 100M")
    parser.add_argument("--work", type=Path, default=Path("/tmp/reconcile-bench"))
    parser.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    parser.add_argument(
        "--memory-limit", default="5GB", help="the audit's DuckDB memory limit (default 5GB)"
    )
    parser.add_argument("--only", help=argparse.SUPPRESS)  # limit|obvious LOGSET (internal)
    parser.add_argument("logset", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.only == "limit":
        limit(args.logset)
        return
    if args.only == "obvious":
        obvious(args.logset)
        return

    labels = [s.strip() for s in args.sizes.split(",") if s.strip()]
    unknown = [s for s in labels if s not in SIZES]
    if unknown:
        parser.error(f"unknown sizes {unknown}; choose from {list(SIZES)}")
    args.work.mkdir(parents=True, exist_ok=True)
    env_cli = [sys.executable, "-m", "reconcile"]
    os.environ["RECONCILE_MEMORY_LIMIT"] = args.memory_limit
    rows: list[dict[str, object]] = []
    profile_at: Path | None = None
    for label in labels:
        logset = simulate(args.work, label)
        receipts = receipt_count(logset)
        report = args.work / f"report-{label}"
        shutil.rmtree(report, ignore_errors=True)
        profile = args.work / f"profile-{label}.json"
        profile.unlink(missing_ok=True)  # one of an earlier build (no marker) is refused
        commands = {
            "limit": [sys.executable, str(HERE / "scale.py"), "--only", "limit", str(logset)],
            "validate": [*env_cli, "validate", str(logset)],
            "audit": [
                *env_cli,
                "audit",
                str(logset),
                "--out",
                str(report),
                "--fail-on",
                "critical",
                "--profile",
                str(profile),
            ],
            "obvious": [sys.executable, str(HERE / "scale.py"), "--only", "obvious", str(logset)],
        }
        row: dict[str, object] = {"size": label, "receipts": receipts}
        for name, command in commands.items():
            # the audit exits 1 when it reports findings at or above --fail-on
            accept = (0, 1) if name == "audit" else (0,)
            measure = run_measured(command, args.work / f"{name}-{label}.log", accept)
            if not measure.ok:
                sys.exit(f"{name} at {label} failed; see {args.work / f'{name}-{label}.log'}")
            row[name] = measure
            print(
                f"{label:>5} {name:<9} {measure.seconds:8.1f} s {measure.peak_mb:8.0f} MB",
                flush=True,
            )
        rows.append(row)
        profile_at = profile
    write_results(args, rows, profile_at)


def write_results(
    args: argparse.Namespace, rows: list[dict[str, object]], profile: Path | None
) -> None:
    def m(row: dict[str, object], name: str) -> Measure:
        value = row[name]
        assert isinstance(value, Measure)
        return value

    lines = [
        "# Benchmark: the audit at scale",
        "",
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by `uv run python bench/scale.py"
        f" --sizes {args.sizes}` on {machine()}. The audit ran with DuckDB's memory limit at"
        f" {args.memory_limit} (`RECONCILE_MEMORY_LIMIT`); the limit and the obvious approach"
        " with DuckDB's defaults. Each figure is one whole process: wall seconds, and peak"
        " resident memory in MB.",
        "",
        "| receipts | limit | validate | audit | obvious | audit / limit | obvious / audit"
        " | validate / limit |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lim, val, aud, obv = (m(row, k) for k in ("limit", "validate", "audit", "obvious"))
        lines.append(
            f"| {row['receipts']:,} | {lim.seconds:.1f} s, {lim.peak_mb:,.0f} MB"
            f" | {val.seconds:.1f} s, {val.peak_mb:,.0f} MB"
            f" | {aud.seconds:.1f} s, {aud.peak_mb:,.0f} MB"
            f" | {obv.seconds:.1f} s, {obv.peak_mb:,.0f} MB"
            f" | {aud.seconds / lim.seconds:.1f}× | {obv.seconds / aud.seconds:.2f}×"
            f" | {val.seconds / lim.seconds:.1f}× |"
        )
    by_size = {str(row["size"]): row for row in rows}
    if "100M" in by_size:
        big = by_size["100M"]
        aud, lim, obv, val = (m(big, k) for k in ("audit", "limit", "obvious", "validate"))
        checks = [
            ("audit within 10× the limit", aud.seconds <= 10 * lim.seconds,
             f"{aud.seconds / lim.seconds:.1f}×"),
            ("audit faster than the obvious approach", aud.seconds < obv.seconds,
             f"{aud.seconds:.1f} s against {obv.seconds:.1f} s"),
            ("audit peak memory under 6 GiB", aud.peak_mb < 6 * 1024,
             f"{aud.peak_mb:,.0f} MB"),
            ("validation within 5× the limit", val.seconds <= 5 * lim.seconds,
             f"{val.seconds / lim.seconds:.1f}×"),
        ]  # fmt: skip
        if "10M" in by_size:
            small = m(by_size["10M"], "audit")
            growth = aud.seconds / small.seconds
            checks.append(("growth 10 M → 100 M at most 12×", growth <= 12, f"{growth:.1f}×"))
        lines += ["", "## Targets at 100 M receipts", "", "| target | met | measured |"]
        lines += ["|---|---|---|"]
        lines += [f"| {name} | {'yes' if ok else 'NO'} | {got} |" for name, ok, got in checks]
    if profile is not None and profile.exists():
        lines += [
            "",
            f"## Where the audit's time went at {rows[-1]['size']} receipts",
            "",
            "From `reconcile audit --profile`: seconds per step, and the slowest named"
            " queries (`reconcile/sql/`), summed over their runs.",
            "",
            *profile_lines(profile),
        ]
    text = "\n".join(lines) + "\n"
    args.results.write_text(text)
    print()
    print(text)


if __name__ == "__main__":
    main()
