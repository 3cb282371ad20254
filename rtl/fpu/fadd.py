"""The float adder: ``y = round(a + b)``, combinational."""

from __future__ import annotations

from myhdl import always_comb, block, intbv

from rlaccel.rtl.fpu.format import FloatFormat
from rlaccel.rtl.fpu.round_pack import INF, NAN, NUM, ZERO, Exact, round_pack
from rlaccel.rtl.fpu.unpack import Unpacked, unpack
from rlaccel.rtl.signals import sig_unsigned

__all__ = ["fadd"]


@block
def fadd(a, b, y, ovf, *, fmt: FloatFormat):
    """``y = round(a + b)``: the operand of the larger magnitude first (``a`` on a tie: the
    order of the packed words without their signs), the smaller aligned to it with a guard,
    a round and a sticky bit, added or subtracted, rounded by :func:`round_pack`.

    a, b -- in, operands (packed words)
    y -- out, the rounded sum (an exact zero sum is +0 unless both operands are -0)
    ovf -- out, a finite sum rounded to infinity
    """
    E, M, B = fmt.ebits, fmt.mbits, fmt.bias
    SW = M + 5                       # hidden bit, M fraction bits, guard, round, sticky, carry
    large, small = sig_unsigned(fmt.bits), sig_unsigned(fmt.bits)
    pl, ps, r = Unpacked(fmt), Unpacked(fmt), Exact(fmt, SW)
    XB = len(r.xexp)

    @always_comb
    def order():
        if a[E + M:] >= b[E + M:]:
            large.next = a
            small.next = b
        else:
            large.next = b
            small.next = a

    @always_comb
    def align():
        ml = intbv(0)[SW:]
        ms = intbv(0)[SW:]
        msh = intbv(0)[SW:]
        back = intbv(0)[SW:]
        ssum = intbv(0)[SW:]
        dexp = intbv(0)[E + 1:]
        xs = intbv(0, min=-(1 << (XB - 1)), max=1 << (XB - 1))
        st = bool(0)
        ml[:] = pl.sig << 3
        ms[:] = ps.sig << 3
        dexp[:] = pl.exp - ps.exp
        if dexp > M + 3:
            msh[:] = 0
            st = ms != 0
        else:
            msh[:] = ms >> dexp
            back[:] = msh << dexp
            st = back != ms
        if st:
            msh[0] = 1
        if pl.sign == ps.sign:
            ssum[:] = ml + msh
        else:
            ssum[:] = ml - msh
        xs[:] = pl.exp
        r.xexp.next = xs - B - M - 3
        r.sig.next = ssum
        if pl.nan or ps.nan or (pl.inf and ps.inf and pl.sign != ps.sign):
            r.kind.next = NAN
            r.sign.next = 0
        elif pl.inf:
            r.kind.next = INF
            r.sign.next = pl.sign
        elif ssum == 0:
            r.kind.next = ZERO
            r.sign.next = pl.sign and ps.sign
        else:
            r.kind.next = NUM
            r.sign.next = pl.sign

    return (order, unpack(large, pl, fmt=fmt), unpack(small, ps, fmt=fmt), align,
            round_pack(r, y, ovf, fmt=fmt))
