"""The updating layer (the DARL paper, eq. 11-16): select, the update value and the update
hypervectors, on hand-computed cases in float64 and q16.16."""

import numpy as np
import pytest

from rlaccel.isa.dtypes import get_dtype
from rlaccel.util.errors import ArchError
from rlaccel.machines.darl.tlm import greedy, select, update_hypervectors, update_value

Q = get_dtype("fixed32")


def test_select_without_a_marked_action_is_the_greedy_index():
    """Eq. 11-12: no mask bit -> (argmax, q_pred 0); ties go to the lowest index."""
    assert select(np.array([0.1, 0.7, 0.7, -1.0]), [0, 0, 0, 0]) == (1, 0.0)
    assert greedy(np.array([3, 3])) == 0


def test_select_with_one_marked_action_is_its_value():
    idx, q = select(np.array([0.1, 0.7, 0.3]), [False, False, True])
    assert idx == -1 and q == 0.3
    idx, q = select(Q.quantize([0.5, -0.25]), [1, 0])
    assert idx == -1 and int(q) == 32768


def test_select_refuses_two_marked_actions_and_bad_shapes():
    with pytest.raises(ArchError, match=r"marks 2 actions \(\[0, 2\]\)"):
        select(np.zeros(3), [1, 0, 1])
    with pytest.raises(ArchError, match=r"mask of shape \(2,\) for \(3,\) values"):
        select(np.zeros(3), [1, 0])


def test_update_value_in_float64():
    """beta (r + gamma q_true - q_pred): 0.05 * (1 + 0.9 * 2 - 0.5) = 0.115."""
    v = update_value(0.5, 2.0, 1.0, beta=0.05, gamma=0.9)
    assert v == 0.05 * ((1.0 + 0.9 * 2.0) - 0.5)


def test_update_value_in_q16_16_rounds_after_each_multiply():
    beta, gamma = Q.quantize(0.05), Q.quantize(0.9)           # 3277, 58982
    q_pred, q_true, r = Q.quantize(0.5), Q.quantize(2.0), Q.quantize(1.0)
    g = (58982 * 131072 + 32768) >> 16                       # gamma * q_true = 117964
    e = 65536 + g - 32768                                    # r + g - q_pred
    expect = (3277 * e + 32768) >> 16
    assert int(update_value(q_pred, q_true, r, beta=beta, gamma=gamma, fmt="fixed32")) == expect


def test_update_hypervectors_scale_re_and_im():
    re, im = np.array([1.0, -0.5]), np.array([0.0, 0.25])
    ur, ui = update_hypervectors(0.2, re, im)
    assert ur.tolist() == [0.2, -0.1] and ui.tolist() == [0.0, 0.05]
    v = Q.quantize(0.2)                                      # 13107
    ur, ui = update_hypervectors(v, Q.quantize(re), Q.quantize(im), fmt="fixed32")
    assert ur.tolist() == [13107, (13107 * -32768 + 32768) >> 16]
    assert ui.tolist() == [0, (13107 * 16384 + 32768) >> 16]
