"""FIXAR's AAP core: an ``R x C`` array of configurable PEs with the column-wise dataflow
(the FIXAR paper, section V-B, Fig. 4-5).

Column-wise matrix decomposition: a layer ``y = W x`` (``P`` outputs, ``Q`` inputs) is cut
into tiles of ``R`` inputs by ``C`` outputs. In a tile, input ``q`` of the block is broadcast
to PE row ``r = q mod R`` ("each activation is always broad-casted to a row of PEs"), PE
``(r, c)`` holds the weight ``W[c, r]`` of the tile (one read of the weight memory's 16
modules), and the products of PE column ``c`` are "accumulated vertically to the accumulator
at the bottom": a column adder tree and the column's accumulator, which adds the tiles of an
output block's input blocks one a cycle. One tile enters a cycle (``R C`` MACs full, ``2 R C``
half), the rate :func:`machines.fixar.tlm.timing.ff_cycles` counts.

Each PE is :func:`.pe.fixar_pe` (Fig. 5: one 32 x 32 product, or two 32 x 17 in
half precision), used with ``first`` held high: its accumulate register holds the cycle's
product (the recombined full product, or the two half products) for the column tree. Half
precision takes two vectors' activations a cycle (``h0``, ``h1``), two trees and two
accumulators per column. Every sum is exact (the accumulators are wide enough for
``max_batch`` tiles of an output block); the rounding to the output's format is the
accumulator's and activation unit's, after this block.

Pipeline: a tile is sampled in cycle ``t``; the PE's multiply and accumulate registers hold
its products in cycles ``t + 1`` and ``t + 2``; the column trees add them and the column
accumulators take the sum at the end of cycle ``t + 2``; with ``last``, ``done`` is high in
cycle ``t + 3`` (:data:`ARRAY_LATENCY` cycles after the tile) and ``y0``/``y1`` hold the
block's sums until the next block's first tile reaches the accumulators.

The size is the architecture's ``[timing]`` ``pe_rows`` x ``pe_cols`` (16 x 16 in
``fixar.toml``); an architecture that inherits ``fixar`` and sets them builds a smaller array.
"""

from __future__ import annotations

from myhdl import Signal, always_seq, block, intbv

from rlaccel.rtl.bus import bus_join, bus_word
from rlaccel.rtl.signals import sig_signed, sig_unsigned
from rlaccel.machines.fixar.rtl.params import ArrayParams
from rlaccel.machines.fixar.rtl.pe import fixar_pe

__all__ = ["fixar_array", "array_signals", "ARRAY_LATENCY"]

#: cycles from a tile to ``done``: the PE's two registers and the column accumulator
ARRAY_LATENCY = 3


@block
def fixar_array(clk, rst, en, half, last, w, a, h0, h1, y0, y1, done, *, prm: ArrayParams):
    """The AAP core's PE array.

    clk -- in, clock
    rst -- in, synchronous reset
    en -- in, a tile this cycle (w and a, or h0 and h1, are valid)
    half -- in, with en: half precision (two vectors, h0 and h1)
    last -- in, with en: the output block's last tile (its sums are then complete)
    w -- in, the tile's weights, R x C signed 32-bit words: W[c, r] in word r * C + c
    a -- in, full precision: R signed 32-bit activations, input r in word r
    h0 -- in, half precision: R signed 17-bit operands of the first vector
    h1 -- in, half precision: ... of the second vector
    y0 -- out, C exact column sums (full, or the first vector's in half precision), signed
          words of sum_bits, column c in word c
    y1 -- out, the second vector's C column sums (half precision)
    done -- out, high for one cycle when y0 and y1 hold an output block's sums
    """
    R, C = prm.rows, prm.cols
    p = prm.pe
    WB, MB, AB, YB = p.weight_bits, p.mul_bits, p.acc_bits, prm.sum_bits
    first = Signal(bool(1))                  # the PEs hand each cycle's products on
    insts = []
    a_r = [sig_signed(WB) for _ in range(R)]
    h0_r = [sig_signed(MB) for _ in range(R)]
    h1_r = [sig_signed(MB) for _ in range(R)]
    for r in range(R):
        insts += [bus_word(a, a_r[r], k=r), bus_word(h0, h0_r[r], k=r),
                  bus_word(h1, h1_r[r], k=r)]
    p0 = [[sig_signed(AB) for _ in range(R)] for _ in range(C)]      # by column, then row
    p1 = [[sig_signed(AB) for _ in range(R)] for _ in range(C)]
    for r in range(R):
        for c in range(C):
            wrc = sig_signed(WB)
            insts.append(bus_word(w, wrc, k=r * C + c))
            insts.append(fixar_pe(clk, rst, en, half, first, wrc, a_r[r], h0_r[r], h1_r[r],
                                  p0[c][r], p1[c][r], prm=p))
    # en, half and last beside the PE's two registers
    en1, en2, last1, last2, half1, half2 = (sig_unsigned(0) for _ in range(6))
    fresh = sig_unsigned(0, 1)               # the next tile starts an output block

    @always_seq(clk.posedge, reset=rst)
    def pipe():
        en1.next = en
        en2.next = en1
        last1.next = en and last
        last2.next = last1
        half1.next = half
        half2.next = half1
        done.next = en2 and last2
        if en2:
            fresh.next = last2

    s0 = [sig_signed(YB) for _ in range(C)]
    s1 = [sig_signed(YB) for _ in range(C)]
    for c in range(C):
        insts.append(_column(clk, rst, en2, half2, fresh, p0[c], p1[c], s0[c], s1[c], prm=prm))
    insts += [bus_join(s0, y0), bus_join(s1, y1)]
    return insts, pipe


@block
def _column(clk, rst, en2, half2, fresh, p0, p1, y0, y1, *, prm: ArrayParams):
    """One PE column's adder trees and accumulators (a part of fixar_array): the column's
    products summed (both vectors' in half precision) and added to the block's sums; a
    block's first tile restarts them (``fresh``: the previous tile was a block's last)."""
    R, YB = prm.rows, prm.sum_bits

    @always_seq(clk.posedge, reset=rst)
    def accumulate():
        t0 = intbv(0, min=-(1 << (YB - 1)), max=1 << (YB - 1))
        t1 = intbv(0, min=-(1 << (YB - 1)), max=1 << (YB - 1))
        if en2:
            if fresh:
                t0[:] = 0
                t1[:] = 0
            else:
                t0[:] = y0
                t1[:] = y1
            for r in range(R):
                t0[:] = t0 + p0[r]
                if half2:
                    t1[:] = t1 + p1[r]
            if not half2:
                t1[:] = 0
            y0.next = t0
            y1.next = t1

    return accumulate


def array_signals(prm: ArrayParams) -> dict:
    """Fresh port signals of the array (clk and rst excluded)."""
    R, C, p = prm.rows, prm.cols, prm.pe
    return {"en": sig_unsigned(0), "half": sig_unsigned(0), "last": sig_unsigned(0),
            "w": sig_unsigned(R * C * p.weight_bits), "a": sig_unsigned(R * p.weight_bits),
            "h0": sig_unsigned(R * p.mul_bits), "h1": sig_unsigned(R * p.mul_bits),
            "y0": sig_unsigned(C * prm.sum_bits), "y1": sig_unsigned(C * prm.sum_bits),
            "done": sig_unsigned(0)}
