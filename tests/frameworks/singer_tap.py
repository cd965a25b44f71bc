"""A real Singer tap, built with the Meltano Singer SDK, over a source this test
controls: a JSON file of rows ``{"id", "updated_at", "value"}`` served page by page
in cursor order. Run as a program, it syncs once and writes the Singer message stream
to stdout, as ``tap-x --config ... --state ...`` would.

    python -m tests.frameworks.singer_tap SOURCE.json CURSOR [STATE.json]

CURSOR is how a resumed run reads its bookmark: ``>=`` (the SDK's own reading: the
rows at the bookmark again) or ``>`` (a hand-written tap that skips them). With
``TAP_PARTITIONED=1`` in the environment, the stream is partitioned by each row's
``region`` (the SDK's ``partitions``): a bookmark per region, in the state's
``partitions``. With ``TAP_STATE_EVERY=N``, the SDK writes a STATE every N records
(its ``STATE_MSG_FREQUENCY``) as well as the last one: several STATEs per run.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from typing import Any

from singer_sdk import Stream, Tap
from singer_sdk import typing as th

PAGE = 3  # rows per page of the source


class Items(Stream):
    name = "items"
    primary_keys = ("id",)
    replication_key = "updated_at"
    is_sorted = True
    schema = th.PropertiesList(
        th.Property("id", th.StringType),
        th.Property("updated_at", th.IntegerType),
        th.Property("value", th.StringType),
        th.Property("region", th.StringType),
    ).to_dict()

    @property
    def partitions(self) -> list[dict[str, Any]] | None:
        if not self.config.get("partitioned"):
            return None
        return [{"region": r} for r in sorted({row["region"] for row in self.config["rows"]})]

    def get_records(self, context: dict[str, Any] | None) -> Iterable[dict[str, Any]]:
        start = self.get_starting_replication_key_value(context)
        rows = sorted(
            (r for r in self.config["rows"] if not context or r["region"] == context["region"]),
            key=lambda r: (r["updated_at"], r["id"]),
        )
        wanted = [
            r
            for r in rows
            if start is None
            or (
                r["updated_at"] >= start
                if self.config["cursor"] == ">="
                else r["updated_at"] > start
            )
        ]
        for first in range(0, len(wanted), PAGE):  # the source's pages
            yield from wanted[first : first + PAGE]


class SourceTap(Tap):
    name = "tap-test-source"
    config_jsonschema = th.PropertiesList(
        th.Property("rows", th.ArrayType(th.ObjectType())),
        th.Property("cursor", th.StringType),
        th.Property("partitioned", th.BooleanType),
    ).to_dict()

    def discover_streams(self) -> list[Stream]:
        return [Items(self)]


def main(argv: list[str]) -> None:
    with open(argv[0], encoding="utf-8") as handle:
        rows = json.load(handle)
    state = None
    if len(argv) > 2:
        with open(argv[2], encoding="utf-8") as handle:
            state = json.load(handle)
    partitioned = os.environ.get("TAP_PARTITIONED") == "1"
    if os.environ.get("TAP_STATE_EVERY"):
        Items.STATE_MSG_FREQUENCY = int(os.environ["TAP_STATE_EVERY"])
    config = {"rows": rows, "cursor": argv[1], "partitioned": partitioned}
    SourceTap(config=config, state=state).sync_all()


if __name__ == "__main__":
    main(sys.argv[1:])
