"""Running one instruction word on the datapath (:mod:`.datapath`), as its bench and its
transactor both do: generators to ``yield from`` in a driver (``io``: see :mod:`rtl.drive`).
"""

from __future__ import annotations

from rlaccel.rtl.drive import run_to_done

__all__ = ["wait_ready", "run_instruction"]


def wait_ready(io):
    """Wait for the datapath to be idle (``ready``)."""
    while not io.ports["ready"]:
        yield io.clk.negedge


def run_instruction(io, word: int, budget: int | None = None):
    """From a falling edge with ``ready`` high: ``start`` with ``word``, wait for ``done``.
    Returns the cycles from start to done (None when ``done`` has not come ``budget`` cycles
    after start), the instruction's saturations and its fault flag."""
    s = io.ports
    s["instr"].next = word
    s["start"].next = True
    cycles = yield from run_to_done(io, budget)
    return cycles, int(s["sats"]), bool(s["fault"])
