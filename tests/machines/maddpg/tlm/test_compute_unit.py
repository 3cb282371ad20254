"""The compute unit (seed 003, eq. 4): cycles ceil(ID OD / F), 5 F DSPs, F banks; FP, BP and
WU of one layer in fp32, against a direct computation."""

import numpy as np
import pytest

from rlaccel.util.errors import ArchError
from rlaccel.machines.maddpg.tlm.compute_unit import ComputeUnit, bp, cu_cycles, fp, wu


def f32(x):
    return np.asarray(x, np.float32)


@pytest.mark.parametrize("id_, od, f, cycles", [
    (64, 64, 1, 4096), (64, 64, 64, 64), (64, 64, 35, 118), (22, 64, 12, 118),
    (3, 64, 2, 96), (64, 1, 1, 64), (64, 1, 100, 1), (1, 1, 1, 1)])
def test_cycles_eq4(id_, od, f, cycles):
    """T = ceil(ID x OD / F): e.g. a 64 x 64 layer on 35 elements takes ceil(4096/35) = 118."""
    assert cu_cycles(id_, od, f) == cycles == ComputeUnit("FP", id_, od, f).cycles


def test_cost():
    cu = ComputeUnit("WU", 64, 64, 35)
    assert (cu.work, cu.dsp, cu.sram_banks) == (4096, 175, 35)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_cycles_reject_bad_shapes(bad):
    with pytest.raises(ArchError, match="compute unit: F must be a positive integer"):
        cu_cycles(4, 4, bad)


def mac_chain(W, x):
    """Each output: float32 products added in input order from +0 (a direct loop)."""
    out = np.zeros(W.shape[0], np.float32)
    for i in range(W.shape[0]):
        acc = np.float32(0)
        for j in range(W.shape[1]):
            acc = np.float32(acc + np.float32(W[i, j] * x[j]))
        out[i] = acc
    return out


def test_fp_is_relu_of_mac_chain_plus_bias():
    rng = np.random.default_rng(0)
    W, b, x = f32(rng.normal(size=(5, 7))), f32(rng.normal(size=5)), f32(rng.normal(size=7))
    z = np.float32(mac_chain(W, x) + b)
    assert fp(W, b, x, relu=False).tobytes() == z.tobytes()
    assert fp(W, b, x, relu=True).tobytes() == np.maximum(z, np.float32(0)).tobytes()


def test_fp_by_hand():
    """[[1, 2], [-3, 1]] [1, 1] + [0.5, 0] = [3.5, -2] -> ReLU [3.5, 0]."""
    out = fp(f32([[1, 2], [-3, 1]]), f32([0.5, 0]), f32([1, 1]), relu=True)
    assert out.tolist() == [3.5, 0.0]


def test_bp_is_transpose_chain_masked_by_relu():
    """d_prev = (W^T d) * (x > 0): the error back through the layer, zero where the ReLU that
    produced x was off."""
    rng = np.random.default_rng(1)
    W, d, x = f32(rng.normal(size=(4, 6))), f32(rng.normal(size=4)), f32(rng.normal(size=6))
    g = mac_chain(W.T.copy(), d)
    assert bp(W, d).tobytes() == g.tobytes()
    assert bp(W, d, x).tobytes() == np.where(x > 0, g, np.float32(0)).tobytes()


def test_wu_accumulates_outer_products():
    """Over a batch, G = sum_k d_k x_k^T and g_b = sum_k d_k, sample by sample."""
    rng = np.random.default_rng(2)
    G, gb = np.zeros((3, 4), np.float32), np.zeros(3, np.float32)
    want_G, want_b = np.zeros((3, 4), np.float32), np.zeros(3, np.float32)
    for _ in range(5):
        d, x = f32(rng.normal(size=3)), f32(rng.normal(size=4))
        G, gb = wu(G, gb, d, x)
        want_G = np.float32(want_G + np.outer(d, x).astype(np.float32))
        want_b = np.float32(want_b + d)
    assert G.tobytes() == want_G.tobytes() and gb.tobytes() == want_b.tobytes()
