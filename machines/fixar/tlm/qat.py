"""Algorithm 1 of the FIXAR paper: quantisation-aware training's activation quantiser.

While the time step is below the quantization delay ``d`` the activations stay 32-bit fixed
point and a monitor keeps their minimum and maximum (:class:`RangeMonitor`). From step ``d``
on every activation is stored as an ``n``-bit code::

    Q_n(A, A_min, A_max) = floor(A / delta) + z,
    delta = (A_max - A_min) / 2**n,     z = floor(-A_min / delta)

and its value is ``(Q - z) * delta`` (:func:`dequantize`). Weights and gradients stay 32-bit.

Two choices the paper leaves open, made here (``machines/fixar/README.md`` says why):

* **Codes are clipped to ``[0, 2**n - 1]``**, the unsigned ``n``-bit word: ``A_max`` itself
  maps to ``2**n`` when ``A_max - A_min`` is a multiple of ``delta``, and ``A_min`` to ``-1``
  unless ``A_min / delta`` is an integer; values outside the monitored range clip likewise.
  Clipped elements count as saturations.
* **A power-of-two step** (``pow2=True``, the hardware's choice): ``delta`` is rounded up to
  ``2**e`` with ``e = ceil(log2((A_max - A_min) / 2**n))``, so the range still fits ``2**n``
  codes and a code minus its zero point *is* a fixed-point number with ``-e`` fraction bits:
  the 32x16 PE multiplies it by a weight and the accumulator shifts, with no rescaling
  multiplier. ``pow2=False`` is the algorithm's real-valued ``delta``, for float studies.

Everything here is a pure function of its arguments; :func:`quantize_raw` is the exact
integer form the accelerator computes from a raw fixed-point activation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rlaccel.util.errors import DTypeError

__all__ = ["RangeMonitor", "QatParams", "qat_params", "quantize", "quantize_raw",
           "dequantize", "operand"]


class RangeMonitor:
    """The min/max monitor of Algorithm 1 for one activation tensor (a comparator pair at
    the activation unit's output)."""

    __slots__ = ("amin", "amax", "count")

    def __init__(self) -> None:
        self.amin = math.inf
        self.amax = -math.inf
        self.count = 0

    def observe(self, values) -> None:
        """Fold every element of ``values`` (floats, or raw integers already scaled by the
        caller) into the running minimum and maximum."""
        v = np.asarray(values)
        if v.size:
            self.amin = min(self.amin, float(v.min()))
            self.amax = max(self.amax, float(v.max()))
            self.count += int(v.size)

    def observe_range(self, amin: float, amax: float, n: int) -> None:
        """Fold ``n`` values whose minimum and maximum are ``amin`` and ``amax`` (what
        :meth:`observe` takes from an array, given by a caller that already has them)."""
        if n:
            self.amin = min(self.amin, amin)
            self.amax = max(self.amax, amax)
            self.count += int(n)

    @property
    def seen(self) -> bool:
        return self.count > 0

    def __repr__(self) -> str:
        return f"RangeMonitor(amin={self.amin!r}, amax={self.amax!r}, count={self.count})"


@dataclass(frozen=True)
class QatParams:
    """One tensor's quantiser: ``bits`` (n), the step ``delta``, the zero point ``zero`` (z)
    and, for a power-of-two step, ``exponent`` (``delta == 2**exponent``; else None)."""

    bits: int
    delta: float
    zero: int
    exponent: int | None = None

    @property
    def levels(self) -> int:
        return 1 << self.bits

    @property
    def frac_bits(self) -> int:
        """Fraction bits of ``code - zero`` as a fixed-point number (power-of-two step only)."""
        if self.exponent is None:
            raise DTypeError("QAT: a real-valued step has no fraction bits (use pow2=True)")
        return -self.exponent


def qat_params(amin: float, amax: float, bits: int = 16, *, pow2: bool = True) -> QatParams:
    """Algorithm 1's ``delta`` and ``z`` for a monitored range ``[amin, amax]``.

    An empty range (``amax == amin``, e.g. a ReLU layer that never fired) takes a span of
    ``max(|amin|, 1)`` so that the step is positive. A monitor that saw nothing (``amin >
    amax``) is an error.
    """
    if not 1 <= bits <= 17:
        raise DTypeError(f"QAT: {bits}-bit codes are outside 1..17 (the PE's half-precision "
                         f"operand is a 17-bit signed code offset)")
    if not (math.isfinite(amin) and math.isfinite(amax)) or amin > amax:
        raise DTypeError(f"QAT: the monitored range [{amin}, {amax}] is empty or not finite "
                         f"(no activation was observed before the quantization delay)")
    span = amax - amin
    if span <= 0:
        span = max(abs(amin), 1.0)
    delta = span / (1 << bits)
    exponent = None
    if pow2:
        exponent = math.ceil(math.log2(delta))
        if 2.0 ** (exponent - 1) >= delta:          # guard log2 rounding at exact powers
            exponent -= 1
        delta = 2.0 ** exponent
    zero = math.floor(-amin / delta)
    return QatParams(bits=bits, delta=delta, zero=zero, exponent=exponent)


def _clip_codes(q: np.ndarray, p: QatParams, counter) -> np.ndarray:
    top = p.levels - 1
    if q.size and (int(q.min()) < 0 or int(q.max()) > top):
        if counter is not None:
            counter.saturations += int(np.count_nonzero(q < 0) + np.count_nonzero(q > top))
        q = np.clip(q, 0, top)
    return q


def quantize(values, p: QatParams, *, counter=None) -> np.ndarray:
    """``clip(floor(A / delta) + z, 0, 2**n - 1)`` of float values, as int64 codes."""
    a = np.asarray(values, dtype=np.float64)
    q = np.floor(a / p.delta).astype(np.int64) + np.int64(p.zero)
    return _clip_codes(q, p, counter)


def quantize_raw(raw, frac_bits: int, p: QatParams, *, counter=None) -> np.ndarray:
    """:func:`quantize` of raw fixed-point activations (value ``raw * 2**-frac_bits``), in
    integers only: with ``delta = 2**e``, ``floor(A / delta) = raw >> (frac_bits + e)``
    (an arithmetic shift), or a left shift when ``frac_bits + e < 0``."""
    if p.exponent is None:
        raise DTypeError("QAT: the accelerator quantises with a power-of-two step "
                         "(qat_params(..., pow2=True))")
    r = np.asarray(raw, dtype=np.int64)
    s = frac_bits + p.exponent
    q = (r >> np.int64(s)) if s >= 0 else (r << np.int64(-s))
    return _clip_codes(q + np.int64(p.zero), p, counter)


def dequantize(codes, p: QatParams) -> np.ndarray:
    """The value a code stands for: ``(Q - z) * delta`` (float64)."""
    return (np.asarray(codes, dtype=np.int64) - np.int64(p.zero)).astype(np.float64) * p.delta


def operand(codes, p: QatParams) -> tuple[np.ndarray, int]:
    """``(raw, frac_bits)``: the PE's half-precision operand ``Q - z`` as a fixed-point
    number (power-of-two step; a step above 1 is folded into the raw value so that
    ``frac_bits >= 0``)."""
    f = p.frac_bits
    x = np.asarray(codes, dtype=np.int64) - np.int64(p.zero)
    if f < 0:
        return x << np.int64(-f), 0
    return x, f
