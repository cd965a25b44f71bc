"""Names of the contract's tables and of their roles, without Pandera."""

from __future__ import annotations

# The kind of a table check that is a row rule stated as an SQL predicate.
ROW_RULE = "row_rule"

# The contract's nine tables, in dependency order: a table's rows refer only to
# tables before it.
TABLES: tuple[str, ...] = (
    "scopes",
    "checkpoints",
    "receipts",
    "pages",
    "snapshot",
    "snapshot_bounds",
    "epochs",
    "members",
    "published",
)

REQUIRED_TABLES = frozenset({"checkpoints"})

# The checkpoints' compare-and-swap columns: a file has all four, or none (its writes
# overwrite the state: every one wins, in written_at order; docs/contract.md §3).
CAS_COLUMNS: tuple[str, ...] = ("owner_epoch", "expected_generation", "generation", "cas_result")

# Timestamp columns that date a row: a row counts at T when this is <= T (§4).
ROW_TIME: dict[str, str] = {
    "checkpoints": "written_at",
    "receipts": "recorded_at",
    "pages": "fetched_at",
    "snapshot": "visible_at",
    "epochs": "effective_at",
    "published": "published_at",
}
