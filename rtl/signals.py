"""Signal helpers every RTL block uses: widths of unsigned values and MyHDL signals of a width.

Importing this module also installs the faster ``intbv`` width helper of :mod:`rtl._speed`.
"""

from __future__ import annotations

from myhdl import Signal, intbv

from rlaccel.rtl import _speed

_speed.install()             # MyHDL's intbv width helper, 2x faster (see rtl/_speed.py)

__all__ = ["bits_for", "sig_signed", "sig_unsigned"]


def bits_for(n: int) -> int:
    """Bits of an unsigned value 0..n (at least 1)."""
    return max(int(n).bit_length(), 1)


def sig_signed(bits: int, value: int = 0) -> Signal:
    """A two's-complement signal of ``bits`` bits."""
    return Signal(intbv(value, min=-(1 << (bits - 1)), max=1 << (bits - 1)))


def sig_unsigned(bits: int, value: int = 0) -> Signal:
    """An unsigned signal of ``bits`` bits (``bits == 0`` gives a bool)."""
    return Signal(intbv(value)[bits:]) if bits else Signal(bool(value))
