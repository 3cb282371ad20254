"""Rounding and packing the float units' exact results (:mod:`.fmul`, :mod:`.fadd`): the
leading-one search, the normal or the subnormal quantum, round half to even, overflow, the
packed word."""

from __future__ import annotations

from myhdl import always_comb, block, intbv

from rlaccel.rtl.fpu.format import FloatFormat
from rlaccel.rtl.signals import bits_for, sig_signed, sig_unsigned

__all__ = ["Exact", "round_pack", "NUM", "ZERO", "INF", "NAN"]

#: the kinds of an exact result
NUM, ZERO, INF, NAN = range(4)


class Exact:
    """A unit's exact result, ``(-1)**sign * sig * 2**xexp`` (:func:`round_pack`'s input):
    ``kind`` NUM (sig nonzero), ZERO (a signed zero), INF (a signed infinity) or NAN;
    ``sign``; ``sig``, an unsigned ``sig_bits``-bit significand; ``xexp``, the signed
    exponent of its least significant bit, wide enough for a product's range."""

    def __init__(self, fmt: FloatFormat, sig_bits: int):
        self.kind = sig_unsigned(2)
        self.sign = sig_unsigned(0)
        self.sig = sig_unsigned(sig_bits)
        self.xexp = sig_signed(bits_for(4 * ((1 << fmt.ebits) + fmt.mbits + sig_bits)) + 1)


@block
def round_pack(r: Exact, y, ovf, *, fmt: FloatFormat):
    """Round an exact result to the format, nearest even.

    r -- in, the :class:`Exact` result: ``kind``, ``sign``, ``sig``, ``xexp``
    y -- out, the packed result
    ovf -- out, a finite value rounded to infinity
    """
    E, M, B = fmt.ebits, fmt.mbits, fmt.bias
    SW, XB = len(r.sig), len(r.xexp)
    kind, sign, sig, xexp = r.kind, r.sign, r.sig, r.xexp
    QMIN = 1 - B - M                    # exponent of the subnormals' quantum
    EMAX = fmt.emax_field
    QNAN = fmt.qnan
    HID = 1 << M
    XLO, XHI = -(1 << (XB - 1)), 1 << (XB - 1)
    SB = bits_for(SW + 1)               # a right shift 0 .. SW+1

    @always_comb
    def logic():
        lead = intbv(0, min=0, max=SW + 1)
        pv = intbv(0, min=XLO, max=XHI)
        sh = intbv(0, min=XLO, max=XHI)
        ls = intbv(0)[XB:]
        shc = intbv(0)[SB:]
        shm1 = intbv(0)[SB:]
        wide = intbv(0)[SW + M + 2:]
        mant = intbv(0)[SW + M + 2:]
        top = intbv(0)[SW + 1:]
        back = intbv(0)[SW + 1:]
        gbit = bool(0)
        st = bool(0)
        fe = intbv(0, min=XLO, max=XHI)
        oflag = bool(0)
        res = intbv(0)[E + M + 1:]
        if kind == NAN:
            res[:] = QNAN
        elif kind == INF:
            res[:] = EMAX << M
            res[E + M] = sign
        elif kind == ZERO:
            res[:] = 0
            res[E + M] = sign
        else:
            for i in range(1, SW):          # the leading one: thresholds passed
                if sig >= (1 << i):
                    lead[:] = lead + 1
            pv[:] = lead
            if pv - M > QMIN - xexp:
                sh[:] = pv - M
            else:
                sh[:] = QMIN - xexp
            if sh <= 0:
                wide[:] = sig
                ls[:] = 0 - sh
                mant[:] = wide << ls
            else:
                if sh > SW + 1:
                    shc[:] = SW + 1
                else:
                    shc[:] = sh[SB:]
                shm1[:] = shc - 1
                mant[:] = sig >> shc
                top[:] = sig >> shm1
                gbit = bool(top[0])
                back[:] = top << shm1
                st = back != sig
                if gbit and (st or mant[0]):
                    mant[:] = mant + 1
            fe[:] = xexp + sh + M + B
            if mant >= 2 * HID:
                mant[:] = mant >> 1
                fe[:] = fe + 1
            if mant >= HID:
                if fe >= EMAX:
                    res[:] = EMAX << M
                    oflag = True
                else:
                    res[:] = fe[E:] << M
                    res[M:] = mant[M:]
            else:
                res[:] = mant[M:]
            res[E + M] = sign
        y.next = res
        ovf.next = oflag

    return logic
