"""The printed form of the DARL paper's algorithm (machines/darl/tlm/printed.py): eq. 9's
per-chunk cosine in fixed point equals its compiled kernel bit for bit and the float cosine
to the format's resolution; eq. 14 as printed; the cycles it adds."""

import numpy as np
import pytest

from rlaccel.isa.dtypes import SaturationCounter, get_dtype
from rlaccel.machines.darl.tlm import kernels as K
from rlaccel.machines.darl.tlm.printed import (cosine_actions, cosine_cycles, printed_cycles,
                                               regress_cosine, update_value_printed)
from rlaccel.machines.darl.tlm.regression import regress
from rlaccel.machines.darl.tlm.timing import LatencyConstants, Optimisations, instruction_cycles

FX = get_dtype("fixed32")


def _operands(rng, a=3, d=64, scale=1 << 20):
    re = rng.integers(-(1 << 16), 1 << 16, d)
    im = rng.integers(-(1 << 16), 1 << 16, d)
    qr = rng.integers(-scale, scale, (a, d))
    qi = rng.integers(-scale, scale, (a, d))
    qr[0, :16] = 0                       # a zero chunk of the model: its term is 0
    qi[1] = FX.max_raw                   # saturated words
    return re, im, qr, qi


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_kernel_value_equals_the_unit_model_bit_for_bit(seed):
    re, im, qr, qi = _operands(np.random.default_rng(seed))
    c = SaturationCounter()
    v = regress_cosine(re, im, qr, qi, chunk=16, fmt=FX, counter=c)
    for a in range(qr.shape[0]):
        k, sat = K._value_cos(re, im, qr, qi, a, 16, FX.frac_bits, FX.min_raw, FX.max_raw)
        assert k == v[a] and sat == 0
    assert c.saturations == 0


def test_the_fixed_point_value_is_the_float_cosine_to_half_an_lsb():
    re, im, qr, qi = _operands(np.random.default_rng(4))
    v = FX.to_float(regress_cosine(re, im, qr, qi, chunk=16, fmt=FX))
    f = regress(re.astype(float), im.astype(float), qr.astype(float), qi.astype(float),
                chunk=16, norm="chunk", imag_sign=-1)
    assert np.all(np.abs(v - f) <= 2.0 ** -17 + 1e-12)
    # a cosine per chunk and part: bounded by twice the number of chunks
    assert np.all(np.abs(f) <= 2 * 64 // 16)


def test_eq_14_as_printed():
    beta, r = FX.quantize(0.05), FX.quantize(1.0)
    q_pred, q_true = FX.quantize(2.0), FX.quantize(3.0)
    v = update_value_printed(q_pred, q_true, r, beta=beta, fmt=FX)
    assert FX.to_float(v) == pytest.approx((3.0 - 2.0) * 0.05 + 1.0, abs=2 ** -16)
    assert update_value_printed(2.0, 3.0, 1.0, beta=0.05) == pytest.approx(1.05)


def test_the_cosine_adds_its_depth_to_the_regression():
    c, opt = LatencyConstants(), Optimisations()
    extra = cosine_cycles(16, c)
    assert extra == 2 * c.mul + 4 * c.add + 64 * c.add
    for printed, base in (("hreg.c", "hreg"), ("hreg.tc", "hreg.t")):
        assert (printed_cycles(printed, n=2, d=2048, chunk=16, c=c, opt=opt)
                == instruction_cycles(base, n=2, d=2048, chunk=16, c=c, opt=opt) + extra)
    assert printed_cycles("hupd.p", n=1, d=16, chunk=16, c=c, opt=opt) == c.mul + 2 * c.add
    acts = cosine_actions(2, 2048, 16)
    assert acts["mul"] == 2 * 2048 + 2 * 2 * 2048 + 2 * 2 * 128
