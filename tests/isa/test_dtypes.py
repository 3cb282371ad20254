"""isa.dtypes: names, quantization, fixed-point arithmetic, floats, words, activations.

Each test's docstring states the rule it checks. Fixed-point results are compared with an
independent exact reference written with Python ints and Fractions.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rlaccel.isa.dtypes as dtypes
from rlaccel.isa.dtypes import ACTIVATIONS, SaturationCounter, get_dtype
from rlaccel.util.errors import DTypeError

FIXED = ["q6.18", "q2.4", "q8.8", "fixed16", "fixed32"]


# --------------------------------------------------------------------------- exact reference
def ref_round(num: int, shift: int) -> int:
    """floor(num / 2**shift + 1/2) with exact rationals."""
    return math.floor(Fraction(num, 1 << shift) + Fraction(1, 2))


def ref_sat(v: int, dt) -> int:
    return min(max(v, dt.min_raw), dt.max_raw)


def ref_quantize(x: float, dt) -> int:
    return ref_sat(math.floor(Fraction(x) * (1 << dt.frac_bits) + Fraction(1, 2)), dt)


def ref_mul(a: int, b: int, dt) -> int:
    return ref_sat(ref_round(a * b, dt.frac_bits), dt)


def ref_matvec(W, x, dt) -> list[int]:
    return [ref_sat(ref_round(sum(int(w) * int(v) for w, v in zip(row, x)), dt.frac_bits), dt)
            for row in W]


def raw_values(dt):
    """Raw operands: uniform over the format, plus its edges (0, +-1 LSB, +-1.0, extremes)."""
    edges = [0, 1, -1, dt.min_raw, dt.min_raw + 1, dt.max_raw, dt.max_raw - 1, dt.one, -dt.one]
    edges = [e for e in edges if dt.min_raw <= e <= dt.max_raw]
    return st.one_of(st.sampled_from(edges), st.integers(dt.min_raw, dt.max_raw))


fixed_names = st.sampled_from(FIXED)


@st.composite
def any_qformat(draw):
    m = draw(st.integers(1, 32))
    n = draw(st.integers(0, 32 - m))
    return get_dtype(f"q{m}.{n}")


# --------------------------------------------------------------------------- names
def test_names_bits_range_lsb():
    """qM.N has M+N bits, range [-2^(M-1), 2^(M-1)), lsb 2^-N; q6.18 is 24-bit [-32, 32)."""
    q = get_dtype("q6.18")
    assert (q.bits, q.int_bits, q.frac_bits, q.word_bytes) == (24, 6, 18, 3)
    assert q.min_raw * q.lsb == -32.0 and (q.max_raw + 1) * q.lsb == 32.0
    assert q.lsb == 2.0 ** -18 and q.storage == np.int64 and not q.is_float
    assert get_dtype("q2.4").bits == 6 and get_dtype("q1.31").bits == 32
    assert get_dtype("q32.0").lsb == 1.0


def test_fixar_aliases():
    """fixed32 is q16.16 and fixed16 is q8.8 (FIXAR gives no split; see registry docs)."""
    assert get_dtype("fixed32").format == "q16.16"
    assert get_dtype("fixed16").format == "q8.8"
    assert (get_dtype("fixed32").bits, get_dtype("fixed16").bits) == (32, 16)
    assert get_dtype("fixed32").name == "fixed32"


def test_float_formats():
    """fp16 stores float16 (16 bits, 2 bytes), float64 float64 (64 bits, 8 bytes)."""
    h, d = get_dtype("fp16"), get_dtype("float64")
    assert h.is_float and d.is_float
    assert (h.storage, h.bits, h.word_bytes) == (np.float16, 16, 2)
    assert (d.storage, d.bits, d.word_bytes) == (np.float64, 64, 8)
    assert h.frac_bits is None and d.int_bits is None
    assert float(h.max_raw) == 65504.0


def test_case_insensitive_and_cached():
    """Names are case-insensitive and instances are cached per (name, options)."""
    assert get_dtype("Q6.18") is get_dtype(" q6.18 ")
    assert get_dtype("FP16") is get_dtype("fp16")
    assert get_dtype("q6.18", segments=16) is get_dtype("q6.18")
    assert get_dtype("q6.18", segments=32) is not get_dtype("q6.18")
    assert get_dtype("q6.18", segments=32).segments == 32


@pytest.mark.parametrize("name, message", [
    ("q6", "unknown number format 'q6'; valid forms: qM.N"),
    ("float32", "unknown number format 'float32'; valid forms: qM.N"),
    ("q0.8", "invalid number format 'q0.8': M counts the sign bit and must be >= 1"),
    ("q20.13", "invalid number format 'q20.13': M + N = 33 exceeds 32 bits"),
])
def test_unknown_names(name, message):
    """Bad names raise DTypeError listing the valid forms."""
    with pytest.raises(DTypeError, match=re.escape(message)) as info:
        get_dtype(name)
    assert "fixed32 (= q16.16), fixed16 (= q8.8), fp16, fp32, float64" in str(info.value)


def test_bad_options():
    """Unknown options and non-positive segment counts raise DTypeError."""
    with pytest.raises(DTypeError, match="unknown number-format option rounding: valid "
                                         "options are segments"):
        get_dtype("q6.18", rounding="even")
    with pytest.raises(DTypeError, match="segments must be a positive integer, not 0"):
        get_dtype("q6.18", segments=0)


def test_public_surface():
    """__all__ names exist and the activation order is the one the ISA encodes."""
    for name in dtypes.__all__:
        assert hasattr(dtypes, name)
    assert ACTIVATIONS == ("none", "tanh", "sigmoid", "relu", "bsig")


# --------------------------------------------------------------------------- quantize
@settings(max_examples=300)
@given(fixed_names, st.floats(-300, 300, allow_nan=False))
def test_quantize_matches_exact_rule(name, x):
    """quantize(x) = sat(floor(x * 2^N + 1/2)), computed exactly."""
    dt = get_dtype(name)
    assert int(dt.quantize(x)) == ref_quantize(x, dt)


@given(any_qformat(), st.data())
def test_quantize_round_trip(dt, data):
    """Inside the range, |to_float(quantize(x)) - x| <= lsb/2; raw -> float -> raw is exact."""
    lo, hi = dt.min_raw * dt.lsb, dt.max_raw * dt.lsb
    x = data.draw(st.floats(lo, hi))
    assert abs(float(dt.to_float(dt.quantize(x))) - x) <= dt.lsb / 2
    raw = data.draw(raw_values(dt))
    assert int(dt.quantize(dt.to_float(raw))) == raw


def test_quantize_ties_round_up():
    """Ties round up (towards +inf) and the float just below 1/2 LSB rounds down."""
    q = get_dtype("q2.4")
    assert q.quantize([1.5 / 16, -1.5 / 16, 0.5 / 16, -0.5 / 16]).tolist() == [2, -1, 1, 0]
    below_half = np.nextafter(0.5, 0.0) / 16
    assert int(q.quantize(below_half)) == 0


def test_quantize_saturates_and_counts():
    """Out-of-range values saturate to min_raw/max_raw; each one counts on the format and on
    the optional counter; NaN becomes 0 and counts too."""
    q = get_dtype("q6.18")
    q.reset_counters()
    c = SaturationCounter()
    raw = q.quantize([100.0, -100.0, 0.5, np.inf, -np.inf, np.nan], counter=c)
    assert raw.tolist() == [q.max_raw, q.min_raw, 1 << 17, q.max_raw, q.min_raw, 0]
    assert q.saturations == 5 and c.saturations == 5
    q.quantize(31.999999)            # rounds to 32.0: saturates
    assert q.saturations == 6 and c.saturations == 5
    q.reset_counters()
    c.reset()
    assert q.saturations == 0 and c.saturations == 0
    assert int(q.quantize(-32.0)) == q.min_raw and q.saturations == 0


def test_quantize_strict_messages():
    """strict=True raises DTypeError naming the value, its index and the range."""
    q = get_dtype("q6.18")
    rng = "(range [-32.0, 31.999996185302734])"
    with pytest.raises(DTypeError,
                       match=re.escape(f"value 40.0 is out of range for q6.18 {rng}")):
        q.quantize(40.0, strict=True)
    with pytest.raises(DTypeError,
                       match=re.escape(f"value -33.5 at index 2 is out of range for q6.18 {rng}")):
        q.quantize([0.0, 1.0, -33.5, 50.0], strict=True)
    with pytest.raises(DTypeError,
                       match=re.escape(f"value nan at index (0, 1) is not finite for q6.18 {rng}")):
        q.quantize([[0.0, np.nan]], strict=True)
    with pytest.raises(DTypeError, match=re.escape("value inf at index (1, 0) is not finite for "
                                                   "fp16 (range [-65504.0, 65504.0])")):
        get_dtype("fp16").quantize([[0.0], [np.inf]], strict=True)
    with pytest.raises(DTypeError, match=re.escape("value 70000.0 is out of range for fp16")):
        get_dtype("fp16").quantize(70000.0, strict=True)
    with pytest.raises(DTypeError, match=re.escape(f"value inf is not finite for q6.18 {rng}")):
        q.quantize(np.inf, strict=True)
    assert q.quantize([-32.0, 31.999998], strict=True).tolist() == [q.min_raw, q.max_raw]


def test_raw_operands_are_checked():
    """Operations take raw integer arrays inside the format; anything else is a DTypeError."""
    q = get_dtype("q2.4")
    with pytest.raises(DTypeError, match="q2.4 operands must be raw integer arrays, not float64"):
        q.mul(np.array([0.5]), np.array([1]))
    with pytest.raises(DTypeError, match=re.escape("raw value 32 is outside q2.4 [-32, 31]")):
        q.add([32], [0])
    with pytest.raises(DTypeError, match="0.1 is not an fp16 value"):
        get_dtype("fp16").mul(np.array([0.1]), np.array([1.0]))


# --------------------------------------------------------------------------- fixed arithmetic
@settings(max_examples=300)
@given(fixed_names, st.data())
def test_mul_add_sub_match_reference(name, data):
    """mul = sat(floor(a*b / 2^N + 1/2)); add/sub = sat(exact); for edge and random operands."""
    dt = get_dtype(name)
    a = data.draw(st.lists(raw_values(dt), min_size=1, max_size=8))
    b = data.draw(st.lists(raw_values(dt), min_size=len(a), max_size=len(a)))
    assert dt.mul(a, b).tolist() == [ref_mul(x, y, dt) for x, y in zip(a, b)]
    assert dt.add(a, b).tolist() == [ref_sat(x + y, dt) for x, y in zip(a, b)]
    assert dt.sub(a, b).tolist() == [ref_sat(x - y, dt) for x, y in zip(a, b)]


@given(any_qformat(), st.data())
def test_mul_any_format(dt, data):
    """The mul rule holds for every qM.N, M + N <= 32."""
    a, b = data.draw(raw_values(dt)), data.draw(raw_values(dt))
    assert int(dt.mul(a, b)) == ref_mul(a, b, dt)


def test_mul_rounding_examples():
    """q2.4 (raw units): 2*3/16 = 0.375 -> 0; 4*3/16 = 0.75 -> 1; 8*1/16 = 0.5 -> 1 and
    8*-1/16 = -0.5 -> 0 (half up); -32*-32/16 = 64 saturates to 31."""
    q = get_dtype("q2.4")
    assert q.mul([2, 4, 8, 8, -32], [3, 3, 1, -1, -32]).tolist() == [0, 1, 1, 0, 31]


@settings(max_examples=200)
@given(fixed_names, st.data())
def test_matvec_matches_reference(name, data):
    """matvec: y_i = sat(floor(sum_j W_ij x_j / 2^N + 1/2)), one rounding of the exact sum;
    rmatvec is the same on W.T, dot on one row, outer is mul of every pair."""
    dt = get_dtype(name)
    m, k = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 12))
    W = data.draw(st.lists(st.lists(raw_values(dt), min_size=k, max_size=k),
                           min_size=m, max_size=m))
    x = data.draw(st.lists(raw_values(dt), min_size=k, max_size=k))
    g = data.draw(st.lists(raw_values(dt), min_size=m, max_size=m))
    Wa = np.array(W, dtype=np.int64)
    assert dt.matvec(Wa, x).tolist() == ref_matvec(W, x, dt)
    assert dt.rmatvec(Wa, g).tolist() == ref_matvec(Wa.T.tolist(), g, dt)
    assert int(dt.dot(W[0], x)) == ref_matvec([W[0]], x, dt)[0]
    assert int(dt.sumsq(x)) == ref_matvec([x], x, dt)[0]
    assert dt.outer(g, x).tolist() == [[ref_mul(a, b, dt) for b in x] for a in g]


@given(any_qformat(), st.data())
def test_matvec_any_format_and_batch(dt, data):
    """The matvec rule holds for every qM.N, and a (K, B) batch equals B separate matvecs."""
    k = data.draw(st.integers(1, 6))
    W = data.draw(st.lists(st.lists(raw_values(dt), min_size=k, max_size=k), min_size=2,
                           max_size=2))
    X = data.draw(st.lists(st.lists(raw_values(dt), min_size=2, max_size=2), min_size=k,
                           max_size=k))
    Xa = np.array(X, dtype=np.int64)
    got = dt.matvec(W, Xa)
    for b in range(2):
        assert got[:, b].tolist() == ref_matvec(W, Xa[:, b].tolist(), dt)


def test_matvec_rounds_once():
    """Rounding the sum once differs from summing rounded products: q2.4, four products of
    0.375 LSB each give 1.5 LSB -> 2 (products rounded one by one would give 0)."""
    q = get_dtype("q2.4")
    W = np.array([[2, 2, 2, 2]])
    x = np.array([3, 3, 3, 3])
    assert q.matvec(W, x).tolist() == [2]
    assert q.mul(W[0], x).sum() == 0


def test_matvec_huge_cancelling_terms_fixed32():
    """fixed32 with 32768 terms of magnitude 2^62 (the guaranteed bound, split into 16-bit
    limbs) is exact even when the terms cancel; 32769 such terms raise DTypeError."""
    f = get_dtype("fixed32")
    assert f.max_terms == 32768
    k = 32768
    w = np.full(k, f.min_raw, dtype=np.int64)
    x = np.where(np.arange(k) % 2 == 0, f.min_raw, f.max_raw).astype(np.int64)
    x[-3:] = [12345, -99, f.max_raw]
    want = ref_matvec([w.tolist()], x.tolist(), f)
    assert f.matvec(w[None, :], x).tolist() == want
    assert int(f.dot(w, x)) == want[0]
    big = np.full(k + 1, f.min_raw, dtype=np.int64)
    with pytest.raises(DTypeError, match=re.escape(
            "fixed32 matvec: a 32769-term sum of these values could overflow the exact int64 "
            "accumulator (at most 32768 terms of any values)")):
        f.matvec(big[None, :], big)


@pytest.mark.parametrize("name", ["q32.0", "q24.8", "q1.31", "fixed32", "q17.15"])
def test_matvec_split_limbs_every_binary_point(name):
    """Extreme operands whose int64 sum could overflow take the 16-bit-limb path; the result
    still equals the exact rule, whatever the binary point (above, at or below bit 16)."""
    dt = get_dtype(name)
    lo, hi = dt.min_raw, dt.max_raw
    W = [[lo, lo, hi, 1, lo], [hi, hi, hi, hi, -1], [lo, hi, lo, hi, 12345]]
    x = [lo, hi, lo, -1, 7]
    assert dt.matvec(np.array(W), x).tolist() == ref_matvec(W, x, dt)
    assert dt.rmatvec(np.array(W).T, x).tolist() == ref_matvec(W, x, dt)


def test_matvec_small_values_allow_many_terms():
    """When the values are small the exact int64 sum takes more than max_terms terms."""
    f = get_dtype("fixed32")
    k = 100_000
    w = np.full(k, 3 << 16, dtype=np.int64)        # 3.0
    x = np.full(k, -(1 << 14), dtype=np.int64)     # -0.25
    assert int(f.dot(w, x)) == f.min_raw           # -75000 saturates at -32768
    assert int(f.dot(w[:1000], x[:1000])) == -750 << 16


def test_matvec_saturation_counted_and_empty():
    """Each saturated output counts once; K = 0 gives zeros."""
    q = get_dtype("q2.4")
    c = SaturationCounter()
    W = np.array([[31, 31], [-32, -32], [1, 0]])
    assert q.matvec(W, [31, 31], counter=c).tolist() == [31, -32, 2]
    assert c.saturations == 2
    assert q.matvec(np.zeros((3, 0), np.int64), np.zeros(0, np.int64)).tolist() == [0, 0, 0]


def test_accumulator_bits():
    """A K-term Q6.18 dot product of Q12.36 products needs bitlen(K * 2^46) + 1 bits."""
    q = get_dtype("q6.18")
    assert q.accumulator_bits(1) == 48
    assert q.accumulator_bits(400) == 56
    assert q.max_terms >= 1 << 15


def test_cast_between_formats():
    """cast: fixed -> fixed shifts the binary point, rounding half up and saturating;
    anything -> float goes through the exact value."""
    f32, f16 = get_dtype("fixed32"), get_dtype("fixed16")
    raw = f32.quantize([1.5, 1.0 + 2 ** -9, 1.0 + 2 ** -9 - 2 ** -16, -1.0 - 2 ** -9, 200.0])
    c = SaturationCounter()
    assert f32.cast(raw, f16, counter=c).tolist() == [384, 257, 256, -256, f16.max_raw]
    assert c.saturations == 1
    assert f16.cast(f16.quantize(1.5), get_dtype("fixed32")).tolist() == 1.5 * 65536
    assert f32.cast(raw, get_dtype("float64")).tolist() == f32.to_float(raw).tolist()
    assert get_dtype("float64").cast(0.3, f16).tolist() == int(f16.quantize(0.3))


# --------------------------------------------------------------------------- floats
finite64 = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@st.composite
def float_matrix(draw):
    m, k = draw(st.integers(1, 8)), draw(st.integers(1, 12))
    W = np.array(draw(st.lists(finite64, min_size=m * k, max_size=m * k))).reshape(m, k)
    x = np.array(draw(st.lists(finite64, min_size=k, max_size=k)))
    g = np.array(draw(st.lists(finite64, min_size=m, max_size=m)))
    return W, x, g


@given(float_matrix())
def test_float64_is_plain_numpy(args):
    """float64: matvec is W @ x, rmatvec W.T @ g, outer np.outer, mul a * b, bit for bit."""
    W, x, g = args
    d = get_dtype("float64")
    assert d.matvec(W, x).tobytes() == (W @ x).tobytes()
    assert d.rmatvec(W, g).tobytes() == (W.T @ g).tobytes()
    assert d.outer(g, x).tobytes() == np.outer(g, x).tobytes()
    assert d.mul(W, W).tobytes() == (W * W).tobytes()
    assert d.add(x, x).tobytes() == (x + x).tobytes()
    assert float(d.dot(x, x)) == float(x @ x) == float(d.sumsq(x))
    assert d.quantize(W).tobytes() == W.tobytes() and d.saturations == 0


def test_float64_activations_exact():
    """float64 activations are np.tanh, 1/(1+exp(-v)), max(v,0), tanh(v/2); derivatives from y:
    1-y^2, y(1-y), y>0, 1, (1-y^2)/2."""
    d = get_dtype("float64")
    v = np.linspace(-6, 6, 101)
    assert d.activate("tanh", v).tobytes() == np.tanh(v).tobytes()
    assert d.activate("sigmoid", v).tobytes() == (1.0 / (1.0 + np.exp(-v))).tobytes()
    assert d.activate("relu", v).tobytes() == np.maximum(v, 0.0).tobytes()
    assert d.activate("bsig", v).tobytes() == np.tanh(v / 2).tobytes()
    assert d.activate(0, v).tobytes() == v.tobytes()
    y = np.tanh(v)
    assert d.derivative("tanh", y).tobytes() == (1 - y * y).tobytes()
    assert d.derivative("sigmoid", y).tobytes() == (y * (1 - y)).tobytes()
    assert d.derivative("relu", y).tolist() == (y > 0).astype(float).tolist()
    assert d.derivative("none", y).tolist() == [1.0] * 101
    assert d.derivative("bsig", y).tobytes() == ((1 - y * y) / 2).tobytes()


fp16_values = st.floats(-60000, 60000, width=16, allow_nan=False, allow_infinity=False)


@settings(max_examples=200)
@given(st.lists(fp16_values, min_size=1, max_size=10), st.data())
def test_fp16_elementwise_correctly_rounded(a, data):
    """fp16 add/sub/mul equal the exact result (exact in float64) rounded once to float16;
    overflow to inf counts as a saturation."""
    b = data.draw(st.lists(fp16_values, min_size=len(a), max_size=len(a)))
    h = get_dtype("fp16")
    a16, b16 = np.array(a, np.float16), np.array(b, np.float16)
    a64, b64 = a16.astype(np.float64), b16.astype(np.float64)
    with np.errstate(over="ignore"):
        want = [(a64 * b64).astype(np.float16), (a64 + b64).astype(np.float16),
                (a64 - b64).astype(np.float16)]
    c = SaturationCounter()
    got = [h.mul(a16, b16, counter=c), h.add(a16, b16, counter=c), h.sub(a16, b16, counter=c)]
    for w, g in zip(want, got):
        assert g.dtype == np.float16 and g.tobytes() == w.tobytes()
    assert c.saturations == sum(int(np.count_nonzero(np.isinf(w))) for w in want)


@given(st.integers(1, 4), st.integers(1, 10), st.data())
def test_fp16_matvec_sequential_float32(m, k, data):
    """fp16 matvec: float32 products accumulated in float32 in order j = 0..K-1, rounded once."""
    h = get_dtype("fp16")
    vals = st.floats(-100, 100, width=16)
    W = np.array(data.draw(st.lists(vals, min_size=m * k, max_size=m * k)),
                 np.float16).reshape(m, k)
    x = np.array(data.draw(st.lists(vals, min_size=k, max_size=k)), np.float16)
    want = []
    for i in range(m):
        acc = np.float32(0)
        for j in range(k):
            acc = np.float32(acc + np.float32(W[i, j]) * np.float32(x[j]))
        want.append(np.float16(acc))
    assert h.matvec(W, x).tobytes() == np.array(want, np.float16).tobytes()
    assert h.rmatvec(W.T.copy(), x).tobytes() == np.array(want, np.float16).tobytes()


def test_fp16_activation_and_derivative():
    """fp16 activations: the float64 function of the input rounded to fp16; tanh derivative
    1 - y^2 is exact in float64 for fp16 y and rounded once."""
    h = get_dtype("fp16")
    v = h.quantize(np.linspace(-5, 5, 41))
    y = h.activate("tanh", v)
    assert y.tobytes() == np.tanh(v.astype(np.float64)).astype(np.float16).tobytes()
    d = h.derivative("tanh", y)
    y64 = y.astype(np.float64)
    assert d.tobytes() == (1 - y64 * y64).astype(np.float16).tobytes()


# --------------------------------------------------------------------------- activations
def test_activation_names_and_indices():
    """activate takes a name (any case) or its ISA index; anything else raises DTypeError."""
    q = get_dtype("q6.18")
    x = q.quantize([-1.0, 0.5])
    assert q.activate("ReLU", x).tolist() == q.activate(3, x).tolist() == [0, 1 << 17]
    assert q.activate("none", x).tolist() == x.tolist()
    with pytest.raises(DTypeError, match="unknown activation 'softplus': valid names are "
                                         "none, tanh, sigmoid, relu, bsig"):
        q.activate("softplus", x)
    with pytest.raises(DTypeError, match="activation index 5 is out of range: valid indices "
                                         "are 0 to 4"):
        q.derivative(5, x)


@settings(max_examples=200)
@given(fixed_names, st.data())
def test_fixed_derivatives_match_reference(name, data):
    """Fixed-point derivatives from y, one round-half-up of the exact expression, saturated:
    tanh (1 - y^2), sigmoid y(1 - y), bsig (1 - y^2)/2, relu [y > 0], none 1."""
    dt = get_dtype(name)
    y = data.draw(st.integers(-dt.one, dt.one))
    n, one = dt.frac_bits, 1 << dt.frac_bits
    want = {
        "tanh": ref_round((1 << 2 * n) - y * y, n),
        "sigmoid": ref_round(y * (one - y), n),
        "bsig": ref_round((1 << 2 * n) - y * y, n + 1),
        "relu": one if y > 0 else 0,
        "none": one,
    }
    for act, value in want.items():
        assert int(dt.derivative(act, y)) == ref_sat(value, dt), act


def test_derivative_golden_q6_18():
    """q6.18: tanh'(y=0.5) = 0.75, sigmoid'(0.5) = 0.25, bsig'(0.5) = 0.375."""
    q = get_dtype("q6.18")
    half = q.quantize(0.5)
    assert q.to_float(q.derivative("tanh", half)) == 0.75
    assert q.to_float(q.derivative("sigmoid", half)) == 0.25
    assert q.to_float(q.derivative("bsig", half)) == 0.375


