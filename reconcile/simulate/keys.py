"""Certificates as sortable integers, for vectorized simulation.

A certificate ``(v, inclusive)`` becomes ``2 v + 1`` when inclusive and ``2 v`` when
exclusive; on a discrete domain an exclusive ``v`` is first normalized to inclusive
``v - 1`` (key ``2 v - 1``). Integer order on keys is then the certificate order of
docs/contract.md §2. ``NONE`` stands for "no certificate".
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

NONE = np.iinfo(np.int64).min
INF = np.iinfo(np.int64).max

Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


def key(value: int, inclusive: bool, discrete: bool) -> int:
    if inclusive:
        return 2 * value + 1
    return 2 * value - 1 if discrete else 2 * value


def keys(values: Int64s, inclusive: Bools, discrete: bool) -> Int64s:
    exclusive = 2 * values - 1 if discrete else 2 * values
    return np.where(inclusive, 2 * values + 1, exclusive).astype(np.int64)


def value_of(k: int) -> int:
    return k >> 1


def inclusive_of(k: int) -> bool:
    return bool(k & 1)
