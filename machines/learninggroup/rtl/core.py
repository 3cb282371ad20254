"""A LearningGroup core's controller and VPUs (Fig. 7): the schedule of
:mod:`machines.learninggroup.tlm.controller` in hardware, around ``prm.core_lanes`` VPUs
(:mod:`.vpu`).

``start`` (one cycle) takes a pass: up to four rows' workloads ``wl`` (row k's in bits
``[wb k + wb - 1 : wb k]``) and their activations ``acts``, and clears every accumulation
register. Each following cycle the controller puts the pass's element base ``addr`` (``t *
lanes``) out to the weight memory, which answers with the lanes' weights ``w`` in the same
cycle; lane ``p`` is enabled while ``addr + p`` is inside the pass and selects the row whose
flattened range holds ``addr + p`` (comparisons with the workloads' prefix sums, a 2-bit
select). ``done`` rises after the pass's last multiply-accumulate: ``ceil(sum wl / lanes)``
cycles after ``start``, none for a pass without work.
"""

from __future__ import annotations

from myhdl import ConcatSignal, always_comb, always_seq, block, intbv

from rlaccel.rtl.bus import bus_join, bus_word
from rlaccel.rtl.signals import bits_for, sig_unsigned
from rlaccel.machines.learninggroup.rtl.params import LgParams
from rlaccel.machines.learninggroup.rtl.vpu import lg_vpu

__all__ = ["lg_core", "core_signals"]


def _widths(prm: LgParams) -> tuple[int, int]:
    """Bits of one workload (0 .. bitvector_bits) and of a pass's element count."""
    wb = bits_for(prm.enc.bitvector_bits)
    return wb, bits_for(prm.registers * prm.enc.bitvector_bits + prm.core_lanes)


@block
def lg_core(clk, rst, start, wl, acts, w, addr, acc, busy, done, sat, *, prm: LgParams):
    """One core of ``prm.core_lanes`` VPUs.

    clk, rst -- in, clock and synchronous reset
    start -- in, take a pass (``wl``, ``acts``) and clear the registers
    wl -- in, the pass's workloads, one per register
    acts -- in, the pass's activations, held through the pass
    w -- in, this cycle's weights, lane p's in bits [16p+15:16p]
    addr -- out, the pass's element base of this cycle
    acc -- out, the lanes' registers, lane p's register k in bits [16(4p+k)+15:16(4p+k)]
    busy -- out, a pass is in progress
    done -- out, one cycle after a pass's last cycle (or after ``start`` of an empty one)
    sat -- out, a product or a sum of the pass so far overflowed to infinity
    """
    B, R, N = prm.word_bits, prm.registers, prm.core_lanes
    wb, eb = _widths(prm)
    ends = [sig_unsigned(eb) for _ in range(R)]
    total = sig_unsigned(eb)
    en = [sig_unsigned(0) for _ in range(N)]
    sel = [sig_unsigned(prm.sel_bits) for _ in range(N)]
    lane_w = [sig_unsigned(B) for _ in range(N)]
    words = [bus_word(w, lane_w[p], k=p) for p in range(N)]
    lane_acc = [sig_unsigned(R * B) for _ in range(N)]
    lane_om = [sig_unsigned(0) for _ in range(N)]
    lane_oa = [sig_unsigned(0) for _ in range(N)]
    active = sig_unsigned(0)
    flags = ConcatSignal(*lane_om, *lane_oa)
    sticky = sig_unsigned(0)

    vpus = [lg_vpu(clk, rst, en[p], start, sel[p], lane_w[p], acts, lane_acc[p], lane_om[p],
                   lane_oa[p], prm=prm) for p in range(N)]
    out_acc = bus_join(lane_acc, acc)

    @always_comb
    def out_sat():
        sat.next = sticky or flags != 0

    lanes = [_lane(p, addr, active, total, ends, en[p], sel[p], regs=R) for p in range(N)]

    @always_seq(clk.posedge, reset=rst)
    def control():
        done.next = False
        if start:
            sticky.next = False
            s = intbv(0)[eb:]
            for r in range(R):
                x = intbv(0)[wb:]
                for i in range(wb):
                    x[i] = wl[r * wb + i]
                s[:] = s + x
                ends[r].next = s
            total.next = s
            addr.next = 0
            active.next = s != 0
            busy.next = s != 0
            done.next = s == 0
        elif active:
            if flags != 0:
                sticky.next = True
            if addr + N >= total:
                active.next = False
                busy.next = False
                done.next = True
            addr.next = addr + N               # < 2**eb: addr < total <= R * bitvector_bits

    return words, vpus, out_acc, out_sat, lanes, control


@block
def _lane(p, addr, active, total, ends, en, sel, *, regs):
    """Lane ``p``'s enable and 2-bit select: element ``addr + p`` against the pass's end and
    its rows' prefix sums."""
    @always_comb
    def logic():
        k = intbv(0)[len(sel):]
        if active and addr + p < total:
            for r in range(regs - 1):
                if addr + p >= ends[r]:
                    k[:] = k + 1
            en.next = True
        else:
            en.next = False
        sel.next = k
    return logic


def core_signals(prm: LgParams) -> dict:
    """Fresh port signals of a core (clk and rst excluded)."""
    B, R, N = prm.word_bits, prm.registers, prm.core_lanes
    wb, eb = _widths(prm)
    return {"start": sig_unsigned(0), "wl": sig_unsigned(R * wb), "acts": sig_unsigned(R * B),
            "w": sig_unsigned(N * B), "addr": sig_unsigned(eb), "acc": sig_unsigned(N * R * B),
            "busy": sig_unsigned(0), "done": sig_unsigned(0), "sat": sig_unsigned(0)}
