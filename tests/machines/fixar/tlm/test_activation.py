"""The activation unit: the PWL tanh's derivative is the table's own slope, zero beyond xmax
(where 1 - y^2 would leave 0.00134)."""

import numpy as np

from rlaccel.isa.dtypes import get_dtype
from rlaccel.machines.fixar.tlm.activation import activate, derivative

Q = get_dtype("fixed32")


def test_tanh_derivative_is_the_segment_slope():
    """Inside a segment, f(z + h) - f(z) = slope * h to an LSB of rounding."""
    table = Q.pwl("tanh", 32)
    rng = np.random.default_rng(0)
    h = 64
    for _ in range(200):
        k = int(rng.integers(0, 32))
        z = int(rng.integers(table.breaks[k], table.breaks[k + 1] - h))
        for sign in (1, -1):
            zz = sign * z if sign > 0 else -(z + h)     # [-(z+h), -z] is the mirrored span
            dy = activate(Q, "tanh", np.array([zz + h]), segments=32) \
                - activate(Q, "tanh", np.array([zz]), segments=32)
            d = derivative(Q, "tanh", np.array([zz]), segments=32)
            assert abs(int(dy[0]) - int(d[0]) * h / 65536) <= 1.0


def test_tanh_derivative_vanishes_beyond_xmax():
    z = Q.quantize([3.99, 4.0, 50.0, -4.0, -1e4])
    d = Q.to_float(derivative(Q, "tanh", z, segments=32))
    assert d[0] > 0 and (d[1:] == 0).all()
    y = activate(Q, "tanh", z, segments=32)
    assert Q.to_float(Q.derivative("tanh", y))[2] > 1e-3     # what 1 - y^2 would give


def test_tanh_derivative_is_tanh_prime_at_segment_midpoints():
    """A chord's slope is the derivative at the segment's middle to O(h^2) (h = 1/8)."""
    mid = (np.arange(32) + 0.5) * 0.125
    for z in (mid, -mid):
        d = Q.to_float(derivative(Q, "tanh", Q.quantize(z), segments=32))
        assert np.abs(d - (1 - np.tanh(z) ** 2)).max() < 2e-3


def test_relu_and_none():
    z = np.array([-5, 0, 7])
    assert derivative(Q, "relu", z).tolist() == [0, 0, 65536]
    assert derivative(Q, "none", z).tolist() == [65536] * 3
