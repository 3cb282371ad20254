"""Fixed-point arithmetic for compiled kernels, derived from :mod:`rlaccel.isa.dtypes`.

:mod:`isa.dtypes` is the one definition of the arithmetic (round half up, then saturate;
exact sums; PWL activations). A compiled kernel cannot call its numpy methods, so this module
restates them element by element on int64 words, with every constant taken from the
:class:`~rlaccel.isa.dtypes.FixedType` itself (:func:`constants`): fraction bits, range, the
limb rule of ``matvec``, the PWL tables of ``activate``. ``tests/tlm/fast/test_fixedpoint.py``
checks every function against the dtype on random and saturating operands for several
formats; the RTL benches keep using the dtype.

Every function returns how many results it saturated (the dtype's count), or -1 when the
dtype would refuse the operation (an accumulation that could overflow its exact int64 sum),
before it writes anything.
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes import ACTIVATIONS, FixedType
from rlaccel.isa.dtypes.fixed import LIMB as _LIMB

from rlaccel.tlm.fast.jit import njit

__all__ = ["constants", "quantize", "K_N", "K_MIN", "K_MAX", "K_HALF", "K_DIRECT", "K_SPLIT1", "K_SPLIT2",
           "K_PWL", "rnd", "sat", "mul", "dot_rows", "pwl", "activate", "derivative"]

_I64_MAX = (1 << 63) - 1
_MASK = (1 << _LIMB) - 1

# layout of the constants array
K_N, K_MIN, K_MAX, K_HALF, K_DIRECT, K_SPLIT1, K_SPLIT2 = range(7)
K_PWL = 7                                   # K[K_PWL + act]: offset of act's table, 0: none
_HEADER = K_PWL + len(ACTIVATIONS)
# a table at offset o: segments, xmax_raw, end_value, shift (-1: searched), odd, then
# breaks (segments + 1), intercepts (segments), slopes (segments)
T_S, T_XMAX, T_END, T_SHIFT, T_ODD, T_DATA = range(6)


def constants(dt: FixedType, extra: int = 0) -> np.ndarray:
    """The int64 constants array of a fixed-point format (its ``extra`` leading words left
    for the caller, e.g. a family's own constants)."""
    half = -dt.min_raw                     # what a trusted dtype takes as max|operand|
    head = [0] * _HEADER
    head[K_N], head[K_MIN], head[K_MAX], head[K_HALF] = dt.frac_bits, dt.min_raw, dt.max_raw, half
    head[K_DIRECT] = _I64_MAX // (half * half)             # direct int64 sum up to this K
    head[K_SPLIT1] = _I64_MAX                              # split sums: K * half * max|xh|
    head[K_SPLIT2] = (1 << 62) // (half * _MASK)           # and K * half * 0xFFFF <= 2^62
    tables: list[int] = []
    for i, name in enumerate(ACTIVATIONS):
        if name in ("none", "relu"):
            continue
        t = dt.pwl(name)
        head[K_PWL + i] = _HEADER + extra + len(tables)
        tables += [t.segments, t.xmax_raw, int(t.end_value), -1 if t.shift is None else t.shift,
                   int(t.odd), *t.breaks.tolist(), *t.intercepts.tolist(), *t.slopes.tolist()]
    return np.array([0] * extra + head + tables, dtype=np.int64)


@njit(inline=True)
def rnd(p, n):
    """round_shift: ``(p + 2^(n-1)) >> n``, p when n is 0 (``isa.dtypes._rounding``)."""
    if n == 0:
        return p
    return (p + (np.int64(1) << (n - 1))) >> n


@njit(inline=True)
def sat(v, lo, hi):
    """(v clipped to [lo, hi], 1 if it was clipped else 0)."""
    if v > hi:
        return hi, 1
    if v < lo:
        return lo, 1
    return v, 0


@njit(inline=True)
def mul(a, b, K, o):
    """``FixedType.mul`` of two words: (result, saturations)."""
    return sat(rnd(a * b, K[o + K_N]), K[o + K_MIN], K[o + K_MAX])


@njit(nrt=False)
def dot_rows(M, base, si, sj, m, k, V, vb, out, K, o):
    """``out[i] = matvec`` rule for ``i < m``: ``sum_j M[base + i*si + j*sj] * V[vb + j]``
    summed exactly, one rounding, one saturation (``FixedType.matvec``: the direct int64 sum
    or the split into a 16-bit low limb); returns saturations, or -1 if the dtype would
    refuse the sum."""
    n = K[o + K_N]
    lo_, hi_ = K[o + K_MIN], K[o + K_MAX]
    cnt = 0
    if k <= K[o + K_DIRECT]:
        for i in range(m):
            total = np.int64(0)
            b = base + i * si
            for j in range(k):
                total += M[b + j * sj] * V[vb + j]
            h = total >> _LIMB
            lw = total & _MASK
            r = _round_limbs(h, lw, n)
            out[i], c = sat(r, lo_, hi_)
            cnt += c
        return cnt
    axh = np.int64(0)
    for j in range(k):
        xh = V[vb + j] >> _LIMB
        if xh < 0:
            xh = -xh
        if xh > axh:
            axh = xh
    aw = K[o + K_HALF]
    if (axh > 0 and k > (np.int64(1) << 62) // (aw * axh)) or k > K[o + K_SPLIT2]:
        return -1
    for i in range(m):
        sl = np.int64(0)
        sh = np.int64(0)
        b = base + i * si
        for j in range(k):
            w = M[b + j * sj]
            x = V[vb + j]
            sl += w * (x & _MASK)
            sh += w * (x >> _LIMB)
        h = sh + (sl >> _LIMB)
        lw = sl & _MASK
        r = _round_limbs(h, lw, n)
        out[i], c = sat(r, lo_, hi_)
        cnt += c
    return cnt


@njit(inline=True)
def _round_limbs(h, lw, n):
    """``FixedType._round_limbs``: round_half_up((h * 2^16 + lw) / 2^N) without overflow."""
    if n > _LIMB:
        return rnd(h, n - _LIMB)
    lim = np.int64(1) << 34
    if h > lim:
        h = lim
    elif h < -lim:
        h = -lim
    return (h << (_LIMB - n)) + rnd(lw, n)


@njit(inline=True)
def pwl(v, K, t, n, lo_, hi_):
    """``PwlTable.__call__`` on one word with the table at ``K[t:]``: (result, saturations)."""
    s = K[t + T_S]
    xmax = K[t + T_XMAX]
    a = -v if v < 0 else v
    if a < xmax:
        shift = K[t + T_SHIFT]
        if shift >= 0:
            seg = a >> shift
        else:                              # searchsorted(breaks, a, side="right") - 1
            seg = 0
            while seg + 1 < s and K[t + T_DATA + seg + 1] <= a:
                seg += 1
        y = K[t + T_DATA + s + 1 + seg] + rnd(K[t + T_DATA + 2 * s + 1 + seg] * a, n)
    else:
        y = K[t + T_END]
    if v < 0:
        if K[t + T_ODD]:
            y = -y
        else:
            y = (np.int64(1) << n) - y
    return sat(y, lo_, hi_)


@njit(nrt=False)
def activate(act, src, sb, dst, db, m, K, o):
    """``dst[db + i] = FixedType.activate(act, src[sb + i])`` for ``i < m`` (act by its ISA
    index); returns saturations. ``src`` may be ``dst`` at the same offset."""
    n, lo_, hi_ = K[o + K_N], K[o + K_MIN], K[o + K_MAX]
    cnt = 0
    if act == 0:                            # none
        for i in range(m):
            dst[db + i] = src[sb + i]
        return 0
    if act == 3:                            # relu
        for i in range(m):
            v = src[sb + i]
            dst[db + i] = v if v > 0 else 0
        return 0
    t = K[o + K_PWL + act]
    for i in range(m):
        y, c = pwl(src[sb + i], K, t, n, lo_, hi_)
        dst[db + i] = y
        cnt += c
    return cnt


@njit(inline=True)
def derivative(act, y, K, o):
    """``FixedType.derivative`` of one activation output: (result, saturations)."""
    n = K[o + K_N]
    one = np.int64(1) << n
    if act == 0:
        d = one
    elif act == 3:
        d = one if y > 0 else np.int64(0)
    elif act == 1:
        d = rnd((np.int64(1) << (2 * n)) - y * y, n)
    elif act == 2:
        d = rnd(y * (one - y), n)
    else:
        d = rnd((np.int64(1) << (2 * n)) - y * y, n + 1)
    return sat(d, K[o + K_MIN], K[o + K_MAX])


@njit
def quantize(v, out, K, o):
    """``FixedType.quantize`` of float64 values ``v`` into int64 ``out`` (any equal shapes,
    C order): ``floor(x * 2^N + 1/2)`` computed exactly, NaN to 0, then saturated; returns the
    saturations (NaNs included)."""
    scale = 2.0 ** K[o + K_N]
    lo_, hi_ = K[o + K_MIN], K[o + K_MAX]
    flo, fhi = float(lo_) - 1.0, float(hi_) + 1.0
    fv = v.ravel()
    fo = out.ravel()
    cnt = 0
    for i in range(fv.size):
        t = fv[i] * scale
        if t != t:                               # NaN
            fo[i] = 0
            cnt += 1
            continue
        f = np.floor(t)
        r = f + (1.0 if (t - f) >= 0.5 else 0.0)
        if r < flo:
            r = flo
        elif r > fhi:
            r = fhi
        q, c = sat(np.int64(r), lo_, hi_)
        fo[i] = q
        cnt += c
    return cnt
