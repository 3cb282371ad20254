"""The datapath's memories, as the behavioural memories of :mod:`rtl.memory`.

Not synthesizable: the test bench's synapse SRAM and neuron memory. They serve the
datapath's ports exactly as :mod:`.datapath` describes them (L consecutive words per
vector access, one word on the scalar port, read data at the next clock edge, masked
writes) on the same ``int64`` arrays the TLM's memories hold, so a transactor can run an
instruction on the RTL over the simulator's own state.
"""

from __future__ import annotations

import numpy as np

from rlaccel.rtl.memory import Memory, ReadPort, WritePort

from rlaccel.machines.adhdp.rtl.params import Params

__all__ = ["memories"]


def memories(U: np.ndarray, S: np.ndarray, prm: Params) -> tuple[Memory, Memory]:
    """The synapse SRAM on ``S`` (single-ported: a read in every cycle it is not written)
    and the neuron memory on ``U`` (a vector and a scalar read port, a masked vector write
    port) behind the datapath's ports (:func:`.datapath.datapath_signals`)."""
    L, W = prm.lanes, prm.word_bits
    synapse = Memory("synapse", S, W, owner="datapath",
                     reads=(ReadPort("s_addr", "s_rdata", L, unless="s_we"),),
                     writes=(WritePort("s_we", "s_addr", "s_wdata", "s_wmask", L),))
    unified = Memory("unified", U, W, owner="datapath",
                     reads=(ReadPort("n_raddr", "n_rdata", L), ReadPort("n_gaddr", "n_gdata")),
                     writes=(WritePort("n_we", "n_waddr", "n_wdata", "n_wmask", L),))
    return synapse, unified
