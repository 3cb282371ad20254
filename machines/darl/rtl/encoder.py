"""DARL's codebook encoder, one hypervector element a cycle (the DARL paper, section 3.2, Fig. 3,
eq. 1-6): ``E_j = sum_i s_i P_ij`` then ``(Re_j, Im_j) = (cos E_j, sin E_j)`` from the triangle
codebook.

The pipeline is the one :func:`machines.darl.tlm.timing.iteration_cycles` counts for
``encode`` (with the codebook), built with the architecture's ``[timing]`` constants:

==============  ===========================  ==========================================
registers       what                         cycles
==============  ===========================  ==========================================
P read          the state and P's row j      ``mem_read``
multiply        N exact 32 x 32 products     ``mul`` (the product, then ``mul - 1``
                                             pipeline registers)
adder tree      ``ceil(log2 N)`` levels,     ``add`` per level
                exact sums
codebook        address register (one        2 (``codebook``): the address register and
                rounding and saturation of   the table's output register
                E, the sine and cosine
                addresses), table output
==============  ===========================  ==========================================

``E`` is in turns, rounded once (half up) and saturated as
:meth:`isa.dtypes.FixedType.matvec`; the address is its top ``addr_bits`` fraction bits and
the quarter-wave table (:class:`machines.darl.tlm.codebook.Codebook`, a ROM here) is read
twice a cycle -- port A the sine, port B the cosine a quarter turn further on -- through the
quadrant's mirror and negation.
"""

from __future__ import annotations

from math import ceil, log2

from myhdl import always, always_comb, always_seq, block, intbv

from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.signals import sig_signed, sig_unsigned
from rlaccel.machines.darl.rtl.params import DarlParams

__all__ = ["darl_encoder", "encoder_signals", "encoder_latency"]


def _levels(n: int) -> int:
    return ceil(log2(n)) if n > 1 else 0


def encoder_latency(prm: DarlParams) -> int:
    """Cycles from an element's inputs to its outputs (the pipeline's registers)."""
    c = prm.latency
    return c.mem_read + c.mul + _levels(prm.features) * c.add + c.codebook


