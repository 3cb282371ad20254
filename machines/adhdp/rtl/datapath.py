"""The L-lane datapath of the ADHDP paper (section III) executing one FF, BP, WU or BP_WU.

Pipeline (III-B): **schedule** (the scheduler issues one slot per cycle), **fetch** (memory
ports addressed; the words arrive with the next clock), **multiply** (the lanes' multipliers),
**add** (lane adders: an adder tree for FF, parallel per-lane accumulators for BP), **activate**
(the PWL unit; bypassed when the instruction has no activation) and **write back**.

Memories (III-A), as ports of the block:

* synapse SRAM: single-ported, ``L`` consecutive words per access, read *or* write in a
  cycle; a read's words arrive at the next clock edge. Being single-ported is why a weight
  update costs two cycles per tile (read, later write back) -- ``2 * tiles`` in
  :mod:`tlm.families.base.timing`.
* neuron memory (the unified space of registers and buffers): a vector read port (``L``
  words), a scalar read port (one word: the error ``g[i]`` broadcast to the lanes) and a
  vector write port with a lane mask.

Inside: the circular activation buffer (one ``L``-word tile register per tile of the longest
vector) and the write-back buffer that holds the back-propagated errors until the final
pass, as registers.

Schedules, for a ``rows x n`` window (``n = cols - off``), ``J = ceil(n / L)`` tiles per row
and ``t = rows * J`` tiles (the cycle counts of :func:`tlm.families.base.timing.matrix_timing`):

* **FF** (``J + t`` slots): ``J`` slots load the input into the activation buffer, then the
  tiles row by row; the adder tree sums the ``L`` products into lane 0's accumulator, which
  rounds once per row; the activation unit of lane 0 activates it (or is bypassed).
* **BP** (``t + J`` slots): the tiles column by column, each lane accumulating its column's
  ``sum_i W[i,k] g[i]``; the first ``J`` slots also fetch ``x`` and compute ``act'(x)`` in the
  activation units (idle otherwise) into the activation buffer; then ``J`` slots multiply
  ``act'(x) * e`` and write ``x``'s place. When the window fits one tile (``J == 1``) the last
  error leaves the add stage one cycle after the final pass would need it, so the scheduler
  inserts one STALL slot (III-B-1): one cycle more than :mod:`tlm.families.base.timing` says.
* **WU** (``2t`` slots): per tile an empty slot and a read slot; the weights ``W - g x^T``
  are written back four cycles after the read, on the cycles the SRAM is not read.
* **BP_WU** (``2t + J`` slots): per tile a read slot (the BP products, and W, x and g held
  for the update) and an update slot (``W - g x`` from the held words, written back through
  the activate stage's register so writes fall on the cycles the SRAM is not read; the
  update slots of the first ``J`` tiles also compute ``act'(x)``); then the final pass as BP.

``start`` is sampled with the instruction word in cycle 0 (the decoder fills the instruction
register); slots are issued in cycles ``1 .. issue``; the last result is written back in
cycle ``issue + depth - 1`` and ``done`` is high in cycle ``issue + depth``, when every
result is in memory: the start-to-done count equals :mod:`tlm.families.base.timing`'s ``issue + depth``.
"""

from __future__ import annotations

from myhdl import ConcatSignal, Signal, always_comb, always_seq, block, enum, intbv

from rlaccel.machines.adhdp.rtl.activation import ACT_BITS, activation
from rlaccel.machines.adhdp.rtl.decoder import DecodedFields, decoder, mnemonic_code
from rlaccel.machines.adhdp.rtl.lane import LANE_OPS, LANE_OP_BITS, lane
from rlaccel.machines.adhdp.rtl.params import Params
from rlaccel.rtl.signals import bits_for, sig_signed, sig_unsigned

__all__ = ["datapath", "datapath_signals", "DATAPATH_MNEMONICS", "rtl_cycles"]

#: the instructions the datapath executes
DATAPATH_MNEMONICS = ("ff", "bp", "wu", "bp_wu")


