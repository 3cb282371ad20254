"""One operand of the float units (:mod:`.fmul`, :mod:`.fadd`), unpacked."""

from __future__ import annotations

from myhdl import always_comb, block, intbv

from rlaccel.rtl.fpu.format import FloatFormat
from rlaccel.rtl.signals import sig_unsigned

__all__ = ["Unpacked", "unpack"]


class Unpacked:
    """An operand's fields as the units compute with them (:func:`unpack`'s outputs; in the
    Verilog ``<name>_sign`` and so on)."""

    def __init__(self, fmt: FloatFormat):
        self.sign = sig_unsigned(0)                 # the sign
        self.exp = sig_unsigned(fmt.ebits)          # the exponent field, 1 for a subnormal
        self.sig = sig_unsigned(fmt.mbits + 1)      # the fraction with the hidden bit
        self.nan = sig_unsigned(0)                  # a NaN
        self.inf = sig_unsigned(0)                  # an infinity


@block
def unpack(x, u: Unpacked, *, fmt: FloatFormat):
    """A packed word's fields.

    x -- in, the packed word
    u -- out, its :class:`Unpacked` fields: ``sign``; ``exp``, the exponent field, 1 for a
         zero or a subnormal (the subnormals' quantum's); ``sig``, the fraction with the
         hidden bit (0 for a zero); ``nan``, ``inf``
    """
    E, M, EMAX = fmt.ebits, fmt.mbits, fmt.emax_field

    @always_comb
    def logic():
        e = intbv(0)[E:]
        m = intbv(0)[M + 1:]
        e[:] = x[E + M:M]
        m[:] = x[M:]
        u.nan.next = e == EMAX and m != 0
        u.inf.next = e == EMAX and m == 0
        u.sign.next = x[E + M]
        if e != 0:
            m[M] = 1
        else:
            e[:] = 1
        u.exp.next = e
        u.sig.next = m

    return logic
