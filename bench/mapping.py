"""What reading a log set through a mapping costs, beside the contract's layout.

    uv run python bench/mapping.py                 # 10 M receipts, 3 runs of each
    uv run python bench/mapping.py --size 1M --repeats 1

It takes the simulated log set of ``bench/spark.py`` (``--size`` receipts, one scope;
made once in ``--work``), floors its timestamps to the millisecond (the contract
twin), rewrites a copy of that in the foreign layout of ``reconcile simulate --layout
foreign`` (``reconcile.simulate.foreign``: renamed columns, epoch-ms timestamps,
other outcome spellings, checkpoints and pages in one file), and runs ``reconcile
audit`` on each as a process of its own, alternating, ``--repeats`` times: wall time,
peak resident memory, the validation step's seconds from ``--profile``, and whether
the two reports are equal. Figures come from this script, never from tests.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from spark import SIZES, Run, run_measured, same_reports, simulate  # noqa: E402

from reconcile.simulate.foreign import floor_to_ms, to_foreign  # noqa: E402


def prepared(work: Path, size: str) -> tuple[Path, Path]:
    """The contract twin and its foreign layout (made once, kept in ``work``)."""
    source = simulate(work, size, 1)
    twin = work / f"mapping-{size}-contract"
    foreign = work / f"mapping-{size}-foreign"
    if not (twin / "truth.json").exists():
        print(f"flooring {source} to the ms into {twin} ...", flush=True)
        shutil.rmtree(twin, ignore_errors=True)
        shutil.copytree(source, twin)
        floor_to_ms(twin)
    if not (foreign / "reconcile.toml").exists():
        print(f"rewriting {twin} in a foreign layout into {foreign} ...", flush=True)
        shutil.rmtree(foreign, ignore_errors=True)
        shutil.copytree(twin, foreign)
        to_foreign(foreign)
    return twin, foreign


def audit(logset: Path, work: Path, label: str) -> tuple[Run, float, float]:
    """One audit: the process's figures, its validation step and all its steps, s."""
    out = work / f"report-mapping-{label}"
    profile = work / f"profile-mapping-{label}.json"
    shutil.rmtree(out, ignore_errors=True)
    profile.unlink(missing_ok=True)  # one of an earlier build (no marker) is refused
    # the foreign layout's own mapping, trusted: this script made it
    trusted = ["--mapping", "auto"] if (logset / "reconcile.toml").exists() else []
    command = [
        sys.executable, "-m", "reconcile", "audit", str(logset), "--out", str(out),
        "--fail-on", "critical", "--profile", str(profile), *trusted,
    ]  # fmt: skip
    run = run_measured(command, work / f"mapping-{label}.log")
    steps = json.loads(profile.read_text())["steps"] if profile.exists() else {}
    total = sum(float(v) for v in steps.values()) if steps else float("nan")
    return run, float(steps.get("validate", float("nan"))), total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=list(SIZES), default="10M")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path("/tmp/reconcile-bench"))
    parser.add_argument("--results", type=Path, default=HERE / "MAPPING.md")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    twin, foreign = prepared(args.work, args.size)
    runs: dict[str, list[tuple[Run, float, float]]] = {"contract": [], "mapping": []}
    equal = True
    for number in range(args.repeats):
        order = [("contract", twin), ("mapping", foreign)]
        for layout, logset in order if number % 2 == 0 else order[::-1]:
            run, validate, steps = audit(logset, args.work, f"{args.size}-{layout}")
            runs[layout].append((run, validate, steps))
            print(
                f"{layout:>8} run {number + 1}: {run.seconds:.1f} s (steps {steps:.1f} s,"
                f" validate {validate:.1f} s),"
                f" peak {run.peak_mb:,.0f} MB, exit {run.code}",
                flush=True,
            )
        equal = equal and same_reports(
            args.work / f"report-mapping-{args.size}-contract",
            args.work / f"report-mapping-{args.size}-mapping",
        )
    lines = [
        f"# Reading through a mapping ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})",
        "",
        f"`uv run python bench/mapping.py --size {args.size} --repeats {args.repeats}`,"
        f" on {os.cpu_count()} cores: `reconcile audit` of the same log set in the"
        " contract's layout and in the foreign layout through its `reconcile.toml`.",
        "",
        "| layout | runs | wall s (median) | wall s (each) | steps s (median) | steps s (each)"
        " | validate s (median) | peak MB |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for layout, found in runs.items():
        walls = [r.seconds for r, _, _ in found]
        checks = [v for _, v, _ in found]
        steps = [t for _, _, t in found]
        lines.append(
            f"| {layout} | {len(found)} | {statistics.median(walls):.1f}"
            f" | {', '.join(f'{w:.1f}' for w in walls)} | {statistics.median(steps):.1f}"
            f" | {', '.join(f'{t:.1f}' for t in steps)} | {statistics.median(checks):.1f}"
            f" | {max(r.peak_mb for r, _, _ in found):,.0f} |"
        )
    lines += [
        "",
        f"Reports equal (watermarks, frontiers, frontier_history, findings): "
        f"{'yes' if equal else 'NO'}. *steps*: the sum of the audit's steps in its"
        " `--profile` (the process's time less starting Python). *validate*: the"
        " audit's validation step (for the"
        " mapping: binding it to the files, the value maps' coverage scan, the row checks"
        " through the views).",
        "",
    ]
    args.results.write_text("\n".join(lines))
    print("\n".join(lines))
    print(f"wrote {args.results}")


if __name__ == "__main__":
    main()
