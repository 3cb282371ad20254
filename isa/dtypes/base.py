"""What every number format shares: the :class:`DType` interface, saturation counting, words.

A *raw* array is how a format's values live in the simulator: ``int64`` two's-complement
integers for fixed point (the value is ``raw * lsb``), ``float64`` for float64 and ``float16``
for fp16. Every operation takes and returns raw arrays (``numpy.ndarray``, 0-d for a scalar).

Saturation counting
-------------------
Instances from :func:`~isa.dtypes.get_dtype` are cached and shared by everything in the
process, so a count kept on the instance is a process-wide total. Each operation therefore
counts its saturated elements twice:

* on ``dtype.saturations`` (the process-wide total; ``dtype.reset_counters()`` zeroes it), and
* on the optional ``counter=`` argument every operation accepts: any object with an integer
  attribute ``saturations`` (a :class:`SaturationCounter`, or a simulator's own statistics
  object). A simulation passes its own counter and so gets a count nobody else touches.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rlaccel.isa.dtypes._rounding import round_shift

from rlaccel.util.errors import DTypeError

__all__ = ["DType", "SaturationCounter"]


class SaturationCounter:
    """A private saturation count: pass it as ``counter=`` to any operation.

    >>> c = SaturationCounter()
    >>> c.saturations
    0
    """

    __slots__ = ("saturations",)

    def __init__(self) -> None:
        self.saturations = 0

    def reset(self) -> None:
        """Set the count back to zero."""
        self.saturations = 0

    def __repr__(self) -> str:
        return f"SaturationCounter(saturations={self.saturations})"


class DType:
    """One number format: its raw storage, arithmetic, activations and memory words.

    Attributes every format has: ``name``, ``bits``, ``is_float``, ``storage`` (numpy dtype of
    raw arrays), ``min_raw``/``max_raw`` (extreme raw values), ``lsb`` (value of one unit in the
    last place: ``2**-frac_bits`` for fixed point, machine epsilon for floats), ``word_bytes``
    (``ceil(bits / 8)``), ``segments`` (default PWL segment count for :meth:`activate`),
    ``frac_bits``/``int_bits`` (``None`` for floats) and ``saturations``.

    Instances are cached by :func:`~isa.dtypes.get_dtype`; compare them by identity or by
    :attr:`format`.
    """

    name: str
    bits: int
    is_float: bool
    storage: np.dtype
    min_raw: Any
    max_raw: Any
    lsb: float
    frac_bits: int | None = None
    int_bits: int | None = None

    def __init__(self, name: str, bits: int, segments: int) -> None:
        self.name = name
        self.bits = bits
        self.word_bytes = math.ceil(bits / 8)
        self.segments = segments
        self.saturations = 0

    # ------------------------------------------------------------------ counting
    def _refuse(self, v: np.ndarray, bad: np.ndarray) -> None:
        """Raise the strict-quantize error for the first True of ``bad`` (values ``v``)."""
        if not bad.any():
            return
        i = np.flatnonzero(bad.reshape(-1))[0]
        val = float(v.reshape(-1)[i])
        where = ""
        if v.ndim:
            idx = np.unravel_index(i, v.shape)
            where = f" at index {idx[0] if v.ndim == 1 else tuple(map(int, idx))}"
        why = "is not finite" if not np.isfinite(val) else "is out of range"
        raise DTypeError(f"value {val!r}{where} {why} for {self.name} "
                         f"(range {self.range_text})")

    def trusted(self) -> "DType":
        """A twin that skips re-checking operands the caller guarantees are in range (see
        :meth:`isa.dtypes.FixedType.trusted`); formats without checks return themselves."""
        return self

    def reset_counters(self) -> None:
        """Zero ``saturations`` (the process-wide total of this shared instance)."""
        self.saturations = 0

    def _count(self, n: int, counter: Any) -> None:
        n = int(n)
        if n:
            self.saturations += n
            if counter is not None:
                counter.saturations += n

    # ------------------------------------------------------------------ identity
    @property
    def format(self) -> str:
        """The canonical format name (``q16.16`` for ``fixed32``, else :attr:`name`)."""
        return self.name

    def __repr__(self) -> str:
        if self.format != self.name:
            return f"<DType {self.name} = {self.format}>"
        return f"<DType {self.name}>"

    # ------------------------------------------------------------------ conversion
    def cast(self, raw, target, *, counter=None) -> np.ndarray:
        """Raw values of this format as raw values of ``target`` (a DType).

        Fixed to fixed shifts the binary point exactly, rounding half up when fraction bits
        are dropped, then saturates; every other pair goes through the exact float64 value
        (``target.quantize(self.to_float(raw))``). Saturations count on ``target``.
        """
        if self.is_float or target.is_float:
            return target.quantize(self.to_float(raw), counter=counter)
        x = self._raw(raw)
        d = target.frac_bits - self.frac_bits
        y = x << np.int64(d) if d >= 0 else round_shift(x, -d)    # |x| <= 2^31, d <= 31
        return target._saturate(y, counter)

    # ------------------------------------------------------------------ words
    def to_bytes(self, raw) -> bytes:
        """Raw values as a little-endian memory image: ``word_bytes`` bytes per value, in order."""
        words = np.ascontiguousarray(self.to_words(raw), dtype="<u8").reshape(-1)
        return words.view(np.uint8).reshape(-1, 8)[:, : self.word_bytes].tobytes()

    def from_bytes(self, data: bytes) -> np.ndarray:
        """Inverse of :meth:`to_bytes`: a 1-D raw array. The length must be a multiple of
        ``word_bytes``."""
        data = bytes(data)
        wb = self.word_bytes
        if len(data) % wb:
            raise DTypeError(
                f"{self.name}: a memory image of {len(data)} bytes is not a whole number of "
                f"{wb}-byte words"
            )
        n = len(data) // wb
        padded = np.zeros((n, 8), dtype=np.uint8)
        padded[:, :wb] = np.frombuffer(data, dtype=np.uint8).reshape(n, wb)
        return self.from_words(padded.reshape(-1).view("<u8").astype(np.uint64))

    def to_words(self, raw) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def from_words(self, words) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError
