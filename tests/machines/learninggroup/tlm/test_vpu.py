"""The FP16 VPU (machines/learninggroup/tlm/vpu.py): every multiply and add rounded to
half precision, partial sums in FP16 registers."""

from __future__ import annotations

import numpy as np
import pytest

from rlaccel.isa.dtypes import SaturationCounter, get_dtype
from rlaccel.util.errors import SimError
from rlaccel.machines.learninggroup.tlm import vpu

F16 = np.float16


def _values(rng, n):
    """FP16 values over the whole range: normal, subnormal, zeros of both signs."""
    v = rng.standard_normal(n) * 10.0 ** rng.uniform(-6, 4, n)
    v[:8] = [0.0, -0.0, 6e-8, -6e-8, 65504.0, -65504.0, 1e-5, 3.0]
    return v.astype(F16)


def test_mul_and_add_are_numpy_float16_and_isa_fp16():
    """The multiplier and adder equal numpy's float16 operators and isa.dtypes' fp16."""
    rng = np.random.default_rng(0)
    a, b = _values(rng, 20000), _values(rng, 20000)
    fp16 = get_dtype("fp16")
    with np.errstate(over="ignore"):
        want_mul, want_add = a * b, a + b
    assert np.array_equal(vpu.mul(a, b), want_mul, equal_nan=True)
    assert np.array_equal(vpu.add(a, b), want_add, equal_nan=True)
    assert np.array_equal(vpu.mul(a, b), fp16.mul(a, b), equal_nan=True)
    assert np.array_equal(vpu.add(a, b), fp16.add(a, b), equal_nan=True)


def test_mac_rounds_twice():
    """acc + w*a is fp16(acc + fp16(w*a)), not a fused multiply-add: 1 + (1+2^-10)^2 loses
    the 2^-20 term of the product before the add."""
    w = F16(1 + 2 ** -10)
    assert vpu.mac(F16(1.0), w, w) == F16(1.0) + F16(w * w)
    assert float(vpu.mac(F16(1.0), w, w)) == 2.001953125


def test_dot_is_the_step_by_step_float16_chain():
    """dot() equals a loop of numpy float16 MACs from +0, for lengths up to 512."""
    rng = np.random.default_rng(1)
    for n in (0, 1, 2, 7, 64, 512):
        for _ in range(20):
            w = (rng.standard_normal(n) * 4).astype(F16)
            x = (rng.standard_normal(n) * 4).astype(F16)
            acc = F16(0.0)
            for k in range(n):
                acc = F16(acc + F16(w[k] * x[k]))
            got = vpu.dot(w, x)
            assert got.dtype == F16 and got.tobytes() == np.asarray(acc).tobytes()


def test_matvec_is_one_chain_per_output():
    """matvec(W, x)[i] == dot(W[i], x)."""
    rng = np.random.default_rng(2)
    W = rng.standard_normal((9, 33)).astype(F16)
    x = rng.standard_normal(33).astype(F16)
    assert np.array_equal(vpu.matvec(W, x), [vpu.dot(W[i], x) for i in range(9)])


def test_fp16_accumulation_differs_from_the_dtype_matvec():
    """isa.dtypes' fp16.matvec accumulates in float32 and rounds once; the VPU rounds every
    partial sum: 2048 + 1 + 1 + 1 + 1 is 2048 on the VPU (the 1s fall below half an ulp),
    2052 in the dtype. Over random 512-term products the VPU's error is larger."""
    fp16 = get_dtype("fp16")
    w = np.array([2048, 1, 1, 1, 1], F16)
    one = np.ones(5, F16)
    assert float(vpu.dot(w, one)) == 2048.0
    assert float(fp16.matvec(w[None, :], one)[0]) == 2052.0
    rng = np.random.default_rng(3)
    W = rng.standard_normal((64, 512)).astype(F16)
    x = rng.standard_normal(512).astype(F16)
    exact = W.astype(np.float64) @ x.astype(np.float64)
    err_vpu = np.abs(vpu.matvec(W, x) - exact).mean()
    err_dtype = np.abs(fp16.matvec(W, x).astype(np.float64) - exact).mean()
    assert err_vpu > 2 * err_dtype


def test_overflow_counts_as_a_saturation():
    """A chain that overflows to inf from finite operands is counted."""
    c = SaturationCounter()
    out = vpu.dot(np.array([60000, 60000], F16), np.ones(2, F16), counter=c)
    assert np.isinf(out) and c.saturations == 1


def test_vpu_array_cycles_select_and_accumulate():
    """Each VPU multiplies its weight by the selected broadcast activation into the register
    of that select; disabled VPUs keep their registers. Step by step in numpy float16."""
    rng = np.random.default_rng(4)
    n = 264
    arr = vpu.VpuArray(n)
    ref = np.zeros((4, n), F16)
    for _ in range(6):
        w = rng.standard_normal(n).astype(F16)
        act = rng.standard_normal(4).astype(F16)
        sel = rng.integers(0, 4, n)
        en = rng.random(n) < 0.8
        arr.cycle(w, act, sel, en)
        for p in np.flatnonzero(en):
            ref[sel[p], p] = F16(ref[sel[p], p] + F16(w[p] * act[sel[p]]))
    assert arr.acc.tobytes() == ref.tobytes()
    assert arr.cycles == 6 and 0 < arr.busy < 6 * n
    arr.clear()
    assert not arr.acc.any()


def test_vpu_array_errors():
    """Wrong widths, more than four activations, selects out of range, non-FP16 values."""
    arr = vpu.VpuArray(4)
    w = np.ones(4, F16)
    with pytest.raises(SimError, match=r"broadcasts 1..4 activations, not 5"):
        arr.cycle(w, np.ones(5, F16), np.zeros(4, int))
    with pytest.raises(SimError, match=r"a select is outside 0..1"):
        arr.cycle(w, np.ones(2, F16), np.array([0, 1, 2, 0]))
    with pytest.raises(SimError, match=r"4 VPUs need 4 weights and selects, not 3 and 4"):
        arr.cycle(np.ones(3, F16), np.ones(2, F16), np.zeros(4, int))
    with pytest.raises(SimError, match=r"VPU weights: 0.1 is not an FP16 value"):
        arr.cycle(np.full(4, 0.1), np.ones(2, F16), np.zeros(4, int))
    with pytest.raises(SimError, match=r"at least one VPU, not 0"):
        vpu.VpuArray(0)


def test_the_vpu_chain_is_the_dtypes_fp16_accumulation():
    """vpu.dot and vpu.matvec are isa.dtypes' fp16 with accumulate="fp16" (the format the
    learninggroup architecture names), bit for bit."""
    acc = get_dtype("fp16", accumulate="fp16")
    rng = np.random.default_rng(9)
    W = rng.standard_normal((17, 300)).astype(F16)
    x = rng.standard_normal(300).astype(F16)
    assert np.array_equal(vpu.matvec(W, x), acc.matvec(W, x))
    assert np.array_equal(vpu.dot(W, x[None, :]), acc.matvec(W, x))
    assert vpu.dot(W[3], x) == acc.dot(W[3], x)
