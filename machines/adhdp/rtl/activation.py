"""The activation unit: PWL tanh, sigmoid and bsig, relu, and the bypass (the ADHDP paper, III-B-2).

One word per cycle, registered output. With ``deriv`` low it computes ``act(x)``; with
``deriv`` high it computes the derivative ``act'`` from an activation *output* ``x``, which
is what back-propagation needs (``isa.dtypes.FixedType.derivative``). One multiplier serves
both: ``slope[k] * |x|`` for a PWL segment, ``x * x`` or ``x * (1 - x)`` for a derivative.

The segment tables are the :class:`~isa.dtypes.PwlTable` of each function in the
architecture's format and segment count (``breaks``, ``slopes``, ``intercepts``,
``end_value``, ``xmax_raw``, ``shift``, ``odd``), loaded as ROMs: the unit evaluates
``intercepts[k] + round(slopes[k] * |x|)`` on segment ``k = |x| >> shift``, ``end_value``
from ``xmax`` on, and the table's symmetry for negative inputs, then saturates -- the rule
of :mod:`isa.dtypes.pwl`. The function codes are the indices of the ISA's ``act`` field.
"""

from __future__ import annotations

from myhdl import always_seq, block, intbv

from rlaccel.isa.dtypes import ACTIVATIONS
from rlaccel.isa.dtypes.activations import PWL_FUNCTIONS
from rlaccel.isa.table import ENUMS

from rlaccel.rtl.errors import RtlError
from rlaccel.machines.adhdp.rtl.params import Params
from rlaccel.rtl.signals import bits_for, sig_signed, sig_unsigned

__all__ = ["activation", "activation_signals", "ACT", "ACT_BITS"]

#: activation codes: the ISA's ``act`` field
ACT = ENUMS["act"]
ACT_BITS = bits_for(len(ACT) - 1)
assert tuple(ACT) == tuple(ACTIVATIONS)  # the ISA and the number formats agree on the order


def _rom(prm: Params, name: str):
    t = prm.dt.pwl(name)
    if t.shift is None:
        raise RtlError(f"the activation unit indexes segments with a shift; the {name} table "
                       f"of {prm.dt.name} ({t.segments} segments up to {t.xmax:g}) has segments "
                       f"that are not a power of two wide")
    return (tuple(int(v) for v in t.slopes), tuple(int(v) for v in t.intercepts),
            int(t.xmax_raw), int(t.shift), int(t.end_value), bool(t.odd))


