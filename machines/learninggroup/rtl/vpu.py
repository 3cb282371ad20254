"""LearningGroup's vector processing unit in FP16 (the LearningGroup paper, section III-D, Fig. 7).

One VPU: an FP16 multiplier, an FP16 adder, the 4-to-1 activation select and four FP16
accumulation registers. Each enabled cycle the controller broadcasts four activations; the
VPU takes its own weight and its 2-bit select, multiplies the selected activation by the
weight and adds the product into the selected register, both operations rounded to FP16
(round to nearest even, subnormals): ``acc[sel] <- fp16(acc[sel] + fp16(w * act[sel]))``, a
MAC a cycle, what :class:`machines.learninggroup.tlm.vpu.VpuArray` ``.cycle`` does for each
VPU. ``clear`` zeroes every register (+0), as ``VpuArray.clear``.

The multiplier and adder are :mod:`rtl.fpu`'s, at the architecture's format.
"""

from __future__ import annotations

from myhdl import always_comb, always_seq, block, intbv

from rlaccel.rtl.fpu import fadd, fmul
from rlaccel.rtl.signals import sig_unsigned
from rlaccel.machines.learninggroup.rtl.params import LgParams

__all__ = ["lg_vpu", "vpu_signals"]


@block
def lg_vpu(clk, rst, en, clear, sel, w, acts, acc, ovf_mul, ovf_add, *, prm: LgParams):
    """One VPU.

    clk -- in, clock
    rst -- in, synchronous reset (clears the registers)
    en -- in, this cycle is a multiply-accumulate
    clear -- in, zero every accumulation register (+0); a MAC in the same cycle is dropped
    sel -- in, which activation and which register (0 .. registers-1)
    w -- in, the VPU's FP16 weight
    acts -- in, the broadcast activations, register k's in bits [16k+15:16k]
    acc -- out, the accumulation registers, register k in bits [16k+15:16k]
    ovf_mul -- out, registered with acc: this cycle's product overflowed to infinity
    ovf_add -- out, registered with acc: this cycle's sum overflowed to infinity
    """
    B, R = prm.word_bits, prm.registers
    fmt = prm.fmt
    a_sel = sig_unsigned(B)
    cur = sig_unsigned(B)
    prod = sig_unsigned(B)
    total = sig_unsigned(B)
    om = sig_unsigned(0)
    oa = sig_unsigned(0)

    @always_comb
    def select():
        x = intbv(0)[B:]
        c = intbv(0)[B:]
        for i in range(B):
            x[i] = acts[sel * B + i]
            c[i] = acc[sel * B + i]
        a_sel.next = x
        cur.next = c

    mul = fmul(w, a_sel, prod, om, fmt=fmt)
    add = fadd(cur, prod, total, oa, fmt=fmt)

    @always_seq(clk.posedge, reset=rst)
    def registers():
        v = intbv(0)[R * B:]
        v[:] = acc
        if clear:
            acc.next = 0
            ovf_mul.next = 0
            ovf_add.next = 0
        elif en:
            for i in range(B):
                v[sel * B + i] = total[i]
            acc.next = v
            ovf_mul.next = om
            ovf_add.next = oa
        else:
            ovf_mul.next = 0
            ovf_add.next = 0

    return select, mul, add, registers


def vpu_signals(prm: LgParams) -> dict:
    """Fresh port signals of a VPU (clk and rst excluded)."""
    B, R = prm.word_bits, prm.registers
    return {"en": sig_unsigned(0), "clear": sig_unsigned(0), "sel": sig_unsigned(prm.sel_bits),
            "w": sig_unsigned(B), "acts": sig_unsigned(R * B), "acc": sig_unsigned(R * B),
            "ovf_mul": sig_unsigned(0), "ovf_add": sig_unsigned(0)}
