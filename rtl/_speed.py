"""A faster, exact replacement for the bit-string helper MyHDL's ``intbv`` calls.

``intbv(0, min=..., max=...)`` -- how a convertible generator declares a signed variable --
measures its bounds with ``len(myhdl._bin.bin(x))``, a pure-Python loop of ``divmod`` per
bit; in the datapath's simulation that loop was 60 % of the run time. :func:`bin` returns
the same strings from Python's own formatting (``tests/machines/adhdp/rtl/test_speed.py`` compares the two
over wide ranges); it replaces the name only inside ``myhdl._intbv``.
"""

from __future__ import annotations

import myhdl._intbv

__all__ = ["bin", "install"]


def bin(num, width: int = 0) -> str:                 # noqa: A001 - MyHDL's name
    """``myhdl.bin``: the shortest two's-complement digits of ``num``, sign-padded to
    ``width``."""
    num = int(num)
    if num >= 0:
        s = format(num, "b")
    else:
        s = format(num & ((1 << ((~num).bit_length() + 1)) - 1), "b")
    if width:
        return (width - len(s)) * ("1" if num < 0 else "0") + s
    return s


def install() -> None:
    myhdl._intbv.bin = bin
