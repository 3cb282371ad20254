"""Signal helpers every RTL block uses: widths of unsigned values, MyHDL signals of a width,
and words packed side by side into one wide signal's value (a beat, a tile, a bus of lanes).

Importing this module also installs :mod:`rtl._speed`'s faster MyHDL helpers (the ``intbv``
width helper, the call records and syntax trees of elaboration and conversion).
"""

from __future__ import annotations

from typing import Iterable

from myhdl import Signal, intbv
from myhdl._Signal import _Signal

from rlaccel.rtl import _speed

_speed.install()             # MyHDL's intbv width, call-record and syntax-tree helpers, faster

__all__ = ["bits_for", "sig_signed", "sig_unsigned", "pack", "unpack", "flat_ports"]


def bits_for(n: int) -> int:
    """Bits of an unsigned value 0..n (at least 1)."""
    return max(int(n).bit_length(), 1)


def sig_signed(bits: int, value: int = 0) -> Signal:
    """A two's-complement signal of ``bits`` bits."""
    return Signal(intbv(value, min=-(1 << (bits - 1)), max=1 << (bits - 1)))


def sig_unsigned(bits: int, value: int = 0) -> Signal:
    """An unsigned signal of ``bits`` bits (``bits == 0`` gives a bool)."""
    return Signal(intbv(value)[bits:]) if bits else Signal(bool(value))


def pack(words: Iterable[int], bits: int) -> int:
    """Words of ``bits`` bits side by side, word k in bits ``[k bits + bits - 1 : k bits]``
    (a signed word as its two's complement)."""
    m = (1 << bits) - 1
    return sum((int(v) & m) << (k * bits) for k, v in enumerate(words))


def unpack(value: int, bits: int, n: int, *, signed: bool = True) -> list[int]:
    """The ``n`` words of :func:`pack`'s layout in ``value``, signed unless ``signed`` is
    False."""
    value, m, top = int(value), (1 << bits) - 1, 1 << (bits - 1)
    out = []
    for k in range(n):
        v = (value >> (k * bits)) & m
        out.append(v - (1 << bits) if signed and v & top else v)
    return out


def flat_ports(ports: dict) -> dict:
    """Port signals by their Verilog names: an interface object's signals become
    ``<port>_<attribute>``, as MyHDL's converter names them."""
    flat = {}
    for name, sig in ports.items():
        if isinstance(sig, _Signal):
            flat[name] = sig
        else:
            for attr, s in vars(sig).items():
                if isinstance(s, _Signal):
                    flat[f"{name}_{attr}"] = s
    return flat
