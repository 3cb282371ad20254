"""The Gumbel-softmax head in fp32 against a direct float32 computation and float64."""

import numpy as np

from rlaccel.machines.maddpg.tlm.softmax import gumbel_softmax, softmax_backward


def f32(x):
    return np.asarray(x, np.float32)


def direct(logits, noise):
    z = f32(logits) + f32(noise)
    e = np.exp((z - z.max()).astype(np.float64)).astype(np.float32)
    s = np.float32(0)
    for v in e:                                    # in index order, from +0
        s = np.float32(s + v)
    return (e.astype(np.float64) / np.float64(s)).astype(np.float32)


def test_forward_equals_direct_and_float64():
    rng = np.random.default_rng(0)
    for _ in range(20):
        logits, noise = f32(rng.normal(size=5) * 3), f32(rng.gumbel(size=5))
        y = gumbel_softmax(logits, noise)
        assert y.tobytes() == direct(logits, noise).tobytes()
        z = logits.astype(np.float64) + noise
        np.testing.assert_allclose(y, np.exp(z - z.max()) / np.exp(z - z.max()).sum(),
                                   rtol=1e-6)


def test_by_hand():
    """Logits [0, ln 3] without noise: [1/4, 3/4]; a large logit saturates to one-hot."""
    np.testing.assert_allclose(gumbel_softmax(f32([0, np.log(3)]), f32([0, 0])), [0.25, 0.75],
                               rtol=1e-6)
    assert gumbel_softmax(f32([200, 0]), f32([0, 0])).tolist() == [1.0, 0.0]


def test_backward():
    """y * (dy - sum(dy y)) in fp32 (sum as a MAC chain); equals the float64 Jacobian-vector
    product to fp32 precision."""
    y, dy = gumbel_softmax(f32([0.1, -0.5, 1.0]), f32([0, 0, 0])), f32([1.0, -2.0, 0.5])
    p = np.float32(0)
    for a, b in zip(dy, y):
        p = np.float32(p + np.float32(a * b))
    assert softmax_backward(y, dy).tobytes() == (y * (dy - p)).astype(np.float32).tobytes()
    y64 = y.astype(np.float64)
    J = np.diag(y64) - np.outer(y64, y64)
    np.testing.assert_allclose(softmax_backward(y, dy), J @ dy, atol=1e-6)


def test_batch_rows_equal_one_sample_at_a_time():
    """The head's batch functions are the one-sample ones applied to every row, bit for bit
    (rowdot is the fp32 dot rule per row)."""
    from rlaccel.isa.dtypes import get_dtype
    from rlaccel.machines.maddpg.tlm.softmax import (gumbel_softmax_rows, rowdot,
                                                     softmax_backward_rows)
    rng = np.random.default_rng(5)
    for n in (1, 3, 5):
        z, g = f32(rng.normal(size=(50, n)) * 4), f32(rng.gumbel(size=(50, n)))
        dy = f32(rng.normal(size=(50, n)))
        y = gumbel_softmax_rows(z, g)
        assert y.tobytes() == np.stack([gumbel_softmax(a, b) for a, b in zip(z, g)]).tobytes()
        assert softmax_backward_rows(y, dy).tobytes() == \
            np.stack([softmax_backward(a, b) for a, b in zip(y, dy)]).tobytes()
        assert rowdot(dy, y).tobytes() == \
            np.array([get_dtype("fp32").dot(a, b) for a, b in zip(dy, y)], np.float32).tobytes()


class _Counter:
    saturations = 0


def test_compiled_rows_equal_the_dtype_operations(monkeypatch):
    """gumbel_softmax_rows, softmax_backward_rows and head_backward_rows compiled give the
    isa.dtypes operations' bits and saturation counts, finite or not (huge, infinite, NaN
    operands)."""
    from rlaccel.machines.maddpg.tlm import softmax
    rng = np.random.default_rng(4)
    for trial in range(30):
        B, n = int(rng.integers(1, 40)), int(rng.integers(1, 7))
        a = f32(rng.normal(size=(B, n)) * 10.0 ** rng.integers(-6, 3, size=(B, n)))
        b = f32(rng.normal(size=(B, n)))
        a[rng.random((B, n)) < 0.05] = -0.0
        if trial % 3 == 1:
            a[rng.integers(B), rng.integers(n)] = (3e38, np.inf, np.nan, -3e38)[trial % 4]
        got = []
        for numba in (True, False):
            monkeypatch.setattr(softmax, "HAVE_NUMBA", numba)
            c = _Counter()
            with np.errstate(all="ignore"):
                out = (softmax.gumbel_softmax_rows(a, b, counter=c),
                       softmax.softmax_backward_rows(b, a, counter=c),
                       softmax.softmax_backward_rows(a, b, counter=c),
                       softmax.head_backward_rows(b, a, np.float32(1e-3), a, counter=c),
                       softmax.head_backward_rows(b, b, np.float32(3e38), a, counter=c))
            got.append(([x.tobytes() for x in out], c.saturations))
        assert got[0] == got[1]
