"""MADDPG's compute unit, forward mode (seed 003, section III-B, IV-A, eq. 4):
``y = act(W x + b)`` in fp32 with ``F`` multiply-add elements.

The ``ID x OD`` multiply-adds are dealt input-major, ``k = i * OD + o``, ``F`` a cycle:
element ``e`` does ``k = t F + e`` in cycle ``t`` -- it reads its own weight bank at address
``t`` (the weight matrix partitioned over ``F`` banks, eq. 6's ``C_SRAM = F``; word ``k`` in
bank ``k mod F``), the activation ``x[i]`` and the accumulator of neuron ``o``, and writes
``acc[o] <- fp32(acc[o] + fp32(W[o, i] x[i]))`` (a multiplier and an adder, no fused
multiply-add). With ``F <= OD`` the ``F`` elements of a cycle work on ``F`` different
neurons and each neuron's terms arrive in input order in different cycles, so a pass takes
exactly ``ceil(ID OD / F)`` cycles (:func:`tlm.families.maddpg.compute_unit.cu_cycles`) and
every sum is the MAC chain of :func:`~tlm.families.maddpg.compute_unit.fp` from +0 whatever
``F``. The read port adds the bias (one more rounding) and applies the ReLU.

Saturations are counted as ``isa.dtypes`` counts them: a neuron whose MAC chain overflowed
from finite operands (one per neuron), and a bias addition that overflowed.

``start`` is sampled in cycle 0; ``done`` is high in cycle ``ceil(ID OD / F) + 1``.
"""

from __future__ import annotations

from myhdl import ConcatSignal, Signal, always_comb, always_seq, block, intbv

from ..fpu import fadd, fmul
from ..params import bits_for, sig_unsigned
from .params import MaddpgParams

__all__ = ["maddpg_cu", "cu_signals", "LOAD_W", "LOAD_X", "LOAD_B"]

#: ``ld_sel``: what a load writes
LOAD_W, LOAD_X, LOAD_B = range(3)


