"""Behavioural memories for the datapath's ports, on numpy arrays of raw words.

Not synthesizable: the test bench's synapse SRAM and neuron memory. They serve the
datapath's ports exactly as :mod:`.datapath` describes them (L consecutive words per
vector access, one word on the scalar port, read data at the next clock edge, masked
writes) on the same ``int64`` arrays the TLM's memories hold, so a transactor can run an
instruction on the RTL over the simulator's own state.
"""

from __future__ import annotations

import numpy as np
from myhdl import always, block

from rlaccel.util.errors import SimError

from rlaccel.machines.adhdp.rtl.params import Params

__all__ = ["memories"]


@block
def memories(clk, ports: dict, U: np.ndarray, S: np.ndarray, *, prm: Params):
    """The synapse SRAM (S) and the neuron memory (U) behind the datapath's ports.

    clk -- in, clock
    ports -- the datapath's port signals (.datapath.datapath_signals)
    U, S -- the unified (neuron) and synapse memories, raw words, read and written in place
    """
    L, W = prm.lanes, prm.word_bits
    mask = (1 << W) - 1
    half = 1 << (W - 1)
    p = ports

    def read(arr, addr: int) -> int:
        v = 0
        n = len(arr)
        for l in range(L):
            if addr + l < n:
                v |= (int(arr[addr + l]) & mask) << (l * W)
        return v

    def write(arr, name: str, addr: int, lanes: int, data: int) -> None:
        for l in range(L):
            if lanes >> l & 1:
                if addr + l >= len(arr):
                    raise SimError(f"datapath wrote {name} word {addr + l}, outside the "
                                   f"{len(arr)}-word memory")
                w = (data >> (l * W)) & mask
                arr[addr + l] = w - (1 << W) if w >= half else w

    @always(clk.posedge)
    def access():
        if p["s_we"]:
            write(S, "synapse", int(p["s_addr"]), int(p["s_wmask"]), int(p["s_wdata"]))
        else:
            p["s_rdata"].next = read(S, int(p["s_addr"]))
        p["n_rdata"].next = read(U, int(p["n_raddr"]))
        g = int(p["n_gaddr"])
        p["n_gdata"].next = int(U[g]) & mask if g < len(U) else 0
        if p["n_we"]:
            write(U, "unified", int(p["n_waddr"]), int(p["n_wmask"]), int(p["n_wdata"]))

    return access
