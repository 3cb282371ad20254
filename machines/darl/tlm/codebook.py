"""The triangle codebook: sine and cosine by table lookup instead of computation (the DARL paper,
section 3.2, eq. 5-6).

The paper pre-computes "all possible sin and cos values" of the 32-bit fixed-point argument on
the host, stores them in BRAM, and uses the argument itself as the address. A table of 2^32
entries (16 GiB) cannot be what the chip holds, so we take the reading that makes the
argument *be* an address of a small table: the encoder works in **turns**, not radians (the
position matrix is stored pre-divided by 2 pi, :mod:`.encoder`), so ``E`` in q16.16 is
``integer turns . fraction of a turn`` and, sin and cos being periodic, only the fraction
bits matter. The address is the top ``addr_bits`` fraction bits of ``E`` (truncation: the
integer part and any lower bits are dropped, which costs no logic)::

    addr = (E_raw >> (frac_bits - addr_bits)) mod 2**addr_bits
    sin E ~= sin(2 pi addr / 2**addr_bits),   cos E ~= sin(2 pi (addr + 2**(addr_bits-2)) / ...)

Storage: one quarter-wave table ``T[o] = round(sin(2 pi o / 2**addr_bits))`` for
``o = 0 .. 2**(addr_bits-2) - 1`` in the data format; the quadrant (the top two address
bits) mirrors the offset and/or negates the entry, and ``sin(pi/2) = 1`` (offset 0 of the
mirrored quadrants, beyond the table) is a constant. With the default 16 address bits (every
fraction bit of q16.16) that is 16,384 words of 32 bits = 512 Kib = 16 BRAM36 (1K x 36 each),
and one dual-port copy returns one element's sine (port A) and cosine (port B) per cycle;
the full two-table form would be 131,072 words. Each entry is the correctly rounded value,
so against sin/cos of the fixed-point argument the error is at most half an LSB (2^-17 in
q16.16) when ``addr_bits == frac_bits``, plus at most ``2 pi 2**-addr_bits`` when fewer
address bits truncate the phase (:meth:`Codebook.error_bound`).
"""

from __future__ import annotations

import math

import numpy as np

from rlaccel.isa.dtypes import FixedType, get_dtype
from rlaccel.util.errors import ArchError

__all__ = ["Codebook", "BRAM36_WORDS"]

#: words of up to 36 bits in one BRAM36 block (Xilinx UltraScale+, 1K x 36)
BRAM36_WORDS = 1024


class Codebook:
    """Sine and cosine of a fixed-point phase in turns, from a quarter-wave table.

    ``fmt`` -- the data format (a :class:`~rlaccel.isa.dtypes.FixedType` or its name;
    ``fixed32`` = q16.16 by default); ``addr_bits`` -- address width, ``2 <= addr_bits <=
    frac_bits``.
    """

    def __init__(self, fmt="fixed32", addr_bits: int | None = None):
        fmt = get_dtype(fmt) if isinstance(fmt, str) else fmt
        if not isinstance(fmt, FixedType):
            raise ArchError(f"the triangle codebook holds fixed-point words; {fmt.name} is not "
                            f"a fixed-point format")
        self.fmt = fmt
        bits = fmt.frac_bits if addr_bits is None else addr_bits
        if isinstance(bits, bool) or not isinstance(bits, int) or not 2 <= bits <= fmt.frac_bits:
            raise ArchError(f"codebook: addr_bits must be an integer in 2..{fmt.frac_bits} (the "
                            f"fraction bits of {fmt.name}), not {addr_bits!r}")
        self.addr_bits = bits
        self.quarter = 1 << (bits - 2)
        k = np.arange(self.quarter, dtype=np.float64)
        self.table = fmt.quantize(np.sin(2.0 * math.pi * k / (1 << bits)))
        self._one = np.int64(fmt.one)
        # every address's value, read through the quarter-wave logic once: lookups index it
        self._period = self._sin_addr(np.arange(1 << bits, dtype=np.int64))

    # ------------------------------------------------------------------ geometry
    @property
    def entries(self) -> int:
        """Words in the stored (quarter-wave) table."""
        return self.quarter

    @property
    def storage_bits(self) -> int:
        """Bits of one copy of the table."""
        return self.entries * self.fmt.bits

    @property
    def bram36(self) -> int:
        """BRAM36 blocks for one copy (1K words of up to 36 bits each)."""
        return -(-self.entries // BRAM36_WORDS) * -(-self.fmt.bits // 36)

    def error_bound(self) -> float:
        """Largest ``|codebook - sin/cos(2 pi E)|`` over every fixed-point phase ``E``: half
        an LSB of the stored value plus the phase truncated away (``2 pi`` times the dropped
        fraction, ``< 2 pi 2**-addr_bits``)."""
        dropped = self.fmt.frac_bits - self.addr_bits
        trunc = 2.0 * math.pi * ((1 << dropped) - 1) * self.fmt.lsb
        return self.fmt.lsb / 2 + trunc

    # ------------------------------------------------------------------ lookup
    def address(self, e_raw) -> np.ndarray:
        """The table address of raw phases ``e_raw`` (turns in the data format)."""
        e = np.asarray(e_raw, dtype=np.int64)
        return (e >> np.int64(self.fmt.frac_bits - self.addr_bits)) & np.int64(
            (1 << self.addr_bits) - 1)

    def _sin_addr(self, addr: np.ndarray) -> np.ndarray:
        q = addr >> np.int64(self.addr_bits - 2)
        o = addr & np.int64(self.quarter - 1)
        mirrored = (q & 1) == 1
        idx = np.where(mirrored, (self.quarter - o) & np.int64(self.quarter - 1), o)
        mag = self.table[idx]
        mag = np.where(mirrored & (o == 0), self._one, mag)
        return np.where(q >= 2, -mag, mag)

    def sin(self, e_raw) -> np.ndarray:
        """Raw ``sin(2 pi E)`` of raw phases ``E`` in turns."""
        return self._period[self.address(e_raw)]

    def cos(self, e_raw) -> np.ndarray:
        """Raw ``cos(2 pi E)``: the sine a quarter turn further on (port B of the table)."""
        a = (self.address(e_raw) + np.int64(self.quarter)) & np.int64((1 << self.addr_bits) - 1)
        return self._period[a]

    def quarter_wave(self, addr) -> np.ndarray:
        """Raw ``sin(2 pi addr / 2**addr_bits)`` as the hardware reads it: the quadrant
        mirrors the offset into the quarter-wave table and/or negates the entry (what
        :meth:`sin` and :meth:`cos` return, from a full period unrolled once)."""
        return self._sin_addr(np.asarray(addr, dtype=np.int64))

    def lookup(self, e_raw) -> tuple[np.ndarray, np.ndarray]:
        """``(cos, sin)`` of raw phases: the real and imaginary parts of ``exp(j 2 pi E)``."""
        return self.cos(e_raw), self.sin(e_raw)
