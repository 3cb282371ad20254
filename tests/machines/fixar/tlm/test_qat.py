"""Algorithm 1's quantiser: Q_n(A) = floor(A / delta) + z, delta = (A_max - A_min) / 2**n,
z = floor(-A_min / delta); codes clipped to n bits; the power-of-two step the hardware uses."""

import math

import numpy as np
import pytest

from rlaccel.isa.dtypes import SaturationCounter, get_dtype
from rlaccel.util.errors import DTypeError
from rlaccel.machines.fixar.tlm.qat import (RangeMonitor, dequantize, operand, qat_params,
                                            quantize, quantize_raw)


def test_monitor_keeps_min_and_max():
    m = RangeMonitor()
    assert not m.seen
    m.observe([0.5, -2.0])
    m.observe(np.array([[3.0], [1.0]]))
    m.observe([])
    assert (m.amin, m.amax, m.count) == (-2.0, 3.0, 4)


def test_algorithm1_parameters_by_hand():
    """[-1, 3] at n = 2: delta = 4 / 4 = 1, z = floor(1 / 1) = 1."""
    p = qat_params(-1.0, 3.0, 2, pow2=False)
    assert (p.delta, p.zero, p.exponent) == (1.0, 1, None)
    # A = -1 -> floor(-1) + 1 = 0; 0.5 -> 0 + 1 = 1; 2.9 -> 2 + 1 = 3; 3 -> 3 + 1 = 4 -> clip 3
    c = SaturationCounter()
    assert quantize([-1.0, 0.5, 2.9, 3.0], p, counter=c).tolist() == [0, 1, 3, 3]
    assert c.saturations == 1
    assert dequantize([0, 1, 3], p).tolist() == [-1.0, 0.0, 2.0]


def test_real_step_with_a_fractional_minimum():
    """[-0.3, 0.9] at n = 3: delta = 0.15, z = floor(2) = 2; A_min itself maps to -1 -> 0."""
    p = qat_params(-0.3, 0.9, 3, pow2=False)
    assert math.isclose(p.delta, 0.15) and p.zero == math.floor(0.3 / p.delta)
    q = quantize([-0.3, 0.0, 0.44, 0.9], p)
    want = [max(min(math.floor(a / p.delta) + p.zero, 7), 0) for a in (-0.3, 0.0, 0.44, 0.9)]
    assert q.tolist() == want


def test_power_of_two_step_covers_the_range():
    """delta rounded up to 2**e: the range still fits the 2**n codes."""
    for lo, hi in [(0.0, 10.0), (-3.7, 250.0), (0.0, 1.0), (-1.0, 1.0), (0.0, 65536.0)]:
        p = qat_params(lo, hi, 16)
        assert p.delta == 2.0 ** p.exponent and p.delta >= (hi - lo) / 65536
        assert p.delta < 2 * (hi - lo) / 65536
        q = quantize(np.linspace(lo, hi, 1001), p)
        assert q.min() >= 0 and q.max() <= 65535
        err = np.linspace(lo, hi, 1001) - dequantize(q, p)
        inside = (q > 0) & (q < 65535)      # the ends may clip (code -1 or 2**n)
        assert (err[inside] >= 0).all() and (err[inside] < p.delta).all()   # floor
        assert (np.abs(err) <= p.delta).all()
    assert qat_params(0.0, 1.0, 16).exponent == -16     # exactly 2**-16: not rounded up


def test_raw_path_equals_float_path():
    """The accelerator's integer quantiser (shifts) equals Algorithm 1 on the same values."""
    q32 = get_dtype("fixed32")
    rng = np.random.default_rng(5)
    raw = rng.integers(-(1 << 20), 1 << 22, size=5000)
    vals = q32.to_float(raw)
    p = qat_params(float(vals.min()), float(vals.max()), 16)
    assert (quantize_raw(raw, 16, p) == quantize(vals, p)).all()
    big = qat_params(-1e6, 1e6, 8)          # step 2**13 > 1: the shift goes the other way
    raw2 = q32.quantize(np.array([-1e4, 5e3, 3e4]))
    assert (quantize_raw(raw2, 16, big) == quantize(q32.to_float(raw2), big)).all()


def test_operand_is_a_fixed_point_number():
    p = qat_params(-2.0, 6.0, 16)           # delta = 2**-13, z = 16384
    codes = quantize([-2.0, 0.0, 1.5], p)
    x, f = operand(codes, p)
    assert f == 13 and (x * 2.0 ** -f).tolist() == dequantize(codes, p).tolist()
    x, f = operand(quantize([1e6], qat_params(0.0, 1e6, 8)), qat_params(0.0, 1e6, 8))
    assert f == 0


def test_empty_and_bad_ranges():
    p = qat_params(0.0, 0.0, 16)             # a ReLU that never fired
    assert p.delta > 0 and quantize([0.0], p).tolist() == [p.zero]
    with pytest.raises(DTypeError, match="no activation was observed"):
        qat_params(math.inf, -math.inf)
    with pytest.raises(DTypeError, match="outside 1..17"):
        qat_params(0.0, 1.0, 18)
    with pytest.raises(DTypeError, match="power-of-two step"):
        quantize_raw([1], 16, qat_params(0.0, 1.0, 16, pow2=False))
