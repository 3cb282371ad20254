"""What the sparse family keeps per agent beyond the memories' words: the sparse row memory's
tuples, the cores' compressed layers, and the counters LearningGroup's figures are made of.

The sparse row memory is a memory space of entries (``isa.table.SPACES['srm']``); its words
hold each tuple's workload and each row's max index (so a program or a test can read them),
and :attr:`SparseState.srm` keeps the tuples themselves (bitvector, non-zero indexes) as the
encoder wrote them. The cores' weight memories hold what weight compression loaded
(:class:`.layer.PackedLayer`, by the layer's global-parameter address and orientation).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rlaccel.util.errors import SimError

from rlaccel.machines.learninggroup.tlm.load_allocation import max_deviation, row_based, threshold_based
from rlaccel.machines.learninggroup.tlm.osel import SparseRowMemory

__all__ = ["SparseState", "state_of", "Counters"]


@dataclass
class Counters:
    """Figures of a run (module docstring)."""

    #: per osel PC: executions, misses, hits and their cycles, tuples written
    encoder: dict = field(default_factory=dict)
    #: per max-index PC: executions and cycles
    max_index: dict = field(default_factory=dict)
    #: per wcomp PC: executions, cycles, unmasked weights read
    compression: dict = field(default_factory=dict)
    #: per forward sparse layer (its weight address): Table I's deviations tracked over the
    #: run, row-based (the machine's) and threshold-based (the baseline), in weights
    table1: dict = field(default_factory=dict)
    #: per matrix mnemonic: MACs, dense-equivalent MACs, cycles, executions
    matrix: dict = field(default_factory=dict)

    def add(self, table: dict, key, **values) -> None:
        self.add_row(table, key, values)

    @staticmethod
    def add_row(table: dict, key, values: dict) -> None:
        """:meth:`add` with the values as one dict (which a model may keep and pass again)."""
        row = table.get(key)
        if row is None:
            row = table[key] = dict.fromkeys(values, 0)
        for k, v in values.items():
            row[k] = row.get(k, 0) + v

    def track_balance(self, syn: int, workloads: np.ndarray, cores: int) -> None:
        """Table I: the largest deviation of a core's workload from total/C under both
        schemes, for this grouping of the layer."""
        row = self.table1.setdefault(syn, {"rows": int(workloads.size), "samples": 0,
                                           "row_max": 0.0, "threshold_max": 0.0,
                                           "row_sum": 0.0, "threshold_sum": 0.0})
        dr = max_deviation(workloads, row_based(workloads, cores))
        dt = max_deviation(workloads, threshold_based(workloads, cores))
        row["samples"] += 1
        row["row_max"] = max(row["row_max"], dr)
        row["threshold_max"] = max(row["threshold_max"], dt)
        row["row_sum"] += dr
        row["threshold_sum"] += dt


@dataclass
class SparseState:
    srm: dict = field(default_factory=dict)       # srm address -> SparseRowMemory
    layers: dict = field(default_factory=dict)    # (syn, t) -> PackedLayer
    counters: Counters = field(default_factory=Counters)

    def tuples(self, addr: int, where: str) -> SparseRowMemory:
        mem = self.srm.get(addr)
        if mem is None:
            raise SimError(f"{where}: the sparse row memory at entry {addr} holds no encoded "
                           f"matrix (run osel first)")
        return mem

    def layer(self, syn: int, transposed: bool, where: str):
        lay = self.layers.get((syn, int(transposed)))
        if lay is None:
            kind = "transposed " if transposed else ""
            raise SimError(f"{where}: the cores hold no {kind}weights of the layer at "
                           f"synapse word {syn} (run wcomp{' with t=1' if transposed else ''} "
                           f"first)")
        return lay


def state_of(agent) -> SparseState:
    """The agent's sparse-family state (made on first use)."""
    st = agent.state.get("sparse")
    if st is None:
        st = agent.state["sparse"] = SparseState()
    return st
