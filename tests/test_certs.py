"""The certificate algebra (docs/contract.md §2, §4.13), held against plain references."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.certs import (
    INFINITE,
    Certificate,
    Domain,
    IncomparableError,
    compare,
    coverage_leaves_no_gap,
    lower,
    minimum,
    normalize,
    seal_reaches,
)

ints = st.integers(min_value=-50, max_value=50)
T0 = datetime(2026, 1, 1)
stamps = st.integers(min_value=0, max_value=20).map(lambda s: T0 + timedelta(seconds=s))

discrete_certs = st.one_of(st.just(INFINITE), st.builds(Certificate, ints, st.booleans()))
dense_certs = st.one_of(st.just(INFINITE), st.builds(Certificate, stamps, st.booleans()))
domains_and_certs = st.one_of(
    st.tuples(st.just(Domain.DISCRETE), st.lists(discrete_certs, min_size=1, max_size=6)),
    st.tuples(st.just(Domain.DENSE), st.lists(dense_certs, min_size=1, max_size=6)),
)


def covered_integers(cert: Certificate, universe: range) -> set[int]:
    """Reference: the integers a discrete certificate covers, by enumeration."""
    if cert.infinite:
        return set(universe)
    assert isinstance(cert.through, int)
    return {v for v in universe if v < cert.through or (cert.inclusive and v == cert.through)}


UNIVERSE = range(-60, 62)


@given(discrete_certs, discrete_certs)
def test_discrete_order_is_set_inclusion(a: Certificate, b: Certificate) -> None:
    """On integers a certificate is the set it covers; the order is inclusion."""
    sa, sb = covered_integers(a, UNIVERSE), covered_integers(b, UNIVERSE)
    expected = 0 if sa == sb else (-1 if sa < sb else 1)
    assert compare(a, b, Domain.DISCRETE) == expected


@given(domains_and_certs)
def test_total_order(case: tuple[Domain, list[Certificate]]) -> None:
    domain, certs = case
    for a in certs:
        assert compare(a, a, domain) == 0
        for b in certs:
            assert compare(a, b, domain) == -compare(b, a, domain)
            for c in certs:
                if compare(a, b, domain) <= 0 and compare(b, c, domain) <= 0:
                    assert compare(a, c, domain) <= 0


@given(domains_and_certs)
def test_minimum_is_commutative_and_idempotent(case: tuple[Domain, list[Certificate]]) -> None:
    domain, certs = case
    low = minimum(certs, domain)
    assert minimum(list(reversed(certs)), domain) == low
    assert minimum([*certs, low], domain) == low
    assert minimum([low, low], domain) == low
    assert all(compare(low, c, domain) <= 0 for c in certs)
    a, b = certs[0], certs[-1]
    assert lower(a, b, domain) == lower(b, a, domain)


@given(ints)
def test_discrete_exclusive_equals_inclusive_predecessor(v: int) -> None:
    exclusive, inclusive = Certificate(v, False), Certificate(v - 1, True)
    assert compare(exclusive, inclusive, Domain.DISCRETE) == 0
    assert normalize(exclusive, Domain.DISCRETE) == inclusive


@given(st.lists(dense_certs, min_size=1, max_size=6))
def test_dense_exclusive_never_becomes_inclusive(certs: list[Certificate]) -> None:
    for cert in certs:
        assert normalize(cert, Domain.DENSE) == cert
    low = minimum(certs, Domain.DENSE)
    assert low in certs
    if any(c.inclusive is False and c.through == low.through for c in certs):
        assert low.inclusive is False


def test_seed_example_mixed_endpoints() -> None:
    """merged-frontier seed: A exclusive 100, B inclusive 100."""
    a, b = Certificate(100, False), Certificate(100, True)
    assert minimum([a, b], Domain.DENSE) == Certificate(100, False)
    assert minimum([b, a], Domain.DISCRETE) == Certificate(99, True)


def test_infinite_is_above_everything() -> None:
    assert compare(INFINITE, Certificate(10**12, True), Domain.DISCRETE) == 1
    assert minimum([], Domain.DENSE) == INFINITE


@given(st.one_of(discrete_certs, st.builds(Certificate, ints, st.none())))
def test_unknown_endpoints_never_compare(other: Certificate) -> None:
    unknown = Certificate(5, None)
    with pytest.raises(IncomparableError):
        compare(unknown, other, Domain.DISCRETE)
    with pytest.raises(IncomparableError):
        compare(other, unknown, Domain.DISCRETE)
    with pytest.raises(IncomparableError):
        minimum([other, unknown], Domain.DISCRETE)


@given(ints, ints, st.booleans())
def test_discrete_coverage_matches_enumeration(start: int, cut: int, inclusive: bool) -> None:
    """Gap-free union: the integers up to the cutover plus those from coverage_from."""
    cutover = Certificate(cut, inclusive)
    union = covered_integers(cutover, UNIVERSE) | {v for v in UNIVERSE if v >= start}
    assert coverage_leaves_no_gap(start, cutover, Domain.DISCRETE) == (union == set(UNIVERSE))


@given(stamps, stamps, st.booleans())
def test_dense_coverage_needs_start_at_or_below_cutover(
    start: datetime, cut: datetime, inclusive: bool
) -> None:
    assert coverage_leaves_no_gap(start, Certificate(cut, inclusive), Domain.DENSE) == (
        start <= cut
    )


def test_coverage_without_proof_or_with_unknown_cutover_fails() -> None:
    assert not coverage_leaves_no_gap(None, Certificate(5, True), Domain.DISCRETE)
    assert not coverage_leaves_no_gap(0, Certificate(5, None), Domain.DISCRETE)


@given(discrete_certs, st.builds(Certificate, ints, st.booleans()))
def test_seal_reaches_cutover_when_not_below(sealed: Certificate, cutover: Certificate) -> None:
    reaches = covered_integers(sealed, UNIVERSE) >= covered_integers(cutover, UNIVERSE)
    assert seal_reaches(sealed, cutover, Domain.DISCRETE) == reaches


def test_unknown_seal_proves_nothing() -> None:
    assert not seal_reaches(Certificate(100, None), Certificate(5, True), Domain.DISCRETE)
    assert not seal_reaches(None, Certificate(5, True), Domain.DISCRETE)
    assert not seal_reaches(Certificate(100, True), Certificate(5, None), Domain.DISCRETE)
