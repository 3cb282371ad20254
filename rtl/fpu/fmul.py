"""The float multiplier: ``y = round(a * b)``, combinational."""

from __future__ import annotations

from myhdl import always_comb, block, intbv

from rlaccel.rtl.fpu.format import FloatFormat
from rlaccel.rtl.fpu.round_pack import INF, NAN, NUM, ZERO, Exact, round_pack
from rlaccel.rtl.fpu.unpack import Unpacked, unpack

__all__ = ["fmul"]


@block
def fmul(a, b, y, ovf, *, fmt: FloatFormat):
    """``y = round(a * b)``: the ``(M+1) x (M+1)`` significand product and the exponent sum,
    rounded by :func:`round_pack`.

    a, b -- in, operands (packed words)
    y -- out, the rounded product
    ovf -- out, a finite product rounded to infinity
    """
    M, B = fmt.mbits, fmt.bias
    pa, pb, r = Unpacked(fmt), Unpacked(fmt), Exact(fmt, 2 * M + 2)
    XB = len(r.xexp)

    @always_comb
    def multiply():
        xs = intbv(0, min=-(1 << (XB - 1)), max=1 << (XB - 1))
        zero_a = pa.sig == 0
        zero_b = pb.sig == 0
        r.sign.next = pa.sign ^ pb.sign
        if pa.nan or pb.nan or (pa.inf and zero_b) or (pb.inf and zero_a):
            r.kind.next = NAN
        elif pa.inf or pb.inf:
            r.kind.next = INF
        elif zero_a or zero_b:
            r.kind.next = ZERO
        else:
            r.kind.next = NUM
        r.sig.next = pa.sig * pb.sig
        xs[:] = pa.exp + pb.exp
        r.xexp.next = xs - 2 * B - 2 * M

    return (unpack(a, pa, fmt=fmt), unpack(b, pb, fmt=fmt), multiply,
            round_pack(r, y, ovf, fmt=fmt))
