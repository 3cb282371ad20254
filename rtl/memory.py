"""Behavioural memories beside a block under test: synchronous RAMs on numpy arrays.

Not synthesizable: a test bench's (and a transactor's) model of the memories a block
addresses through its ports, on the very ``int64`` arrays of raw words the TLM's memories
hold, so an instruction run on the RTL reads the simulator's state and leaves its results
where the functional model would have. A machine describes its memories once
(:class:`Memory` with its :class:`ReadPort` and :class:`WritePort` s, e.g. the ADHDP
datapath's synapse SRAM and neuron memory); :meth:`Memory.process` is the model as a
generator process, which every back end runs like a driver (MyHDL, the Verilator kernel,
cocotb).

At every rising edge, with the port values of before the edge: each read port whose
``unless`` is low puts ``lanes`` consecutive words from its address on its data input
(packed, word ``l`` in bits ``[l W + W - 1 : l W]``; words past the end read as 0), the
block seeing them after the edge; then each write port whose enable is high writes the words
its mask selects (past the end: a :class:`SimError`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlaccel.util.errors import SimError

__all__ = ["ReadPort", "WritePort", "Memory"]


@dataclass(frozen=True)
class ReadPort:
    """``lanes`` words from the address on ``addr`` (an output of the block) onto ``data`` (an
    input), a clock edge later; no read in a cycle ``unless`` (an output) is high."""

    addr: str
    data: str
    lanes: int = 1
    unless: str | None = None


@dataclass(frozen=True)
class WritePort:
    """In a cycle ``we`` is high, the words of ``data`` (``lanes`` packed words) whose bit of
    ``mask`` is set (every word without a mask) into the words from the address on
    ``addr``."""

    we: str
    addr: str
    data: str
    mask: str | None = None
    lanes: int = 1


@dataclass(frozen=True)
class Memory:
    """A memory of ``array`` (raw signed words of ``word_bits`` bits, read and written in
    place) behind a block's ports; ``name`` and ``owner`` (the block) name it in errors."""

    name: str
    array: np.ndarray
    word_bits: int
    reads: tuple[ReadPort, ...] = ()
    writes: tuple[WritePort, ...] = ()
    owner: str = "the block"

    def read(self, addr: int, lanes: int) -> int:
        """``lanes`` words from ``addr``, packed (0 past the end)."""
        arr, W = self.array, self.word_bits
        mask = (1 << W) - 1
        n = len(arr)
        v = 0
        for l in range(min(lanes, max(n - addr, 0))):
            v |= (int(arr[addr + l]) & mask) << (l * W)
        return v

    def write(self, addr: int, lanes: int, enables: int, data: int) -> None:
        """The packed words of ``data`` whose bit of ``enables`` is set, from ``addr``."""
        arr, W = self.array, self.word_bits
        mask, half = (1 << W) - 1, 1 << (W - 1)
        for l in range(lanes):
            if enables >> l & 1:
                if addr + l >= len(arr):
                    raise SimError(f"{self.owner} wrote {self.name} word {addr + l}, outside "
                                   f"the {len(arr)}-word memory")
                w = (data >> (l * W)) & mask
                arr[addr + l] = w - (1 << W) if w >= half else w

    def access(self, ports: dict) -> None:
        """One rising edge: the reads, then the writes."""
        for r in self.reads:
            if r.unless is None or not ports[r.unless]:
                ports[r.data].next = self.read(int(ports[r.addr]), r.lanes)
        for w in self.writes:
            if ports[w.we]:
                enables = (1 << w.lanes) - 1 if w.mask is None else int(ports[w.mask])
                self.write(int(ports[w.addr]), w.lanes, enables, int(ports[w.data]))

    def process(self, io):
        """The memory as a process on ``io``'s ports (a bench's run, a transactor's
        simulation): :meth:`access` at every rising edge."""
        ports = io.ports
        while True:
            yield io.clk.posedge
            self.access(ports)
