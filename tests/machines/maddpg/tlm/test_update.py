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


class _Counter:
    saturations = 0


def _tensor(rng, n):
    v = rng.normal(size=n) * 10.0 ** rng.integers(-8, 3, size=n)
    v[rng.random(n) < 0.05] = -0.0
    return v.astype(np.float32)


def _both(monkeypatch, fn, *args):
    """``fn`` compiled and on whole arrays (isa.dtypes): results and saturation counts."""
    from rlaccel.machines.maddpg.tlm import update
    out = []
    for numba in (True, False):
        monkeypatch.setattr(update, "HAVE_NUMBA", numba)
        c = _Counter()
        with np.errstate(all="ignore"):
            r = getattr(update, fn)(*args, counter=c)
        out.append(([np.asarray(x).tobytes() for x in (r if isinstance(r, tuple) else (r,))],
                    c.saturations))
    return out


def test_compiled_updates_equal_the_dtype_operations(monkeypatch):
    """The compiled passes give the isa.dtypes operations' bits and saturation counts, finite
    or not (a huge rate or constant, an infinite or overflowing gradient, a negative v, a
    division by zero)."""
    rng = np.random.default_rng(7)
    for trial in range(40):
        n = int(rng.integers(0, 300))
        W, g, m = _tensor(rng, n), _tensor(rng, n), _tensor(rng, n)
        v = np.abs(_tensor(rng, n))
        if n and trial % 4 == 1:
            g[rng.integers(n)] = (3e38, np.inf, np.nan)[trial % 3]
        if n and trial % 5 == 2:
            v[0] = -1.0
        lr = np.float32((1e-2, 3e38)[trial % 7 == 3])
        for eps in (1e-8, 0.0):        # eps = 0 and v = 0: a division by zero
            a, b = _both(monkeypatch, "adam_step", W, g, m, v * (eps > 0), lr, 0.9, 0.999, eps)
            assert a == b
        for clip in (0.5, 1e-30, 3e38, 1e39, -1.0):   # -1: a division by a zero norm
            a, b = _both(monkeypatch, "clip_by_norm", g, clip)
            assert a == b
        for tau in (0.01, 1e39, np.float32(0.3)):
            a, b = _both(monkeypatch, "soft_update", W, m, tau)
            assert a == b


def test_compiled_updates_divide_by_zero_as_numpy(monkeypatch):
    """A zero norm under a negative clip, and Adam with eps = 0 on zero moments, divide by
    zero: the compiled passes leave it to the dtype operations (inf or NaN, no exception)."""
    z = np.zeros(5, np.float32)
    a, b = _both(monkeypatch, "clip_by_norm", z, -1.0)
    assert a == b
    a, b = _both(monkeypatch, "adam_step", z + 1, z, z, z, np.float32(0.01), 0.9, 0.999, 0.0)
    assert a == b
