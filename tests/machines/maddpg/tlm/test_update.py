"""Applying a batch's gradients in fp32: clipping, SGD, TF1 Adam, the soft target update."""

import numpy as np

from rlaccel.machines.maddpg.tlm.update import adam, adam_rate, clip_by_norm, sgd, soft_update


def f32(x):
    return np.asarray(x, np.float32)


def test_clip_by_norm_by_hand():
    """[3, 4] has norm 5: clipped to 0.5 it is [0.3, 0.4]; a smaller tensor is unchanged."""
    np.testing.assert_allclose(clip_by_norm(f32([3, 4]), 0.5), [0.3, 0.4], rtol=1e-6)
    assert clip_by_norm(f32([0.1, 0.2]), 0.5).tolist() == f32([0.1, 0.2]).tolist()


def test_sgd():
    assert sgd(f32([1.0, 2.0]), f32([2.0, -4.0]), 0.25).tolist() == [0.5, 3.0]


def test_adam_constant_gradient_moves_lr_per_step():
    """With a constant gradient every TF1 Adam step is lr * sign(g) (up to eps)."""
    W, m, v = f32([1.0, 1.0]), f32([0, 0]), f32([0, 0])
    for t in (1, 2, 3):
        W, m, v = adam(W, f32([0.5, -2.0]), m, v, t, 0.01)
    np.testing.assert_allclose(W, [0.97, 1.03], atol=2e-6)


def test_adam_equals_the_float32_expression():
    """m, v and W as the reference computes them in float32 numpy, bit for bit."""
    rng = np.random.default_rng(0)
    W, g = f32(rng.normal(size=20)), f32(rng.normal(size=20))
    m, v = f32(rng.normal(size=20)) * 0.1, np.abs(f32(rng.normal(size=20))) * 0.01
    b1, b2, eps = np.float32(0.9), np.float32(0.999), np.float32(1e-8)
    m2 = m * b1 + (1 - b1) * g
    v2 = v * b2 + (1 - b2) * (g * g)
    lr_t = np.float32(0.01 * np.sqrt(1 - 0.999 ** 5) / (1 - 0.9 ** 5))
    W2 = W - lr_t * m2 / (np.sqrt(v2) + eps)
    assert adam_rate(0.01, 5) == lr_t
    got = adam(W, g, m, v, 5, 0.01)
    assert [x.tobytes() for x in got] == [W2.tobytes(), m2.tobytes(), v2.tobytes()]


def test_soft_update():
    """(1 - tau) target + tau source: 0 toward 1 with tau = 0.01 is 0.01."""
    out = soft_update(f32([0.0, 2.0]), f32([1.0, 2.0]), 0.01)
    np.testing.assert_allclose(out, [0.01, 2.0], rtol=1e-6)
    t, s = f32(np.linspace(-1, 1, 9)), f32(np.linspace(2, 0, 9))
    assert soft_update(t, s, 0.01).tobytes() == \
        (t * np.float32(0.99) + np.float32(0.01) * s).tobytes()
