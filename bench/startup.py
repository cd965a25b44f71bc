"""The fixed price of a command on small logs: ``reconcile --help`` and the audit of
the bundled ``data/faults`` (20,401 receipts), each a whole process.

    uv run python bench/startup.py            # 7 runs each
    uv run python bench/startup.py --runs 15

Prints, per command, the fastest and the median wall time and the peak resident
memory, beside the targets of issue 20 (``--help`` at most 0.3 s, the audit of
``data/faults`` at most 1.0 s). Figures come from this script, never from tests.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(command: list[str], accept: tuple[int, ...]) -> tuple[float, float]:
    """Wall seconds and peak resident MB of one run of ``command``."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code not in accept:
        err = process.stderr.read().decode() if process.stderr else ""
        sys.exit(f"{' '.join(command)} exited {code}: {err}")
    return seconds, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    reconcile = str(Path(sys.executable).with_name("reconcile"))
    out = Path(tempfile.mkdtemp(prefix="startup-bench-"))
    report = out / "report"
    cases = {
        "reconcile --help": ([reconcile, "--help"], (0,), 0.3),
        # the audit of data/faults finds errors: exit 1
        "reconcile audit data/faults": (
            [reconcile, "audit", "data/faults", "--out", str(report)],
            (1,),
            1.0,
        ),
    }
    print(f"{'command':<30} {'fastest':>8} {'median':>8} {'peak MB':>8} {'target':>7}  met")
    try:
        for name, (command, accept, target) in cases.items():
            measure(command, accept)  # warm the file cache
            runs = [measure(command, accept) for _ in range(args.runs)]
            walls = [w for w, _ in runs]
            median = statistics.median(walls)
            met = "yes" if median <= target else "NO"
            print(
                f"{name:<30} {min(walls):7.2f}s {median:7.2f}s"
                f" {max(m for _, m in runs):8.0f} {target:6.1f}s  {met}"
            )
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
