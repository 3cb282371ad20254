"""The marl family's vector messages between agents over the ring.

``send``/``recv`` move a vector one hop along the ring, ``allgather`` gives every agent every
agent's vector (``dst[a*n:(a+1)*n]`` holds agent ``a``'s), ``barrier`` waits for every agent;
all four run in simulated time on the platform's :class:`~rlaccel.tlm.core.Ring` (so their
cycles are the ring's, including the wait for slower agents).
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import SimError

from rlaccel.tlm.core import Ring
from rlaccel.tlm.model import Binding, Cost, InstructionModel
from rlaccel.tlm.families.base.energy import word_actions

__all__ = ["MODELS"]


def _send(b: Binding):
    ring, U, o, i = b.interconnect(Ring), b.mem("unified"), b.ops, b.agent.index

    def send():
        yield from ring.send(i, U[o["src"]:o["src"] + o["n"]])
    return send


def _recv(b: Binding):
    ring, U, o, i = b.interconnect(Ring), b.mem("unified"), b.ops, b.agent.index
    dst, n = o["dst"], o["n"]

    def recv():
        data = yield from ring.recv(i)
        if len(data) != n:
            raise SimError(f"agent {i} PC {b.pc}: recv expects {n} words, the previous agent "
                           f"sent {len(data)}")
        U[dst:dst + n] = data
    return recv


def _allgather(b: Binding):
    ring, U, o, i = b.interconnect(Ring), b.mem("unified"), b.ops, b.agent.index
    src, dst, n = o["src"], o["dst"], o["n"]

    def allgather():
        parts = yield from ring.allgather(i, U[src:src + n])
        U[dst:dst + n * ring.n] = np.concatenate(parts)
    return allgather


def _barrier(b: Binding):
    ring, i = b.interconnect(Ring), b.agent.index

    def barrier():
        yield from ring.barrier(i)
    return barrier


def _cost(b: Binding) -> Cost:
    return Cost(1, 1)


def _actions(b: Binding) -> dict:
    o, nw = b.ops, b.knobs.neuron_words
    reads = [(o["src"], o["n"])] if "src" in o else []
    writes = ([(o["dst"], o["n"] * (b.knobs.agents if b.mnemonic == "allgather" else 1))]
              if "dst" in o else [])
    return word_actions(reads, writes, nw)


_SEMANTICS = {"send": _send, "recv": _recv, "allgather": _allgather, "barrier": _barrier}

MODELS = {m: InstructionModel(m, "sync", f, _cost, _actions, "COMM")
          for m, f in _SEMANTICS.items()}
