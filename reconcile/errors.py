"""The one exception root of the reconciler, and its few kinds.

Every error a user can cause derives from :class:`ReconcileError`; the command line
maps them to exit codes in one place (``cli.py``). A message says what failed,
where, and what to do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reconcile.validate.report import ValidationReport


class ReconcileError(Exception):
    """Root of every error the reconciler raises on purpose."""


class InputError(ReconcileError):
    """The log set cannot be read: a missing or empty directory, an unreadable file."""


class InvalidLogSet(InputError):
    """The log set breaks the contract (CONTRACT.md §1); carries the full report."""

    def __init__(self, report: ValidationReport) -> None:
        self.report = report
        super().__init__(report.headline())


class UsageError(ReconcileError):
    """An option or argument the reconciler cannot act on."""
