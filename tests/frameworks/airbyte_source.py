"""A real Airbyte source, built with the Airbyte Python CDK (an ``HttpStream`` with
``IncrementalMixin``), over the paginated HTTP API of
:mod:`tests.frameworks.airbyte_pipeline`, served on this machine. Run by the CDK's
entrypoint as the platform runs a source; it prints the Airbyte protocol's messages
(RECORD, STATE, LOG, TRACE) to stdout.

    python -m tests.frameworks.airbyte_source read --config C --catalog K [--state S]

It runs in the CDK's own environment (tests/frameworks/airbyte_harness), which has
airbyte-cdk and not the product. The config names the API (``url``), how a resumed
run reads its cursor (``cursor``: ``>=`` or ``>``). Its states are per stream
(STREAM), as the CDK's Python streams emit them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, MutableMapping
from typing import Any

import requests
from airbyte_cdk.entrypoint import launch
from airbyte_cdk.models import ConnectorSpecification
from airbyte_cdk.sources import AbstractSource
from airbyte_cdk.sources.streams import IncrementalMixin, Stream
from airbyte_cdk.sources.streams.http import HttpStream

CURSOR = "updated_at"


class Items(HttpStream, IncrementalMixin):
    primary_key = "id"
    cursor_field = CURSOR

    @property
    def state_checkpoint_interval(self) -> int | None:
        """A state every so many records (config ``checkpoint_every``), else one at
        the end of the sync. Every three cuts through the rows of one cursor value,
        two to a value: such a state claims a value whose rows are not all read."""
        every = self.config.get("checkpoint_every")
        return None if every is None else int(every)

    def __init__(self, config: Mapping[str, Any]) -> None:
        super().__init__()
        self.config = config
        self._state: MutableMapping[str, Any] = {}
        self._since: int | None = None  # the cursor as the run started

    def get_json_schema(self) -> Mapping[str, Any]:
        text, number = {"type": "string"}, {"type": "integer"}
        return {"type": "object", "properties": {"id": text, CURSOR: number, "value": text}}

    @property
    def url_base(self) -> str:
        return str(self.config["url"])

    @property
    def state(self) -> MutableMapping[str, Any]:
        return self._state

    @state.setter
    def state(self, value: MutableMapping[str, Any]) -> None:
        self._state = dict(value)

    def path(self, **_: Any) -> str:
        return "items"

    def request_params(
        self,
        stream_state: Mapping[str, Any] | None,
        stream_slice: Mapping[str, Any] | None = None,
        next_page_token: Mapping[str, Any] | None = None,
    ) -> MutableMapping[str, Any]:
        if self._since is None:
            self._since = int(self._state.get(CURSOR, -1))
        params: dict[str, Any] = {"since": self._since, "strict": int(self.config["cursor"] == ">")}
        if next_page_token:
            params |= next_page_token
        return params

    def next_page_token(self, response: requests.Response) -> Mapping[str, Any] | None:
        token = response.json().get("next")
        return None if token is None else {"page": token}

    def parse_response(self, response: requests.Response, **_: Any) -> Iterable[Mapping[str, Any]]:
        yield from response.json()["rows"]

    def read_records(self, *args: Any, **kwargs: Any) -> Iterable[Mapping[str, Any]]:
        for record in super().read_records(*args, **kwargs):
            value = record[CURSOR]
            self._state = {CURSOR: max(value, self._state.get(CURSOR, value))}
            yield record


class TestSource(AbstractSource):
    def spec(self, logger: Any) -> ConnectorSpecification:
        properties = {"url": {"type": "string"}, "cursor": {"type": "string"}}
        return ConnectorSpecification(
            connectionSpecification={"type": "object", "properties": properties}
        )

    def check_connection(self, logger: Any, config: Mapping[str, Any]) -> tuple[bool, Any]:
        return True, None

    def streams(self, config: Mapping[str, Any]) -> list[Stream]:
        return [Items(config)]


if __name__ == "__main__":
    launch(TestSource(), sys.argv[1:])
