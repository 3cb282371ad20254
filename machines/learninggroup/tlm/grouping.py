"""The max-index unit and FLGW's two observations (the LearningGroup paper, sections III-A, III-B, Fig. 4(b)).

For a layer of M inputs and N outputs and G groups, IG is M x G and OG is G x N (FP16 in the
global parameter memory). The unit finds the maximum of every row of IG and every column of
OG with a compare-and-keep chain that replaces its maximum only on ``>``: ties go to the
lowest index, a NaN never replaces a number (and a NaN at index 0 is kept).

Observation 1: ``mask[i, j] = 1`` iff ``row_idx[i] == col_idx[j]`` (one comparator per
output, no matrix product). Observation 2: the row of the mask for input i is the row of
OS of group ``row_idx[i]``, so a mask has at most G distinct rows (bitvectors).
The transposed matrix (back-propagation) swaps the roles: its row j is the bitvector of OG
column j's group over the M inputs.
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import SimError

__all__ = ["max_index", "row_max_indexes", "col_max_indexes", "bitvector", "mask",
           "check_groups"]


def check_groups(groups: int, max_groups: int) -> None:
    """A group count the hardware supports: 1..max_groups (the paper's design: 16; the
    encoder's 4-bit max index holds 16 groups)."""
    if not 1 <= groups <= max_groups:
        raise SimError(f"G = {groups} groups is beyond the hardware's 1..{max_groups} "
                       f"(max_groups of the architecture)")


def max_index(values: np.ndarray, axis: int) -> np.ndarray:
    """Index of the maximum along ``axis`` by a compare-and-keep chain (module rules)."""
    v = np.moveaxis(np.asarray(values), axis, -1)
    if v.shape[-1] == 0:
        raise SimError("max index of an empty grouping matrix")
    best = v[..., 0].copy()
    idx = np.zeros(best.shape, dtype=np.int64)
    for g in range(1, v.shape[-1]):
        better = v[..., g] > best
        best = np.where(better, v[..., g], best)
        idx[better] = g
    return idx


def row_max_indexes(IG: np.ndarray) -> np.ndarray:
    """The group of every input: the max index of each row of IG (M x G)."""
    return max_index(IG, axis=1)


def col_max_indexes(OG: np.ndarray) -> np.ndarray:
    """The group of every output: the max index of each column of OG (G x N)."""
    return max_index(OG, axis=0)


def bitvector(group: int, col_idx: np.ndarray) -> np.ndarray:
    """The mask row of an input in ``group``: ``col_idx == group`` (N comparators)."""
    return np.asarray(col_idx) == group


def mask(row_idx: np.ndarray, col_idx: np.ndarray) -> np.ndarray:
    """The whole M x N mask, ``row_idx[i] == col_idx[j]`` (equal to IS @ OS)."""
    return np.asarray(row_idx)[:, None] == np.asarray(col_idx)[None, :]
