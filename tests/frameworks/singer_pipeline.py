"""A Singer pipeline run here: a source this code controls, the real tap of
:mod:`tests.frameworks.singer_tap` run once per sync in its own process, a folder of
the runs' message streams, and the audit of them with ``--source singer``. Shared by
``tests/test_singer.py`` and the bundled example's generator
(:mod:`tests.frameworks.make_singer_example`)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl

from tests.frameworks.examples import audit_source

ROOT = Path(__file__).resolve().parents[2]


def rows(ids: range, step: int = 2) -> list[dict[str, Any]]:
    """Rows k0, k1, ... two to a cursor value."""
    return [{"id": f"k{i}", "updated_at": i // step, "value": "v"} for i in ids]


class Pipeline:
    """A source, a folder of runs, and the state the last run committed."""

    def __init__(
        self,
        folder: Path,
        cursor: str,
        logs: Path | None = None,
        partitioned: bool = False,
        state_every: int | None = None,
    ) -> None:
        """``folder``: the source's and the state's files; ``logs``: where the runs go
        (default: ``folder/logs``); ``partitioned``: the tap partitions its stream by
        each row's ``region``; ``state_every``: the tap writes a STATE every so many
        records as well as at the end of the run, else only at the end."""
        self.folder, self.cursor, self.partitioned = folder, cursor, partitioned
        self.state_every = state_every
        self.logs = folder / "logs" if logs is None else logs
        self.logs.mkdir(parents=True, exist_ok=logs is not None)
        self.source: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None
        self.runs = 0

    def run(self, *, commit_state: bool = True) -> list[dict[str, Any]]:
        """One sync of the real tap; without ``commit_state``, it crashed after the
        destination loaded its records and before the state was stored."""
        self.runs += 1
        source = self.folder / "source.json"
        source.write_text(json.dumps(self.source))
        argv = [sys.executable, "-m", "tests.frameworks.singer_tap", str(source), self.cursor]
        if self.state is not None:
            state = self.folder / "state.json"
            state.write_text(json.dumps(self.state))
            argv.append(str(state))
        env = {**os.environ, "TAP_PARTITIONED": "1" if self.partitioned else "0"}
        env["TAP_STATE_EVERY"] = str(self.state_every or "")
        done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        messages = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
        kept = [m for m in messages if commit_state or m["type"] != "STATE"]
        (self.logs / f"run-{self.runs:03d}.jsonl").write_text(
            "".join(json.dumps(m) + "\n" for m in kept)
        )
        states = [m for m in messages if m["type"] == "STATE"]
        if commit_state and states:
            self.state = states[-1]["value"]
        return [m["record"] for m in messages if m["type"] == "RECORD"]

    def extract(self) -> None:
        """The source as it is now, as the user's extract: source.csv (key, cursor)."""
        with (self.logs / "source.csv").open("w", newline="") as handle:
            out = csv.writer(handle)
            if self.partitioned:
                out.writerow(["key", "cursor", "region"])
                out.writerows([r["id"], r["updated_at"], r["region"]] for r in self.source)
            else:
                out.writerow(["key", "cursor"])
                out.writerows([r["id"], r["updated_at"]] for r in self.source)

    def audit(self, tmp: Path) -> pl.DataFrame:
        """The extract of the source as it is now, then the audit's findings."""
        self.extract()
        return audit_source(self.logs, "singer", tmp)