def rtl_cycles(mnemonic: str, rows: int, n: int, lanes: int, act: int) -> int:
    """Start-to-done cycles of an instruction on this datapath: tlm.families.base.timing's issue + depth
    (which includes the STALL slot of a BP whose window fits one tile)."""
    from rlaccel.tlm.families.base.timing import matrix_timing
    issue, depth = matrix_timing(mnemonic, rows, n, lanes, act)
    return issue + depth


class _Tags:
    """The pipeline registers every lane slice reads (one bundle, shared): the slot's kind,
    tile, masks and flags at the multiply (m_), add (a_), activate (v_) and write-back (w_)
    stages."""

    _FLAGS = {"m": ("load", "ffm", "mac", "wut", "rt", "ht", "der", "fin", "first", "last",
                    "end"),
              "a": ("ffm", "mac", "wut", "ht", "der", "fin", "last", "end"),
              "v": ("ffm", "mac", "wut", "ht", "fin", "last", "end"),
              "w": ("ffm", "ht", "end")}
    _TILES = {"m": ("j", "dj"), "a": ("j", "dj"), "v": ("j",), "w": ()}
    _MASKS = {"m": ("mask", "dmask"), "a": ("mask", "dmask"), "v": ("mask",), "w": ("mask",)}

    def __init__(self, prm: Params):
        L, W, JB = prm.lanes, prm.word_bits, bits_for(prm.tiles - 1)
        for stage, names in self._FLAGS.items():
            for name in names:
                setattr(self, f"{stage}_{name}", Signal(bool(0)))
            for name in self._TILES[stage]:
                setattr(self, f"{stage}_{name}", sig_unsigned(JB))
            for name in self._MASKS[stage]:
                setattr(self, f"{stage}_{name}", sig_unsigned(L))
        self.gh = sig_signed(W)                   # BP_WU: g[i] held for the update slot
        self.act = sig_unsigned(ACT_BITS)         # the instruction's activation
        self.act_on = Signal(bool(0))             # it is not the bypass


