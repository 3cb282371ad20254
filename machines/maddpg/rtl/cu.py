"""MADDPG's compute unit, forward mode (the MADDPG paper, section III-B, IV-A, eq. 4):
``y = act(W x + b)`` in fp32 with ``F`` multiply-add elements.

The ``ID x OD`` multiply-adds are dealt input-major, ``k = i * OD + o``, ``F`` a cycle:
element ``e`` does ``k = t F + e`` in cycle ``t`` -- it reads its own weight bank at address
``t`` (the weight matrix partitioned over ``F`` banks, eq. 6's ``C_SRAM = F``; word ``k`` in
bank ``k mod F``), the activation ``x[i]`` and the accumulator of neuron ``o``, and writes
``acc[o] <- fp32(acc[o] + fp32(W[o, i] x[i]))`` (a multiplier and an adder, no fused
multiply-add). With ``F <= OD`` the ``F`` elements of a cycle work on ``F`` different
neurons and each neuron's terms arrive in input order in different cycles, so a pass takes
exactly ``ceil(ID OD / F)`` cycles (:func:`machines.maddpg.tlm.compute_unit.cu_cycles`) and
every sum is the MAC chain of :func:`~machines.maddpg.tlm.compute_unit.fp` from +0 whatever
``F``. The read port adds the bias (one more rounding) and applies the ReLU.

Saturations are counted as ``isa.dtypes`` counts them: a neuron whose MAC chain overflowed
from finite operands (one per neuron), and a bias addition that overflowed.

``start`` is sampled in cycle 0; ``done`` is high in cycle ``ceil(ID OD / F) + 1``.
"""

from __future__ import annotations

from myhdl import Signal, always_comb, always_seq, block, intbv

from rlaccel.rtl.fpu import fadd, fmul
from rlaccel.rtl.signals import bits_for, sig_unsigned
from rlaccel.machines.maddpg.rtl.params import MaddpgParams

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
    M = fmt.mbits
    EMAX = fmt.emax_field
    NI, NO, D = prm.max_in, prm.max_out, prm.bank_words
    OB = bits_for(NO - 1)
    IB = bits_for(NI)                  # one past the last input at the end of a pass
    IBM = bits_for(NI - 1)
    OBM = bits_for(NO - 1)
    KB = bits_for(NI * NO + F)

    xmem = [sig_unsigned(B) for _ in range(NI)]
    bmem = [sig_unsigned(B) for _ in range(NO)]
    # the accumulator file: one word register per neuron, and a bit per neuron saying it has
    # been written this pass (an unwritten word reads as +0, so start clears one vector)
    acc = [sig_unsigned(B) for _ in range(NO)]
    vld = sig_unsigned(NO)
    ovf = sig_unsigned(NO)
    nonfin = sig_unsigned(NO)
    ie = [sig_unsigned(IB) for _ in range(F)]
    oe = [sig_unsigned(OB) for _ in range(F)]
    t = Signal(intbv(0, min=0, max=D + 1))
    kbase = Signal(intbv(0, min=0, max=1 << KB))
    total = Signal(intbv(0, min=0, max=NI * NO + 1))
    running = sig_unsigned(0)
    insts = []
    s_e = [sig_unsigned(B) for _ in range(F)]      # element e's new sum
    of_e = [sig_unsigned(0) for _ in range(F)]     # ... its product or sum overflowed
    nf_e = [sig_unsigned(0) for _ in range(F)]     # ... its weight or x is inf or NaN
    for e in range(F):
        w = sig_unsigned(B)
        insts.append(_bank(clk, rst, ld_we, ld_sel, ld_bank, ld_addr, ld_data, t, w,
                           e=e, words=D))
        insts.append(_element(xmem, acc, vld, ie[e], oe[e], w, s_e[e], of_e[e], nf_e[e],
                              prm=prm))

    @always_seq(clk.posedge, reset=rst)
    def load():
        if ld_we and not running:
            if ld_sel == LOAD_X:
                xmem[ld_addr[IBM:]].next = ld_data
            elif ld_sel == LOAD_B:
                bmem[ld_addr[OBM:]].next = ld_data

    @always_seq(clk.posedge, reset=rst)
    def accumulate():
        for e in range(F):
            if running and kbase + e < total:
                acc[oe[e]].next = s_e[e]

    @always_seq(clk.posedge, reset=rst)
    def control():
        vl = intbv(0)[NO:]
        ov = intbv(0)[NO:]
        nf = intbv(0)[NO:]
        o = intbv(0)[OB + 1:]
        ev = intbv(0)[OB:]
        done.next = 0
        if start:
            t.next = 0
            kbase.next = 0
            total.next = n_in * n_out
            running.next = 1
            vld.next = 0
            ovf.next = 0
            nonfin.next = 0
            ev[:] = 0
            for e in range(F):
                ie[e].next = 0
                oe[e].next = ev
                ev[:] = ev + 1
        elif running:
            vl[:] = vld
            ov[:] = ovf
            nf[:] = nonfin
            for e in range(F):
                if kbase + e < total:
                    vl[oe[e]] = 1
                    if of_e[e]:
                        ov[oe[e]] = 1
                    if nf_e[e]:
                        nf[oe[e]] = 1
                o[:] = oe[e] + F
                if o >= n_out:
                    o[:] = o - n_out
                    oe[e].next = o[OB:]
                    ie[e].next = ie[e] + 1
                else:
                    oe[e].next = o[OB:]
            vld.next = vl
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
        if vld[rd_o]:
            aread.next = acc[rd_o]
        else:
            aread.next = 0
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

    return insts, load, accumulate, control, read_operands, bias, activate


@block
def _element(xmem, acc, vld, ie, oe, w, s, of, nf, *, prm: MaddpgParams):
    """One multiply-add element (a part of maddpg_cu): ``s = fp32(acc[oe] + fp32(w x[ie]))``,
    ``of``: the product or the sum overflowed, ``nf``: ``w`` or ``x[ie]`` is inf or NaN."""
    fmt = prm.fmt
    B, M, EMAX, NI = fmt.bits, fmt.mbits, fmt.emax_field, prm.max_in
    IBM = bits_for(NI - 1)
    x = sig_unsigned(B)
    a = sig_unsigned(B)
    p = sig_unsigned(B)
    om = sig_unsigned(0)
    oa = sig_unsigned(0)

    @always_comb
    def operands():
        if ie < NI:
            x.next = xmem[ie[IBM:]]
        else:
            x.next = 0
        if vld[oe]:
            a.next = acc[oe]
        else:
            a.next = 0

    mul = fmul(w, x, p, om, fmt=fmt)
    add = fadd(a, p, s, oa, fmt=fmt)

    @always_comb
    def flags():
        of.next = om or oa
        nf.next = w[B - 1:M] == EMAX or x[B - 1:M] == EMAX      # exponent all ones

    return operands, mul, add, flags


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
