"""What a simulated ingestion run looks like: the knobs of `reconcile simulate`."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from reconcile.errors import UsageError


class Evidence(StrEnum):
    RECEIPTS = "receipts"  # receipts and pages; provider finality on page responses
    SNAPSHOT = "snapshot"  # the source's snapshot and bounds, as well
    MIXED = "mixed"  # even-numbered scopes receipts, odd-numbered snapshot


class Membership(StrEnum):
    NONE = "none"
    SPLIT = "split"  # one partition retires (sealed), two children join (with coverage)
    ADD = "add"  # a partition joins, with coverage
    RETIRE = "retire"  # a partition retires, sealed


class Eligibility(StrEnum):
    STABLE = "stable"  # ineligible events carry a stable proof
    MUTABLE = "mutable"  # ineligible decisions can change: the consumer holds at them


FAULTS: dict[str, str] = {
    "token_watermark": "the consumer copies the page's next token into the watermark",
    "past_failed_event": "the consumer advances past an event that failed",
    "empty_page_no_finality": "an empty final page without finality advances the claim",
    "observed_max": "the consumer claims the highest position it saw, without finality",
    "inflated_watermark": "the consumer claims a little more than it can prove",
    "stale_owner": "a stale owner wins a checkpoint write without fencing",
    "lost_update": "two attempts win the same compare-and-swap (a lost update)",
    "mixed_resume_token": "a checkpoint keeps the resume token of another attempt",
    "watermark_regression": "a retry resumes from an old anchor and lowers the watermark",
    "unknown_endpoint": "a claim is written without its endpoint semantics",
    "late_insert": "an event becomes visible at the source behind the watermark",
    "ordering_mutation": "an event is delivered again at a different position",
    "stalled_partition": "one partition's worker hangs for twenty minutes",
    "published_overclaim": "the publisher publishes the bound's end mid-run",
    "published_regression": "the publisher republishes an older, lower frontier",
    "unproven_membership": "a partition joins without a coverage proof",
    "cutover_overclaim": "a membership change names a cutover above the frontier",
}

MEMBERSHIP_FAULTS = frozenset({"unproven_membership", "cutover_overclaim"})
PUBLISHER_FAULTS = frozenset({"published_overclaim", "published_regression"})
SCOPE_FAULTS = MEMBERSHIP_FAULTS | PUBLISHER_FAULTS
# partition faults whose overclaim is judged against the provider's page finality: a
# scope with snapshot evidence has its snapshot_bounds instead, which the simulator
# writes through the whole range, so they would prove every claim and show nothing
FINALITY_FAULTS = frozenset({"inflated_watermark", "empty_page_no_finality", "observed_max"})


@dataclass(frozen=True)
class SimOptions:
    """Every knob of a simulated run; the defaults make a small clean run."""

    seed: int = 0
    scopes: int = 1
    partitions: int = 4
    events: int = 4000  # source events per scope, spread evenly over its partitions
    coordinate: str = "int64"  # or "timestamp"
    evidence: Evidence = Evidence.RECEIPTS
    membership: Membership = Membership.NONE
    eligibility: Eligibility = Eligibility.STABLE
    faults: tuple[str, ...] = field(default=())
    page_size: int = 100
    ineligible_rate: float = 0.05
    tie_rate: float = 0.02
    dead_letter_rate: float = 0.002
    finality_rate: float = 0.7  # share of non-empty page responses with provider finality
    empty_page_rate: float = 0.02  # share of page boundaries with a quiet empty page
    crash_rate: float = 0.01  # share of pages where the worker crashes
    lost_response_rate: float = 0.01  # share of won writes whose response is lost

    def check(self) -> SimOptions:
        if self.coordinate not in ("int64", "timestamp"):
            raise UsageError(f"--coordinate must be int64 or timestamp, not {self.coordinate}")
        unknown = [f for f in self.faults if f not in FAULTS]
        if unknown:
            raise UsageError(f"unknown fault(s) {', '.join(unknown)}; known: {', '.join(FAULTS)}")
        if len(set(self.faults)) != len(self.faults):
            raise UsageError("each --fault may be named once")
        if self.scopes < 1 or self.partitions < 1:
            raise UsageError("--scopes and --partitions must be at least 1")
        if self.page_size < 1:
            raise UsageError(f"--page-size must be at least 1, not {self.page_size}")
        if not 0 <= self.seed < 2**63:
            raise UsageError(f"--seed must be a whole number from 0 to 2**63 - 1, not {self.seed}")
        unseen = sorted(FINALITY_FAULTS & set(self.faults))
        if unseen and self.evidence is Evidence.SNAPSHOT:
            raise UsageError(
                f"fault(s) {', '.join(unseen)} overclaim against the provider's page finality,"
                " which a snapshot's bounds replace: with --evidence snapshot they prove every"
                " claim, and the audit finds nothing (give --evidence receipts or mixed: the"
                " partition faults go to the first scope, which mixed reads by receipts)"
            )
        if "stalled_partition" in self.faults and self.scopes > 1:
            raise UsageError(
                "fault stalled_partition needs --scopes 1: its stall moves the end of the log"
                " set, and the other scopes' finished partitions would stall until it as well"
            )
        needed = len([f for f in self.faults if f not in SCOPE_FAULTS]) + 2
        if self.partitions < needed:
            raise UsageError(
                f"{len(self.faults)} fault(s) need at least {needed} partitions"
                " (each partition-level fault gets its own, and two stay clean)"
            )
        if self.events < self.partitions * 2 * self.page_size:
            raise UsageError(
                f"--events {self.events} is too few for {self.partitions} partitions: each"
                f" needs at least two pages of {self.page_size} events, so give at least"
                f" --events {self.partitions * 2 * self.page_size}"
            )
        for name in (
            "ineligible_rate",
            "tie_rate",
            "dead_letter_rate",
            "finality_rate",
            "empty_page_rate",
            "crash_rate",
            "lost_response_rate",
        ):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise UsageError(f"{name} must lie in [0, 1], not {value}")
        return self

    @property
    def membership_needed(self) -> Membership:
        """The membership change the run makes (membership faults imply a split)."""
        if self.membership is Membership.NONE and MEMBERSHIP_FAULTS & set(self.faults):
            return Membership.SPLIT
        return self.membership
