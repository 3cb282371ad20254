"""The VPUs' vector operations of IC3Net (machines/learninggroup/tlm/vector.py): FP16 versions
of the float reference's expressions, each within FP16 rounding of the float64 result, and the
FP16 hazard of RMSprop's square average that sets the machine's eps."""

from __future__ import annotations

import numpy as np

from rlaccel.machines.learninggroup import flgw
from rlaccel.machines.learninggroup.tlm import vector

F16 = np.float16


def _sig(x):
    return 1 / (1 + np.exp(-x))


def test_lstm_forward_and_backward_follow_the_reference_within_fp16():
    """torch's LSTMCell and its backward pass (the reference's ic3net.py expressions) in
    float64 against the FP16 versions: relative errors of a few FP16 ulps."""
    rng = np.random.default_rng(1)
    A, H = 3, 16
    z = rng.standard_normal((A, 4 * H)).astype(F16)
    sp = rng.standard_normal((A, H)).astype(F16)
    gates, s, ts, h = vector.lstm_forward(z, sp)
    z64, sp64 = z.astype(float), sp.astype(float)
    i, f, g, o = _sig(z64[:, :H]), _sig(z64[:, H:2 * H]), np.tanh(z64[:, 2 * H:3 * H]), \
        _sig(z64[:, 3 * H:])
    s64 = f * sp64 + i * g
    assert np.allclose(s, s64, atol=4e-3) and np.allclose(h, o * np.tanh(s64), atol=4e-3)
    dh = rng.standard_normal((A, H)).astype(F16)
    dsn = rng.standard_normal((A, H)).astype(F16)
    dz, nxt = vector.lstm_backward(dh, dsn, gates, ts, sp, 1.0)
    G, T = gates.astype(float), ts.astype(float)
    gi, gf, gg, go = G[:, :H], G[:, H:2 * H], G[:, 2 * H:3 * H], G[:, 3 * H:]
    ds = dh * go * (1 - T * T) + dsn
    want = np.concatenate([ds * gg * gi * (1 - gi), ds * sp64 * gf * (1 - gf),
                           ds * gi * (1 - gg * gg), dh * T * go * (1 - go)], axis=1)
    assert np.allclose(dz, want, atol=1e-2) and np.allclose(nxt, ds * gf, atol=1e-2)
    assert not vector.lstm_backward(dh, dsn, gates, ts, sp, 0.0)[1].any()


def test_comm_mean_is_the_gated_mean_of_the_others():
    """Agent i receives the mean of the talking agents j != i, if it talks itself."""
    h = np.arange(12, dtype=F16).reshape(4, 3)
    talk = np.array([1, 1, 0, 1], F16)
    c = vector.comm_mean(h, talk).astype(float)
    third = float(F16(1 / 3))
    assert np.allclose(c[0], (h[1] + h[3]).astype(float) * third, rtol=2e-3)
    assert not c[2].any()
    assert np.allclose(c[3], (h[0] + h[1]).astype(float) * third, rtol=2e-3)


def test_softmax_and_head_gradients():
    p = vector.softmax(np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], F16)).astype(float)
    e = np.exp([1.0, 2.0, 3.0])
    assert np.allclose(p[0], e / e.sum(), atol=1e-3) and np.allclose(p[1], 1 / 3, atol=1e-3)
    out = np.array([[0.1, 0.2, 0.3, 0.2, 0.2, 0.75, 0.25, 0.5]], F16)
    d = vector.head_grads(out, [2], [0], [2.0], [1.5], F16(0.02), 5).astype(float)
    want = [2 * 0.1, 2 * 0.2, 2 * (0.3 - 1), 2 * 0.2, 2 * 0.2, 2 * (0.75 - 1), 2 * 0.25,
            0.02 * (0.5 - 1.5)]
    assert np.allclose(d[0], want, atol=2e-3)


def test_grouping_grad_is_flgws_straight_through_softmax():
    rng = np.random.default_rng(4)
    IG = rng.standard_normal((7, 4)).astype(F16)
    r = rng.standard_normal(7).astype(F16)
    got = vector.grouping_grad(IG, r, axis=1).astype(float)
    P = flgw.softmax(IG.astype(float), 1)
    sel = np.argmax(IG, axis=1)
    dP = np.zeros_like(P)
    dP[np.arange(7), sel] = r.astype(float)
    want = P * (dP - (dP * P).sum(axis=1, keepdims=True))
    assert np.allclose(got, want, atol=3e-3)
    OG = rng.standard_normal((4, 9)).astype(F16)
    c = rng.standard_normal(9).astype(F16)
    got = vector.grouping_grad(OG, c, axis=0).astype(float)
    P = flgw.softmax(OG.astype(float), 0)
    dP = np.zeros_like(P)
    dP[np.argmax(OG, axis=0), np.arange(9)] = c.astype(float)
    assert np.allclose(got, P * (dP - (dP * P).sum(axis=0, keepdims=True)), atol=3e-3)


def test_fp16_rmsprop_needs_an_eps_at_fp16s_resolution():
    """RMSprop's square average v = (1 - alpha) g^2 underflows FP16 for |g| below about
    1e-3 (0.03 g^2 < 2^-25), so v stays 0 and the step is lr g / eps: with IC3Net's
    eps = 1e-6 a gradient of 3e-4 moves the weight by about 300 lr (float32: 5.7 lr, the
    first step of torch's RMSprop); with eps = 2^-12, the square root of FP16's smallest
    positive value (the machine's default), by about 1.2 lr."""
    w, g, v = np.zeros(1, F16), np.full(1, 3e-4, F16), np.zeros(1, F16)
    lr, alpha = F16(1e-3), F16(0.97)
    w1, v1 = vector.rmsprop(w, g, v, lr, alpha, F16(0.03), F16(1e-6))
    assert v1[0] == 0 and 250 < abs(float(w1[0])) / 1e-3 < 350
    w2, _ = vector.rmsprop(w, g, v, lr, alpha, F16(0.03), F16(2.0 ** -12))
    assert 1.0 < abs(float(w2[0])) / 1e-3 < 1.4
    g32 = np.float32(3e-4)
    step32 = 1e-3 * g32 / (np.sqrt(0.03 * g32 * g32) + 1e-6)
    assert 5.5 < step32 / 1e-3 < 5.8
