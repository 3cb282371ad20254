"""The MADDPG ring transactor: ``rlaccel run <maddpg manifest> --rtl maddpg_ring`` runs every
per-sample all-gather of the learners' ``rgather`` on the MyHDL ring (:mod:`.ring`).

The ring is shared by the learners, so the transactor says ``all_agents = True``;
:meth:`RtlRing.attach` wraps the ``run`` of every learner's ``rgather``. The TLM's model runs
first, in SimPy time: the learners meet, the last to arrive schedules every sample's
all-gather (``stream_allgather``: sample ``k`` of learner ``i`` starts at
``start[i, k, 0]``, when its vector is ready and its sample ``k - 1`` is done) and each writes
every learner's vectors into its rows. When the first learner comes out, the transactor runs
the batch on the RTL, sample by sample: ``clear``, each node's vector loaded (fp32 bit
patterns, a word a cycle), each node's ``go`` raised at its start relative to the sample's
first, the cycle each node's ``done`` rises recorded, every node's copy of every vector read
back. Every learner's rows must equal, bit for bit, what the TLM wrote (and are written
there, the same words), and every node's done cycle must equal the TLM's ``done[i, k]`` of
``stream_allgather`` -- the recurrence of ``allgather_cycles`` with the architecture's hop.
Any difference is a :class:`SimError`.
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import SimError
from rlaccel.machines.maddpg.tlm.ring import allgather_cycles

from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.transactor import SharedTransactor, require_family
from rlaccel.machines.maddpg.rtl.params import maddpg_params
from rlaccel.machines.maddpg.rtl.ring import MAX_WORDS, maddpg_ring, ring_signals
from rlaccel.machines.maddpg.rtl.ring_driver import gather, gather_budget, load, read_held

__all__ = ["RtlRing"]


class RtlRing(SharedTransactor):
    """A ``datapath=`` for a MADDPG platform whose ring all-gathers run on the RTL."""

    what = "ring"
    #: rgather instructions (every learner's), the per-sample all-gathers they took, the RTL
    #: cycles from the first go to the last done, summed over the samples
    gathers = samples = rtl_cycles = 0

    def attach(self, agent) -> None:
        from rlaccel.machines.maddpg.tlm.streams import _exchange
        require_family(agent, "marl", "maddpg_ring", "MADDPG")
        plat = agent.platform
        prm = maddpg_params(agent.arch)
        if plat.n_agents < 2:
            raise RtlError("--rtl maddpg_ring needs a ring of two or more learners")
        if prm.learners != plat.n_agents:
            raise RtlError(f"the RTL ring has {prm.learners} nodes, the machine "
                           f"{plat.n_agents} learners")
        self.prm, self.platform = prm, plat
        self._exchange = _exchange
        self._start(maddpg_ring, ring_signals(prm), prm)
        self._take_over(plat, "rgather")

    def _runner(self, agent, op, tlm_run):
        o = dict(op.operands)
        U = agent.memory("unified")
        i = agent.index
        where = f"agent {i}: PC {op.pc} ({op.text})"

        def run():
            from rlaccel.machines.maddpg.tlm.streams import rows
            ex = self._exchange(self.platform)
            c = ex.calls[i]                          # the meeting this call joins
            call = self._call(c, slot=None)
            gen = tlm_run()
            event = next(gen)                         # the learners' meeting
            if call["slot"] is None:
                call["slot"] = ex.slots.get(c)
            yield event
            yield from gen                            # the TLM writes every learner's rows
            slot = call["slot"]
            if slot is None or "result" not in slot:
                raise SimError(f"{where}: the transactor missed the learners' meeting")
            if call["out"] is None:
                call["out"] = self.gather([p[0] for p in slot["parts"]], slot["result"])
            B, m = o["batch"], o["m"]
            dst = rows(U, o["dst"], o["sd"], m, B, write=True)
            got = call["out"][i]
            tlm = dst.view(np.uint32)
            if not np.array_equal(got, tlm):
                k, j = (int(v[0]) for v in np.nonzero(got != tlm))
                raise SimError(f"{where}: the RTL ring differs from the TLM's all-gather at "
                               f"sample {k}, word {j}: TLM {int(tlm[k, j]):#010x}, RTL "
                               f"{int(got[k, j]):#010x}")
            tlm[:] = got
            self._leave(c)
            self.gathers += 1
        return run

    # ---------------------------------------------------------------------------------------
    def gather(self, parts: list, result) -> list:
        """Every sample's all-gather of ``parts`` (each learner's ``batch x words`` rows) on
        the RTL, starting as the TLM's stream did; every learner's rows (uint32 bit
        patterns) after it. Checks every node's done cycle against the TLM's."""
        done, start, _ = result
        vecs = [np.ascontiguousarray(p, dtype=np.float32).view(np.uint32) for p in parts]
        sizes = [v.shape[1] for v in vecs]
        if max(sizes) > MAX_WORDS or min(sizes) < 1:
            raise RtlError(f"the RTL ring carries vectors of 1..{MAX_WORDS} words; the "
                           f"learners send {', '.join(map(str, sizes))}")
        B = vecs[0].shape[0]
        out = [np.empty((B, sum(sizes)), dtype=np.uint32) for _ in range(self.n)]
        t = self.prm
        for k in range(B):
            t0 = [int(start[i, k, 0]) for i in range(self.n)]
            base = min(t0)
            rel = [s - base for s in t0]
            held, fin = self._sample([[int(w) for w in v[k]] for v in vecs], rel)
            for i in range(self.n):
                if fin[i] is None or fin[i] + base != int(done[i, k]):
                    formula = allgather_cycles(sizes, t.hop_latency, 1, t.link_words, rel)[i]
                    raise SimError(f"the RTL ring's node {i} finished sample {k}'s all-gather "
                                   f"at cycle {fin[i]} after the first start, the TLM's "
                                   f"stream at {int(done[i, k]) - base} (allgather_cycles: "
                                   f"{formula})")
                out[i][k] = np.concatenate([np.array(h, dtype=np.uint32) for h in held[i]])
            self.samples += 1
            self.rtl_cycles += max(fin)
        return out

    def _sample(self, vecs: list, starts: list):
        hop = self.prm.hop_latency

        def job(io):
            yield from load(io, vecs)
            fin = yield from gather(io, starts, hop)
            held = yield from read_held(io, [len(v) for v in vecs])
            return held, fin

        words = sum(len(v) for v in vecs)
        return self._run(job, 2 + words * (self.n + 1) + gather_budget(starts, hop))

    # ---------------------------------------------------------------------------------------
    def summary(self) -> str:
        return (f"  RTL ring ({self.backend_name}): {self.gathers:,} rgather instructions "
                f"of {self.n} "
                f"learners, {self.samples:,} per-sample all-gathers, {self.rtl_cycles:,} RTL "
                f"cycles first go to last done in {self.wall_s:.1f} s;\n    every learner's "
                f"rows equal the TLM's all-gather, every node's done cycle the TLM's stream "
                f"(allgather_cycles)")
