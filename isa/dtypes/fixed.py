"""Signed fixed point ``qM.N``: M integer bits counting the sign, N fraction bits, M + N <= 32.

Raw values are int64 two's-complement integers in ``[-2**(M+N-1), 2**(M+N-1) - 1]``; the value
is ``raw * 2**-N``. Every result is rounded half up and then saturated, never wrapped:

* ``quantize``: ``raw = floor(x * 2**N + 1/2)``, then saturate. Computed exactly (no
  ``x + 0.5`` float rounding); NaN becomes 0 and, like +-inf, counts as a saturation.
* ``add``/``sub``: exact sum, saturate.
* ``mul``: the full ``2(M+N)``-bit product, rounded half up at the binary point
  (``(a*b + 2**(N-1)) >> N``, arithmetic shift), saturate. A 32x32-bit product is at most
  2**62, so int64 holds it exactly.
* ``matvec``/``rmatvec``/``dot``/``sumsq``: every product at full precision summed *exactly*
  (an accumulator as wide as needed: ``accumulator_bits(K)`` bits for K terms, e.g. 56 bits for
  a 400-term Q6.18 dot product of Q12.36 products), then ONE round-half-up at the binary point
  and ONE saturation per output. See :meth:`FixedType.matvec` for how int64 stays exact.
* ``outer``: each product rounded and saturated like ``mul`` (weight-update terms).

Saturations are counted per saturated output element (see :mod:`isa.dtypes.base`).
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes._rounding import round_shift
from rlaccel.isa.dtypes.activations import activation_name
from rlaccel.isa.dtypes.base import DType
from rlaccel.isa.dtypes.pwl import PWL_DEFAULT_SEGMENTS, PwlTable
from rlaccel.util.errors import DTypeError

__all__ = ["FixedType", "LIMB"]

_I64_MAX = (1 << 63) - 1
LIMB = 16                       # low limb width of the split accumulation
_LIMB_MASK = (1 << LIMB) - 1


class FixedType(DType):
    """Signed fixed point with ``int_bits`` (sign included) + ``frac_bits`` bits.

    ``storage`` is int64; ``lsb = 2**-frac_bits``; ``min_raw = -2**(bits-1)``,
    ``max_raw = 2**(bits-1) - 1`` (Python ints). ``one`` is the raw value of 1.0 saturated
    to the format (``2**frac_bits`` unless ``int_bits == 1``).
    """

    is_float = False

    def __init__(self, int_bits: int, frac_bits: int, name: str | None = None,
                 segments: int = PWL_DEFAULT_SEGMENTS) -> None:
        if not (int_bits >= 1 and frac_bits >= 0 and int_bits + frac_bits <= 32):
            raise DTypeError(f"q{int_bits}.{frac_bits} is not a valid fixed-point format: need "
                             f"M >= 1 (the sign counts), N >= 0, M + N <= 32")
        self.int_bits = int_bits
        self.frac_bits = frac_bits
        super().__init__(name or self._qname(int_bits, frac_bits), int_bits + frac_bits, segments)
        self.storage = np.dtype(np.int64)
        self.min_raw = -(1 << (self.bits - 1))
        self.max_raw = (1 << (self.bits - 1)) - 1
        self.lsb = 2.0 ** -frac_bits
        self.one = min(1 << frac_bits, self.max_raw)
        self._tables: dict = {}

    @staticmethod
    def _qname(m: int, n: int) -> str:
        return f"q{m}.{n}"

    @property
    def format(self) -> str:
        return self._qname(self.int_bits, self.frac_bits)

    @property
    def range_text(self) -> str:
        """``[min, max]`` of the representable values, as text for messages."""
        return f"[{float(self.min_raw * self.lsb)!r}, {float(self.max_raw * self.lsb)!r}]"

    # ------------------------------------------------------------------ raw helpers
    def _raw(self, a) -> np.ndarray:
        """Check ``a`` is integer raw data inside the format; return it as int64."""
        return self._raw_abs(a)[0]

    def trusted(self) -> "FixedType":
        """The same format for callers whose int64 arrays are always inside it (a simulator's
        memories, which every operation saturates): identical results, but operands are not
        re-checked and ``max|a|`` is taken as the format's bound, which saves two reductions
        per operand. Anything that is not an int64 array is still checked."""
        t = self.__dict__.get("_trusted_twin")
        if t is None:
            import copy
            t = copy.copy(self)
            t._tables = {}
            t._is_trusted = True
            t.saturations = 0
            self.__dict__["_trusted_twin"] = t
        return t

    _is_trusted = False

    def _raw_abs(self, a) -> tuple[np.ndarray, int]:
        """``_raw(a)`` and ``max|a|`` (a Python int; 0 for an empty array)."""
        if self._is_trusted and type(a) is np.ndarray and a.dtype == np.int64:
            return a, -self.min_raw
        a = np.asarray(a)
        if a.dtype.kind not in "iu":
            raise DTypeError(f"{self.name} operands must be raw integer arrays, not {a.dtype} "
                             f"(quantize values first)")
        if not a.size:
            return a.astype(np.int64, copy=False), 0
        lo, hi = int(a.min()), int(a.max())
        if lo < self.min_raw or hi > self.max_raw:
            bad = lo if lo < self.min_raw else hi
            raise DTypeError(f"raw value {bad} is outside {self.name} "
                             f"[{self.min_raw}, {self.max_raw}]")
        return a.astype(np.int64, copy=False), max(-lo, hi)

    def _saturate(self, y, counter=None) -> np.ndarray:
        """Clip int64 ``y`` to the format, counting the clipped elements."""
        y = np.asarray(y, dtype=np.int64)
        if y.size <= 64:            # small vectors: Python's min/max beat two numpy reductions
            values = y.ravel().tolist()
            if not values or (min(values) >= self.min_raw and max(values) <= self.max_raw):
                return y
        elif y.min() >= self.min_raw and y.max() <= self.max_raw:
            return y
        n = int(np.count_nonzero(y > self.max_raw)) + int(np.count_nonzero(y < self.min_raw))
        self._count(n, counter)
        return np.clip(y, self.min_raw, self.max_raw)

    # ------------------------------------------------------------------ conversion
    def quantize(self, x, *, strict: bool = False, counter=None) -> np.ndarray:
        """Values (float scalar or array) to raw: ``floor(x * 2**N + 1/2)``, then saturate.

        With ``strict=True`` a value that is not finite or rounds outside the format raises
        :class:`DTypeError` naming the value (and its index in an array) and the range.
        """
        v = np.asarray(x, dtype=np.float64)
        t = v * (2.0 ** self.frac_bits)          # exact: scaling by a power of two
        with np.errstate(invalid="ignore"):
            f = np.floor(t)
            r = f + ((t - f) >= 0.5)             # t - floor(t) is exact for every float t
        nan = np.isnan(r)
        if strict:
            self._refuse(v, nan | (r < self.min_raw) | (r > self.max_raw))
        n = int(np.count_nonzero(nan))
        if n:
            self._count(n, counter)
            r = np.where(nan, 0.0, r)
        r = np.clip(r, float(self.min_raw) - 1, float(self.max_raw) + 1).astype(np.int64)
        return self._saturate(r, counter)

    def to_float(self, raw) -> np.ndarray:
        """Raw to float64 values, exactly (``raw * 2**-N``)."""
        return self._raw(raw).astype(np.float64) * self.lsb

    # ------------------------------------------------------------------ elementwise
    def add(self, a, b, *, counter=None) -> np.ndarray:
        """``a + b`` exactly, then saturate."""
        return self._saturate(self._raw(a) + self._raw(b), counter)

    def sub(self, a, b, *, counter=None) -> np.ndarray:
        """``a - b`` exactly, then saturate."""
        return self._saturate(self._raw(a) - self._raw(b), counter)

    def mul(self, a, b, *, counter=None) -> np.ndarray:
        """``a * b``: full product, round half up at the binary point
        (``(a*b + 2**(N-1)) >> N``), then saturate."""
        p = self._raw(a) * self._raw(b)
        return self._saturate(round_shift(p, self.frac_bits), counter)

    def outer(self, g, x, *, counter=None) -> np.ndarray:
        """``out[i, j] = mul(g[i], x[j])``: each product rounded half up and saturated."""
        g = self._raw(g)
        x = self._raw(x)
        return self.mul(g[:, None], x[None, :], counter=counter)

    # ------------------------------------------------------------------ accumulation
    @property
    def max_terms(self) -> int:
        """Terms :meth:`matvec` sums exactly whatever the operand values (more are accepted
        when the values are small): 131071 direct / 8388736 split for Q6.18, 32768 for
        32-bit formats."""
        half = 1 << (self.bits - 1)
        direct = _I64_MAX // (half * half)
        xh = max(half >> LIMB, 1)
        split = min((1 << 62) // (half * xh), (1 << 62) // (half * _LIMB_MASK))
        return max(direct, split)

    def accumulator_bits(self, n_terms: int) -> int:
        """Width of a two's-complement accumulator that holds any sum of ``n_terms`` full
        products exactly (what an RTL accumulator needs): e.g. 56 for 400 Q6.18 terms."""
        return (max(int(n_terms), 1) * (1 << (2 * self.bits - 2))).bit_length() + 1

    def matvec(self, W, x, *, counter=None) -> np.ndarray:
        """``y_i = sat(round_half_up(sum_j W[i, j] * x[j] / 2**N))``: exact sum, one rounding.

        ``W`` is (M, K); ``x`` is (K,) or (K, B) (a batch of columns). The sum is exact:

        * if ``K * max|W| * max|x| <= 2**63 - 1`` the int64 ``W @ x`` cannot overflow and is
          used directly (always so for K <= 131071 in Q6.18);
        * otherwise ``x`` is split into a signed high and an unsigned 16-bit low limb,
          ``x = xh * 2**16 + xl``, and ``W @ xh`` and ``W @ xl`` are each exact in int64
          (always so for K <= 32768 in any format up to 32 bits); the two partial sums are
          recombined with a carry and rounded without ever forming the full sum.
        * beyond that (see :attr:`max_terms`) :class:`DTypeError` is raised. int64 never
          overflows silently.
        """
        W, aw = self._raw_abs(W)
        x, ax = self._raw_abs(x)
        if W.ndim != 2 or x.ndim not in (1, 2) or W.shape[1] != x.shape[0]:
            raise DTypeError(f"{self.name} matvec: shapes {W.shape} and {x.shape} do not "
                             f"match (need (M, K) and (K,) or (K, B))")
        k = W.shape[1]
        if k * aw * ax <= _I64_MAX:
            total = W @ x
            hi, lo = total >> np.int64(LIMB), total & np.int64(_LIMB_MASK)
        else:
            xh, xl = x >> np.int64(LIMB), x & np.int64(_LIMB_MASK)
            axh = max(-int(xh.min()), int(xh.max()))
            if k * aw * axh > (1 << 62) or k * aw * _LIMB_MASK > (1 << 62):
                raise DTypeError(
                    f"{self.name} matvec: a {k}-term sum of these values could overflow the "
                    f"exact int64 accumulator (at most {self.max_terms} terms of any values)")
            sl = W @ xl
            hi = W @ xh + (sl >> np.int64(LIMB))
            lo = sl & np.int64(_LIMB_MASK)
        return self._saturate(self._round_limbs(hi, lo), counter)

    def _round_limbs(self, hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
        """round_half_up((hi * 2**16 + lo) / 2**N) for 0 <= lo < 2**16, without overflow
        (the result is then saturated by the caller)."""
        n = self.frac_bits
        if n > LIMB:
            # floor((hi*2^16 + lo + 2^(N-1)) / 2^N) = floor((hi + 2^(N-17)) / 2^(N-16)),
            # because lo / 2^16 is a fraction in [0, 1) that cannot carry into the quotient.
            return round_shift(hi, n - LIMB)
        # N <= 16: result = hi * 2^(16-N) + round_shift(lo, N). |hi| above 2^34 saturates
        # anyway, so clipping it first keeps the product inside int64.
        hi = np.clip(hi, -(1 << 34), 1 << 34)
        return (hi << np.int64(LIMB - n)) + round_shift(lo, n)

    def rmatvec(self, W, g, *, counter=None) -> np.ndarray:
        """``W.T @ g`` with the :meth:`matvec` rule (exact sum, one rounding, saturate)."""
        W = self._raw(W)
        if W.ndim != 2:
            raise DTypeError(f"{self.name} rmatvec: W must be a matrix, not shape {W.shape}")
        return self.matvec(W.T, g, counter=counter)

    def dot(self, a, b, *, counter=None) -> np.ndarray:
        """``sum_j a[j] * b[j]`` with the :meth:`matvec` rule; a 0-d raw array."""
        a = self._raw(a)
        return self.matvec(a.reshape(1, -1), b, counter=counter)[0]

    def sumsq(self, a, *, counter=None) -> np.ndarray:
        """``sum_j a[j]**2`` with the :meth:`matvec` rule; a 0-d raw array."""
        return self.dot(a, a, counter=counter)

    # ------------------------------------------------------------------ activations
    def pwl(self, name: str, segments: int | None = None, xmax: float | None = None):
        """The (cached) :class:`~isa.dtypes.PwlTable` of ``name`` in this format."""
        key = (name, segments or self.segments, xmax)
        table = self._tables.get(key)
        if table is None:
            table = self._tables[key] = PwlTable(name, self, key[1], xmax)
        return table

    def activate(self, name, raw, *, segments: int | None = None, counter=None) -> np.ndarray:
        """Apply activation ``name`` (or its ISA index): none and relu exactly, tanh, sigmoid
        and bsig by a PWL table of ``segments`` segments (default ``self.segments``)."""
        name = activation_name(name)
        if name == "none":
            return self._raw(raw).copy()
        if name == "relu":
            return np.maximum(self._raw(raw), 0)
        return self.pwl(name, segments)(raw, counter=counter)

    def derivative(self, name, y_raw, *, counter=None) -> np.ndarray:
        """Derivative from the activation output ``y``, one round half up, then saturate:
        tanh ``round(2^2N - y^2) / 2^N``, sigmoid ``round(y (2^N - y) / 2^N)``,
        bsig ``round((2^2N - y^2) / 2^(N+1))``, relu ``one if y > 0 else 0``, none ``one``
        (all exact integer expressions before the single rounding)."""
        name = activation_name(name)
        y = self._raw(y_raw)
        n = self.frac_bits
        one = np.int64(1 << n)
        if name == "none":
            d = np.full(y.shape, one)
        elif name == "relu":
            d = np.where(y > 0, one, np.int64(0))
        elif name == "tanh":
            d = round_shift(np.int64(1 << 2 * n) - y * y, n)
        elif name == "sigmoid":
            d = round_shift(y * (one - y), n)
        else:  # bsig
            d = round_shift(np.int64(1 << 2 * n) - y * y, n + 1)
        return self._saturate(d, counter)

    # ------------------------------------------------------------------ words
    def to_words(self, raw) -> np.ndarray:
        """Two's-complement bit patterns, ``bits`` wide, as uint64 (q6.18 -1.0 -> 0xFC0000)."""
        return (self._raw(raw) & np.int64((1 << self.bits) - 1)).astype(np.uint64)

    def from_words(self, words) -> np.ndarray:
        """Inverse of :meth:`to_words`; a word wider than ``bits`` raises DTypeError."""
        w = np.asarray(words)
        if w.dtype.kind not in "iu":
            raise DTypeError(f"{self.name} words must be integers, not {w.dtype}")
        if w.size:
            lo, hi = int(w.min()), int(w.max())
            if lo < 0 or hi >= 1 << self.bits:
                bad = lo if lo < 0 else hi
                raise DTypeError(f"word {bad:#x} does not fit the {self.bits} bits of "
                                 f"{self.name}" if bad >= 0 else
                                 f"word {bad} is negative; {self.name} words are unsigned")
        w = w.astype(np.int64)
        return np.where(w > self.max_raw, w - np.int64(1 << self.bits), w)
