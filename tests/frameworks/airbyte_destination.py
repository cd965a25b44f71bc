"""A real Airbyte destination, built with the Airbyte Python CDK's ``Destination``,
writing raw tables as Airbyte's Destinations V2 do: one per stream, each record a row
``_airbyte_raw_id``, ``_airbyte_extracted_at`` (the record's emitted_at),
``_airbyte_loaded_at`` (when typing and deduping put it in the final table; null
until then), ``_airbyte_data`` and ``_airbyte_meta``. Records are buffered and
committed at each STATE, which the destination then echoes: the platform stores only
echoed states. Typing and deduping runs at the end of the sync and sets
``_airbyte_loaded_at`` on every raw row without one (those of earlier syncs too).

    python -m tests.frameworks.airbyte_destination write --config C --catalog K < MESSAGES

The config names the raw tables' folder (``raw``) and a fault (``fault``): ``drop``
(one record, ``drop_key``, never reaches its raw table) or ``no_typing`` (the sync
ends before typing and deduping). Runs in the CDK's own environment.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from airbyte_cdk.destinations import Destination
from airbyte_cdk.models import (
    AirbyteConnectionStatus,
    AirbyteMessage,
    ConfiguredAirbyteCatalog,
    ConnectorSpecification,
    Status,
    Type,
)


def _now() -> str:
    return datetime.now(UTC).isoformat()


class RawDestination(Destination):
    def spec(self, logger: Any) -> ConnectorSpecification:
        properties = {"raw": {"type": "string"}, "fault": {"type": "string"}}
        return ConnectorSpecification(
            connectionSpecification={"type": "object", "properties": properties}
        )

    def check(self, logger: Any, config: Mapping[str, Any]) -> AirbyteConnectionStatus:
        return AirbyteConnectionStatus(status=Status.SUCCEEDED)

    def write(
        self,
        config: Mapping[str, Any],
        configured_catalog: ConfiguredAirbyteCatalog,
        input_messages: Iterable[AirbyteMessage],
    ) -> Iterable[AirbyteMessage]:
        folder = Path(config["raw"])
        folder.mkdir(parents=True, exist_ok=True)
        sync_id = str(uuid.uuid4())
        buffer: dict[str, list[dict[str, Any]]] = {}
        for message in input_messages:
            if message.type == Type.RECORD and message.record is not None:
                record = message.record
                if config.get("fault") == "drop" and record.data.get("id") == config["drop_key"]:
                    continue
                emitted = datetime.fromtimestamp(record.emitted_at / 1000, UTC)
                buffer.setdefault(record.stream, []).append(
                    {
                        "_airbyte_raw_id": str(uuid.uuid4()),
                        "_airbyte_extracted_at": emitted.isoformat(),
                        "_airbyte_loaded_at": None,
                        "_airbyte_data": record.data,
                        "_airbyte_meta": {"sync_id": sync_id, "changes": []},
                    }
                )
            elif message.type == Type.STATE:
                for stream, rows in buffer.items():  # commit, then echo the state
                    with (folder / f"{stream}.jsonl").open("a") as raw:
                        raw.writelines(json.dumps(row) + "\n" for row in rows)
                buffer.clear()
                yield message
        if config.get("fault") != "no_typing":
            for table in folder.glob("*.jsonl"):  # typing and deduping
                rows = [json.loads(line) for line in table.read_text().splitlines()]
                loaded = _now()
                for row in rows:
                    row["_airbyte_loaded_at"] = row["_airbyte_loaded_at"] or loaded
                table.write_text("".join(json.dumps(row) + "\n" for row in rows))


if __name__ == "__main__":
    RawDestination().run(sys.argv[1:])
