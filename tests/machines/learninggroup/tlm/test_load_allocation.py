"""The load allocation unit (machines/learninggroup/tlm/load_allocation.py)."""

from __future__ import annotations

import numpy as np
import pytest

from rlaccel.util.errors import SimError
from rlaccel.machines.learninggroup.tlm import load_allocation as la


def test_row_based_gives_equal_contiguous_blocks():
    """128 rows over 3 cores: rows 0-42, 43-85, 86-127, whatever the workloads."""
    alloc = la.row_based(np.arange(128), 3)
    assert [(a[0], a[-1], a.size) for a in alloc] == [(0, 42, 43), (43, 85, 43), (86, 127, 42)]


def test_threshold_based_by_hand():
    """Six rows of 5 over 3 cores: threshold 10; a core takes rows until it holds more than
    10 (rows 0-2 = 15), the next likewise (rows 3-5), the last gets nothing: loads 15, 15, 0
    and a deviation of 10, where the row-based scheme is exact."""
    wl = [5] * 6
    thr = la.threshold_based(wl, 3)
    assert [a.tolist() for a in thr] == [[0, 1, 2], [3, 4, 5], []]
    assert la.core_loads(wl, thr).tolist() == [15, 15, 0]
    assert la.max_deviation(wl, thr) == 10.0
    assert la.max_deviation(wl, la.row_based(wl, 3)) == 0.0


def test_threshold_based_unaligned_last_core():
    """Uneven rows: 8 1 1 8 1 1 (threshold 20/3 = 6.67): cores get [8], [1 1 8], [1 1]."""
    wl = [8, 1, 1, 8, 1, 1]
    thr = la.threshold_based(wl, 3)
    assert [a.tolist() for a in thr] == [[0], [1, 2, 3], [4, 5]]
    assert la.core_loads(wl, thr).tolist() == [8, 10, 2]
    assert la.max_deviation(wl, thr) == pytest.approx(20 / 3 - 2)     # the last core


def test_every_row_goes_to_exactly_one_core():
    """Both schemes partition the rows, in order."""
    rng = np.random.default_rng(0)
    for scheme in la.SCHEMES:
        for _ in range(20):
            wl = rng.integers(0, 512, rng.integers(1, 200))
            alloc = la.allocate(wl, 3, scheme)
            assert np.array_equal(np.concatenate(alloc), np.arange(wl.size))
    with pytest.raises(SimError, match=r"unknown allocation scheme 'greedy'"):
        la.allocate([1], 3, "greedy")
    with pytest.raises(SimError, match=r"at least one core, not 0"):
        la.row_based([1], 0)


def test_addresses_read_rows_and_transposed_rows_in_place():
    """Forward row i reads base + i*N + nz; transposed row j reads base + nz*N + j: the
    same row-major memory gives W[i, nz] and W[nz, j]."""
    W = np.arange(6 * 10).reshape(6, 10)
    mem = np.concatenate([np.full(7, -1), W.ravel()])
    assert mem[la.row_addresses(2, [1, 4, 9], 10, base=7)].tolist() == W[2, [1, 4, 9]].tolist()
    assert mem[la.transposed_addresses(3, [0, 5], 10, base=7)].tolist() == W[[0, 5], 3].tolist()