@block
def _slice(clk, rst, t, s_word, n_word, gdata, ext, p, swd, nwd, cnt, mask_m, dmask_m,
           mask_v, dmask_a, *, prm: Params, first_lane: bool):
    """One lane of the datapath: operand multiplexers, the lane, the activation unit, this
    lane's column of the activation and write-back buffers, and its write data.

    clk, rst -- in, clock and synchronous reset
    t -- in, the shared pipeline registers (_Tags)
    s_word -- in, this lane's word of the synapse read data
    n_word -- in, this lane's word of the neuron vector read data
    gdata -- in, the neuron scalar read data (g[i])
    ext -- in, the adder tree's sum (used by lane 0's mact)
    p -- out, the lane's registered product, to the adder tree
    swd -- out, this lane's word written back to the synapse SRAM (WU, BP_WU)
    nwd -- out, this lane's word written back to the neuron memory (FF, BP, BP_WU)
    cnt -- out, this lane's saturations this cycle
    mask_m, dmask_m, mask_v, dmask_a -- in, this lane's bit of the stage masks
    """
    W = prm.word_bits
    JT = prm.tiles
    OP = {name: i for i, name in enumerate(LANE_OPS)}
    NOP, MUL, MULSUB, MAC, MACT = OP["nop"], OP["mul"], OP["mulsub"], OP["mac"], OP["mact"]
    FFOP = MACT if first_lane else NOP

    op = sig_unsigned(LANE_OP_BITS)
    first, last = Signal(bool(0)), Signal(bool(0))
    a, b, c, y = sig_signed(W), sig_signed(W), sig_signed(W), sig_signed(W)
    sat_mul, sat_add = Signal(bool(0)), Signal(bool(0))
    x, ay = sig_signed(W), sig_signed(W)
    aact = sig_unsigned(ACT_BITS)
    deriv, asat = Signal(bool(0)), Signal(bool(0))
    circ = [sig_signed(W) for _ in range(JT)]     # activation buffer column (x, or act'(x))
    ebuf = [sig_signed(W) for _ in range(JT)]     # write-back buffer column (BP errors)
    wh, xh, yd = sig_signed(W), sig_signed(W), sig_signed(W)

    the_lane = lane(clk, rst, op, first, last, a, b, c, ext, p, y, sat_mul, sat_add, prm=prm)
    the_act = activation(clk, rst, x, aact, deriv, ay, asat, prm=prm)

    @always_comb
    def operands():
        sw = intbv(0, min=-(1 << (W - 1)), max=1 << (W - 1))
        nw = intbv(0, min=-(1 << (W - 1)), max=1 << (W - 1))
        if mask_m:
            sw[:] = s_word.signed()
            nw[:] = n_word.signed()
        op.next = NOP
        first.next = t.m_first
        last.next = t.m_last
        a.next = 0
        b.next = 0
        c.next = 0
        if t.m_ffm:                       # FF tile: W x, summed by the tree into lane 0
            op.next = FFOP
            a.next = sw
            b.next = circ[t.m_j]
        elif t.m_mac:                     # BP tile: this column's sum W[i,k] g[i]
            op.next = MAC
            a.next = sw
            b.next = gdata.signed()
        elif t.m_wut:                     # WU tile: W - g x
            op.next = MULSUB
            a.next = gdata.signed()
            b.next = nw
            c.next = sw
        elif t.m_ht:                      # BP_WU update slot: W - g x from the held words
            op.next = MULSUB
            a.next = t.gh
            b.next = xh
            c.next = wh
        elif t.m_fin:                     # final pass: act'(x) * e (forwarded if just made)
            op.next = MUL
            if t.a_der and t.a_dj == t.m_j:
                a.next = ay
            else:
                a.next = circ[t.m_j]
            if t.v_mac and t.v_last and t.v_j == t.m_j:
                b.next = y
            else:
                b.next = ebuf[t.m_j]
        # the activation unit: act'(x) for BP (multiply-stage slot), act(sum) for FF
        aact.next = t.act
        if t.m_der:
            deriv.next = True
            if dmask_m:
                x.next = n_word.signed()
            else:
                x.next = 0
        elif t.v_ffm and t.v_last:
            deriv.next = False
            x.next = y
        else:
            deriv.next = False
            x.next = 0

    @always_seq(clk.posedge, reset=rst)
    def buffers():
        if t.m_load:
            if mask_m:
                circ[t.m_j].next = n_word.signed()
            else:
                circ[t.m_j].next = 0
        if t.a_der:
            circ[t.a_dj].next = ay
        if t.m_rt:
            if mask_m:
                wh.next = s_word.signed()
                xh.next = n_word.signed()
            else:
                wh.next = 0
                xh.next = 0
        if t.v_mac and t.v_last:
            ebuf[t.v_j].next = y
        if t.v_ht:
            yd.next = y

    @always_comb
    def writeback():
        n = intbv(0, min=0, max=4)                # at most 3 in a cycle: lane + activation
        if t.w_ht:
            swd.next = yd
        else:
            swd.next = y
        if t.w_ffm:
            nwd.next = ay
        else:
            nwd.next = y
        # saturations this cycle, each counted where isa.dtypes counts it
        if t.v_ffm and t.v_last and first_lane:
            n[:] = sat_mul
        elif (t.v_mac and t.v_last) or t.v_fin:
            if mask_v:
                n[:] = sat_mul
        elif t.v_wut or t.v_ht:
            if mask_v:
                n[:] = sat_mul + sat_add
        if t.a_der and dmask_a:
            n[:] = n + asat
        if t.w_ffm and first_lane:
            n[:] = n + asat
        cnt.next = n

    return the_lane, the_act, operands, buffers, writeback


@block
def _add2(a, b, out):
    """out = a + b (a node of the adder tree)."""
    @always_comb
    def node():
        out.next = a + b
    return node


