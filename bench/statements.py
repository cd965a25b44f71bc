"""Where the audit's time goes on a small log set, statement by statement: each of the
engine's statements is first ``EXPLAIN``ed (parsed, bound, planned) and then run, in
one process, and both are summed.

    uv run python bench/statements.py                 # data/faults
    uv run python bench/statements.py LOGSET --top 15

Prints the number of statements, the seconds they ran and the seconds ``EXPLAIN``
alone took, the seconds per kind of statement, and the slowest statements. On the
bundled 20,401-receipt log set the two sums are close: a statement's time there is
its planning (bench/EVENT_LEVEL.md). Figures come from this script, never from tests.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import duckdb

from reconcile.cli import main as reconcile
from reconcile.engine import namespace

ROOT = Path(__file__).resolve().parents[1]
# statements EXPLAIN does not take
_UNPLANNED = ("CREATE MACRO", "CREATE OR REPLACE MACRO", "CREATE TEMP MACRO", "DROP", "SET")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logset", nargs="?", default=str(ROOT / "data" / "faults"))
    parser.add_argument("--top", type=int, default=10, help="the slowest statements shown")
    args = parser.parse_args()

    stats: list[tuple[str, float, float, str]] = []
    run = namespace.Namespace.run

    def timed(self: Any, step: str, query: str, sql: str, params: Any = None) -> Any:
        head = sql.lstrip().upper()
        plan = 0.0
        if not head.startswith(_UNPLANNED) and not head.startswith("CREATE OR REPLACE TEMP MACRO"):
            started = time.perf_counter()
            try:
                self.cursor.execute("EXPLAIN " + sql, dict(params) if params else None)
                plan = time.perf_counter() - started
            except duckdb.Error:  # a statement EXPLAIN refuses is only run
                plan = 0.0
        started = time.perf_counter()
        result = run(self, step, query, sql, params)
        stats.append((query, plan, time.perf_counter() - started, " ".join(head.split()[:2])))
        return result

    namespace.Namespace.run = timed  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):  # the audit's own summary
            code = reconcile(["audit", args.logset, "--out", str(Path(folder) / "report")])
        whole = time.perf_counter() - started
    namespace.Namespace.run = run  # type: ignore[method-assign]
    if code not in (0, 1):
        print(f"the audit exited {code}", file=sys.stderr)
        return code
    ran = sum(s[2] for s in stats)
    planned = sum(s[1] for s in stats)
    print(f"audit of {args.logset}: {whole:.3f} s in process (EXPLAIN included)")
    print(f"{len(stats)} statements: ran {ran:.3f} s; EXPLAIN alone {planned:.3f} s")
    kinds: dict[str, list[float]] = defaultdict(list)
    for _, _, seconds, kind in stats:
        kinds[kind].append(seconds)
    for kind, times in sorted(kinds.items(), key=lambda item: -sum(item[1])):
        print(f"  {kind:<24} {len(times):4d} statements {sum(times):7.3f} s")
    print("slowest:")
    for query, plan, seconds, _ in sorted(stats, key=lambda s: -s[2])[: args.top]:
        print(f"  {seconds * 1000:7.1f} ms (EXPLAIN {plan * 1000:5.1f} ms)  {query}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
