"""fp32: IEEE binary32 with the MADDPG accelerator's unfused multiply-add chains (seed 003,
section IV-A: a float multiplier-adder is a multiplier and an adder, 5 DSPs)."""

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rlaccel.isa.dtypes import Fp32Type, SaturationCounter, get_dtype
from rlaccel.util.errors import DTypeError

F = get_dtype("fp32")
f32_values = st.floats(-2.0 ** 100, 2.0 ** 100, width=32, allow_nan=False, allow_infinity=False)


def test_registry_and_storage():
    """fp32 is a cached, case-insensitive name; raw arrays are float32, 32-bit words."""
    assert isinstance(F, Fp32Type) and get_dtype(" FP32 ") is F
    assert (F.storage, F.bits, F.word_bytes, F.is_float) == (np.float32, 32, 4, True)
    assert F.lsb == 2.0 ** -23
    assert float(F.max_raw) == float(np.finfo(np.float32).max)


def test_quantize_rounds_to_nearest_even():
    """float64 -> float32 round to nearest even: 1 + 2^-24 (a tie) goes to 1, 1 + 3*2^-24 to
    1 + 2^-22; the result's dtype is float32."""
    r = F.quantize([1 + 2.0 ** -24, 1 + 3 * 2.0 ** -24, 0.1])
    assert r.dtype == np.float32
    assert r.tolist() == [1.0, 1 + 2.0 ** -22, float(np.float32(0.1))]


def test_quantize_overflow_counted_and_strict():
    """A finite value beyond the float32 range becomes inf and counts as a saturation;
    strict=True raises naming the value and its index."""
    c = SaturationCounter()
    r = F.quantize([1.0, 1e39, -1e39], counter=c)
    assert c.saturations == 2 and np.isinf(r[1:]).all()
    with pytest.raises(DTypeError, match=re.escape("value 1e+39 at index 1 is out of range for "
                                                   "fp32")):
        F.quantize([0.0, 1e39], strict=True)


def test_operands_must_be_fp32_values():
    """An operand that is not exactly an fp32 value is refused (never silently rounded)."""
    with pytest.raises(DTypeError, match="0.1 is not an fp32 value"):
        F.mul(np.array([0.1]), np.array([1.0]))
    assert F.mul(np.array([0.5]), np.array([3])).tolist() == [1.5]


@given(st.lists(f32_values, min_size=1, max_size=10), st.data())
def test_elementwise_equals_numpy_float32(a, data):
    """add/sub/mul are correctly rounded float32 operations: numpy's float32 arithmetic."""
    b = data.draw(st.lists(f32_values, min_size=len(a), max_size=len(a)))
    a32, b32 = np.array(a, np.float32), np.array(b, np.float32)
    with np.errstate(over="ignore"):
        assert F.add(a32, b32).tobytes() == (a32 + b32).tobytes()
        assert F.sub(a32, b32).tobytes() == (a32 - b32).tobytes()
        assert F.mul(a32, b32).tobytes() == (a32 * b32).tobytes()
        assert F.outer(a32, b32).tobytes() == np.outer(a32, b32).astype(np.float32).tobytes()


def test_matvec_accumulates_in_index_order():
    """Partial sums are float32 and sequential: 1e8 + 1 rounds back to 1e8 (ulp 8), so
    [1e8, 1, -1e8] sums to 0 and [1e8, -1e8, 1] to 1 (the exact sum is 1 in both)."""
    x = np.ones(3, np.float32)
    W = np.array([[1e8, 1, -1e8], [1e8, -1e8, 1], [1, 1e8, -1e8]], np.float32)
    assert F.matvec(W, x).tolist() == [0.0, 1.0, 0.0]
    assert F.dot(W[1], x).tolist() == 1.0


def test_products_are_rounded_before_the_add():
    """Unfused: (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds (a tie, to even) to 1 + 2^-11 before
    the -1 is added, so the dot product is 2^-11; a fused multiply-add would give
    2^-11 + 2^-24."""
    a = np.float32(1 + 2.0 ** -12)
    assert F.dot(np.array([a, -1], np.float32), np.array([a, 1], np.float32)) == 2.0 ** -11