def datapath_signals(prm: Params) -> dict:
    """Fresh port signals of the datapath, by port name (clk and rst excluded)."""
    L, W = prm.lanes, prm.word_bits
    return {
        "start": Signal(bool(0)), "instr": sig_unsigned(prm.enc.instr_bits),
        "ready": Signal(bool(0)), "done": Signal(bool(0)), "fault": Signal(bool(0)),
        "sats": sig_unsigned(_sat_bits(prm)),
        "s_addr": sig_unsigned(prm.saddr_bits), "s_we": Signal(bool(0)),
        "s_wmask": sig_unsigned(L), "s_wdata": sig_unsigned(L * W), "s_rdata": sig_unsigned(L * W),
        "n_raddr": sig_unsigned(prm.uaddr_bits), "n_rdata": sig_unsigned(L * W),
        "n_gaddr": sig_unsigned(prm.uaddr_bits), "n_gdata": sig_unsigned(W),
        "n_waddr": sig_unsigned(prm.uaddr_bits), "n_we": Signal(bool(0)),
        "n_wmask": sig_unsigned(L), "n_wdata": sig_unsigned(L * W),
    }


def _sat_bits(prm: Params) -> int:
    # at most two saturations per weight (product, difference) plus two per output element
    return bits_for(2 * prm.max_dim * prm.max_dim + 4 * prm.max_dim)


