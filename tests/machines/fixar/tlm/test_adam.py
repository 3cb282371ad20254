"""The Adam unit (float32 datapath) and its fixed-point wrapper."""

import numpy as np
import pytest

from rlaccel.isa.dtypes import SaturationCounter, get_dtype
from rlaccel.machines.fixar.tlm.adam import AdamHyper, adam_fixed, adam_update, corrections

HP = AdamHyper(lr=1e-4)


def textbook(g_seq, hp):
    """Kingma & Ba's Algorithm 1 in float64."""
    m = v = np.zeros_like(g_seq[0], dtype=np.float64)
    w = np.zeros_like(m)
    for t, g in enumerate(g_seq, start=1):
        m = hp.beta1 * m + (1 - hp.beta1) * g
        v = hp.beta2 * v + (1 - hp.beta2) * g * g
        w = w - hp.lr * (m / (1 - hp.beta1 ** t)) / (np.sqrt(v / (1 - hp.beta2 ** t)) + hp.eps)
    return w


def test_first_step_is_lr_times_sign():
    """t = 1 from zero moments: dw = lr g / (|g| + eps), i.e. lr * sign(g) for |g| >> eps."""
    g = np.array([0.5, -3.0, 1e-3], dtype=np.float32)
    dw, m, v = adam_update(g, np.zeros(3, np.float32), np.zeros(3, np.float32), 1, HP)
    assert dw.dtype == np.float32 and np.allclose(dw, 1e-4 * np.sign(g), rtol=1e-5)
    assert np.allclose(m, 0.1 * g) and np.allclose(v, 0.001 * g * g)


def test_matches_textbook_adam_over_many_steps():
    rng = np.random.default_rng(0)
    gs = [rng.normal(0.01, 1.0, size=100).astype(np.float32) for _ in range(50)]
    m = v = np.zeros(100, np.float32)
    w = np.zeros(100, np.float32)
    for t, g in enumerate(gs, start=1):
        dw, m, v = adam_update(g, m, v, t, HP)
        w = w - dw
    assert np.allclose(w, textbook(gs, HP), rtol=1e-4, atol=1e-9)


def test_corrections():
    lr_c1, c2 = corrections(1, HP)
    assert np.isclose(lr_c1, 1e-3) and np.isclose(c2, 1 / np.sqrt(0.001))
    assert lr_c1.dtype == np.float32
    with pytest.raises(ValueError, match="steps count from 1"):
        corrections(0, HP)


def test_fixed_step_by_hand():
    """q16.16: lr = 1e-4 is 6.5536 LSB, rounded half up to 7 (and -7 to -7)."""
    q = get_dtype("fixed32")
    w = np.array([0, 100, -(1 << 31)])
    g = q.quantize([0.25, -0.25, 0.25])
    z = np.zeros(3, np.float32)
    c = SaturationCounter()
    w2, m, v = adam_fixed(w, g, z, z, 1, HP, q, q, counter=c)
    assert w2.tolist() == [-7, 107, -(1 << 31)] and c.saturations == 1
    assert m.dtype == np.float32 and np.allclose(m, [0.025, -0.025, 0.025])


def test_round_to_equals_isa_dtypes_quantize():
    """The Adam unit's shortcut rounding is fixed32's quantize: ties, saturation, NaN."""
    from rlaccel.machines.fixar.tlm.adam import round_to
    q = get_dtype("fixed32")
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.normal(0, 1e-3, 10_000), (np.arange(-8, 8) + 0.5) / 65536,
                        [4e4, -4e4, 1e30]]).astype(np.float32)
    c1, c2 = SaturationCounter(), SaturationCounter()
    assert (round_to(q, x, counter=c1) == q.quantize(x.astype(np.float64), counter=c2)).all()
    assert c1.saturations == c2.saturations == 3
    nan = np.array([np.nan, 1.0], np.float32)
    assert round_to(q, nan).tolist() == q.quantize(nan.astype(np.float64)).tolist()


@pytest.mark.parametrize("numba", [True, False], ids=["numba", "plain"])
def test_adam_words_equal_adam_fixed(monkeypatch, numba):
    """The adam instruction's in-place update (moments as float32 bit patterns in int64
    words) equals adam_fixed bit for bit -- weights, moments and the saturation count --
    on full-range words and gradients, zero and large moments, rates that saturate the
    weights, and a NaN moment (rounding's general path)."""
    from rlaccel.machines.fixar.tlm import adam
    from rlaccel.machines.fixar.tlm.adam import AdamWords, constants
    monkeypatch.setattr(adam, "HAVE_NUMBA", numba)
    q = get_dtype("fixed32")
    rng = np.random.default_rng(11)
    n = 4000
    for lr, t, nan in ((1e-4, 1, False), (1e-3, 7, False), (1e3, 2, False), (1e-4, 3, True)):
        hp = AdamHyper(lr=lr)
        w = rng.integers(-(1 << 31), 1 << 31, size=n)
        g = rng.integers(-(1 << 31), 1 << 31, size=n) >> rng.integers(0, 31, size=n)
        m = (rng.normal(size=n) * 10.0 ** rng.integers(-8, 2, size=n)).astype(np.float32)
        v = (np.abs(rng.normal(size=n)) * 10.0 ** rng.integers(-12, 2, size=n)).astype(
            np.float32)
        m[:4] = v[:4] = 0
        if nan:
            m[5] = np.nan
        c1, c2 = SaturationCounter(), SaturationCounter()
        w2, m2, v2 = adam_fixed(w, g, m.copy(), v.copy(), t, hp, q, q, counter=c1)
        W, G = w.copy(), g.copy()
        M, V = m.view(np.int32).astype(np.int64), v.view(np.int32).astype(np.int64)
        AdamWords(q, W, G, M, V, constants(t, hp).view(np.int32).astype(np.int64))(c2)
        assert np.array_equal(W, w2) and np.array_equal(G, g)
        assert np.array_equal(M, m2.view(np.int32)) and np.array_equal(V, v2.view(np.int32))
        assert c1.saturations == c2.saturations
        assert c2.saturations > 0 or lr < 1      # the large rate saturates


def test_adam_words_with_overlapping_operands():
    """Moments that share words with each other: every word is read before any is written,
    then the weights, m and v are stored in that order (as adam_fixed's results would be)."""
    from rlaccel.machines.fixar.tlm.adam import AdamWords, constants
    q = get_dtype("fixed32")
    rng = np.random.default_rng(12)
    n = 64
    mem = rng.integers(-(1 << 20), 1 << 20, size=4 * n)
    mem[2 * n:] = (np.abs(rng.normal(size=2 * n)) * 1e-4).astype(np.float32).view(np.int32)
    W, G, M, V = mem[:n], mem[n:2 * n], mem[2 * n:3 * n], mem[2 * n + n // 2:3 * n + n // 2]
    f32 = lambda a: a.astype(np.int32).view(np.float32)                  # noqa: E731
    w2, m2, v2 = adam_fixed(W.copy(), G.copy(), f32(M), f32(V), 4, HP, q, q)
    want = mem.copy()
    want[:n] = w2
    want[2 * n:3 * n] = m2.view(np.int32)
    want[2 * n + n // 2:3 * n + n // 2] = v2.view(np.int32)
    AdamWords(q, W, G, M, V, constants(4, HP).view(np.int32).astype(np.int64))()
    assert np.array_equal(mem, want)
