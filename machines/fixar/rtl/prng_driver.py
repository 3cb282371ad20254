"""Loading, running and reading back FIXAR's PRNG (:mod:`.prng`), as its bench and its
transactor both do: generators to ``yield from`` in a driver (``io``: see :mod:`rtl.drive`).
"""

from __future__ import annotations

from rlaccel.rtl.drive import write
from rlaccel.rtl.signals import unpack

__all__ = ["load", "draw", "read_registers"]


def load(io, regs):
    """Write every lane's registers (``regs[lane][register]``), one a cycle."""
    yield from write(io, "ld_we", ({"ld_lane": j, "ld_reg": k, "ld_data": int(v)}
                                   for j, row in enumerate(regs) for k, v in enumerate(row)))


def draw(io, n: int, lanes: int, limit: int | None = None):
    """Hold ``en`` until ``n`` samples are out (a lane's each cycle ``valid`` is high), at most
    ``limit`` cycles; returns the samples and the enabled cycles."""
    s = io.ports
    got, cycles = [], 0
    s["en"].next = True
    while len(got) < n and (limit is None or cycles < limit):
        cycles += 1
        yield io.clk.negedge
        if s["valid"].val:
            got += unpack(s["g"].val, 32, lanes)
        if len(got) >= n:
            s["en"].next = False
    return got[:n], cycles


def read_registers(io, lanes: int, registers: int):
    """Every lane's registers through the read port, one a cycle (a stream's state)."""
    s = io.ports
    rows = []
    for j in range(lanes):
        row = []
        for k in range(registers):
            s["rd_lane"].next = j
            s["rd_reg"].next = k
            yield io.clk.negedge
            row.append(int(s["rd_data"].val))
        rows.append(row)
    return rows
