"""LearningGroup's part of a checkpoint (:mod:`rlaccel.programs.checkpoint`): the host
between episodes and the sparse family's per-agent state.

The host is saved only at an exchange between episodes (the next reply starts an episode,
whose environment :meth:`.episodes.Episodes.begin` resets with a seed drawn from the run's
generator), so no environment is in flight: its generators, the episodes of the batch being
played and of the last update, and the learning curve. The sparse family keeps the sparse
row memory's tuples, the cores' compressed layers and its counters (:mod:`.tlm.state`),
whose keys (PCs, synapse words, mnemonics) are kept with their types.
"""

from __future__ import annotations

import numpy as np

from rlaccel.machines.learninggroup.episodes import Episode
from rlaccel.machines.learninggroup.tlm.layer import PackedLayer
from rlaccel.machines.learninggroup.tlm.osel import SparseRowMemory, SparseTuple
from rlaccel.machines.learninggroup.tlm.state import SparseState

__all__ = ["episodes_state", "restore_episodes", "sparse_state", "restore_sparse"]

_EPISODE = ("obs", "act_env", "act_talk", "rewards", "values")
_LAYER = ("row_group", "row_off", "vals", "gptr", "gcols", "cores", "workloads", "bias")
_COUNTERS = ("encoder", "max_index", "compression", "table1", "matrix")


def episodes_state(episodes: list[Episode]) -> tuple[dict, dict]:
    """A list of episodes as ``(arrays, fields)``."""
    arrays = {f"{i}.{k}": getattr(e, k) for i, e in enumerate(episodes) for k in _EPISODE}
    return arrays, {"flags": [[e.success, e.caught] for e in episodes]}


def restore_episodes(saved) -> list[Episode]:
    """The episodes :func:`episodes_state` saved."""
    flags = saved.get("flags", list)
    if not all(isinstance(f, list) and len(f) == 2 and all(type(b) is bool for b in f)
               for f in flags):
        raise saved.unfit("the episodes' flags are not (success, caught) pairs")
    return [Episode(*(saved.array(f"{i}.{k}") for k in _EPISODE), *f)
            for i, f in enumerate(flags)]


def sparse_state(st: SparseState) -> tuple[dict, dict]:
    """The sparse family's state of an agent as ``(arrays, fields)``."""
    arrays, srm, layers = {}, [], []
    for addr, mem in st.srm.items():
        slots = sorted(mem.tuples)
        srm.append({"addr": int(addr), "width": int(mem.width), "slots": slots,
                    "tuples": [[int(mem.tuples[s].workload), int(mem.tuples[s].max_index)]
                               for s in slots]})
        arrays[f"srm.{addr}.index_list"] = mem.index_list
        for s in slots:
            arrays[f"srm.{addr}.{s}.bitvector"] = mem.tuples[s].bitvector
            arrays[f"srm.{addr}.{s}.nz"] = mem.tuples[s].nz
    for (syn, t), lay in st.layers.items():
        layers.append({"syn": int(syn), "t": int(t), "rows": int(lay.rows),
                       "cols": int(lay.cols), "transposed": bool(lay.transposed),
                       "sparse": bool(lay.sparse)})
        for k in _LAYER:
            arrays[f"layer.{syn}.{t}.{k}"] = getattr(lay, k)
    counters = {name: [[k, {c: n.item() if isinstance(n, np.generic) else n
                            for c, n in row.items()}]
                       for k, row in getattr(st.counters, name).items()]
                for name in _COUNTERS}
    return arrays, {"srm": srm, "layers": layers, "counters": counters}


def restore_sparse(saved, st: SparseState) -> None:
    """Put the state :func:`sparse_state` saved into ``st`` (the object the agent's bound
    instructions hold)."""
    st.srm.clear()                    # in place, as the counters below
    st.layers.clear()
    try:
        for m in saved.get("srm", list):
            addr = m["addr"]
            mem = SparseRowMemory(width=m["width"],
                                  index_list=saved.array(f"srm.{addr}.index_list", np.int64))
            for s, (workload, max_index) in zip(m["slots"], m["tuples"]):
                mem.tuples[s] = SparseTuple(saved.array(f"srm.{addr}.{s}.bitvector", bool),
                                            saved.array(f"srm.{addr}.{s}.nz"), workload,
                                            max_index)
            st.srm[addr] = mem
        for m in saved.get("layers", list):
            syn, t = m["syn"], m["t"]
            st.layers[(syn, t)] = PackedLayer(
                m["rows"], m["cols"], m["transposed"],
                *(saved.array(f"layer.{syn}.{t}.{k}") for k in _LAYER), m["sparse"])
    except (KeyError, TypeError, ValueError) as exc:
        raise saved.unfit(f"its sparse state is malformed ({exc})") from None
    counters = saved.get("counters", dict)
    for name in _COUNTERS:            # in place: bound instructions may hold the tables
        table = getattr(st.counters, name)
        table.clear()
        table.update({(tuple(k) if isinstance(k, list) else k): v
                      for k, v in counters.get(name, [])})
