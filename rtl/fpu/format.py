"""An IEEE binary format's widths and its words (:class:`FloatFormat`), from an
``isa.dtypes`` float type (:func:`float_format`), and the port signals of the float units."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.signals import sig_unsigned

__all__ = ["FloatFormat", "float_format", "fmul_signals"]

#: a word's float and unsigned-integer numpy types, by width
_TYPES = {16: (np.float16, np.uint16), 32: (np.float32, np.uint32), 64: (np.float64, np.uint64)}


@dataclass(frozen=True)
class FloatFormat:
    """An IEEE binary format: ``ebits`` exponent bits, ``mbits`` stored fraction bits."""

    name: str
    ebits: int
    mbits: int

    @property
    def bits(self) -> int:
        return 1 + self.ebits + self.mbits

    @property
    def bias(self) -> int:
        return (1 << (self.ebits - 1)) - 1

    @property
    def emax_field(self) -> int:
        """The all-ones exponent field (inf and NaN)."""
        return (1 << self.ebits) - 1

    @property
    def qnan(self) -> int:
        return (self.emax_field << self.mbits) | (1 << (self.mbits - 1))

    def is_nan(self, word: int) -> bool:
        return (word >> self.mbits) & self.emax_field == self.emax_field and \
            word & ((1 << self.mbits) - 1) != 0

    @property
    def storage(self):
        return _TYPES[self.bits][0]

    def to_word(self, v) -> int:
        """A value as its packed word."""
        return int(np.asarray(v, dtype=self.storage).reshape(()).view(_TYPES[self.bits][1]))

    def from_word(self, w: int):
        """A packed word as its value."""
        return np.array(w, dtype=_TYPES[self.bits][1]).view(self.storage)


def float_format(dt) -> FloatFormat:
    """The format of an ``isa.dtypes`` float type (its storage's ``np.finfo``)."""
    if not getattr(dt, "is_float", False) or dt.name == "float64":
        raise RtlError(f"the floating-point units take fp16 or fp32, not {dt.name}")
    fi = np.finfo(dt.storage)
    return FloatFormat(dt.name, int(fi.nexp), int(fi.nmant))


def fmul_signals(fmt: FloatFormat) -> dict:
    """Port signals of :func:`fmul` / :func:`fadd`."""
    return {"a": sig_unsigned(fmt.bits), "b": sig_unsigned(fmt.bits),
            "y": sig_unsigned(fmt.bits), "ovf": sig_unsigned(0)}
