"""One datapath lane: the multiply and add stages of the ADHDP paper, III-B-2, in fixed point.

The lane is a two-stage pipeline. The multiply stage registers the full ``2W``-bit product
``a*b`` (also an output, ``p``, for the datapath's adder tree) beside the add operand ``c``.
The add stage then, by ``op`` (:data:`LANE_OPS`):

==========  =====================================================  ===========================
op          y                                                      isa.dtypes equivalent
==========  =====================================================  ===========================
``nop``     unchanged (flags cleared)                              --
``mul``     sat(round(a*b))                                        ``mul(a, b)``
``muladd``  sat(c + sat(round(a*b)))                               ``add(c, mul(a, b))``
``mulsub``  sat(c - sat(round(a*b)))                               ``sub(c, mul(a, b))``
``mac``     acc = (first ? 0 : acc) + a*b; sat(round(acc))         ``dot`` over a sequence
``mact``    acc = (first ? 0 : acc) + ext; sat(round(acc))         ``dot`` (ext: a tree's sum)
==========  =====================================================  ===========================

``round`` is round half up at the binary point, ``(v + 2**(N-1)) >> N`` with an arithmetic
shift, and ``sat`` clips to the word's range: the rule of :mod:`isa.dtypes.fixed`, including
one rounding per dot product (the accumulator is exact, ``Params.acc_bits`` wide).
``sat_mul`` flags a saturated product (or, for ``mac``/``mact``, a saturated final sum,
reported with ``last``); ``sat_add`` a saturated ``c +/- product``. Their sum is the count
``isa.dtypes`` adds to a :class:`~isa.dtypes.SaturationCounter` for the same operation.
"""

from __future__ import annotations

from myhdl import always_seq, block, intbv

from rlaccel.machines.adhdp.rtl.params import Params
from rlaccel.rtl.signals import sig_signed, sig_unsigned

__all__ = ["LANE_OPS", "LANE_OP_BITS", "lane", "lane_signals"]

#: the lane's operations; a signal carries the index
LANE_OPS = ("nop", "mul", "muladd", "mulsub", "mac", "mact")
LANE_OP_BITS = (len(LANE_OPS) - 1).bit_length()


@block
def lane(clk, rst, op, first, last, a, b, c, ext, p, y, sat_mul, sat_add, *, prm: Params):
    """One lane.

    clk -- in, clock
    rst -- in, synchronous reset (clears the pipeline registers and the accumulator)
    op -- in, multiply stage: operation, an index into LANE_OPS
    first -- in, multiply stage: this mac/mact term starts a new sum (accumulator cleared)
    last -- in, multiply stage: this mac/mact term ends the sum (its flags are reported)
    a, b -- in, multiply stage: signed W-bit factors
    c -- in, multiply stage: signed W-bit add operand (muladd, mulsub)
    ext -- in, add stage: signed tree_bits-bit addend of mact (the adder tree's sum)
    p -- out, add stage: the registered full 2W-bit product a*b, to the adder tree
    y -- out, signed W-bit result, registered at the end of the add stage
    sat_mul -- out, with y: the product (or the final sum of mac/mact) saturated
    sat_add -- out, with y: the addition or subtraction of muladd/mulsub saturated
    """
    W, N = prm.word_bits, prm.frac_bits
    PW, AB = prm.prod_bits, prm.acc_bits
    HALF = 1 << (N - 1)
    MAXR, MINR = prm.max_raw, prm.min_raw
    NOP, MUL, MULADD, MULSUB, MAC, MACT = range(len(LANE_OPS))

    c1 = sig_signed(W)
    op1 = sig_unsigned(LANE_OP_BITS)
    first1 = sig_unsigned(0)
    last1 = sig_unsigned(0)
    acc = sig_signed(AB)

    @always_seq(clk.posedge, reset=rst)
    def multiply():
        p.next = a * b
        c1.next = c
        op1.next = op
        first1.next = first
        last1.next = last

    @always_seq(clk.posedge, reset=rst)
    def add():
        r = intbv(0, min=-(1 << (PW - 1)), max=1 << (PW - 1))
        m = intbv(0, min=MINR, max=MAXR + 1)
        s = intbv(0, min=-(1 << W), max=1 << W)
        base = intbv(0, min=-(1 << (AB - 1)), max=1 << (AB - 1))
        total = intbv(0, min=-(1 << (AB - 1)), max=1 << (AB - 1))
        ra = intbv(0, min=-(1 << (AB - 1)), max=1 << (AB - 1))
        sm = bool(0)
        sa = bool(0)
        if op1 == MUL or op1 == MULADD or op1 == MULSUB:
            r[:] = (p + HALF) >> N
            if r > MAXR:
                m[:] = MAXR
                sm = True
            elif r < MINR:
                m[:] = MINR
                sm = True
            else:
                m[:] = r[W:].signed()
            if op1 == MULADD:
                s[:] = c1 + m
            elif op1 == MULSUB:
                s[:] = c1 - m
            else:
                s[:] = m
            if s > MAXR:
                y.next = MAXR
                sa = True
            elif s < MINR:
                y.next = MINR
                sa = True
            else:
                y.next = s[W:].signed()
        elif op1 == MAC or op1 == MACT:
            if first1:
                base[:] = 0
            else:
                base[:] = acc
            if op1 == MAC:
                total[:] = base + p
            else:
                total[:] = base + ext
            acc.next = total
            ra[:] = (total + HALF) >> N
            if ra > MAXR:
                y.next = MAXR
                sm = bool(last1)
            elif ra < MINR:
                y.next = MINR
                sm = bool(last1)
            else:
                y.next = ra[W:].signed()
        sat_mul.next = sm
        sat_add.next = sa

    return multiply, add


def lane_signals(prm: Params) -> dict:
    """Fresh port signals of a lane, by port name (clk and rst excluded)."""
    W = prm.word_bits
    return {"op": sig_unsigned(LANE_OP_BITS), "first": sig_unsigned(0), "last": sig_unsigned(0),
            "a": sig_signed(W), "b": sig_signed(W), "c": sig_signed(W),
            "ext": sig_signed(prm.tree_bits), "p": sig_signed(prm.prod_bits),
            "y": sig_signed(W), "sat_mul": sig_unsigned(0), "sat_add": sig_unsigned(0)}
