"""A layer's sparse dataflow in FP16 (machines/learninggroup/tlm/core.py), forward and
transposed, against step-by-step numpy float16 and against float64."""

from __future__ import annotations

import numpy as np
import pytest

from rlaccel.util.errors import SimError
from rlaccel.machines.learninggroup.tlm import core, load_allocation, osel

F16 = np.float16


def _layer(seed, M=12, N=20, G=3):
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((M, N)).astype(F16)
    IG = rng.standard_normal((M, G)).astype(F16)
    OG = rng.standard_normal((G, N)).astype(F16)
    return rng, W, IG, OG


def _by_hand(Wr, x, keep, allocation):
    """Each core: for its rows in order, for each kept column, partial += x*w in float16;
    then the aggregator adds the cores' partials in order."""
    y = None
    for rows in allocation:
        part = np.zeros(Wr.shape[1], F16)
        for i in rows:
            for j in np.flatnonzero(keep[i]):
                part[j] = F16(part[j] + F16(x[i] * Wr[i, j]))
        y = part if y is None else (y + part).astype(F16)
    return y


@pytest.mark.parametrize("scheme", ["row", "threshold"])
def test_forward_is_the_cores_float16_order(scheme):
    """sparse_forward equals the hand-written per-core float16 loops bit for bit and the
    float64 masked product within FP16 rounding."""
    rng, W, IG, OG = _layer(1)
    srm = osel.sparse_generation(IG, OG).srm
    alloc = load_allocation.allocate(srm.workloads(), 3, scheme)
    x = rng.standard_normal(12).astype(F16)
    y = core.sparse_forward(W, x, srm, alloc)
    assert y.tobytes() == _by_hand(W, x, srm.mask(), alloc).tobytes()
    exact = x.astype(np.float64) @ (W.astype(np.float64) * srm.mask())
    assert np.abs(y - exact).max() < 0.02 * np.abs(exact).max()


def test_transposed_reads_w_in_place():
    """sparse_transposed over the transposed memory is g (W * mask)^T, the same order as a
    hand loop over the rows of W^T."""
    rng, W, IG, OG = _layer(2)
    srm_t = osel.sparse_generation(IG, OG, transposed=True).srm
    alloc = load_allocation.row_based(np.zeros(20), 3)
    g = rng.standard_normal(20).astype(F16)
    d = core.sparse_transposed(W, g, srm_t, alloc)
    assert d.shape == (12,)
    assert d.tobytes() == _by_hand(W.T, g, srm_t.mask(), alloc).tobytes()
    mask = osel.sparse_generation(IG, OG).srm.mask()
    exact = (W.astype(np.float64) * mask) @ g.astype(np.float64)
    assert np.abs(d - exact).max() < 0.02 * np.abs(exact).max()


def test_dense_is_one_chain_per_output():
    """Without a sparse row memory and one core the layer is a float16 MAC chain down the
    rows for every output."""
    rng, W, _, _ = _layer(3)
    x = rng.standard_normal(12).astype(F16)
    y = core.sparse_forward(W, x)
    assert y.tobytes() == _by_hand(W, x, np.ones(W.shape, bool), [range(12)]).tobytes()


def test_outer_gives_masked_weights_no_gradient():
    """sparse_outer is fp16(x_i d_j) where kept, 0 where masked."""
    rng, W, IG, OG = _layer(4)
    srm = osel.sparse_generation(IG, OG).srm
    x = rng.standard_normal(12).astype(F16)
    d = rng.standard_normal(20).astype(F16)
    out = core.sparse_outer(x, d, srm)
    m = srm.mask()
    assert not out[~m].any()
    assert np.array_equal(out[m], (x[:, None] * d[None, :]).astype(F16)[m])


def test_errors_name_the_mismatch():
    """A memory of another shape, an allocation that drops a row, a wrong input length."""
    rng, W, IG, OG = _layer(5)
    srm = osel.sparse_generation(IG, OG).srm
    x = np.zeros(12, F16)
    with pytest.raises(SimError, match=r"encodes 12 x 20, not the 20 x 12 matrix"):
        core.sparse_transposed(W, np.zeros(20, F16), srm)
    with pytest.raises(SimError, match=r"every row to exactly one core"):
        core.sparse_forward(W, x, srm, [np.arange(6), np.arange(7, 12)])
    with pytest.raises(SimError, match=r"12 rows need 12 input activations, not \(11,\)"):
        core.sparse_forward(W, x[:11], srm)
