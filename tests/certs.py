"""The algebra of complete-through certificates (docs/contract.md §2, §4.13).

A certificate ``(through, inclusive)`` says every eligible event with coordinate
``< through`` (``<= through`` when inclusive) is enumerated, final and durable.
``through = None`` is ``+inf`` (no upper limit); ``inclusive = None`` means the
endpoint semantics are unknown, and such a certificate never compares.

On a *discrete* domain (integers) an exclusive ``v`` is the inclusive ``v - 1``, and
certificates are normalized to that inclusive form before they are compared or
written. On a *dense* domain (timestamps always) no predecessor exists: an exclusive
bound stays exclusive, and at equal values exclusive is the lower.

This module states the rules on single values, for the tests: the pure-Python
reference (``tests/reference.py``) compares certificates with it, and
``tests/test_certs.py`` holds it against enumerations of what certificates cover. The
engine states the same order in SQL, once (``reconcile/sql/macros*.sql``;
``reconcile/engine/encodings.py`` says how a certificate is encoded there).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

Coordinate = int | datetime
INT64_MIN = -(2**63)
"""The lowest int64 coordinate: it has no predecessor."""


class Domain(StrEnum):
    """Whether every coordinate has a known predecessor."""

    DISCRETE = "discrete"
    DENSE = "dense"


class IncomparableError(ValueError):
    """A certificate with unknown endpoint semantics was compared."""


@dataclass(frozen=True)
class Certificate:
    """A complete-through certificate; see the module docstring."""

    through: Coordinate | None
    inclusive: bool | None

    @property
    def infinite(self) -> bool:
        return self.through is None

    @property
    def known(self) -> bool:
        """Whether the endpoint semantics are known (``+inf`` needs none)."""
        return self.infinite or self.inclusive is not None


INFINITE = Certificate(None, None)


def normalize(cert: Certificate, domain: Domain) -> Certificate:
    """The certificate in the form outputs state it.

    Discrete: an exclusive ``v`` becomes inclusive ``v - 1``, except at ``INT64_MIN``,
    which has no predecessor among int64 coordinates: ``(INT64_MIN, exclusive)``
    certifies nothing and stays exclusive (below every other certificate). Dense,
    ``+inf`` and unknown endpoints: unchanged.
    """
    if cert.infinite:
        return INFINITE
    if domain is Domain.DISCRETE and cert.inclusive is False:
        if not isinstance(cert.through, int) or isinstance(cert.through, bool):
            raise TypeError(f"a discrete domain has integer coordinates, not {cert.through!r}")
        if cert.through == INT64_MIN:
            return cert
        return Certificate(cert.through - 1, True)
    return cert


def sort_key(cert: Certificate, domain: Domain) -> tuple[int, Coordinate | int, int]:
    """A key under which certificates sort in their order: ``(is_inf, value, incl)``.

    Raises :class:`IncomparableError` for an unknown endpoint.
    """
    if not cert.known:
        raise IncomparableError(f"certificate {cert} has unknown endpoint semantics")
    norm = normalize(cert, domain)
    if norm.infinite:
        return (1, 0, 0)
    assert norm.through is not None
    return (0, norm.through, 1 if norm.inclusive else 0)


def compare(a: Certificate, b: Certificate, domain: Domain) -> int:
    """-1, 0 or 1 as ``a`` is below, equal to or above ``b``."""
    ka, kb = sort_key(a, domain), sort_key(b, domain)
    return (ka > kb) - (ka < kb)


def minimum(certs: Iterable[Certificate], domain: Domain) -> Certificate:
    """The lowest certificate, normalized; ``+inf`` for none.

    Raises :class:`IncomparableError` when any has an unknown endpoint.
    """
    lowest = INFINITE
    for cert in certs:
        if compare(cert, lowest, domain) < 0:
            lowest = cert
    return normalize(lowest, domain)


def lower(a: Certificate, b: Certificate, domain: Domain) -> Certificate:
    """The lower of two certificates, normalized."""
    return minimum((a, b), domain)


def coverage_leaves_no_gap(
    coverage_from: Coordinate | None, cutover: Certificate, domain: Domain
) -> bool:
    """§4.13: whether coverage from ``coverage_from`` (inclusive) joins the cutover.

    The union of "everything up to the cutover" and "everything from
    ``coverage_from``" has no gap when, on a dense domain, ``coverage_from <=
    C.through``, and on a discrete one ``coverage_from <= C.through + 1`` with C in
    inclusive form. No proof (``None``), an unknown cutover endpoint, or a ``+inf``
    cutover (nothing lies above it to cover) proves nothing.
    """
    if coverage_from is None or not cutover.known or cutover.infinite:
        return False
    norm = normalize(cutover, domain)
    assert norm.through is not None
    if domain is Domain.DISCRETE:
        assert isinstance(norm.through, int) and isinstance(coverage_from, int)
        # (INT64_MIN, exclusive), the one discrete cutover left exclusive, covers nothing
        return coverage_from <= norm.through + (1 if norm.inclusive else 0)
    return coverage_from <= norm.through  # type: ignore[operator]


def seal_reaches(sealed: Certificate | None, cutover: Certificate, domain: Domain) -> bool:
    """§4.13: whether a retiring partition's seal is ``>=`` the cutover.

    A seal or cutover with an unknown endpoint proves nothing.
    """
    if sealed is None or not sealed.known or not cutover.known:
        return False
    return compare(sealed, cutover, domain) >= 0
