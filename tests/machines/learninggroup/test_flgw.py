"""FLGW grouping (machines/learninggroup/flgw.py): selections, masks, straight-through
gradients."""

from __future__ import annotations

import numpy as np
import pytest

from rlaccel.machines.learninggroup import flgw


def test_mask_rows_are_the_rows_of_os_picked_by_is():
    """Seed Fig. 4(b): an IS row 0100 makes the mask row equal to OS's second row."""
    IG = np.array([[0.1, 0.9, 0.3, 0.2],
                   [0.8, 0.1, 0.0, 0.2]])
    OG = np.array([[0.0, 0.0, 0.9, 0.0, 0.0, 0.0],     # column maxima: 1 1 0 2 3 3
                   [0.5, 0.6, 0.1, 0.0, 0.0, 0.0],
                   [0.1, 0.2, 0.0, 0.7, 0.0, 0.0],
                   [0.0, 0.0, 0.0, 0.0, 0.4, 0.3]])
    assert flgw.max_index_rows(IG).tolist() == [1, 0]
    assert flgw.max_index_cols(OG).tolist() == [1, 1, 0, 2, 3, 3]
    m = flgw.mask(IG, OG)
    assert m.tolist() == [[1, 1, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0]]
    IS = flgw.selection(flgw.max_index_rows(IG), 4, axis=1)
    OS = flgw.selection(flgw.max_index_cols(OG), 4, axis=0)
    assert np.array_equal(IS @ OS, m)


def test_ties_go_to_the_first_index():
    """Equal maxima select the lowest group, as a comparator that replaces only on >."""
    assert flgw.max_index_rows(np.array([[0.5, 0.5, 0.1]])).tolist() == [0]
    assert flgw.max_index_cols(np.array([[0.2], [0.7], [0.7]])).tolist() == [1]


def test_random_masks_keep_about_one_in_g():
    """Density of a random grouping is close to 1/G (balanced in expectation)."""
    rng = np.random.default_rng(0)
    for G in (2, 4, 8):
        m = flgw.mask(rng.standard_normal((128, G)), rng.standard_normal((G, 512)))
        assert abs(m.mean() - 1 / G) < 0.35 / G


def test_grouping_grads_hand_case():
    """One input, one output, G = 2, both in group 0: dIG = m P0 P1 [1, -1] and the same
    for OG's column; a group that is not selected gets only the softmax coupling."""
    a, b, c, d, m = 0.7, -0.2, 1.1, 0.4, 0.3
    dIG, dOG = flgw.grouping_grads(np.array([[a, b]]), np.array([[c], [d]]), np.array([[m]]))
    P = np.exp([a, b]) / np.exp([a, b]).sum()
    Q = np.exp([c, d]) / np.exp([c, d]).sum()
    assert dIG == pytest.approx(m * P[0] * P[1] * np.array([[1.0, -1.0]]))
    assert dOG == pytest.approx(m * Q[0] * Q[1] * np.array([[1.0], [-1.0]]))


def test_grouping_grads_match_the_straight_through_surrogate():
    """The gradient equals the finite difference of the surrogate ``IS = H * (1 + P - P0)``
    (H and P0 held at the current point): its value is the one-hot H and its derivative
    passes dIS to the softmax output at the selected entry only, the straight-through rule."""
    rng = np.random.default_rng(3)
    M, G, N = 5, 3, 7
    IG, OG = rng.standard_normal((M, G)), rng.standard_normal((G, N))
    D = rng.standard_normal((M, N))                     # loss = sum(D * mask)
    H_in = flgw.selection(flgw.max_index_rows(IG), G, 1, np.float64)
    H_out = flgw.selection(flgw.max_index_cols(OG), G, 0, np.float64)
    P0, Q0 = flgw.softmax(IG, 1), flgw.softmax(OG, 0)

    def loss(ig, og):
        S_in = H_in * (1 + flgw.softmax(ig, 1) - P0)
        S_out = H_out * (1 + flgw.softmax(og, 0) - Q0)
        return float((D * (S_in @ S_out)).sum())

    dIG, dOG = flgw.grouping_grads(IG, OG, D)
    h = 1e-6
    for idx in np.ndindex(M, G):
        e = np.zeros_like(IG)
        e[idx] = h
        assert dIG[idx] == pytest.approx((loss(IG + e, OG) - loss(IG - e, OG)) / (2 * h),
                                         abs=1e-8)
    for idx in np.ndindex(G, N):
        e = np.zeros_like(OG)
        e[idx] = h
        assert dOG[idx] == pytest.approx((loss(IG, OG + e) - loss(IG, OG - e)) / (2 * h),
                                         abs=1e-8)


def test_selected_grads_need_only_the_forward_and_backward_products():
    """The selected entries of dIS and dOS from the dense dmask = outer(x, d) * W equal
    x * (W_eff d) and d * (x W_eff); every other entry is zero."""
    rng = np.random.default_rng(4)
    M, G, N = 9, 4, 13
    IG, OG, W = rng.standard_normal((M, G)), rng.standard_normal((G, N)), \
        rng.standard_normal((M, N))
    x, d = rng.standard_normal(M), rng.standard_normal(N)
    m = flgw.mask(IG, OG, np.float64)
    IS = flgw.selection(flgw.max_index_rows(IG), G, 1, np.float64)
    OS = flgw.selection(flgw.max_index_cols(OG), G, 0, np.float64)
    dmask = np.outer(x, d) * W
    dIS, dOS = (dmask @ OS.T) * IS, (IS.T @ dmask) * OS
    sel_in, sel_out = flgw.selected_grads(x, d, W * m)
    assert np.allclose(dIS.sum(axis=1), sel_in) and np.allclose(dOS.sum(axis=0), sel_out)
    assert np.count_nonzero(dIS) <= M and np.count_nonzero(dOS) <= N
