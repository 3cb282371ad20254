"""FIXAR's Gaussian noise generator (the FIXAR paper, section III: the PRNG that adds exploration
noise to the actor's output), as :mod:`machines.fixar.tlm.prng` defines it.

``lanes`` lanes of ``REGISTERS`` 32-bit xorshift registers (Marsaglia's (13, 17, 5) triple).
Every enabled cycle each register steps once and each lane outputs the centred sum of its
registers' twelve 16-bit halves, ``sum - 6 (2**16 - 1)``: a q16.16 sample of an
Irwin-Hall(12) approximation of N(0, 1), registered, one sample per lane a cycle. The
registers are seeded through the load port (the host computes the splitmix64 seeds:
``NoiseGenerator``'s ``regs``) and read back through the read port; a multiplier-free
generator, no DSP.
"""

from __future__ import annotations

from myhdl import Signal, always_seq, block, intbv

from rlaccel.rtl.signals import bits_for, sig_unsigned
from rlaccel.machines.fixar.rtl.params import FixarParams

__all__ = ["fixar_prng", "prng_signals"]


@block
def fixar_prng(clk, rst, ld_we, ld_lane, ld_reg, ld_data, en, g, valid, rd_lane, rd_reg,
               rd_data, *, prm: FixarParams):
    """The generator.

    clk -- in, clock
    rst -- in, synchronous reset (registers 0: load them before use)
    ld_we -- in, write register ld_reg of lane ld_lane
    ld_lane, ld_reg -- in, which register
    ld_data -- in, its 32-bit (nonzero) value
    en -- in, step every register and output a sample per lane
    g -- out, lane j's signed 32-bit q16.16 sample in bits [32j+31:32j], registered
    valid -- out, g holds the samples of the last enabled cycle
    rd_lane, rd_reg -- in, a register to read back (a stream's state, for a switch or a
                       checkpoint)
    rd_data -- out, its value, registered
    """
    L, R = prm.prng_lanes, prm.prng_registers
    OFFSET = R * ((1 << 16) - 1)            # the mean of the sum of 2R halves
    regs = [Signal(intbv(0)[32:]) for _ in range(L * R)]

    @always_seq(clk.posedge, reset=rst)
    def step():
        x = intbv(0)[32:]
        total = intbv(0, min=0, max=2 * R * (1 << 16))
        out = intbv(0)[32 * L:]
        v = intbv(0, min=-(1 << 31), max=1 << 31)
        u = intbv(0)[32:]
        valid.next = 0
        if en:
            for j in range(L):
                total[:] = 0
                for k in range(R):
                    x[:] = regs[j * R + k]
                    x[:] = x ^ (x[19:] << 13)      # (x << 13) mod 2**32
                    x[:] = x ^ (x >> 17)
                    x[:] = x ^ (x[27:] << 5)
                    regs[j * R + k].next = x
                    total[:] = total + x[32:16] + x[16:]
                v[:] = total - OFFSET
                u[:] = v[32:]
                for b in range(32):
                    out[32 * j + b] = u[b]
            g.next = out
            valid.next = 1
        elif ld_we:
            regs[ld_lane * R + ld_reg].next = ld_data

    @always_seq(clk.posedge, reset=rst)
    def read():
        rd_data.next = regs[rd_lane * R + rd_reg]

    return step, read


def prng_signals(prm: FixarParams) -> dict:
    """Fresh port signals of the generator (clk and rst excluded)."""
    L, R = prm.prng_lanes, prm.prng_registers
    return {"ld_we": sig_unsigned(0), "ld_lane": sig_unsigned(bits_for(L - 1)),
            "ld_reg": sig_unsigned(bits_for(R - 1)), "ld_data": sig_unsigned(32),
            "en": sig_unsigned(0), "g": sig_unsigned(32 * L), "valid": sig_unsigned(0),
            "rd_lane": sig_unsigned(bits_for(L - 1)), "rd_reg": sig_unsigned(bits_for(R - 1)),
            "rd_data": sig_unsigned(32)}
