"""IEEE binary floating-point multiplier and adder, combinational, any exponent/fraction width.

What :mod:`rlaccel.isa.dtypes` defines for ``fp16`` and ``fp32`` (``mul`` and ``add``: the
exact result rounded once to the format, round to nearest even, with subnormals; a finite
result that rounds to infinity is an overflow, counted as a saturation), built from three
parts:

* :func:`fmul` -- unpack, the ``(M+1) x (M+1)`` significand product, the exponent sum;
* :func:`fadd` -- unpack, swap so the larger magnitude comes first, align the smaller with a
  guard, a round and a sticky bit (3 extra bits), add or subtract;
* :func:`round_pack` (used by both) -- normalise ``sig * 2**x`` (leading-one search), pick
  the normal or the subnormal quantum, round half to even, detect overflow, pack.

NaN inputs and invalid operations (``inf * 0``, ``inf - inf``) give the quiet NaN
:func:`FloatFormat.qnan` (sign 0, top fraction bit set). numpy keeps an operand's payload
and the x86 default NaN has the sign set, so a NaN result matches the functional model as a
NaN, not bit for bit; every other result is bit for bit (the benches compare NaN as a class).

The widths come from the format: :func:`float_format` reads ``np.finfo`` of the dtype's
storage (``fp16``: 5 exponent bits, 10 fraction bits; ``fp32``: 8 and 23).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from myhdl import always_comb, block, intbv

from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.signals import bits_for, sig_signed, sig_unsigned

__all__ = ["FloatFormat", "float_format", "fmul", "fadd", "round_pack", "fmul_signals"]

#: round_pack's ``kind`` input
NUM, ZERO, INF, NAN = range(4)


@dataclass(frozen=True)
class FloatFormat:
    """An IEEE binary format: ``ebits`` exponent bits, ``mbits`` stored fraction bits."""

    name: str
    ebits: int
    mbits: int

    @property
    def bits(self) -> int:
        return 1 + self.ebits + self.mbits

    @property
    def bias(self) -> int:
        return (1 << (self.ebits - 1)) - 1

    @property
    def emax_field(self) -> int:
        """The all-ones exponent field (inf and NaN)."""
        return (1 << self.ebits) - 1

    @property
    def qnan(self) -> int:
        return (self.emax_field << self.mbits) | (1 << (self.mbits - 1))

    def is_nan(self, word: int) -> bool:
        return (word >> self.mbits) & self.emax_field == self.emax_field and \
            word & ((1 << self.mbits) - 1) != 0

    @property
    def storage(self):
        return {16: np.float16, 32: np.float32, 64: np.float64}[self.bits]

    def to_word(self, v) -> int:
        return int(np.asarray(v, dtype=self.storage).reshape(()).view(
            {16: np.uint16, 32: np.uint32, 64: np.uint64}[self.bits]))

    def from_word(self, w: int):
        u = {16: np.uint16, 32: np.uint32, 64: np.uint64}[self.bits]
        return np.array(w, dtype=u).view(self.storage)


def float_format(dt) -> FloatFormat:
    """The format of an ``isa.dtypes`` float type (its storage's ``np.finfo``)."""
    if not getattr(dt, "is_float", False) or dt.name == "float64":
        raise RtlError(f"the floating-point units take fp16 or fp32, not {dt.name}")
    fi = np.finfo(dt.storage)
    return FloatFormat(dt.name, int(fi.nexp), int(fi.nmant))


def _xbits(fmt: FloatFormat, sig_bits: int) -> int:
    """Signed width of round_pack's exponent arithmetic (products span twice the range)."""
    return bits_for(4 * ((1 << fmt.ebits) + fmt.mbits + sig_bits)) + 1


@block
def round_pack(kind, sign, sig, xexp, y, ovf, *, fmt: FloatFormat, sig_bits: int):
    """Round ``(-1)**sign * sig * 2**xexp`` to the format, nearest even.

    kind -- in, NUM (sig nonzero), ZERO (a signed zero), INF (a signed infinity), NAN
    sign -- in, the result's sign
    sig -- in, unsigned ``sig_bits``-bit significand (nonzero with NUM)
    xexp -- in, signed exponent of sig's least significant bit
    y -- out, the packed result
    ovf -- out, a finite value rounded to infinity
    """
    E, M, B = fmt.ebits, fmt.mbits, fmt.bias
    SW = sig_bits
    XB = _xbits(fmt, SW)
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


def _rp_signals(fmt: FloatFormat, sig_bits: int) -> tuple:
    XB = _xbits(fmt, sig_bits)
    return sig_unsigned(2), sig_unsigned(0), sig_unsigned(sig_bits), sig_signed(XB)


@block
def fmul(a, b, y, ovf, *, fmt: FloatFormat):
    """``y = round(a * b)``.

    a, b -- in, operands (packed words)
    y -- out, the rounded product
    ovf -- out, a finite product rounded to infinity
    """
    E, M, B = fmt.ebits, fmt.mbits, fmt.bias
    EMAX = fmt.emax_field
    SW = 2 * M + 2
    kind, sign, sig, xexp = _rp_signals(fmt, SW)
    XB = len(xexp)

    @always_comb
    def unpack():
        ea = intbv(0)[E:]
        eb = intbv(0)[E:]
        ma = intbv(0)[M + 1:]
        mb = intbv(0)[M + 1:]
        xs = intbv(0, min=-(1 << (XB - 1)), max=1 << (XB - 1))
        ea[:] = a[E + M:M]
        eb[:] = b[E + M:M]
        ma[:] = a[M:]
        mb[:] = b[M:]
        nan_a = ea == EMAX and ma != 0
        nan_b = eb == EMAX and mb != 0
        inf_a = ea == EMAX and ma == 0
        inf_b = eb == EMAX and mb == 0
        zero_a = ea == 0 and ma == 0
        zero_b = eb == 0 and mb == 0
        sign.next = a[E + M] ^ b[E + M]
        if ea != 0:
            ma[M] = 1
        else:
            ea[:] = 1
        if eb != 0:
            mb[M] = 1
        else:
            eb[:] = 1
        if nan_a or nan_b or (inf_a and zero_b) or (inf_b and zero_a):
            kind.next = NAN
        elif inf_a or inf_b:
            kind.next = INF
        elif zero_a or zero_b:
            kind.next = ZERO
        else:
            kind.next = NUM
        sig.next = ma * mb
        xs[:] = ea + eb
        xexp.next = xs - 2 * B - 2 * M

    rp = round_pack(kind, sign, sig, xexp, y, ovf, fmt=fmt, sig_bits=SW)
    return unpack, rp


@block
def fadd(a, b, y, ovf, *, fmt: FloatFormat):
    """``y = round(a + b)``.

    a, b -- in, operands (packed words)
    y -- out, the rounded sum (an exact zero sum is +0 unless both operands are -0)
    ovf -- out, a finite sum rounded to infinity
    """
    E, M, B = fmt.ebits, fmt.mbits, fmt.bias
    EMAX = fmt.emax_field
    SW = M + 5                       # hidden bit, M fraction bits, guard, round, sticky, carry
    kind, sign, sig, xexp = _rp_signals(fmt, SW)
    XB = len(xexp)

    @always_comb
    def align():
        ea = intbv(0)[E:]
        eb = intbv(0)[E:]
        ma = intbv(0)[M + 1:]
        mb = intbv(0)[M + 1:]
        el = intbv(0)[E:]
        es = intbv(0)[E:]
        ml = intbv(0)[SW:]
        ms = intbv(0)[SW:]
        msh = intbv(0)[SW:]
        back = intbv(0)[SW:]
        ssum = intbv(0)[SW:]
        dexp = intbv(0)[E + 1:]
        xs = intbv(0, min=-(1 << (XB - 1)), max=1 << (XB - 1))
        sl = bool(0)
        ss = bool(0)
        st = bool(0)
        ea[:] = a[E + M:M]
        eb[:] = b[E + M:M]
        ma[:] = a[M:]
        mb[:] = b[M:]
        sa = bool(a[E + M])
        sb = bool(b[E + M])
        nan_a = ea == EMAX and ma != 0
        nan_b = eb == EMAX and mb != 0
        inf_a = ea == EMAX and ma == 0
        inf_b = eb == EMAX and mb == 0
        if ea != 0:
            ma[M] = 1
        else:
            ea[:] = 1
        if eb != 0:
            mb[M] = 1
        else:
            eb[:] = 1
        if ea > eb or (ea == eb and ma >= mb):
            el[:] = ea
            es[:] = eb
            ml[:] = ma << 3
            ms[:] = mb << 3
            sl = sa
            ss = sb
        else:
            el[:] = eb
            es[:] = ea
            ml[:] = mb << 3
            ms[:] = ma << 3
            sl = sb
            ss = sa
        dexp[:] = el - es
        if dexp > M + 3:
            msh[:] = 0
            st = ms != 0
        else:
            msh[:] = ms >> dexp
            back[:] = msh << dexp
            st = back != ms
        if st:
            msh[0] = 1
        if sl == ss:
            ssum[:] = ml + msh
        else:
            ssum[:] = ml - msh
        xs[:] = el
        xexp.next = xs - B - M - 3
        sig.next = ssum
        if nan_a or nan_b or (inf_a and inf_b and sa != sb):
            kind.next = NAN
            sign.next = 0
        elif inf_a:
            kind.next = INF
            sign.next = sa
        elif inf_b:
            kind.next = INF
            sign.next = sb
        elif ssum == 0:
            kind.next = ZERO
            sign.next = sa and sb
        else:
            kind.next = NUM
            sign.next = sl

    rp = round_pack(kind, sign, sig, xexp, y, ovf, fmt=fmt, sig_bits=SW)
    return align, rp


def fmul_signals(fmt: FloatFormat) -> dict:
    """Port signals of :func:`fmul` / :func:`fadd`."""
    return {"a": sig_unsigned(fmt.bits), "b": sig_unsigned(fmt.bits),
            "y": sig_unsigned(fmt.bits), "ovf": sig_unsigned(0)}
