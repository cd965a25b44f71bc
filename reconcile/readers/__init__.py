"""Readers of the artifacts that ingestion frameworks leave, into the contract's
tables: each writes a log set in the contract's layout (docs/contract.md) from a
framework's own files, and says what those files can and cannot prove. The audit
then runs on that log set as on any other (``reconcile audit PATH --source NAME``).
"""

from __future__ import annotations

from reconcile.readers.airbyte import read_airbyte
from reconcile.readers.dlt import read_dlt
from reconcile.readers.singer import read_singer

SOURCES = {"airbyte": read_airbyte, "dlt": read_dlt, "singer": read_singer}

__all__ = ["SOURCES", "read_airbyte", "read_dlt", "read_singer"]
