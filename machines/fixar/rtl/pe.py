"""FIXAR's configurable processing element (the FIXAR paper, section V-C, Fig. 5).

Two 32 x 17-bit signed multipliers share the 32-bit weight ``w``. **Full precision**
(``half`` low): the activation ``a`` is split, ``a_hi = a >> 16`` (signed) to the upper
multiplier and ``a_lo = a & 0xFFFF`` (zero-extended) to the lower one, and the upper product
is shifted left 16 and added to the lower: one exact 32 x 32 product a cycle,
:func:`machines.fixar.tlm.pe.product_full`. **Half precision** (``half`` high): two 17-bit
operands ``h0`` (lower multiplier) and ``h1`` (upper) and two products kept apart,
:func:`~machines.fixar.tlm.pe.products_half`: two MACs a cycle.

Pipeline: the multiply stage registers the two products; the accumulate stage adds them
(full: the recombined product into ``acc0``; half: each product into its own accumulator),
exactly, into ``acc_bits``-wide accumulators that ``first`` restarts.
"""

from __future__ import annotations

from myhdl import always_seq, block, intbv

from rlaccel.rtl.signals import sig_signed, sig_unsigned
from rlaccel.machines.fixar.rtl.params import FixarParams

__all__ = ["fixar_pe", "pe_signals"]


@block
def fixar_pe(clk, rst, en, half, first, w, a, h0, h1, acc0, acc1, *, prm: FixarParams):
    """One PE.

    clk -- in, clock
    rst -- in, synchronous reset
    en -- in, a MAC (full) or two (half) this cycle
    half -- in, half-precision mode
    first -- in, with en: this term restarts the accumulators
    w -- in, the signed 32-bit weight
    a -- in, the signed 32-bit activation (full precision)
    h0, h1 -- in, the two signed 17-bit operands (half precision)
    acc0 -- out, the exact sum (full) or the sum of w * h0 (half), two cycles after the term
    acc1 -- out, the sum of w * h1 (half)
    """
    WB, MB, AB = prm.weight_bits, prm.mul_bits, prm.acc_bits
    HB = WB // 2
    PB = WB + MB
    m_hi = sig_signed(PB)
    m_lo = sig_signed(PB)
    v1 = sig_unsigned(0)
    half1 = sig_unsigned(0)
    first1 = sig_unsigned(0)

    @always_seq(clk.posedge, reset=rst)
    def multiply():
        hi = intbv(0, min=-(1 << (MB - 1)), max=1 << (MB - 1))
        lo = intbv(0, min=-(1 << (MB - 1)), max=1 << (MB - 1))
        if half:
            hi[:] = h1
            lo[:] = h0
        else:
            hi[:] = a[WB:HB].signed()
            lo[:] = a[HB:]
        m_hi.next = w * hi
        m_lo.next = w * lo
        v1.next = en
        half1.next = half
        first1.next = first

    @always_seq(clk.posedge, reset=rst)
    def accumulate():
        p = intbv(0, min=-(1 << (AB - 1)), max=1 << (AB - 1))
        b0 = intbv(0, min=-(1 << (AB - 1)), max=1 << (AB - 1))
        b1 = intbv(0, min=-(1 << (AB - 1)), max=1 << (AB - 1))
        if v1:
            if first1:
                b0[:] = 0
                b1[:] = 0
            else:
                b0[:] = acc0
                b1[:] = acc1
            if half1:
                acc0.next = b0 + m_lo
                acc1.next = b1 + m_hi
            else:
                p[:] = m_hi
                p[:] = (p << HB) + m_lo
                acc0.next = b0 + p
                acc1.next = 0

    return multiply, accumulate


def pe_signals(prm: FixarParams) -> dict:
    """Fresh port signals of a PE (clk and rst excluded)."""
    return {"en": sig_unsigned(0), "half": sig_unsigned(0), "first": sig_unsigned(0),
            "w": sig_signed(prm.weight_bits), "a": sig_signed(prm.weight_bits),
            "h0": sig_signed(prm.mul_bits), "h1": sig_signed(prm.mul_bits),
            "acc0": sig_signed(prm.acc_bits), "acc1": sig_signed(prm.acc_bits)}
