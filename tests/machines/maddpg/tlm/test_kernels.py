"""A compute unit's arithmetic over a whole batch (machines/maddpg/tlm/kernels.py) equals the
per-sample functional model (compute_unit.fp, bp, wu) bit for bit: compiled with numba and as
the plain isa.dtypes path, on random operands with signed zeros, tiny and huge values."""

import numpy as np
import pytest

from rlaccel.machines.maddpg.tlm import kernels
from rlaccel.machines.maddpg.tlm.compute_unit import bp, fp, wu


def _operands(rng, *shape):
    """Random fp32 values of mixed scales, with +-0, subnormal-range and overflowing ones."""
    v = rng.normal(size=shape) * 10.0 ** rng.integers(-3, 4, size=shape)
    flat = v.reshape(-1)
    pick = rng.random(flat.size)
    flat[pick < 0.05] = 0.0
    flat[(pick >= 0.05) & (pick < 0.1)] = -0.0
    flat[(pick >= 0.1) & (pick < 0.12)] = 3e38
    flat[(pick >= 0.12) & (pick < 0.14)] = 1e-40
    return v.astype(np.float32)


def _same(a, b):
    assert np.asarray(a).tobytes() == np.asarray(b).tobytes()


@pytest.fixture(params=["compiled", "isa.dtypes"])
def path(request, monkeypatch):
    if request.param == "isa.dtypes":
        monkeypatch.setattr(kernels, "HAVE_NUMBA", False)
    return request.param


@pytest.mark.parametrize("B, od, id_", [(1, 1, 1), (7, 5, 9), (33, 64, 22), (4, 3, 64)])
def test_forward_is_fp_for_every_sample(path, B, od, id_):
    rng = np.random.default_rng(B * 100 + od)
    W, b, X = _operands(rng, od, id_), _operands(rng, od), _operands(rng, B, id_)
    with np.errstate(all="ignore"):
        Y = kernels.forward(W, b, X)
        _same(Y, np.stack([fp(W, b, x, relu=False) for x in X]))


@pytest.mark.parametrize("B, od, id_, off, n", [(1, 1, 1, 0, 1), (9, 64, 22, 14, 5),
                                                 (16, 5, 64, 0, 64), (3, 1, 64, 0, 64)])
def test_backward_is_bp_for_every_sample(path, B, od, id_, off, n):
    rng = np.random.default_rng(B + od * 7)
    W, D = _operands(rng, od, id_), _operands(rng, B, od)
    with np.errstate(all="ignore"):
        _same(kernels.backward(W, D, off, n), np.stack([bp(W[:, off:off + n], d) for d in D]))


@pytest.mark.parametrize("B, od, id_", [(1, 1, 1), (12, 5, 9), (40, 64, 3), (7, 64, 64),
                                       (9, 1, 64), (10, 64, 11)])   # both loop orders
def test_gradient_is_wu_accumulated_in_sample_order(path, B, od, id_):
    rng = np.random.default_rng(B * 3 + id_)
    D, X = _operands(rng, B, od), _operands(rng, B, id_)
    G, gb = np.zeros((od, id_), np.float32), np.zeros(od, np.float32)
    with np.errstate(all="ignore"):
        for d, x in zip(D, X):
            G, gb = wu(G, gb, d, x)
        G2, gb2 = kernels.gradient(D, X)
    _same(G2, G)
    _same(gb2, gb)


def test_no_fused_multiply_add():
    """A product that needs rounding before the add: -1 + (1 + 2^-23)^2 in fp32 is 2^-22 when
    the product is rounded first, 2^-22 + 2^-46 when fused into one multiply-add."""
    a = np.float32(1 + 2 ** -23)
    W = np.array([[np.float32(-1.0), a]], np.float32)
    X = np.array([[np.float32(1.0), a]], np.float32)
    assert kernels.forward(W, np.zeros(1, np.float32), X)[0, 0] == np.float32(2 ** -22)
    assert kernels.backward(W.T.copy(), X, 0, 1)[0, 0] == \
        np.float32(2 ** -22)
    G, _ = kernels.gradient(np.array([[1.0], [a]], np.float32),
                            np.array([[-1.0], [a]], np.float32))
    assert G[0, 0] == np.float32(2 ** -22)


@pytest.mark.parametrize("B, od, id_", [(5, 64, 22), (6, 17, 64), (3, 15, 64), (9, 64, 3)])
def test_wide_and_narrow_results_on_memory_rows(path, B, od, id_):
    """Both loop orders (results at least kernels.WIDE wide, and narrower), the batch read
    as strided rows of a memory (a view), an odd and an even batch."""
    rng = np.random.default_rng(B * 11 + od)
    W, b = _operands(rng, od, id_), _operands(rng, od)
    mem = _operands(rng, B * (max(od, id_) + 3) + 7)
    X = np.lib.stride_tricks.as_strided(mem[2:], (B, id_), (4 * (id_ + 3), 4), writeable=False)
    D = np.lib.stride_tricks.as_strided(mem[5:], (B, od), (4 * (od + 2), 4), writeable=False)
    with np.errstate(all="ignore"):
        _same(np.ascontiguousarray(kernels.forward(W, b, X)),
              np.stack([fp(W, b, x, relu=False) for x in np.array(X)]))
        _same(np.ascontiguousarray(kernels.backward(W, D, 1, id_ - 1)),
              np.stack([bp(W[:, 1:], d) for d in np.array(D)]))


def test_relu_mask_is_bp_mask(path):
    """G where the layer input is > 0, else +0 (compute_unit.bp's mask): -0, NaN and negative
    inputs mask."""
    rng = np.random.default_rng(3)
    G, X = _operands(rng, 6, 20), _operands(rng, 6, 20)
    X[0, :4] = [np.nan, -0.0, -1.0, 1e-40]
    G[1, :2] = [np.nan, -0.0]
    _same(np.ascontiguousarray(kernels.relu_mask(G.copy(), X)),
          np.where(X > 0, G, np.float32(0.0)))
