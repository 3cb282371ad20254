"""The compiled fixed-point helpers that no kernel test reaches equal ``isa.dtypes``:
``quantize`` (the batch hosts' replies) on random, tie, huge and non-finite values."""

import numpy as np
import pytest

from rlaccel.isa.dtypes import SaturationCounter, get_dtype
from rlaccel.tlm.fast import fixedpoint as fx


@pytest.mark.parametrize("name", ["q6.18", "q1.15", "q16.16", "q32.0", "q2.30", "q8.8"])
def test_quantize_equals_the_dtype(name):
    dt = get_dtype(name)
    rng = np.random.default_rng(1)
    v = rng.standard_normal(5000) * rng.choice([1e-6, 1.0, 10.0, 1e5, 1e12], 5000)
    step = 2.0 ** -dt.frac_bits
    v[::7] = np.round(v[::7] / step) * step + step / 2               # ties round up
    v[::97], v[::101], v[::103] = np.nan, np.inf, -np.inf
    c = SaturationCounter()
    with np.errstate(all="ignore"):
        want = dt.quantize(v.reshape(50, 100), counter=c)
    got = np.zeros((50, 100), dtype=np.int64)
    assert fx.quantize(v.reshape(50, 100), got, fx.constants(dt), 0) == c.saturations
    assert np.array_equal(got, want) and c.saturations > 0
