"""isa.dtypes PWL activation tables: accuracy, symmetry, monotonicity, the evaluation rule.

Error bound (pwl module docstring), for a table of S uniform segments of width h = xmax / S
in a format with LSB ``lsb``:

    inside  |x| < xmax:  |T(x) - f(x)| <= max|f''| h^2 / 8 + (3/2 + h) lsb
    beyond  |x| >= xmax: |T(x) - f(x)| <= |f(inf) - f(xmax)| + lsb / 2

(chord error; breakpoint values rounded; chord slope rounded down, off by < 1 LSB per unit of
x; the product rounded.) max|f''| = 4/(3 sqrt 3) for tanh, sqrt(3)/18 for sigmoid and
1/(3 sqrt 3) for bsig.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlaccel.isa.dtypes import PWL_DEFAULT_XMAX, PwlTable, SaturationCounter, get_dtype
from rlaccel.util.errors import DTypeError

F2MAX = {"tanh": 4 / (3 * math.sqrt(3)), "sigmoid": math.sqrt(3) / 18,
         "bsig": 1 / (3 * math.sqrt(3))}
EXACT = {"tanh": np.tanh, "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
         "bsig": lambda v: np.tanh(v / 2)}
FUNCS = ("tanh", "sigmoid", "bsig")


def bound(func: str, table: PwlTable) -> float:
    lsb = table.dtype.lsb
    h = table.xmax / table.segments
    inside = F2MAX[func] * h * h / 8 + (1.5 + h) * lsb
    tail = 1.0 - float(EXACT[func](table.xmax)) + lsb / 2
    return max(inside, tail)


def sweep(table: PwlTable, step: int = 1) -> np.ndarray:
    """Raw inputs from -(xmax + 1) to xmax + 1, clipped to the format."""
    dt = table.dtype
    lim = table.xmax_raw + (1 << dt.frac_bits)
    return np.arange(max(-lim, dt.min_raw), min(lim, dt.max_raw) + 1, step, dtype=np.int64)


def max_error(table: PwlTable, step: int = 1) -> float:
    dt = table.dtype
    x = sweep(table, step)
    return float(np.max(np.abs(dt.to_float(table(x)) - EXACT[table.name](dt.to_float(x)))))


# Measured on q6.18 (every 3rd raw input in [-(xmax+1), xmax+1]); bounds from the formula.
STATED = {("tanh", 16): 6.0e-3, ("tanh", 32): 1.51e-3,
          ("sigmoid", 16): 3.0e-3, ("sigmoid", 32): 7.6e-4,
          ("bsig", 16): 6.0e-3, ("bsig", 32): 1.51e-3}


@pytest.mark.parametrize("func", FUNCS)
def test_error_bounded_and_shrinks_with_segments(func):
    """q6.18, default xmax (tanh 4, sigmoid and bsig 8): the max error over all inputs is within
    the derived bound for 8, 16 and 32 segments, strictly decreases as segments double, and is
    below 6.0e-3 / 1.51e-3 (tanh, bsig) and 3.0e-3 / 7.6e-4 (sigmoid) for 16 / 32 segments."""
    q = get_dtype("q6.18")
    errors = []
    for s in (8, 16, 32):
        table = PwlTable(func, q, s)
        err = max_error(table, step=3)
        assert err <= bound(func, table), (s, err, bound(func, table))
        if (func, s) in STATED:
            assert err < STATED[func, s]
        errors.append(err)
    assert errors[0] > errors[1] > errors[2]


@pytest.mark.parametrize("frac_bits", range(4, 19))
def test_bit_width_sweep_bounded_monotonic_odd(frac_bits):
    """Fig. 5 sweep, q6.N for N = 4..18, 16 segments: every table is within its bound
    (the lsb term dominates at small N), monotonic and exactly odd."""
    dt = get_dtype(f"q6.{frac_bits}")
    for func in FUNCS:
        table = dt.pwl(func)
        x = sweep(table, step=1 << max(0, frac_bits - 12))
        y = table(x)
        assert np.all(np.diff(y) >= 0), func
        err = np.max(np.abs(dt.to_float(y) - EXACT[func](dt.to_float(x))))
        assert err <= bound(func, table), (func, err)
        if func == "sigmoid":
            assert np.array_equal(y + table(-x), np.full_like(y, 1 << frac_bits))
        else:
            assert np.array_equal(table(-x), -y)


@pytest.mark.parametrize("name", ["q8.8", "q2.4", "q6.12", "fixed16"])
@pytest.mark.parametrize("func", FUNCS)
def test_symmetry_and_monotonic_whole_domain(name, func):
    """Over every raw input of the format: tanh and bsig are exactly odd (T(-x) = -T(x)),
    sigmoid satisfies T(x) + T(-x) = 1 exactly, and every table is monotonic."""
    dt = get_dtype(name)
    x = np.arange(dt.min_raw + 1, dt.max_raw + 1, dtype=np.int64)
    table = dt.pwl(func)
    y = table(x)
    assert np.all(np.diff(y) >= 0)
    if func == "sigmoid":
        assert np.all(y + table(-x) == 1 << dt.frac_bits)
    else:
        assert np.array_equal(table(-x), -y)


@pytest.mark.parametrize("func", FUNCS)
def test_passes_through_breakpoints_and_end(func):
    """T(breaks[k]) = round_half_up(f(breaks[k] * lsb) * 2^N); T(x) = end_value = T(xmax) for
    x >= xmax; T(0) is 0 for tanh/bsig and 0.5 for sigmoid."""
    q = get_dtype("q6.18")
    table = q.pwl(func, 32)
    xs = q.to_float(table.breaks)
    want = np.floor(EXACT[func](xs) * 2.0 ** 18 + 0.5).astype(np.int64)
    assert np.array_equal(table(table.breaks), want)
    assert table(table.breaks[-1]) == table.end_value
    beyond = np.array([table.xmax_raw, table.xmax_raw + 1, q.max_raw])
    assert table(beyond).tolist() == [table.end_value] * 3
    assert int(table(0)) == (1 << 17 if func == "sigmoid" else 0)


@settings(max_examples=300)
@given(st.sampled_from(["q6.18", "q2.4", "q8.8", "fixed16", "fixed32", "q6.10"]),
       st.sampled_from(FUNCS), st.sampled_from([8, 16, 32, 12]), st.data())
def test_evaluation_rule(name, func, segments, data):
    """On segment k (breaks[k] <= |x| < breaks[k+1]):
    T(|x|) = sat(intercepts[k] + floor(slopes[k] * |x| / 2^N + 1/2)), the mul rule;
    |x| >= xmax gives end_value; then T(-x) = -T(x) (tanh, bsig) or 1 - T(x) (sigmoid)."""
    dt = get_dtype(name)
    table = dt.pwl(func, segments)
    x = data.draw(st.integers(dt.min_raw, dt.max_raw))
    ax = abs(x)
    if ax >= table.xmax_raw:
        t = table.end_value
    else:
        k = max(i for i in range(table.segments) if table.breaks[i] <= ax)
        p = int(table.slopes[k]) * ax
        t = int(table.intercepts[k]) + math.floor(Fraction(p, 1 << dt.frac_bits)
                                                  + Fraction(1, 2))
    if x < 0:
        t = -t if func != "sigmoid" else (1 << dt.frac_bits) - t
    assert int(table(x)) == min(max(t, dt.min_raw), dt.max_raw)


def test_constants_are_raw_and_fit():
    """Tables expose raw int64 constants that fit the format; power-of-two segments and xmax
    give uniform segments indexed by a shift (q6.18 tanh, 16 segments: width 2^16)."""
    q = get_dtype("q6.18")
    t = q.pwl("tanh")
    assert t.segments == 16 and t.xmax == 4.0 and t.shift == 16
    assert t.breaks.tolist() == [k << 16 for k in range(17)]
    for arr in (t.breaks, t.slopes, t.intercepts):
        assert arr.dtype == np.int64
        assert arr.min() >= q.min_raw and arr.max() <= q.max_raw
    assert np.all(np.diff(t.slopes) <= 0)       # tanh is concave on x >= 0
    # golden constants (60-digit decimal arithmetic, independent of the host libm)
    assert t.slopes[:4].tolist() == [256816, 227748, 181436, 132588]
    assert t.intercepts[:4].tolist() == [0, 7267, 30423, 67059]
    assert PwlTable("sigmoid", get_dtype("q6.18")).xmax == PWL_DEFAULT_XMAX["sigmoid"] == 8.0


def test_activate_uses_tables():
    """Fixed-point activate evaluates the PWL table with the format's default segment count
    (16, or get_dtype(..., segments=S)) unless segments= is given; tables are cached."""
    q = get_dtype("q6.18")
    x = q.quantize(np.linspace(-6, 6, 97))
    assert np.array_equal(q.activate("tanh", x), PwlTable("tanh", q, 16)(x))
    assert np.array_equal(q.activate("bsig", x, segments=32), PwlTable("bsig", q, 32)(x))
    q32 = get_dtype("q6.18", segments=32)
    assert np.array_equal(q32.activate("sigmoid", x), PwlTable("sigmoid", q, 32)(x))
    assert q.pwl("tanh") is q.pwl("tanh", 16)
    c = SaturationCounter()
    q.activate("tanh", x, counter=c)
    assert c.saturations == 0


def test_segments_limited_by_resolution():
    """No segment is narrower than one LSB: q3.1 tanh (xmax clipped to max 3.5 = 7 LSB) gets
    7 segments, non-uniform widths fall back to a search (shift None) and stay monotonic."""
    dt = get_dtype("q3.1")
    t = PwlTable("tanh", dt, 16)
    assert (t.xmax_raw, t.segments) == (7, 7)
    t2 = PwlTable("tanh", get_dtype("q6.18"), 12)
    assert t2.shift is None
    x = np.arange(-(5 << 18), 5 << 18, 5)
    assert np.all(np.diff(t2(x)) >= 0)


def test_pwl_errors():
    """PWL tables exist only for tanh, sigmoid and bsig in fixed-point formats."""
    with pytest.raises(DTypeError, match="PWL tables are for fixed-point formats, not fp16"):
        PwlTable("tanh", get_dtype("fp16"))
    with pytest.raises(DTypeError, match=re.escape("no PWL table for activation 'relu': tables "
                                                   "exist for tanh, sigmoid, bsig")):
        PwlTable("relu", get_dtype("q6.18"))
    with pytest.raises(DTypeError, match="PWL segments must be a positive integer, not 0"):
        PwlTable("tanh", get_dtype("q6.18"), 0)
    with pytest.raises(DTypeError, match="PWL xmax must be a positive finite number, not -1.0"):
        PwlTable("tanh", get_dtype("q6.18"), 16, -1.0)


@pytest.mark.parametrize("fmt", ["q6.18", "q2.4", "q8.8", "q16.16"])
@pytest.mark.parametrize("func", ["tanh", "sigmoid", "bsig"])
def test_short_vectors_take_the_same_rule(fmt, func):
    """The element-by-element path for short vectors equals the vectorised one bit for bit,
    across the whole input range (inside, at and beyond xmax, both signs, extremes)."""
    from rlaccel.isa.dtypes import get_dtype
    dt = get_dtype(fmt)
    t = dt.pwl(func)
    rng = np.random.default_rng(11)
    xs = np.concatenate([rng.integers(dt.min_raw, dt.max_raw + 1, 4000),
                         rng.integers(-2 * t.xmax_raw, 2 * t.xmax_raw, 4000),
                         [0, 1, -1, t.xmax_raw, -t.xmax_raw, t.xmax_raw - 1, 1 - t.xmax_raw,
                          dt.min_raw, dt.max_raw]]).astype(np.int64)
    xs = np.clip(xs, dt.min_raw, dt.max_raw)
    big = t(xs)                                   # vectorised (longer than the threshold)
    small = np.concatenate([t(xs[i:i + 7]) for i in range(0, len(xs), 7)])
    assert np.array_equal(big, small)