@block
def activation(clk, rst, x, act, deriv, y, sat, *, prm: Params):
    """One activation lane.

    clk -- in, clock
    rst -- in, synchronous reset
    x -- in, signed W-bit input (an activation output when deriv is high)
    act -- in, activation code, an index into the ISA's act enumeration (none: bypass)
    deriv -- in, compute the derivative act'(x) instead of act(x)
    y -- out, signed W-bit result, registered
    sat -- out, with y: the result saturated
    """
    if set(PWL_FUNCTIONS) != {"tanh", "sigmoid", "bsig"}:  # pragma: no cover - dtypes changed
        raise RtlError(f"the activation unit implements tanh, sigmoid and bsig; isa.dtypes has "
                       f"PWL tables for {', '.join(PWL_FUNCTIONS)}")
    W, N = prm.word_bits, prm.frac_bits
    MAXR, MINR = prm.max_raw, prm.min_raw
    ONE = 1 << N                            # 1.0 as isa.dtypes' derivative rule writes it
    HALF = 1 << (N - 1)
    NONE, TANH, SIGMOID, RELU, BSIG = (ACT.index(n) for n in
                                       ("none", "tanh", "sigmoid", "relu", "bsig"))
    T_SL, T_IC, T_XM, T_SH, T_END, T_ODD = _rom(prm, "tanh")
    S_SL, S_IC, S_XM, S_SH, S_END, S_ODD = _rom(prm, "sigmoid")
    B_SL, B_IC, B_XM, B_SH, B_END, B_ODD = _rom(prm, "bsig")
    SEG = bits_for(max(len(T_SL), len(S_SL), len(B_SL)) - 1)
    PB = 2 * W + 4                          # product and derivative numerators

    @always_seq(clk.posedge, reset=rst)
    def unit():
        ax = intbv(0, min=-(1 << W), max=1 << W)
        axc = intbv(0, min=-(1 << W), max=1 << W)
        idx = intbv(0)[SEG:]
        slope = intbv(0, min=MINR, max=MAXR + 1)
        icpt = intbv(0, min=MINR, max=MAXR + 1)
        ma = intbv(0, min=-(1 << W), max=1 << W)
        mb = intbv(0, min=-(1 << W), max=1 << W)
        prod = intbv(0, min=-(1 << (PB - 1)), max=1 << (PB - 1))
        q = intbv(0, min=-(1 << (PB - 1)), max=1 << (PB - 1))
        v = intbv(0, min=-(1 << (PB - 1)), max=1 << (PB - 1))
        xmax = intbv(0, min=0, max=1 << W)
        endv = intbv(0, min=MINR, max=MAXR + 1)
        odd = bool(0)
        pwl = bool(0)
        in_range = bool(0)
        # ---- operands of the one multiplier
        if x < 0:
            ax[:] = -x
        else:
            ax[:] = x
        if act == TANH:
            xmax[:] = T_XM
            endv[:] = T_END
            odd = T_ODD
        elif act == SIGMOID:
            xmax[:] = S_XM
            endv[:] = S_END
            odd = S_ODD
        else:
            xmax[:] = B_XM
            endv[:] = B_END
            odd = B_ODD
        in_range = ax < xmax
        if in_range:
            axc[:] = ax
        else:
            axc[:] = xmax - 1
        if act == TANH:                     # segment k = axc >> shift (axc < xmax)
            idx[:] = axc[T_SH + SEG:T_SH]
        elif act == SIGMOID:
            idx[:] = axc[S_SH + SEG:S_SH]
        else:
            idx[:] = axc[B_SH + SEG:B_SH]
        if act == TANH:
            slope[:] = T_SL[int(idx)]
            icpt[:] = T_IC[int(idx)]
        elif act == SIGMOID:
            slope[:] = S_SL[int(idx)]
            icpt[:] = S_IC[int(idx)]
        else:
            slope[:] = B_SL[int(idx)]
            icpt[:] = B_IC[int(idx)]
        pwl = act == TANH or act == SIGMOID or act == BSIG
        if deriv:
            ma[:] = x
            if act == SIGMOID:
                mb[:] = ONE - x
            else:
                mb[:] = x
        else:
            ma[:] = slope
            mb[:] = axc
        prod[:] = ma * mb
        # ---- the result before saturation
        if deriv:
            if act == TANH:
                q[:] = (ONE * ONE) - prod
                v[:] = (q + HALF) >> N
            elif act == SIGMOID:
                v[:] = (prod + HALF) >> N
            elif act == BSIG:
                q[:] = (ONE * ONE) - prod
                v[:] = (q + ONE) >> (N + 1)
            elif act == RELU:
                if x > 0:
                    v[:] = ONE
                else:
                    v[:] = 0
            else:
                v[:] = ONE
        elif pwl:
            if in_range:
                v[:] = icpt + ((prod + HALF) >> N)
            else:
                v[:] = endv
            if x < 0:
                if odd:
                    v[:] = -v
                else:
                    v[:] = ONE - v
        elif act == RELU:
            if x > 0:
                v[:] = x
            else:
                v[:] = 0
        else:
            v[:] = x
        # ---- saturate
        if v > MAXR:
            y.next = MAXR
            sat.next = True
        elif v < MINR:
            y.next = MINR
            sat.next = True
        else:
            y.next = v[W:].signed()
            sat.next = False

    return unit


def activation_signals(prm: Params) -> dict:
    """Fresh port signals of an activation lane, by port name (clk and rst excluded)."""
    return {"x": sig_signed(prm.word_bits), "act": sig_unsigned(ACT_BITS),
            "deriv": sig_unsigned(0), "y": sig_signed(prm.word_bits), "sat": sig_unsigned(0)}
