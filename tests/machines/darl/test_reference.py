"""The float64 HDQL reference: encoding, values, the update as a gradient step (checked by
finite differences), hand-computed updates, the synchronisation of section 4.1 and
determinism."""

import numpy as np
import pytest

from rlaccel.machines.darl.config import HdqlConfig
from rlaccel.machines.darl.reference import HdqlReference
from rlaccel.machines.darl.replay import Batch


def _cfg(**kw):
    return HdqlConfig(**{"d": 16, "chunk": 16, **kw})


def _batch(obs, act, rew, nxt):
    obs, nxt = np.atleast_2d(obs).astype(float), np.atleast_2d(nxt).astype(float)
    return Batch(np.arange(len(obs)), obs, np.asarray(act), np.asarray(rew, float), nxt)


def test_encoding_and_values_are_qhds():
    ref = HdqlReference(_cfg(), 3, 2, np.random.default_rng(0))
    s = np.array([[0.1, -0.4, 0.3]])
    re, im = ref.encode(s)
    h = np.exp(1j * (s @ ref.P))
    assert np.allclose(re + 1j * im, h, atol=1e-15)
    rng = np.random.default_rng(1)
    qr, qi = rng.normal(size=(2, 16)), rng.normal(size=(2, 16))
    v = ref.values(re, im, qr, qi)
    assert np.allclose(v, np.real(np.conj(h) @ (qr + 1j * qi).T) / 16, atol=1e-14)


def test_two_hand_computed_updates():
    """Q = Q' = 0: v1 = beta r1 and Q[a] = v1 H(s1); then q_pred = v1 sum cos(E2 - E1) / D and
    v2 = beta (r2 - q_pred) (Q' still 0)."""
    ref = HdqlReference(_cfg(), 2, 2, np.random.default_rng(2))
    s1, s2 = np.array([0.3, -0.2]), np.array([-0.1, 0.5])
    v = ref.train(0, _batch([s1, s2], [1, 1], [1.0, 0.0], [s2, s1]))
    e1, e2 = s1 @ ref.P, s2 @ ref.P
    v1 = 0.05 * 1.0
    q_pred = v1 * np.cos(e2 - e1).sum() / 16
    v2 = 0.05 * (0.0 - q_pred)
    assert v[0] == pytest.approx(v1) and v[1] == pytest.approx(v2, rel=1e-12)
    assert np.allclose(ref.qr[0][1], v1 * np.cos(e1) + v2 * np.cos(e2), atol=1e-15)
    assert np.allclose(ref.qi[0][1], v1 * np.sin(e1) + v2 * np.sin(e2), atol=1e-15)
    assert not ref.qr[0][0].any()
    assert np.array_equal(ref.sr[0], ref.qr[0]) and not ref.tr.any()


def _loss(ref, qr, qi, s, a, y):
    re, im = ref.encode(s[None])
    return 0.5 * (y - ref.values(re, im, qr, qi)[0, a]) ** 2


@pytest.mark.parametrize("sign", [1, -1])
def test_the_update_is_a_gradient_step_on_the_squared_td_error(sign):
    """dQ = -beta D dL/dQ with L = (y - V_Q(s)[a])^2 / 2 and the target y held fixed. With
    eq. 9's printed sign (imag_sign -1) the imaginary part's update of eq. 16 climbs L:
    it is +beta D dL/dQI."""
    rng = np.random.default_rng(3)
    ref = HdqlReference(_cfg(imag_sign=sign, gamma=0.9), 4, 3, rng)
    for m in (ref.qr[0], ref.qi[0], ref.tr, ref.ti):
        m[...] = rng.normal(size=m.shape)
    s, s2, a, r = rng.normal(size=4), rng.normal(size=4), 2, 0.7
    re2, im2 = ref.encode(s2[None])
    y = r + 0.9 * ref.values(re2, im2, ref.tr, ref.ti)[0].max()
    qr0, qi0 = ref.qr[0].copy(), ref.qi[0].copy()
    ref.train(0, _batch(s, [a], [r], s2))
    dq = (ref.qr[0] - qr0, ref.qi[0] - qi0)
    h = 1e-6
    for part, direction in ((0, 1), (1, sign)):
        for j in (0, 5, 11):
            plus, minus = [qr0.copy(), qi0.copy()], [qr0.copy(), qi0.copy()]
            plus[part][a, j] += h
            minus[part][a, j] -= h
            g = (_loss(ref, *plus, s, a, y) - _loss(ref, *minus, s, a, y)) / (2 * h)
            assert abs(g) > 1e-4
            assert dq[part][a, j] == pytest.approx(-direction * 0.05 * 16 * g, rel=1e-5)
    assert not dq[0][:a].any() and not dq[1][:a].any()


