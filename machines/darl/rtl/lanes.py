"""One lane of DARL's regression arrays and one of its updating layer, as RTL to count their
FPGA resources (the DARL paper, sections 3.3-3.4, Fig. 4-5; :mod:`.lanes_synth` runs Yosys).

* :func:`darl_regression_pe`: a processing element of an ``A x C`` systolic array (eq. 9-10):
  the exact ``2B``-bit product of a hypervector element and a model element, registered, then
  accumulated over the ``K = D / C`` chunks in an accumulator of ``2B + ceil(log2 K)`` bits
  (the unit models' dot products are exact, :mod:`machines.darl.tlm.regression`).
  Per agent there are ``4 A C``: the Q and Q' arrays, each for the real and imaginary part.
* :func:`darl_update_lane`: one element of eq. 15-16 and eq. 7-8: ``U = V_update x Re``
  rounded to the format (half up) and saturated, then ``Q + U`` saturated, one register
  each. Per agent there are ``2 C`` (real and imaginary), the update cache's write and
  merge paths.

Neither is a verified block of the cycle-accurate simulator (no bench, no co-simulation):
each is the arithmetic the timing model's ``mul`` and ``add`` stages stand for, built to be
counted.
"""

from __future__ import annotations

from math import ceil, log2

from myhdl import always_seq, block, intbv

from rlaccel.rtl.signals import sig_signed

__all__ = ["darl_regression_pe", "darl_update_lane", "accumulator_bits"]


def accumulator_bits(bits: int, chunks: int) -> int:
    """An exact sum of ``chunks`` products of two ``bits``-bit words."""
    return 2 * bits + (ceil(log2(chunks)) if chunks > 1 else 0)


@block
def darl_regression_pe(clk, rst, x, w, first, acc, *, bits: int):
    """acc <- (first ? 0 : acc) + x * w, the product registered one cycle before.

    clk, rst -- clock and synchronous reset
    x, w -- in, ``bits``-bit signed: the hypervector element and the model element
    first -- in, the product entering the accumulator this cycle is a row's first chunk's
    acc -- out, the exact sum (``accumulator_bits`` wide)
    """
    prod = sig_signed(2 * bits)
    first_r = sig_signed(2)                 # first, delayed with the product
    lo, hi = acc.min, acc.max

    @always_seq(clk.posedge, reset=rst)
    def multiply():
        prod.next = x * w
        first_r.next = 1 if first else 0

    @always_seq(clk.posedge, reset=rst)
    def accumulate():
        s = intbv(0, min=lo, max=hi)
        if first_r == 1:
            s[:] = prod
        else:
            s[:] = acc + prod
        acc.next = s

    return multiply, accumulate


@block
def darl_update_lane(clk, rst, v, x, q, u, qu, *, bits: int, frac: int):
    """u <- sat(round(v * x)) (eq. 15-16); qu <- sat(q + u) (eq. 7-8), a cycle later.

    v -- in, V_update (eq. 14); x -- in, the encoded element (Re or Im); q -- in, the model
    element the update lands on; u, qu -- out, all ``bits``-bit signed in the format of
    ``frac`` fraction bits.
    """
    top, bottom = (1 << (bits - 1)) - 1, -(1 << (bits - 1))
    half = 1 << (frac - 1)
    wide = 2 * bits + 1

    @always_seq(clk.posedge, reset=rst)
    def scale():
        p = intbv(0, min=-(1 << (wide - 1)), max=1 << (wide - 1))
        p[:] = v * x
        p[:] = (p + half) >> frac
        if p > top:
            u.next = top
        elif p < bottom:
            u.next = bottom
        else:
            u.next = p

    @always_seq(clk.posedge, reset=rst)
    def merge():
        s = intbv(0, min=-(1 << bits), max=1 << bits)
        s[:] = q + u
        if s > top:
            qu.next = top
        elif s < bottom:
            qu.next = bottom
        else:
            qu.next = s

    return scale, merge
