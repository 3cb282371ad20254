"""The delayed update cache (the DARL paper, eq. 7-8, 15-18): an update pushed for action a lands on
Q[a] exactly when row a next streams into the regression with its mask bit set, and never
before; entries of other rows wait, in order."""

import numpy as np
import pytest

from rlaccel.isa.dtypes import SaturationCounter, get_dtype
from rlaccel.util.errors import ArchError, SimError
from rlaccel.machines.darl.tlm import UpdateCache, regress, update_hypervectors

Q = get_dtype("fixed32")


def _onehot(a, n=2):
    m = np.zeros(n, dtype=bool)
    m[a] = True
    return m


def test_eq_17_18_the_update_of_step_t_lands_at_step_t_plus_2():
    """a_t = 0, a_{t+1} = 1, a_{t+2} = 0: row 0 changes at t + 2, row 1 at its next use."""
    qr, qi = np.zeros((2, 4)), np.zeros((2, 4))
    cache = UpdateCache(2, 4)
    u0 = (np.array([1.0, 2, 3, 4]), np.array([0.5, 0, 0, 0]))
    u1 = (np.array([9.0, 9, 9, 9]), np.array([1.0, 1, 1, 1]))
    cache.stream(qr, qi, _onehot(0))         # step t: row 0 read, nothing pending
    cache.push(0, *u0)                       # ... and its update stored
    assert not qr.any() and cache.pending(0)
    cache.stream(qr, qi, _onehot(1))         # step t+1: action 1, row 0 untouched
    assert not qr.any() and not qi.any()
    cache.push(1, *u1)
    cache.stream(qr, qi, _onehot(0))         # step t+2: row 0 gets U_t
    assert qr[0].tolist() == [1, 2, 3, 4] and qi[0].tolist() == [0.5, 0, 0, 0]
    assert not qr[1].any() and cache.pending(1) and not cache.pending(0)
    cache.stream(qr, qi, np.zeros(2, dtype=bool))   # inference: no mask bit, nothing lands
    assert not qr[1].any()
    cache.drain(qr, qi)                      # before the target refresh
    assert qr[1].tolist() == [9, 9, 9, 9] and len(cache) == 0
    assert cache.pushed == 2 and cache.applied == 2


def test_delayed_values_of_marked_rows_equal_immediate_updates_bit_for_bit():
    """A training sequence: the value of the marked row (all training reads) is the same
    with the cache as with updates written at once, in float64 and in q16.16."""
    rng = np.random.default_rng(0)
    for fmt in ("float64", "fixed32"):
        d, a = 64, 3
        phases = rng.uniform(0, 2 * np.pi, size=(40, d))
        res, ims = np.cos(phases), np.sin(phases)
        if fmt == "fixed32":
            res, ims = Q.quantize(res), Q.quantize(ims)
            z = np.zeros((a, d), dtype=np.int64)
        else:
            z = np.zeros((a, d))
        actions = rng.integers(0, a, size=40)
        q_now, q_late = (z.copy(), z.copy()), (z.copy(), z.copy())
        cache = UpdateCache(a, d, fmt)
        for t in range(40):
            act = int(actions[t])
            cache.stream(*q_late, _onehot(act, a))
            v_now = regress(res[t], ims[t], *q_now, chunk=16, fmt=fmt)[act]
            v_late = regress(res[t], ims[t], *q_late, chunk=16, fmt=fmt)[act]
            assert v_now == v_late
            step = 0.1 if fmt == "float64" else Q.quantize(0.1)
            ur, ui = update_hypervectors(step, res[t], ims[t], fmt=fmt)
            if fmt == "float64":
                q_now[0][act] += ur
                q_now[1][act] += ui
            else:
                q_now[0][act] = Q.add(q_now[0][act], ur)
                q_now[1][act] = Q.add(q_now[1][act], ui)
            cache.push(act, ur, ui)
        cache.drain(*q_late)
        assert np.array_equal(q_now[0], q_late[0]) and np.array_equal(q_now[1], q_late[1])


def test_clear_discards_what_is_pending():
    cache = UpdateCache(2, 2)
    qr, qi = np.zeros((2, 2)), np.zeros((2, 2))
    cache.push(1, np.ones(2), np.ones(2))
    cache.clear()
    cache.drain(qr, qi)
    assert len(cache) == 0 and not qr.any() and cache.applied == 0


def test_two_pending_updates_of_one_row_land_in_push_order_saturating():
    cache = UpdateCache(1, 1, "fixed32", depth=2)
    qr, qi = np.array([[Q.max_raw - 5]]), np.array([[0]])
    cache.push(0, np.array([10]), np.array([0]))
    cache.push(0, np.array([-10]), np.array([0]))
    c = SaturationCounter()
    cache.stream(qr, qi, [True], counter=c)
    assert qr.tolist() == [[Q.max_raw - 10]] and c.saturations == 1   # (max-5+10) clips first


def test_a_full_fifo_and_bad_pushes_are_refused():
    cache = UpdateCache(2, 3)
    cache.push(0, np.zeros(3), np.zeros(3))
    cache.push(1, np.zeros(3), np.zeros(3))
    with pytest.raises(SimError, match=r"the FIFO is full \(2 pending updates, actions \[0, 1\]\)"):
        cache.push(0, np.zeros(3), np.zeros(3))
    with pytest.raises(SimError, match="action 2 is not one of 0..1"):
        UpdateCache(2, 3).push(2, np.zeros(3), np.zeros(3))
    with pytest.raises(SimError, match=r"shape \(4,\), \(3,\) for rows of 3"):
        UpdateCache(2, 3).push(0, np.zeros(4), np.zeros(3))
    with pytest.raises(ArchError, match="actions must be a positive integer"):
        UpdateCache(0, 3)