@given(st.integers(1, 6), st.integers(1, 8), st.integers(1, 3), st.data())
def test_matvec_is_a_mac_chain(m, k, b, data):
    """matvec (vector and batch) equals a Python loop of float32 multiply, float32 add from +0;
    rmatvec is matvec of the transpose."""
    vals = st.floats(-100, 100, width=32, allow_nan=False)
    W = np.array(data.draw(st.lists(vals, min_size=m * k, max_size=m * k)),
                 np.float32).reshape(m, k)
    X = np.array(data.draw(st.lists(vals, min_size=k * b, max_size=k * b)),
                 np.float32).reshape(k, b)
    want = np.zeros((m, b), np.float32)
    for i in range(m):
        for c in range(b):
            acc = np.float32(0.0)
            for j in range(k):
                acc = np.float32(acc + np.float32(W[i, j] * X[j, c]))
            want[i, c] = acc
    assert F.matvec(W, X).tobytes() == want.tobytes()
    assert F.matvec(W, X[:, 0]).tobytes() == want[:, 0].tobytes()
    assert F.rmatvec(W.T.copy(), X).tobytes() == want.tobytes()


def test_matvec_overflow_counted():
    """An output that overflows to inf from finite operands is one saturation."""
    c = SaturationCounter()
    out = F.matvec(np.array([[3e38, 3e38], [1, 1]], np.float32), np.ones(2, np.float32),
                   counter=c)
    assert np.isposinf(out[0]) and out[1] == 2 and c.saturations == 1


def test_empty_and_negative_zero():
    """An empty sum is +0, and so is a sum of -0 products (the accumulator starts at +0)."""
    assert F.matvec(np.zeros((2, 0), np.float32), np.zeros(0, np.float32)).tolist() == [0, 0]
    z = F.matvec(np.array([[-0.0]], np.float32), np.array([1.0], np.float32))
    assert np.signbit(z).tolist() == [False]


def test_activations_round_the_float64_function():
    """tanh, sigmoid: the float64 function of the input rounded once to float32; relu exact;
    derivatives from y (tanh: 1 - y^2) rounded once."""
    v = F.quantize(np.linspace(-5, 5, 41))
    v64 = v.astype(np.float64)
    assert F.activate("tanh", v).tobytes() == np.tanh(v64).astype(np.float32).tobytes()
    assert F.activate("sigmoid", v).tobytes() == \
        (1 / (1 + np.exp(-v64))).astype(np.float32).tobytes()
    assert F.activate("relu", v).tolist() == np.maximum(v, 0).tolist()
    y = F.activate("tanh", v)
    assert F.derivative("tanh", y).tobytes() == \
        (1 - y.astype(np.float64) ** 2).astype(np.float32).tobytes()


@pytest.mark.parametrize("value, word", [(1.0, 0x3F800000), (-2.0, 0xC0000000),
                                         (0.1, 0x3DCCCCCD)])
def test_golden_words(value, word):
    """IEEE binary32 bit patterns, 4 little-endian bytes in a memory image."""
    raw = F.quantize(value)
    assert int(F.to_words(raw)) == word
    assert F.from_words(np.uint64(word)) == raw
    assert F.to_bytes(raw) == word.to_bytes(4, "little")
    with pytest.raises(DTypeError, match="word 0x100000000 does not fit the 32 bits of fp32"):
        F.from_words([1 << 32])


def test_cast_between_formats():
    """cast goes through the exact value: fp32 -> float64 is exact, float64 -> fp32 rounds."""
    raw = F.quantize([0.1, -3.5])
    assert F.cast(raw, get_dtype("float64")).tolist() == raw.astype(np.float64).tolist()
    assert get_dtype("float64").cast(np.array([0.1]), F).tobytes() == \
        np.float32([0.1]).tobytes()
