"""The DARL all-reduce transactor: ``rlaccel run <darl manifest> --set agents=A --rtl
darl_butterfly`` runs every ``hallreduce`` of the agents on the MyHDL butterfly network
(:mod:`.butterfly`).

The network is shared by the agents, so the transactor says ``all_agents = True`` and
``Platform`` lets it attach to a machine of 1, 2, 4 or 8 agents; :meth:`RtlButterfly.attach`
wraps the ``run`` of every agent's ``hallreduce``. Each agent's shard (the ``2 n d`` words at
``src``) is recorded as the agent enters the instruction, then the TLM's reduction runs in
SimPy time (its timing: the platform's butterfly with the architecture's fitted hop). When the
first agent comes out of it every agent has entered, and the RTL reduces the recorded shards:
a buffer at a time (``buffer_words`` words per agent), each chunk loaded a beat a cycle,
``start`` with ``nstages = log2 A`` and ``average``, ``done``, every agent's words read back.
Each agent's result must equal, bit for bit, what the TLM's ``butterfly_allreduce`` and eq.
22's division left in its synapse memory, and is written there (the same words); the RTL's
saturation count must equal the agents' (counted by the TLM's adds); each chunk's cycles
from ``start`` to ``done`` must equal ``allreduce_cycles(A, words, latency=HOP_LATENCY,
width)`` -- the block's own link register, not the architecture's fitted hop of the
platform's timing. Any difference is a :class:`SimError`.
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import SimError
from rlaccel.machines.darl.tlm.allreduce import allreduce_cycles, stages

from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.transactor import SharedTransactor, require_family
from rlaccel.machines.darl.rtl.butterfly import HOP_LATENCY, butterfly_signals, darl_butterfly
from rlaccel.machines.darl.rtl.butterfly_driver import load, read_back, reduce
from rlaccel.machines.darl.rtl.params import darl_params

__all__ = ["RtlButterfly"]


class RtlButterfly(SharedTransactor):
    """A ``datapath=`` for a DARL platform whose all-reduces run on the RTL network."""

    what = "butterfly network"
    #: all-reduces run, the buffer loads (chunks) they took and their words, the RTL cycles
    #: from start to done of every chunk, the saturations
    reductions = chunks = words = rtl_cycles = sats = 0

    def attach(self, agent) -> None:
        require_family(agent, "hdc", "darl_butterfly", "DARL")
        plat = agent.platform
        prm = darl_params(agent.arch)
        n = plat.n_agents
        if n > prm.agents:
            raise RtlError(f"the RTL butterfly connects {prm.agents} agents, the machine has {n}")
        self.prm, self.k = prm, stages(n)
        self._start(darl_butterfly, butterfly_signals(prm), prm)
        self._count = [0] * n
        self._take_over(plat, "hallreduce")

    def _runner(self, agent, op, tlm_run):
        o = dict(op.operands)
        S = agent.memory("synapse")
        k, src = 2 * o["n"] * o["d"], o["src"]
        avg = o.get("avg", 1) != 0
        i = agent.index
        where = f"agent {i}: PC {op.pc} ({op.text})"

        def run():
            c = self._count[i]
            self._count[i] += 1
            call = self._call(c, shards={}, sats=0)
            call["shards"][i] = S[src:src + k].copy()
            before = agent.saturations.saturations
            yield from tlm_run()                           # the TLM's reduction, its time
            call["sats"] += agent.saturations.saturations - before
            if call["out"] is None:
                if len(call["shards"]) != self.n:
                    raise SimError(f"{where}: came out of the all-reduce before every agent "
                                   f"entered it")
                call["out"] = self.reduce([call["shards"][a] for a in range(self.n)], avg)
            got = call["out"][0][i]
            tlm = S[src:src + k]
            if not np.array_equal(got, tlm):
                j = int(np.flatnonzero(got != tlm)[0])
                raise SimError(f"{where}: the RTL butterfly differs from the TLM's all-reduce "
                               f"at word {j} of {k}: TLM {int(tlm[j])}, RTL {int(got[j])} (raw)")
            S[src:src + k] = got
            if self._leave(c):
                if call["sats"] != call["out"][1]:
                    raise SimError(f"{where}: the RTL butterfly saturated {call['out'][1]} "
                                   f"words, the TLM's adds {call['sats']}")
                self.reductions += 1
                self.sats += call["sats"]
        return run

    # ---------------------------------------------------------------------------------------
    def reduce(self, shards: list, average: bool) -> tuple[list, int]:
        """Every agent's result of reducing ``shards`` on the RTL, a buffer at a time, and
        the saturations; checks each chunk's cycles."""
        prm = self.prm
        size = len(shards[0])
        out = [np.empty(size, dtype=np.int64) for _ in shards]
        sats = 0
        for lo in range(0, size, prm.buffer_words):
            part = [s[lo:lo + prm.buffer_words] for s in shards]
            res, cycles, n_sat = self._chunk(part, average)
            expected = allreduce_cycles(self.n, len(part[0]), latency=HOP_LATENCY,
                                        width=prm.width)
            if cycles != expected:
                raise SimError(f"the RTL butterfly took {cycles} cycles for {len(part[0])} "
                               f"words among {self.n} agents; the TLM's allreduce_cycles with "
                               f"the block's link latency {HOP_LATENCY} gives {expected}")
            for a, r in enumerate(res):
                out[a][lo:lo + len(r)] = r
            sats += n_sat
            self.chunks += 1
            self.words += len(part[0])
            self.rtl_cycles += cycles
        return out, sats

    def _chunk(self, part: list, average: bool):
        prm, k = self.prm, self.k
        words = len(part[0])
        rows = [[int(v) for v in p] for p in part]

        def job(io):
            yield from load(io, rows, prm)
            cycles, n_sat = yield from reduce(io, words, average, k, prm)
            back = yield from read_back(io, len(rows), words, prm)
            yield io.clk.negedge
            return [np.array(r, dtype=np.int64) for r in back], cycles, n_sat

        n = len(rows)
        return self._run(job, 2 * n * prm.beats(words) + k * (HOP_LATENCY + prm.entries) + 8)

    # ---------------------------------------------------------------------------------------
    def summary(self) -> str:
        return (f"  RTL butterfly ({self.backend_name}): {self.reductions:,} all-reduces "
                f"among {self.n} "
                f"agent(s), {self.chunks:,} buffer loads of {self.words:,} words, "
                f"{self.rtl_cycles:,} RTL cycles start to done in {self.wall_s:.1f} s, "
                f"{self.sats} saturations;\n    every agent's words equal the TLM's all-reduce, "
                f"each chunk's cycles allreduce_cycles with the block's {HOP_LATENCY}-cycle "
                f"link")