# --------------------------------------------------------------------------- words and bytes
@pytest.mark.parametrize("name, value, word", [
    ("q6.18", -1.0, 0xFC0000),
    ("q6.18", 1.0, 0x040000),
    ("q6.18", 2 ** -18, 0x000001),
    ("q6.18", -2 ** -18, 0xFFFFFF),
    ("q6.18", 100.0, 0x7FFFFF),
    ("q6.18", -32.0, 0x800000),
    ("fixed32", -1.0, 0xFFFF0000),
    ("fixed16", 1.5, 0x0180),
    ("q2.4", -0.0625, 0x3F),
    ("fp16", 1.0, 0x3C00),
    ("fp16", -2.0, 0xC000),
    ("float64", 1.0, 0x3FF0000000000000),
])
def test_golden_words(name, value, word):
    """to_words gives two's-complement (fixed) or IEEE (float) bit patterns, bits wide."""
    dt = get_dtype(name)
    assert int(dt.to_words(dt.quantize(value))) == word
    assert dt.to_float(dt.from_words(np.uint64(word))) == dt.to_float(dt.quantize(value))


def test_golden_bytes():
    """Memory images are little-endian, word_bytes bytes per word."""
    q = get_dtype("q6.18")
    assert q.to_bytes(q.quantize([-1.0, 2 ** -18])) == bytes([0x00, 0x00, 0xFC, 0x01, 0, 0])
    assert get_dtype("q2.4").to_bytes([-1, 5]) == bytes([0x3F, 0x05])
    assert get_dtype("fp16").to_bytes(np.float16(1.0)) == bytes([0x00, 0x3C])


