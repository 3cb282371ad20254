"""The max-index unit and FLGW's observations (machines/learninggroup/tlm/grouping.py)."""

from __future__ import annotations

import numpy as np
import pytest

from rlaccel.util.errors import SimError
from rlaccel.machines.learninggroup.tlm import grouping


def test_max_index_is_a_first_wins_compare_chain():
    """Ties keep the lowest index; a NaN never wins (unless it is first); same as argmax on
    ordinary values, rows of IG and columns of OG."""
    assert grouping.max_index(np.array([[1.0, 3.0, 3.0, 2.0]]), 1).tolist() == [1]
    assert grouping.max_index(np.array([[1.0, np.nan, 2.0]]), 1).tolist() == [2]
    assert grouping.max_index(np.array([[np.nan, 5.0]]), 1).tolist() == [0]
    rng = np.random.default_rng(0)
    IG = rng.standard_normal((128, 8)).astype(np.float16)
    OG = rng.standard_normal((8, 512)).astype(np.float16)
    assert np.array_equal(grouping.row_max_indexes(IG), np.argmax(IG, axis=1))
    assert np.array_equal(grouping.col_max_indexes(OG), np.argmax(OG, axis=0))


def test_mask_is_is_times_os_and_has_at_most_g_distinct_rows():
    """Observation 1: mask = IS @ OS is row_idx == col_idx. Observation 2: its rows are
    rows of OS, at most G distinct bitvectors."""
    rng = np.random.default_rng(1)
    for G in (1, 2, 4, 16):
        IG, OG = rng.standard_normal((40, G)), rng.standard_normal((G, 70))
        r, c = grouping.row_max_indexes(IG), grouping.col_max_indexes(OG)
        IS, OS = np.eye(G)[r], np.eye(G)[c].T
        m = grouping.mask(r, c)
        assert np.array_equal(m, (IS @ OS).astype(bool))
        assert len({row.tobytes() for row in m}) <= G
        for i in range(40):
            assert np.array_equal(grouping.bitvector(r[i], c), OS[r[i]].astype(bool))


def test_groups_beyond_the_hardware_are_an_error():
    """G must be 1..max_groups (16 on the paper's design)."""
    grouping.check_groups(16, 16)
    with pytest.raises(SimError, match=r"G = 32 groups is beyond the hardware's 1..16"):
        grouping.check_groups(32, 16)
    with pytest.raises(SimError, match=r"G = 0 groups"):
        grouping.check_groups(0, 16)