@block
def maddpg_cu(clk, rst, ld_we, ld_sel, ld_bank, ld_addr, ld_data, start, n_in, n_out, done,
              rd_o, relu, y, sats, *, prm: MaddpgParams):
    """The compute unit.

    clk -- in, clock
    rst -- in, synchronous reset
    ld_we -- in, a load (between passes)
    ld_sel -- in, LOAD_W: weight bank ld_bank, word ld_addr; LOAD_X: x[ld_addr]; LOAD_B: b[ld_addr]
    ld_bank -- in, the weight bank
    ld_addr -- in, the address
    ld_data -- in, the fp32 word
    start -- in, a pass over n_in x n_out (n_out >= F)
    n_in -- in, ID
    n_out -- in, OD
    done -- out, high for one cycle when every accumulator holds its sum
    rd_o -- in, a neuron to read
    relu -- in, apply the ReLU on the read port
    y -- out, act(acc[rd_o] + b[rd_o]) (combinational)
    sats -- out, saturations of neuron rd_o: its MAC chain's and its bias addition's (0..2)
    """
    F, B = prm.unroll, prm.word_bits
    fmt = prm.fmt
    E, M = fmt.ebits, fmt.mbits
    EMAX = fmt.emax_field
    NI, NO, D = prm.max_in, prm.max_out, prm.bank_words
    OB = bits_for(NO - 1)
    IB = bits_for(NI)                  # one past the last input at the end of a pass
    IBM = bits_for(NI - 1)
    OBM = bits_for(NO - 1)
    KB = bits_for(NI * NO + F)

    xmem = [sig_unsigned(B) for _ in range(NI)]
    bmem = [sig_unsigned(B) for _ in range(NO)]
    acc = sig_unsigned(NO * B)
    ovf = sig_unsigned(NO)
    nonfin = sig_unsigned(NO)
    ie = [sig_unsigned(IB) for _ in range(F)]
    oe = [sig_unsigned(OB) for _ in range(F)]
    t = Signal(intbv(0, min=0, max=D + 1))
    kbase = Signal(intbv(0, min=0, max=1 << KB))
    total = Signal(intbv(0, min=0, max=NI * NO + 1))
    running = sig_unsigned(0)
    xbus = sig_unsigned(F * B)
    abus = sig_unsigned(F * B)
    insts = []
    w_e = [sig_unsigned(B) for _ in range(F)]
    s_e = [sig_unsigned(B) for _ in range(F)]
    om_e = [sig_unsigned(0) for _ in range(F)]
    oa_e = [sig_unsigned(0) for _ in range(F)]
    for e in range(F):
        insts.append(_bank(clk, rst, ld_we, ld_sel, ld_bank, ld_addr, ld_data, t, w_e[e],
                           e=e, words=D))
        p, x1, a1 = sig_unsigned(B), sig_unsigned(B), sig_unsigned(B)
        insts += [_word(xbus, x1, k=e), _word(abus, a1, k=e)]
        insts.append(fmul(w_e[e], x1, p, om_e[e], fmt=fmt))
        insts.append(fadd(a1, p, s_e[e], oa_e[e], fmt=fmt))
    sbus = ConcatSignal(*reversed(s_e)) if F > 1 else s_e[0]
    wbus = ConcatSignal(*reversed(w_e)) if F > 1 else w_e[0]
    ombus = ConcatSignal(*reversed(om_e)) if F > 1 else om_e[0]
    oabus = ConcatSignal(*reversed(oa_e)) if F > 1 else oa_e[0]

    @always_seq(clk.posedge, reset=rst)
    def load():
        if ld_we and not running:
            if ld_sel == LOAD_X:
                xmem[ld_addr[IBM:]].next = ld_data
            elif ld_sel == LOAD_B:
                bmem[ld_addr[OBM:]].next = ld_data

    @always_comb
    def operands():
        xv = intbv(0)[F * B:]
        av = intbv(0)[F * B:]
        xw = intbv(0)[B:]
        for e in range(F):
            if ie[e] < NI:
                xw[:] = xmem[ie[e][IBM:]]
            else:
                xw[:] = 0
            for b in range(B):
                xv[e * B + b] = xw[b]
                av[e * B + b] = acc[oe[e] * B + b]
        xbus.next = xv
        abus.next = av

    @always_seq(clk.posedge, reset=rst)
    def control():
        a = intbv(0)[NO * B:]
        ov = intbv(0)[NO:]
        nf = intbv(0)[NO:]
        o = intbv(0)[OB + 1:]
        ev = intbv(0)[OB:]
        wi = bool(0)
        xi = bool(0)
        done.next = 0
        if start:
            t.next = 0
            kbase.next = 0
            total.next = n_in * n_out
            running.next = 1
            acc.next = 0
            ovf.next = 0
            nonfin.next = 0
            ev[:] = 0
            for e in range(F):
                ie[e].next = 0
                oe[e].next = ev
                ev[:] = ev + 1
        elif running:
            a[:] = acc
            ov[:] = ovf
            nf[:] = nonfin
            for e in range(F):
                if kbase + e < total:
                    for b in range(B):
                        a[oe[e] * B + b] = sbus[e * B + b]
                    if ombus[e] or oabus[e]:
                        ov[oe[e]] = 1
                    wi = True                       # exponent all ones: inf or NaN
                    xi = True
                    for b in range(E):
                        if not wbus[e * B + M + b]:
                            wi = False
                        if not xbus[e * B + M + b]:
                            xi = False
                    if wi or xi:
                        nf[oe[e]] = 1
                o[:] = oe[e] + F
                if o >= n_out:
                    o[:] = o - n_out
                    oe[e].next = o[OB:]
                    ie[e].next = ie[e] + 1
                else:
                    oe[e].next = o[OB:]
            acc.next = a
            ovf.next = ov
            nonfin.next = nf
            t.next = t + 1
            kbase.next = kbase + F
            if kbase + F >= total:
                running.next = 0
                done.next = 1

    ysum = sig_unsigned(B)
    aread = sig_unsigned(B)
    bread = sig_unsigned(B)
    ob = sig_unsigned(0)

    @always_comb
    def read_operands():
        v = intbv(0)[B:]
        for b in range(B):
            v[b] = acc[rd_o * B + b]
        aread.next = v
        bread.next = bmem[rd_o]

    bias = fadd(aread, bread, ysum, ob, fmt=fmt)

    @always_comb
    def activate():
        n = intbv(0)[2:]
        nan = ysum[B - 1:M] == EMAX and ysum[M:] != 0
        if relu and not nan and (ysum[B - 1] or ysum[B - 1:0] == 0):
            y.next = 0
        else:
            y.next = ysum
        if ovf[rd_o] and not nonfin[rd_o]:
            n[:] = 1
        if ob:
            n[:] = n + 1
        sats.next = n

    return insts, load, operands, control, read_operands, bias, activate


@block
def _bank(clk, rst, ld_we, ld_sel, ld_bank, ld_addr, ld_data, raddr, rdata, *, e: int,
          words: int):
    """Weight bank ``e`` (a part of maddpg_cu): written by the loader, read at the pass
    cycle."""
    mem = [Signal(intbv(0)[len(ld_data):]) for _ in range(words)]
    AW = bits_for(words - 1)

    @always_seq(clk.posedge, reset=rst)
    def write():
        if ld_we and ld_sel == LOAD_W and ld_bank == e:
            mem[ld_addr[AW:]].next = ld_data

    @always_comb
    def read():
        if raddr < words:
            rdata.next = mem[raddr[AW:]]
        else:
            rdata.next = 0

    return write, read


@block
def _word(bus, y, *, k: int):
    """Word k of a bus (a part of maddpg_cu)."""
    lo, hi = len(y) * k, len(y) * (k + 1)

    @always_comb
    def pick():
        y.next = bus[hi:lo]

    return pick


def cu_signals(prm: MaddpgParams) -> dict:
    """Fresh port signals of the compute unit (clk and rst excluded)."""
    B = prm.word_bits
    AB = bits_for(max(prm.bank_words, prm.max_in, prm.max_out) - 1)
    return {"ld_we": sig_unsigned(0), "ld_sel": sig_unsigned(2),
            "ld_bank": sig_unsigned(bits_for(prm.unroll - 1)), "ld_addr": sig_unsigned(AB),
            "ld_data": sig_unsigned(B), "start": sig_unsigned(0),
            "n_in": Signal(intbv(1, min=0, max=prm.max_in + 1)),
            "n_out": Signal(intbv(1, min=0, max=prm.max_out + 1)), "done": sig_unsigned(0),
            "rd_o": sig_unsigned(bits_for(prm.max_out - 1)), "relu": sig_unsigned(0),
            "y": sig_unsigned(B), "sats": sig_unsigned(2)}
