"""What a simulated run injected, and what an audit of it must find."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reconcile.catalog import RULES as CATALOG

# docs/contract.md §5: each rule's severity and the fields that identify one finding
RULES: dict[str, tuple[str, tuple[str, ...]]] = {
    name: (rule.severity, rule.key) for name, rule in CATALOG.items()
}


@dataclass(frozen=True)
class Expected:
    """A finding an audit must report: its rule, scope and key fields."""

    rule: str
    scope_id: str
    partition_id: str | None = None
    attempt_id: str | None = None
    generation: int | None = None
    event_id: str | None = None
    epoch: int | None = None
    at: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def severity(self) -> str:
        return RULES[self.rule][0]

    def key(self) -> dict[str, Any]:
        """The fields that identify the finding (docs/contract.md §5's key column)."""
        fields = RULES[self.rule][1]
        return {"scope_id": self.scope_id, **{name: getattr(self, name) for name in fields}}

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule": self.rule, "severity": self.severity, **self.key()}
        if self.evidence:
            out["evidence"] = self.evidence
        return out


@dataclass
class Injected:
    """One fault as injected: where, and the findings it must cause."""

    fault: str
    description: str
    scope_id: str
    at: str
    partition_id: str | None = None
    attempt_id: str | None = None
    generation: int | None = None
    event_id: str | None = None
    page_id: str | None = None
    epoch: int | None = None
    findings: list[Expected] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        where = {
            k: v
            for k, v in {
                "scope_id": self.scope_id,
                "partition_id": self.partition_id,
                "attempt_id": self.attempt_id,
                "generation": self.generation,
                "event_id": self.event_id,
                "page_id": self.page_id,
                "epoch": self.epoch,
                "at": self.at,
            }.items()
            if v is not None
        }
        return {
            "fault": self.fault,
            "description": self.description,
            "where": where,
            "findings": [f.to_dict() for f in self.findings],
        }
