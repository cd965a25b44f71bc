"""An Airbyte sync run here, offline: a paginated HTTP API this code controls, served
on this machine (rows ``{"id", "updated_at", "value"}``, three to a page, in cursor
order, from a cursor on), the real CDK source of :mod:`tests.frameworks.airbyte_source`
run once per sync in the CDK's own environment, a folder of the syncs' messages with
the configured catalog, and the audit of them with ``--source airbyte``. Shared by
``tests/test_airbyte.py`` and the bundled example's generator
(:mod:`tests.frameworks.make_airbyte_example`)."""

from __future__ import annotations

import csv
import json
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import polars as pl

from tests.frameworks.airbyte_env import harness_python
from tests.frameworks.examples import audit_source

ROOT = Path(__file__).resolve().parents[2]
PAGE = 3


def rows(ids: range, step: int = 2) -> list[dict[str, Any]]:
    """Rows k0, k1, ... two to a cursor value."""
    return [{"id": f"k{i}", "updated_at": i // step, "value": "v"} for i in ids]


def catalog() -> dict[str, Any]:
    """The configured catalog of a sync: the items stream, incremental on
    updated_at, keyed by id, appended at the destination."""
    return {
        "streams": [
            {
                "stream": {
                    "name": "items",
                    "json_schema": {"type": "object"},
                    "supported_sync_modes": ["full_refresh", "incremental"],
                    "source_defined_cursor": True,
                    "default_cursor_field": ["updated_at"],
                    "source_defined_primary_key": [["id"]],
                },
                "sync_mode": "incremental",
                "cursor_field": ["updated_at"],
                "primary_key": [["id"]],
                "destination_sync_mode": "append",
            }
        ]
    }


class _Api(BaseHTTPRequestHandler):
    source: list[dict[str, Any]]

    def do_GET(self) -> None:
        query = parse_qs(urlparse(self.path).query)
        since = int(query["since"][0])
        strict = query["strict"][0] == "1"
        first = int(query.get("page", ["0"])[0])
        after = [r for r in self.source if r["updated_at"] > since]
        at = [] if strict else [r for r in self.source if r["updated_at"] == since]
        wanted = sorted(after + at, key=lambda r: (r["updated_at"], r["id"]))
        body = {
            "rows": wanted[first : first + PAGE],
            "next": first + PAGE if first + PAGE < len(wanted) else None,
        }
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_: Any) -> None:  # quiet
        pass


@contextmanager
def serving(source: list[dict[str, Any]]) -> Iterator[str]:
    """The API over ``source`` (read as it is at each request), at the URL yielded."""
    handler = type("Api", (_Api,), {"source": source})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class Pipeline:
    """A source, a folder of syncs' messages, and the state the platform kept."""

    def __init__(
        self,
        folder: Path,
        cursor: str,
        logs: Path | None = None,
        checkpoint_every: int | None = None,
        raw: bool = False,
    ) -> None:
        """``checkpoint_every``: the source emits a state every so many records, else
        one at the end of each sync. ``raw``: each sync's messages also go through
        the real CDK destination of :mod:`tests.frameworks.airbyte_destination`,
        whose raw tables land in ``logs/raw``, and the platform keeps the states the
        destination echoed."""
        self.folder, self.cursor, self.every = folder, cursor, checkpoint_every
        self.raw = raw
        self.logs = folder / "logs" if logs is None else logs
        self.logs.mkdir(parents=True, exist_ok=logs is not None)
        (self.logs / "catalog.json").write_text(json.dumps(catalog(), indent=2) + "\n")
        self.source: list[dict[str, Any]] = []
        self.state: list[dict[str, Any]] | None = None
        self.runs = 0

    def run(
        self,
        *,
        commit_state: bool = True,
        die_after_states: int | None = None,
        destination: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """One sync of the real source; without ``commit_state``, the platform lost
        the sync's state after the destination loaded its records (a crash between
        the load and the state commit), so the next sync starts from the state
        before. ``die_after_states``: the sync died once the platform had committed
        that many of its states; what came after them never reached the
        destination. ``destination``: the destination's fault, in its config's
        terms (``{"fault": "drop", "drop_key": "k3"}``)."""
        self.runs += 1
        with serving(self.source) as url:
            config = self.folder / "config.json"
            settings = {"url": url, "cursor": self.cursor, "checkpoint_every": self.every}
            config.write_text(json.dumps(settings))
            argv = [
                str(harness_python()), "-m", "tests.frameworks.airbyte_source", "read",
                "--config", str(config), "--catalog", str(self.logs / "catalog.json"),
            ]  # fmt: skip
            if self.state is not None:
                state = self.folder / "state.json"
                state.write_text(json.dumps(self.state))
                argv += ["--state", str(state)]
            done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=True)
        lines = [line for line in done.stdout.splitlines() if line.strip()]
        messages = [json.loads(line) for line in lines]
        if die_after_states is not None:
            places = [i for i, m in enumerate(messages) if m["type"] == "STATE"]
            end = places[die_after_states - 1] + 1
            lines, messages = lines[:end], messages[:end]
        kept = [
            line
            for line, m in zip(lines, messages, strict=True)
            if commit_state or m["type"] != "STATE"
        ]
        (self.logs / f"sync-{self.runs:03d}.jsonl").write_text("".join(k + "\n" for k in kept))
        states = [m["state"] for m in messages if m["type"] == "STATE"]
        if self.raw:
            states = self._load("".join(k + "\n" for k in kept), destination or {})
        if commit_state and states:
            self.state = [states[-1]]
        return [m["record"]["data"] for m in messages if m["type"] == "RECORD"]

    def _load(self, messages: str, fault: dict[str, Any]) -> list[dict[str, Any]]:
        """The sync's messages through the real destination; the states it echoed."""
        config = self.folder / "destination.json"
        config.write_text(json.dumps({"raw": str(self.logs / "raw"), **fault}))
        argv = [
            str(harness_python()), "-m", "tests.frameworks.airbyte_destination", "write",
            "--config", str(config), "--catalog", str(self.logs / "catalog.json"),
        ]  # fmt: skip
        done = subprocess.run(
            argv, cwd=ROOT, input=messages, capture_output=True, text=True, check=True
        )
        echoed = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
        return [m["state"] for m in echoed if m["type"] == "STATE"]

    def extract(self) -> None:
        """The source as it is now, as the user's extract: source.csv (key, cursor)."""
        with (self.logs / "source.csv").open("w", newline="") as handle:
            out = csv.writer(handle)
            out.writerow(["key", "cursor"])
            out.writerows([r["id"], r["updated_at"]] for r in self.source)

    def audit(self, tmp: Path) -> pl.DataFrame:
        """The extract of the source as it is now, then the audit's findings."""
        self.extract()
        return audit_source(self.logs, "airbyte", tmp)