@block
def datapath(clk, rst, start, instr, ready, done, fault, sats,
             s_addr, s_we, s_wmask, s_wdata, s_rdata,
             n_raddr, n_rdata, n_gaddr, n_gdata, n_waddr, n_we, n_wmask, n_wdata,
             *, prm: Params):
    """The datapath.

    clk -- in, clock
    rst -- in, synchronous reset
    start -- in, with instr: begin an instruction (sampled when ready)
    instr -- in, the instruction word (instr_bits)
    ready -- out, idle: start is accepted
    done -- out, one cycle: every result of the instruction is in memory
    fault -- out, with done: the word is not an FF, BP, WU or BP_WU (or its window is empty);
        nothing was executed
    sats -- out, with done: saturated results of the instruction (as isa.dtypes counts them)
    s_addr -- out, synapse SRAM: first of the L words read or written this cycle
    s_we -- out, synapse SRAM: write (else read)
    s_wmask -- out, synapse SRAM: lanes written
    s_wdata -- out, synapse SRAM: L words, lane l at bits [l*W, (l+1)*W)
    s_rdata -- in, synapse SRAM: the L words at the address of the previous cycle's read
    n_raddr -- out, neuron memory vector read: first of L words
    n_rdata -- in, neuron memory vector read: the L words addressed the previous cycle
    n_gaddr -- out, neuron memory scalar read: one word
    n_gdata -- in, neuron memory scalar read: the word addressed the previous cycle
    n_waddr -- out, neuron memory write: first of L words
    n_we -- out, neuron memory write enable
    n_wmask -- out, neuron memory write: lanes written
    n_wdata -- out, neuron memory write: L words
    """
    L, W = prm.lanes, prm.word_bits
    JB = bits_for(prm.tiles - 1)
    DB = prm.dim_bits
    UB, SB = prm.uaddr_bits, prm.saddr_bits
    AB = bits_for(prm.synapse_words + 2 * prm.max_dim * prm.max_dim)   # address arithmetic
    NB = bits_for(prm.max_dim + L)
    MN = {m: mnemonic_code(prm, m) for m in DATAPATH_MNEMONICS}
    FF, BP, WU, BPWU = MN["ff"], MN["bp"], MN["wu"], MN["bp_wu"]
    State = enum("IDLE", "LOAD", "TILE", "STALL", "FIN", "DRAIN", "FAULT")

    fields = DecodedFields(prm, names=prm.enc.opdef("ff").operands)
    dec = decoder(instr, fields, prm=prm)
    t = _Tags(prm)

    # ---- instruction register and scheduler state
    state = Signal(State.IDLE)
    kind = sig_unsigned(len(fields.mn))
    r_src, r_dst = sig_unsigned(UB), sig_unsigned(UB)
    r_base = sig_unsigned(AB)                      # syn + off
    r_rows, r_cols, r_n = sig_unsigned(DB), sig_unsigned(DB), sig_unsigned(DB)
    i, jl, djl = sig_unsigned(DB), sig_unsigned(NB), sig_unsigned(NB)
    j, dj = sig_unsigned(JB), sig_unsigned(JB)
    rowoff = sig_unsigned(AB)
    phase, der_left = Signal(bool(0)), Signal(bool(0))
    count = sig_unsigned(len(sats))

    # ---- slot descriptor (schedule -> fetch)
    f_load, f_ffm, f_mac, f_wut, f_rt, f_ht, f_der, f_fin = (Signal(bool(0)) for _ in range(8))
    f_first, f_last, f_end = Signal(bool(0)), Signal(bool(0)), Signal(bool(0))
    f_j, f_dj = sig_unsigned(JB), sig_unsigned(JB)
    f_mask, f_dmask = sig_unsigned(L), sig_unsigned(L)
    f_saddr = sig_unsigned(AB)
    f_xaddr, f_gaddr = sig_unsigned(AB), sig_unsigned(AB)
    f_waddr = sig_unsigned(AB)
    m_waddr, a_waddr, v_waddr, w_waddr = (sig_unsigned(AB) for _ in range(4))

    # ---- lanes
    tree_in = [sig_signed(prm.prod_bits) for _ in range(L)]
    swds = [sig_signed(W) for _ in range(L)]
    nwds = [sig_signed(W) for _ in range(L)]
    cnts = [sig_unsigned(2) for _ in range(L)]
    s_words = [s_rdata((l + 1) * W, l * W) for l in range(L)]
    n_words = [n_rdata((l + 1) * W, l * W) for l in range(L)]
    tree_sum = sig_signed(prm.tree_bits)
    cycle_sats = sig_unsigned(bits_for(3 * L))
    slices = [_slice(clk, rst, t, s_words[l], n_words[l], n_gdata, tree_sum, tree_in[l], swds[l],
                     nwds[l], cnts[l], t.m_mask(l), t.m_dmask(l), t.v_mask(l), t.a_dmask(l), prm=prm,
                     first_lane=l == 0)
              for l in range(L)]
    s_wd = ConcatSignal(*reversed(swds))
    n_wd = ConcatSignal(*reversed(nwds))

    # adder trees: the lanes' products (FF), the lanes' saturation counts
    adders = []
    for leaves, root, width in ((tree_in, tree_sum, prm.tree_bits),
                                (cnts, cycle_sats, len(cycle_sats))):
        nodes = list(leaves)
        if len(nodes) == 1:
            adders.append(_add2(nodes[0], Signal(intbv(0)[1:]), root))
        while len(nodes) > 1:
            nxt = []
            for k in range(0, len(nodes) - 1, 2):
                out = root if len(nodes) == 2 else (
                    sig_signed(width) if width == prm.tree_bits else sig_unsigned(width))
                adders.append(_add2(nodes[k], nodes[k + 1], out))
                nxt.append(out)
            if len(nodes) % 2:
                nxt.append(nodes[-1])
            nodes = nxt

    @always_comb
    def status():
        ready.next = state == State.IDLE

    @always_seq(clk.posedge, reset=rst)
    def schedule():
        last_col = bool(0)
        last_row = bool(0)
        msk = intbv(0)[L:]
        dmsk = intbv(0)[L:]
        wb_end = bool(0)
        # defaults: an empty slot
        f_load.next = False
        f_ffm.next = False
        f_mac.next = False
        f_wut.next = False
        f_rt.next = False
        f_ht.next = False
        f_der.next = False
        f_fin.next = False
        f_first.next = False
        f_last.next = False
        f_end.next = False
        done.next = False
        fault.next = False
        last_col = jl + L >= r_n
        last_row = i + 1 == r_rows
        for l in range(L):
            msk[l] = jl + l < r_n
            dmsk[l] = djl + l < r_n
        f_mask.next = msk
        f_dmask.next = dmsk
        f_j.next = j
        f_dj.next = dj
        f_saddr.next = r_base + rowoff + jl
        f_gaddr.next = r_src + i
        f_xaddr.next = r_src + jl
        f_waddr.next = r_base + rowoff + jl
        wb_end = (t.v_end and not (t.v_ffm and t.act_on)) or t.w_end
        if state == State.IDLE:
            if start:
                kind.next = fields.mn
                r_src.next = fields.src
                r_dst.next = fields.dst
                r_base.next = fields.syn + fields.off
                r_rows.next = fields.rows
                r_cols.next = fields.cols
                r_n.next = fields.cols - fields.off
                t.act.next = fields.act
                t.act_on.next = fields.act != 0
                i.next = 0
                jl.next = 0
                j.next = 0
                djl.next = 0
                dj.next = 0
                rowoff.next = 0
                phase.next = False
                der_left.next = True
                count.next = 0
                if not fields.legal or fields.off >= fields.cols:
                    state.next = State.FAULT
                elif fields.mn == FF:
                    state.next = State.LOAD
                elif fields.mn == BP or fields.mn == WU or fields.mn == BPWU:
                    state.next = State.TILE
                else:
                    state.next = State.FAULT
        elif state == State.FAULT:
            done.next = True
            fault.next = True
            state.next = State.IDLE
        elif state == State.LOAD:                    # FF: the input into the buffer
            f_load.next = True
            f_xaddr.next = r_src + jl
            if last_col:
                jl.next = 0
                j.next = 0
                state.next = State.TILE
            else:
                jl.next = jl + L
                j.next = j + 1
        elif state == State.TILE:
            if kind == FF:                           # row by row
                f_ffm.next = True
                f_first.next = j == 0
                f_last.next = last_col
                f_end.next = last_col and last_row
                f_waddr.next = r_dst + i
                if last_col:
                    jl.next = 0
                    j.next = 0
                    i.next = i + 1
                    rowoff.next = rowoff + r_cols
                    if last_row:
                        state.next = State.DRAIN
                else:
                    jl.next = jl + L
                    j.next = j + 1
            else:                                    # column by column
                advance = bool(0)
                if kind == BP:
                    f_mac.next = True
                    advance = True
                elif kind == WU:
                    if phase:
                        f_wut.next = True
                        f_xaddr.next = r_dst + jl
                        f_end.next = last_col and last_row
                        advance = True
                    phase.next = not phase
                else:                                # BP_WU: read slot, then update slot
                    if phase:
                        f_ht.next = True
                        advance = True
                    else:
                        f_rt.next = True
                        f_mac.next = True
                        f_xaddr.next = r_dst + jl
                    phase.next = not phase
                f_first.next = i == 0
                f_last.next = last_row
                if der_left and (kind == BP or (kind == BPWU and phase)):
                    f_der.next = True
                    f_xaddr.next = r_dst + djl
                    if djl + L >= r_n:
                        der_left.next = False
                    else:
                        djl.next = djl + L
                        dj.next = dj + 1
                if advance:
                    if last_row:
                        i.next = 0
                        rowoff.next = 0
                        if last_col:
                            jl.next = 0
                            j.next = 0
                            if kind == WU:
                                state.next = State.DRAIN
                            elif kind == BP and jl == 0:
                                state.next = State.STALL
                            else:
                                state.next = State.FIN
                        else:
                            jl.next = jl + L
                            j.next = j + 1
                    else:
                        i.next = i + 1
                        rowoff.next = rowoff + r_cols
        elif state == State.STALL:                   # BP, one tile wide: wait for e
            state.next = State.FIN
        elif state == State.FIN:                     # act'(x) * e into x's place
            f_fin.next = True
            f_waddr.next = r_dst + jl
            f_end.next = last_col
            if last_col:
                jl.next = 0
                j.next = 0
                state.next = State.DRAIN
            else:
                jl.next = jl + L
                j.next = j + 1
        elif state == State.DRAIN:
            if wb_end:
                state.next = State.IDLE
        else:                                        # unreachable: raises in simulation
            assert False, "datapath: unknown scheduler state"
        if state != State.IDLE and state != State.FAULT:
            count.next = count + cycle_sats
        if wb_end:
            done.next = True

    @always_comb
    def outputs():
        sats.next = count

    @always_seq(clk.posedge, reset=rst)
    def pipeline():
        # fetch -> multiply
        t.m_load.next = f_load
        t.m_ffm.next = f_ffm
        t.m_mac.next = f_mac
        t.m_wut.next = f_wut
        t.m_rt.next = f_rt
        t.m_ht.next = f_ht
        t.m_der.next = f_der
        t.m_fin.next = f_fin
        t.m_first.next = f_first
        t.m_last.next = f_last
        t.m_end.next = f_end
        t.m_j.next = f_j
        t.m_dj.next = f_dj
        t.m_mask.next = f_mask
        t.m_dmask.next = f_dmask
        m_waddr.next = f_waddr
        if t.m_rt:
            t.gh.next = n_gdata.signed()
        # multiply -> add
        t.a_ffm.next = t.m_ffm
        t.a_mac.next = t.m_mac
        t.a_wut.next = t.m_wut
        t.a_ht.next = t.m_ht
        t.a_der.next = t.m_der
        t.a_fin.next = t.m_fin
        t.a_last.next = t.m_last
        t.a_end.next = t.m_end
        t.a_j.next = t.m_j
        t.a_dj.next = t.m_dj
        t.a_mask.next = t.m_mask
        t.a_dmask.next = t.m_dmask
        a_waddr.next = m_waddr
        # add -> activate (lane results valid)
        t.v_ffm.next = t.a_ffm
        t.v_mac.next = t.a_mac
        t.v_wut.next = t.a_wut
        t.v_ht.next = t.a_ht
        t.v_fin.next = t.a_fin
        t.v_last.next = t.a_last
        t.v_end.next = t.a_end
        t.v_j.next = t.a_j
        t.v_mask.next = t.a_mask
        v_waddr.next = a_waddr
        # activate -> write back (FF with an activation; BP_WU updates)
        t.w_ffm.next = t.v_ffm and t.v_last and t.act_on
        t.w_ht.next = t.v_ht
        t.w_end.next = t.v_end and t.v_ffm and t.act_on
        t.w_mask.next = t.v_mask
        w_waddr.next = v_waddr

    @always_comb
    def ports():
        # reads in the fetch stage (f_*), writes in the write-back stage (v_* or w_*)
        n_raddr.next = f_xaddr[UB:]
        n_gaddr.next = f_gaddr[UB:]
        s_we.next = False
        s_addr.next = f_saddr[SB:]
        s_wmask.next = 0
        if t.v_wut:
            s_we.next = True
            s_addr.next = v_waddr[SB:]
            s_wmask.next = t.v_mask
        elif t.w_ht:
            s_we.next = True
            s_addr.next = w_waddr[SB:]
            s_wmask.next = t.w_mask
        n_we.next = False
        n_waddr.next = v_waddr[UB:]
        n_wmask.next = 0
        if (t.v_ffm and t.v_last and not t.act_on):
            n_we.next = True
            n_wmask.next = 1
        elif t.v_fin:
            n_we.next = True
            n_wmask.next = t.v_mask
        elif t.w_ffm:
            n_we.next = True
            n_waddr.next = w_waddr[UB:]
            n_wmask.next = 1
        s_wdata.next = s_wd
        n_wdata.next = n_wd

    return dec, slices, adders, status, schedule, outputs, pipeline, ports
