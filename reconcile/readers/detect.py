"""Which framework's artifacts a folder holds, where that is unambiguous: ``map
suggest`` names the reader to use instead of guessing a mapping (docs/readers.md).
Only the first line of each candidate file is read."""

from __future__ import annotations

import json
from pathlib import Path

SINGER_TYPES = frozenset({"SCHEMA", "RECORD", "STATE", "ACTIVATE_VERSION", "BATCH"})


def _first_message(path: Path) -> object:
    try:
        with path.open("rb") as handle:
            line = handle.readline(1 << 20)
        return json.loads(line)
    except (OSError, ValueError):
        return None


def detect_source(folder: Path) -> str | None:
    """``singer`` where every ``*.jsonl`` file of ``folder`` starts with a Singer
    message (and there is one); else None."""
    runs = sorted(p for p in folder.glob("*.jsonl") if p.is_file())
    if not runs:
        return None
    for run in runs:
        message = _first_message(run)
        if not isinstance(message, dict) or message.get("type") not in SINGER_TYPES:
            return None
    return "singer"