@block
def darl_encoder(clk, rst, valid, s, p, re, im, sat, valid_out, *, prm: DarlParams):
    """The encoder element pipeline.

    clk -- in, clock
    rst -- in, synchronous reset
    valid -- in, an element enters: s and p are valid
    s -- in, the state, N signed words (feature i in bits [32i+31:32i])
    p -- in, row j of the stored position matrix (in turns), N signed words likewise
    re -- out, cos E_j (raw, the data format)
    im -- out, sin E_j
    sat -- out, with re/im: E_j saturated
    valid_out -- out, re, im and sat belong to an element
    """
    c = prm.latency
    if c.codebook != 2 or c.mem_read != 1 or c.mul < 1 or (c.add < 1 and prm.features > 1):
        raise RtlError(f"darl_encoder: the codebook takes an address and an output register "
                       f"(codebook = 2), the P read one register (mem_read = 1), the multiply "
                       f"and each adder level at least one; the "
                       f"[timing] table has codebook {c.codebook}, mem_read {c.mem_read}, mul "
                       f"{c.mul}, add {c.add}")
    N, B, F = prm.features, prm.word_bits, prm.dt.frac_bits
    cb = prm.codebook
    AB = cb.addr_bits
    TABLE = tuple(int(v) for v in cb.table)
    ONE = int(prm.dt.one)
    MAXR, MINR = prm.dt.max_raw, prm.dt.min_raw
    PB = 2 * B
    LV = _levels(N)
    ACC = prm.dt.accumulator_bits(N)
    DLY = c.mul - 1 + LV * (c.add - 1) if LV else c.mul - 1

    s_r = sig_unsigned(N * B)
    p_r = sig_unsigned(N * B)
    v_r = sig_unsigned(0)
    insts = []

    @always_seq(clk.posedge, reset=rst)
    def read():
        s_r.next = s
        p_r.next = p
        v_r.next = valid

    insts.append(read)
    # the multiplier: N exact products a cycle
    level = [sig_signed(PB) for _ in range(N)]
    for i in range(N):
        insts.append(_mul(clk, rst, s_r, p_r, level[i], i=i, bits=B))
    v = sig_unsigned(0)
    insts.append(_reg(clk, rst, v_r, v))
    # the adder tree, one register per level, exact sums
    while len(level) > 1:
        nxt = [sig_signed(ACC) for _ in range((len(level) + 1) // 2)]
        for m in range(len(nxt)):
            if 2 * m + 1 < len(level):
                insts.append(_add2(clk, rst, level[2 * m], level[2 * m + 1], nxt[m]))
            else:
                insts.append(_reg(clk, rst, level[2 * m], nxt[m]))
        vn = sig_unsigned(0)
        insts.append(_reg(clk, rst, v, vn))
        level, v = nxt, vn
    # the pipelined multiplier's and adders' further registers
    esum = level[0]
    for _ in range(DLY):
        e2, v2 = sig_signed(len(esum)), sig_unsigned(0)
        insts += [_reg(clk, rst, esum, e2), _reg(clk, rst, v, v2)]
        esum, v = e2, v2
    ev = v
    a_sin = sig_unsigned(AB)
    a_cos = sig_unsigned(AB)
    sat_a = sig_unsigned(0)
    v_a = sig_unsigned(0)
    HALF = 1 << (F - 1)
    SHIFT = F - AB
    EB = len(esum)

    @always_seq(clk.posedge, reset=rst)
    def address():
        e = intbv(0, min=-(1 << (EB - 1)), max=1 << (EB - 1))
        a = intbv(0)[AB:]
        b = intbv(0)[AB:]
        hi = intbv(MAXR, min=-(1 << (EB - 1)), max=1 << (EB - 1))
        lo = intbv(MINR, min=-(1 << (EB - 1)), max=1 << (EB - 1))
        hi[:] = MAXR
        lo[:] = MINR
        e[:] = esum
        e[:] = (e + HALF) >> F
        sat_a.next = 0
        if e > hi:                      # saturated: the address of the largest word
            a[:] = hi[SHIFT + AB:SHIFT]
            sat_a.next = 1
        elif e < lo:
            a[:] = lo[SHIFT + AB:SHIFT]
            sat_a.next = 1
        else:
            a[:] = e[SHIFT + AB:SHIFT]
        a_sin.next = a
        b[:] = a                        # + a quarter turn: the quadrant bits count up
        b[AB - 2] = not a[AB - 2]
        b[AB - 1] = a[AB - 1] ^ a[AB - 2]
        a_cos.next = b
        v_a.next = ev

    # the codebook stage: each port's quadrant mirror (combinational), the table read into its
    # output register (a synchronous ROM, _rom), then the quadrant's value and sign
    idx_s, idx_c = sig_unsigned(AB - 2), sig_unsigned(AB - 2)
    one_s, one_c, neg_s, neg_c = (sig_unsigned(0) for _ in range(4))
    insts += [_mirror(a_sin, idx_s, one_s, neg_s), _mirror(a_cos, idx_c, one_c, neg_c)]
    TB = max(TABLE).bit_length()
    m_s, m_c = sig_unsigned(TB), sig_unsigned(TB)
    insts += [_rom(clk, idx_s, m_s, table=TABLE), _rom(clk, idx_c, m_c, table=TABLE)]
    f_one_s, f_one_c, f_neg_s, f_neg_c = (sig_unsigned(0) for _ in range(4))

    @always_seq(clk.posedge, reset=rst)
    def lookup():
        f_one_s.next = one_s
        f_one_c.next = one_c
        f_neg_s.next = neg_s
        f_neg_c.next = neg_c
        sat.next = sat_a
        valid_out.next = v_a

    insts += [_sign(m_s, f_one_s, f_neg_s, im, value=ONE),
              _sign(m_c, f_one_c, f_neg_c, re, value=ONE)]

    return insts, address, lookup


@block
def _mirror(a, idx, one, neg):
    """A codebook port's address into the quarter-wave table (a part of darl_encoder): the
    offset ``o`` in the quadrant, mirrored in odd quadrants (``(Q - o) mod Q``); ``one``: the
    value is the table's end (an odd quadrant at offset 0); ``neg``: the second half turn."""
    AB = len(a)

    @always_comb
    def mirror():
        o = intbv(0)[AB - 2:]
        o[:] = a[AB - 2:]
        if a[AB - 2]:
            if o == 0:
                idx.next = 0
            else:
                idx.next = ~o + 1
            one.next = o == 0
        else:
            idx.next = o
            one.next = 0
        neg.next = a[AB - 1]

    return mirror


@block
def _rom(clk, addr, q, *, table: tuple):
    """The quarter-wave codebook, a synchronous ROM read into ``q`` (a part of darl_encoder;
    one read port, so that synthesis maps it to block RAM)."""
    @always(clk.posedge)
    def read():
        q.next = table[addr]

    return read


@block
def _sign(m, one, neg, y, *, value: int):
    """A codebook port's output (a part of darl_encoder): the table word, or ``value`` (one)
    at the table's end, negated in the second half turn."""
    @always_comb
    def sign():
        if one:
            if neg:
                y.next = -value
            else:
                y.next = value
        elif neg:
            y.next = -m
        else:
            y.next = m

    return sign


@block
def _mul(clk, rst, s_r, p_r, y, *, i: int, bits: int):
    """Feature i's exact product (a part of darl_encoder)."""
    lo, hi = bits * i, bits * (i + 1)

    @always_seq(clk.posedge, reset=rst)
    def mul():
        y.next = s_r[hi:lo].signed() * p_r[hi:lo].signed()

    return mul


@block
def _add2(clk, rst, a, b, y):
    """One adder of the tree, registered (a part of darl_encoder)."""
    @always_seq(clk.posedge, reset=rst)
    def add():
        y.next = a + b

    return add


@block
def _reg(clk, rst, a, y):
    """A pipeline register (a part of darl_encoder)."""
    @always_seq(clk.posedge, reset=rst)
    def reg():
        y.next = a

    return reg


def encoder_signals(prm: DarlParams) -> dict:
    """Fresh port signals of the encoder (clk and rst excluded)."""
    N, B = prm.features, prm.word_bits
    return {"valid": sig_unsigned(0), "s": sig_unsigned(N * B), "p": sig_unsigned(N * B),
            "re": sig_signed(B), "im": sig_signed(B), "sat": sig_unsigned(0),
            "valid_out": sig_unsigned(0)}
