"""Piecewise-linear activation tables for fixed point: the constants an RTL block loads.

A table covers ``0 <= x < xmax`` with ``segments`` segments; negative inputs use symmetry and
inputs at or beyond ``xmax`` give the end value ``f(xmax)``:

* tanh, bsig (odd):  ``T(-x) = -T(x)``
* sigmoid:           ``T(-x) = 1 - T(x)``

Construction (all integer arithmetic on raw values, so every constant is reproducible):

1. ``xmax_raw = min(round_half_up(xmax * 2^N), max_raw)``; the number of segments used is
   ``min(segments, xmax_raw)`` so no segment is narrower than one LSB.
2. ``breaks[k] = k * xmax_raw // S`` for ``k = 0..S`` (uniform: a power-of-two ``segments``
   and ``xmax`` give segments of ``2**shift`` raw units, indexed by ``x >> shift``).
3. ``yk = round_half_up(f(breaks[k] * 2^-N) * 2^N)``, computed in 60-digit decimal
   arithmetic (independent of the host libm), clipped to the format.
4. ``slopes[k] = floor((y[k+1] - y[k]) * 2^N / (breaks[k+1] - breaks[k]))`` (the chord,
   rounded down) and ``intercepts[k] = y[k] - round_shift(slopes[k] * breaks[k], N)``.

Evaluation on segment k is ``y = intercepts[k] + round_shift(slopes[k] * |x|, N)``, the same
multiply and round-half-up rule as :meth:`FixedType.mul`, then saturation. The table passes
exactly through every ``(breaks[k], y[k])``; rounding the chord slope down makes every segment
end at or below the next one's start, so the table is monotonic and, with the symmetries,
exactly odd (tanh, bsig) or exactly ``T(x) + T(-x) = 1`` (sigmoid).

Error, for ``|x| < xmax`` on a segment of width h (in value units):
``|T(x) - f(x)| <= max|f''| * h^2 / 8 + (3/2 + h) * lsb`` (chord error, breakpoint rounding,
slope rounded down, product rounding); beyond ``xmax`` it is ``|f(inf) - f(xmax)| + lsb/2``.
``max|f''|`` is 4/(3*sqrt 3) = 0.770 for tanh, sqrt(3)/18 = 0.0962 for sigmoid and
1/(3*sqrt 3) = 0.192 for bsig.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from rlaccel.isa.dtypes._rounding import round_shift
from rlaccel.isa.dtypes.activations import PWL_FUNCTIONS, exact_raw
from rlaccel.util.errors import DTypeError
from rlaccel.util.numbers import is_whole

__all__ = ["PwlTable", "PWL_DEFAULT_SEGMENTS", "PWL_DEFAULT_XMAX"]

#: Default segment count: 16, as in DianNao's activation unit (the ADHDP paper's reference [23]) and
#: the ``pwl_segments`` of the ADHDP architecture files.
PWL_DEFAULT_SEGMENTS = 16

#: Default table end, a power of two so uniform segments are indexed by a shift. Beyond it the
#: table returns f(xmax): tanh(4) = 1 - 6.7e-4, sigmoid(8) = 1 - 3.4e-4, bsig(8) = 1 - 6.7e-4.
PWL_DEFAULT_XMAX = {"tanh": 4.0, "sigmoid": 8.0, "bsig": 8.0}

_ODD = {"tanh": True, "bsig": True, "sigmoid": False}


_SMALL = 16    # vectors up to this length take the element-by-element path


class PwlTable:
    """A piecewise-linear table of ``func`` (``"tanh"``, ``"sigmoid"`` or ``"bsig"``) in a
    fixed-point ``dtype`` (a :class:`~rlaccel.isa.dtypes.FixedType`).

    Public arrays, raw int64 in the table's format: ``breaks`` (S + 1 segment boundaries on
    ``[0, xmax_raw]``), ``slopes`` (S), ``intercepts`` (S); scalars ``end_value`` (raw output at
    and beyond ``xmax``), ``xmax_raw``, ``segments`` (S, the count actually used) and ``shift``
    (log2 of the segment width in raw units when segments are uniform powers of two, else
    ``None``). Every constant fits a word of the format (checked here).
    """

    def __init__(self, func: str, dtype, segments: int | None = None,
                 xmax: float | None = None) -> None:
        if dtype.is_float:
            raise DTypeError(f"PWL tables are for fixed-point formats, not {dtype.name}")
        if not isinstance(func, str) or func.lower() not in PWL_FUNCTIONS:
            raise DTypeError(f"no PWL table for activation {func!r}: tables exist for "
                             f"{', '.join(PWL_FUNCTIONS)}")
        func = func.lower()
        if segments is None:
            segments = dtype.segments
        if not is_whole(segments, types=(int, np.integer)):
            raise DTypeError(f"PWL segments must be a positive integer, not {segments!r}")
        if xmax is None:
            xmax = PWL_DEFAULT_XMAX[func]
        if not np.isfinite(xmax) or xmax <= 0:
            raise DTypeError(f"PWL xmax must be a positive finite number, not {xmax!r}")

        n = dtype.frac_bits
        self.name = func
        self.dtype = dtype
        self.odd = _ODD[func]
        xr = Fraction(xmax) * (1 << n) + Fraction(1, 2)
        self.xmax_raw = min(xr.numerator // xr.denominator, dtype.max_raw)
        if self.xmax_raw < 1:
            raise DTypeError(f"PWL xmax {xmax!r} is below one LSB of {dtype.name}")
        s = min(int(segments), self.xmax_raw)
        self.segments = s
        self.xmax = self.xmax_raw * dtype.lsb

        breaks = [k * self.xmax_raw // s for k in range(s + 1)]
        ys = [min(max(exact_raw(func, b, n), dtype.min_raw), dtype.max_raw) for b in breaks]
        slopes = [((ys[k + 1] - ys[k]) << n) // (breaks[k + 1] - breaks[k]) for k in range(s)]
        inter = [ys[k] - round_shift(slopes[k] * breaks[k], n) for k in range(s)]
        for what, vals in (("slope", slopes), ("intercept", inter)):
            bad = [v for v in vals if not dtype.min_raw <= v <= dtype.max_raw]
            if bad:  # pragma: no cover - cannot happen for tanh/sigmoid/bsig
                raise DTypeError(f"PWL {func} {what} {bad[0]} does not fit {dtype.name}")

        self.breaks = np.array(breaks, dtype=np.int64)
        self.slopes = np.array(slopes, dtype=np.int64)
        self.intercepts = np.array(inter, dtype=np.int64)
        self.end_value = ys[-1]
        width = self.xmax_raw // s
        uniform = width * s == self.xmax_raw and width & (width - 1) == 0
        self.shift = width.bit_length() - 1 if uniform else None
        for arr in (self.breaks, self.slopes, self.intercepts):
            arr.setflags(write=False)

    def __repr__(self) -> str:
        return (f"<PwlTable {self.name} {self.dtype.name} segments={self.segments} "
                f"xmax={self.xmax:g}>")

    def _small(self, x: np.ndarray) -> np.ndarray:
        """The rule of :meth:`__call__` element by element on Python ints: for the short
        vectors of a simulator, where numpy's per-call cost dominates (same results; the
        tests compare both paths)."""
        n, shift, xmax, end = self.dtype.frac_bits, self.shift, self.xmax_raw, self.end_value
        half = (1 << (n - 1)) if n else 0
        one = 1 << n
        inter, slope, odd = self._lists
        out = []
        for v in x.ravel().tolist():
            a = -v if v < 0 else v
            if a < xmax:
                k = a >> shift
                y = inter[k] + ((slope[k] * a + half) >> n)
            else:
                y = end
            if v < 0:
                y = -y if odd else one - y
            out.append(y)
        return np.array(out, dtype=np.int64).reshape(x.shape)

    @property
    def _lists(self):
        lists = self.__dict__.get("_lists_cache")
        if lists is None:
            lists = (self.intercepts.tolist(), self.slopes.tolist(), self.odd)
            self.__dict__["_lists_cache"] = lists
        return lists

    def __call__(self, raw, *, counter=None) -> np.ndarray:
        """Evaluate the table on raw fixed-point inputs; returns raw outputs (module rule)."""
        dt = self.dtype
        x = dt._raw(raw)
        if x.size <= _SMALL and self.shift is not None:
            return dt._saturate(self._small(x), counter)
        ax = np.abs(x)
        inside = ax < self.xmax_raw
        axc = np.minimum(ax, self.xmax_raw - 1)
        if self.shift is not None:
            idx = axc >> np.int64(self.shift)
        else:
            idx = np.searchsorted(self.breaks, axc, side="right") - 1
        y = self.intercepts[idx] + round_shift(self.slopes[idx] * axc, dt.frac_bits)
        y = np.where(inside, y, np.int64(self.end_value))
        if self.odd:
            y = np.where(x < 0, -y, y)
        else:
            y = np.where(x < 0, np.int64(1 << dt.frac_bits) - y, y)
        return dt._saturate(y, counter)
