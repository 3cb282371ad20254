"""LearningGroup's sparse data encoder with OSEL and its sparse row memory (the paper, section
III-B, Fig. 5).

Per layer the block holds the max indexes of the N output-group columns (``col_idx``, one
``index_bits`` field per column, loaded with ``start``, which also clears every status bit).
Then it takes one row max index a cycle when ``ready``:

* **Index Hit** (the group's status bit set): one cycle, the index-list write only.
* **Index Miss**: the compare cycle -- N comparators against the column max indexes give the
  bitvector, a popcount the workload -- writes the tuple (bitvector, workload, max index) into
  the slot of the group and sets its status; then the sparse row memory's write port is busy
  for the tuple's beats, ``ceil(tuple_bits(workload) / srm_port_bits)`` cycles, during which
  ``ready`` is low. ``tuple_bits`` counts the non-zero index list the paper's Fig. 5 tuple
  carries (``nz_index_bits`` per unmasked column), the width and cycle rule of
  :mod:`machines.learninggroup.tlm.timing` (``miss_cycles``, ``hit_cycles``).

Every row writes its max index into the index list (``il_we``, ``il_addr``, ``il_data``).
The tuples are read back through ``rd_slot`` (combinational). What the RTL does not hold is
the list of non-zero indexes itself: its beats are counted on the write port (the cycles the
TLM charges) but the indexes are not generated -- the load allocation unit, which would read
them, is not part of this block; the bitvector holds the same information.
"""

from __future__ import annotations

from myhdl import Signal, always_comb, always_seq, block, intbv

from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.signals import bits_for, sig_unsigned
from rlaccel.machines.learninggroup.rtl.params import LgParams

__all__ = ["lg_osel", "osel_signals", "osel_sizes"]


def osel_sizes(prm: LgParams) -> dict:
    """Widths of the encoder's ports and registers, from the encoder parameters."""
    p = prm.enc
    head = p.bitvector_bits + p.workload_bits + p.max_index_bits
    most = head + p.bitvector_bits * p.nz_index_bits
    if p.compare_cycles != 1 or p.hit_cycles != 1:
        raise RtlError(f"lg_osel compares in one cycle and writes a hit's index in one; the "
                       f"encoder parameters ask for {p.compare_cycles} and {p.hit_cycles}")
    # the workload register counts 0 .. bitvector_bits (the paper's 9-bit field holds 0..511;
    # a row of 512 unmasked columns needs the tenth bit)
    return {"slots": p.max_groups, "ib": p.max_index_bits, "cols": p.bitvector_bits,
            "col_bits": bits_for(p.bitvector_bits), "wl_bits": bits_for(p.bitvector_bits),
            "head": head, "nzb": p.nz_index_bits, "port": p.srm_port_bits,
            "left_bits": bits_for(most),
            "row_bits": bits_for(max(prm.arch.knobs.sparse_row_words - 1, 1))}


@block
def lg_osel(clk, rst, start, cols, col_idx, row_valid, row_g, ready, hit, miss, il_we,
            il_addr, il_data, rd_slot, rd_valid, rd_bitvector, rd_workload, rd_index, *,
            prm: LgParams):
    """The OSEL sparse data encoder.

    clk -- in, clock
    rst -- in, synchronous reset
    start -- in, a new layer: clear the status bits and the row counter
    cols -- in, N, the layer's columns (1 .. bitvector_bits)
    col_idx -- in, the columns' max indexes, column j in bits [ib*j+ib-1 : ib*j], held
    row_valid -- in, a row max index is offered
    row_g -- in, the row's max index (its group)
    ready -- out, the encoder takes a row this cycle
    hit -- out, registered: the row taken last cycle was an Index Hit
    miss -- out, registered: the row taken last cycle was an Index Miss
    il_we -- out, registered: an index-list write
    il_addr -- out, registered: the row number (from 0 after start)
    il_data -- out, registered: the row's max index
    rd_slot -- in, a slot (group) of the sparse row memory to read
    rd_valid -- out, the slot's status bit
    rd_bitvector -- out, the slot's bitvector (column j in bit j)
    rd_workload -- out, the slot's workload
    rd_index -- out, the slot's max index
    """
    z = osel_sizes(prm)
    S, IB, NC = z["slots"], z["ib"], z["cols"]
    HEAD, NZB, PORT = z["head"], z["nzb"], z["port"]
    status = Signal(intbv(0)[S:])
    bv_mem = [Signal(intbv(0)[NC:]) for _ in range(S)]
    wl_mem = [Signal(intbv(0)[z["wl_bits"]:]) for _ in range(S)]
    bv = sig_unsigned(NC)
    wl = sig_unsigned(z["wl_bits"])
    left = Signal(intbv(0, min=-PORT, max=1 << z["left_bits"]))
    row = Signal(intbv(0)[z["row_bits"]:])

    @always_comb
    def compare():
        v = intbv(0)[NC:]
        t = intbv(0)[IB:]
        n = intbv(0)[z["wl_bits"]:]
        for j in range(NC):
            for k in range(IB):
                t[k] = col_idx[j * IB + k]
            if j < cols and t == row_g:
                v[j] = 1
                n[:] = n + 1
        bv.next = v
        wl.next = n

    @always_comb
    def port_free():
        ready.next = left <= 0 and not start

    @always_seq(clk.posedge, reset=rst)
    def control():
        hit.next = 0
        miss.next = 0
        il_we.next = 0
        if start:
            status.next = 0
            row.next = 0
            left.next = 0
        elif left > 0:
            left.next = left - PORT                 # one beat of the tuple written
        elif row_valid:
            il_we.next = 1
            il_addr.next = row
            il_data.next = row_g
            row.next = row + 1
            if status[row_g]:
                hit.next = 1
            else:
                miss.next = 1
                status.next[row_g] = 1
                bv_mem[row_g].next = bv
                wl_mem[row_g].next = wl
                left.next = HEAD + wl * NZB         # the tuple's bits, PORT a cycle

    @always_comb
    def read():
        rd_valid.next = status[rd_slot]
        rd_bitvector.next = bv_mem[rd_slot]
        rd_workload.next = wl_mem[rd_slot]
        rd_index.next = rd_slot

    return compare, port_free, control, read


def osel_signals(prm: LgParams) -> dict:
    """Fresh port signals of the encoder (clk and rst excluded)."""
    z = osel_sizes(prm)
    return {"start": sig_unsigned(0), "cols": Signal(intbv(1, min=0, max=z["cols"] + 1)),
            "col_idx": sig_unsigned(z["cols"] * z["ib"]), "row_valid": sig_unsigned(0),
            "row_g": sig_unsigned(z["ib"]), "ready": sig_unsigned(0), "hit": sig_unsigned(0),
            "miss": sig_unsigned(0), "il_we": sig_unsigned(0),
            "il_addr": sig_unsigned(z["row_bits"]), "il_data": sig_unsigned(z["ib"]),
            "rd_slot": sig_unsigned(z["ib"]), "rd_valid": sig_unsigned(0),
            "rd_bitvector": sig_unsigned(z["cols"]), "rd_workload": sig_unsigned(z["wl_bits"]),
            "rd_index": sig_unsigned(z["ib"])}
