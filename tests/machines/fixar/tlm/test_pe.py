"""The configurable PE of Fig. 5: one exact 32x32 product from two 32x16 multipliers, or two
32x16 products kept apart."""

import itertools

import numpy as np
import pytest

from rlaccel.util.errors import DTypeError
from rlaccel.machines.fixar.tlm.pe import MUL_BITS, product_full, products_half, split

EDGES = [-(1 << 31), -(1 << 31) + 1, -65537, -65536, -65535, -1, 0, 1, 65535, 65536,
         (1 << 31) - 1]


def test_split_halves():
    for a in EDGES:
        hi, lo = split(a)
        assert a == hi * 65536 + lo and 0 <= lo < 65536 and -32768 <= hi < 32768


def test_full_product_equals_python_ints_on_edges():
    for w, a in itertools.product(EDGES, EDGES):
        assert product_full(w, a) == w * a


def test_full_product_vectorised(rng):
    w = rng.integers(-(1 << 31), 1 << 31, size=10_000)
    a = rng.integers(-(1 << 31), 1 << 31, size=10_000)
    got = product_full(w, a)
    assert [int(v) for v in got] == [int(x) * int(y) for x, y in zip(w, a)]


def test_half_products_kept_apart():
    """Two 16-bit operands (17-bit signed code offsets) against one weight."""
    w = np.array([-(1 << 31), (1 << 31) - 1, 12345])
    a0 = np.array([65535, -65536, -1])
    a1 = np.array([0, 1, 40000])
    p0, p1 = products_half(w, a0, a1)
    assert p0.tolist() == [int(x) * int(y) for x, y in zip(w, a0)]
    assert p1.tolist() == [int(x) * int(y) for x, y in zip(w, a1)]


def test_operands_out_of_range():
    with pytest.raises(DTypeError, match=f"does not fit {MUL_BITS}-bit signed"):
        products_half(1, 1 << 16, 0)
    with pytest.raises(DTypeError, match="weight = 2147483648 does not fit 32-bit signed"):
        product_full(1 << 31, 1)