def test_greedy_action_reads_the_target_model_or_the_online_one():
    for which, expect in (("target", 0), ("online", 1)):
        ref = HdqlReference(_cfg(act_with=which), 2, 2, np.random.default_rng(4))
        s = np.array([0.2, 0.1])
        re, im = ref.encode(s[None])
        ref.tr[0], ref.ti[0] = re[0], im[0]          # Q' prefers action 0 at s
        ref.qr[0][1], ref.qi[0][1] = re[0], im[0]    # Q prefers action 1
        assert ref.act(0, s) == expect


def test_one_agent_stage_end_is_the_target_refresh():
    rng = np.random.default_rng(5)
    ref = HdqlReference(_cfg(), 2, 2, rng)
    for _ in range(5):
        ref.train(0, _batch(rng.normal(size=(3, 2)), rng.integers(0, 2, 3), rng.normal(size=3),
                            rng.normal(size=(3, 2))))
    q = ref.qr[0].copy()
    ref.end_stage()
    assert np.allclose(ref.tr, q, atol=1e-15)
    assert np.array_equal(ref.qr[0], ref.tr) and not ref.sr[0].any()


@pytest.mark.parametrize("agents", [2, 4, 8])
def test_several_agents_end_with_the_mean_of_their_models(agents):
    """Bundled mode: Q' += mean_k (Q_k - Q') = mean_k Q_k; every Q_k <- Q'."""
    rng = np.random.default_rng(agents)
    ref = HdqlReference(_cfg(agents=agents), 2, 3, rng)
    ref.tr[...] = rng.normal(size=ref.tr.shape)
    for k in range(agents):
        ref.qr[k][...] = ref.tr
    for k in range(agents):
        for _ in range(3):
            ref.train(k, _batch(rng.normal(size=(4, 2)), rng.integers(0, 3, 4),
                                rng.normal(size=4), rng.normal(size=(4, 2))))
    mean_q = np.mean([q.copy() for q in ref.qr], axis=0)
    ref.end_stage()
    assert np.allclose(ref.tr, mean_q, atol=1e-14)
    assert all(np.array_equal(q, ref.tr) for q in ref.qr)


def test_the_sum_instead_of_the_average():
    """sync="sum" (not the paper's eq. 19): Q' += sum_k (Q_k - Q')."""
    rng = np.random.default_rng(9)
    ref = HdqlReference(_cfg(agents=2, sync="sum"), 2, 2, rng)
    for k in range(2):
        ref.train(k, _batch(rng.normal(size=(3, 2)), rng.integers(0, 2, 3), rng.normal(size=3),
                            rng.normal(size=(3, 2))))
    total = ref.qr[0] + ref.qr[1]
    ref.end_stage()
    assert np.allclose(ref.tr, total, atol=1e-15)


def test_same_seed_same_bits():
    def run(seed):
        rng = np.random.default_rng(seed)
        ref = HdqlReference(_cfg(d=64), 4, 2, rng)
        data = np.random.default_rng(99)
        for _ in range(4):
            ref.train(0, _batch(data.normal(size=(8, 4)), data.integers(0, 2, 8),
                                data.normal(size=8), data.normal(size=(8, 4))))
        ref.end_stage()
        return ref.tr
    assert np.array_equal(run(1), run(1))
    assert not np.array_equal(run(1), run(2))