@given(st.sampled_from(FIXED + ["q1.31", "q32.0", "q5.4", "fp16", "float64"]), st.data())
def test_words_and_bytes_round_trip(name, data):
    """from_words(to_words(r)) == r and from_bytes(to_bytes(r)) == r for every format."""
    dt = get_dtype(name)
    if dt.is_float:
        vals = st.floats(width=16 if dt.bits == 16 else 64, allow_nan=False)
        raw = np.array(data.draw(st.lists(vals, max_size=8)), dtype=dt.storage)
    else:
        raw = np.array(data.draw(st.lists(raw_values(dt), max_size=8)), dtype=np.int64)
    words = dt.to_words(raw)
    assert words.dtype == np.uint64 and (words < (1 << dt.bits)).all()
    assert dt.from_words(words).tobytes() == raw.tobytes()
    image = dt.to_bytes(raw)
    assert len(image) == dt.word_bytes * raw.size
    assert dt.from_bytes(image).tobytes() == raw.tobytes()


def test_words_errors():
    """A word wider than the format, or an image that is not whole words, is a DTypeError."""
    q = get_dtype("q6.18")
    with pytest.raises(DTypeError, match="word 0x1000000 does not fit the 24 bits of q6.18"):
        q.from_words([0x1000000])
    with pytest.raises(DTypeError, match="q6.18: a memory image of 4 bytes is not a whole "
                                         "number of 3-byte words"):
        q.from_bytes(b"\x00" * 4)
    with pytest.raises(DTypeError, match="word 0x10000 does not fit the 16 bits of fp16"):
        get_dtype("fp16").from_words([0x10000])


def test_counters_are_per_instance_and_explicit():
    """Shared instances keep a process-wide count; a counter= object gets a private one."""
    a, b = get_dtype("q8.8"), get_dtype("q8.8", segments=8)
    a.reset_counters()
    b.reset_counters()
    mine = SaturationCounter()
    a.add([a.max_raw], [1], counter=mine)
    b.mul([b.min_raw], [b.min_raw])
    assert (a.saturations, b.saturations, mine.saturations) == (1, 1, 1)
