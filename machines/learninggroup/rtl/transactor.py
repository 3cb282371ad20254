"""The LearningGroup encoder transactor: ``rlaccel run <learninggroup manifest> --rtl lg_osel``
runs every OSEL encoding of the program on the MyHDL sparse data encoder (:mod:`.osel`).

``Platform`` calls :meth:`RtlOsel.attach` with the agent; the transactor wraps the ``run`` of
every ``osel`` instruction with the OSEL method (``enc = 0``; the baseline encoder is not
built and keeps its functional model): the TLM's model runs first (its cost and counters,
``encode_osel`` into the sparse row memory), then the same row and column max indexes go
through the RTL -- ``start`` with the columns' max indexes, a row a cycle when ``ready`` --
and the RTL's index list and tuples (status, bitvector, workload, max index, read back slot
by slot) must equal the TLM's, and each row's cycles (from its take to the next ``ready``)
must equal the TLM's ``hit_cycles`` / ``miss_cycles(workload)``, which add up to the
encoder's busy cycles in the instruction's cost. Any difference is a :class:`SimError`
naming the instruction and the first differing item. The sparse row memory the later
instructions (``wcomp``, ``gupd``) read is then the one built from the RTL's output.
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import SimError
from rlaccel.machines.learninggroup.tlm.osel import SparseRowMemory, SparseTuple
from rlaccel.machines.learninggroup.tlm.timing import hit_cycles, miss_cycles

from rlaccel.rtl.transactor import JobTransactor, require_family
from rlaccel.machines.learninggroup.rtl.osel import lg_osel, osel_signals
from rlaccel.machines.learninggroup.rtl.osel_driver import encode_layer
from rlaccel.machines.learninggroup.rtl.params import lg_params

__all__ = ["RtlOsel"]


class RtlOsel(JobTransactor):
    """A ``datapath=`` for a LearningGroup platform whose OSEL encodings run on the RTL."""

    what = "OSEL encoder"
    #: osel instructions run on the RTL, their rows (misses and hits) and RTL cycles
    instructions = rows = hits = misses = rtl_cycles = 0
    #: baseline-encoder osel ops left to the functional model
    functional = 0

    # ---------------------------------------------------------------------------------------
    def attach(self, agent) -> None:
        from rlaccel.machines.learninggroup.tlm.state import state_of
        from rlaccel.tlm.loader import EXEC
        require_family(agent, "sparse", "lg_osel", "LearningGroup")
        prm = lg_params(agent.arch)
        self.prm, self.agent, self.state = prm, agent, state_of(agent)
        self._start(lg_osel, osel_signals(prm), prm)
        for op in agent.ops:
            if op.kind == EXEC and op.mnemonic == "osel":
                if op.operands.get("enc", 0) == 0:
                    op.run = self._runner(op, op.run)
                else:
                    self.functional += 1

    def _runner(self, op, tlm_run):
        o = dict(op.operands)
        U = self.agent.memory("unified")
        rows, cols, G, base = o["rows"], o["cols"], o["groups"], o["srm"]
        ridx, cidx = U[o["ridx"]:o["ridx"] + rows], U[o["cidx"]:o["cidx"] + cols]
        transposed = o.get("t", 0) == 1
        p = self.prm.enc
        where = f"PC {op.pc} ({op.text})"

        def run():
            cost = tlm_run()                        # the TLM: cost, counters, encode_osel
            r, c = ridx.astype(np.int64), cidx.astype(np.int64)
            if transposed:
                r, c = c, r
            got = self.encode(r, c)
            want = self.state.srm[base]
            self._compare(where, want, got, p)
            busy = dict(cost.busy).get("encoder")
            if sum(got["cycles"]) != busy:
                raise SimError(f"{where}: the RTL encoder took {sum(got['cycles'])} cycles, "
                               f"the TLM's cost charges the encoder {busy}")
            self.state.srm[base] = self._memory(got, c.size)
            self.instructions += 1
            self.rows += len(r)
            self.hits += got["kinds"].count("hit")
            self.misses += got["kinds"].count("miss")
            self.rtl_cycles += sum(got["cycles"])
            return cost
        return run

    # ---------------------------------------------------------------------------------------
    def encode(self, row_idx, col_idx) -> dict:
        """One layer through the RTL: each row's kind and cycles, the index list and the
        tuples by slot (bitvector as an int, workload, max index)."""
        p = self.prm.enc
        if col_idx.size > p.bitvector_bits or not col_idx.size:
            raise SimError(f"the RTL encoder takes 1..{p.bitvector_bits} columns, not "
                           f"{col_idx.size}")
        cols, rows = [int(v) for v in col_idx], [int(v) for v in row_idx]
        budget = len(rows) * (2 + p.bitvector_bits * p.nz_index_bits // p.srm_port_bits) + 4
        return self._run(lambda io: encode_layer(io, cols, rows, p.max_index_bits,
                                                 p.max_groups), budget)

    @staticmethod
    def _compare(where: str, want: SparseRowMemory, got: dict, p) -> None:
        def fail(what, tlm, rtl):
            raise SimError(f"{where}: the RTL encoder differs from the TLM's encode_osel: "
                           f"{what}: TLM {tlm}, RTL {rtl}")
        il = [int(v) for v in want.index_list]
        if got["index_list"] != il:
            k = next((k for k, (a, b) in enumerate(zip(il, got["index_list"])) if a != b),
                     min(len(il), len(got["index_list"])))
            fail(f"index list at row {k}", il[k] if k < len(il) else "(end)",
                 got["index_list"][k] if k < len(got["index_list"]) else "(end)")
        if sorted(got["tuples"]) != sorted(want.tuples):
            fail("slots holding a tuple", sorted(want.tuples), sorted(got["tuples"]))
        for slot, t in sorted(want.tuples.items()):
            bv = sum(1 << int(j) for j in t.nz)
            rbv, rwl, rix = got["tuples"][slot]
            for what, a, b in (("bitvector", hex(bv), hex(rbv)), ("workload", t.workload, rwl),
                               ("max index", t.max_index, rix)):
                if a != b:
                    fail(f"slot {slot}'s {what}", a, b)
        seen: set = set()
        for k, (g, kind, cyc) in enumerate(zip(il, got["kinds"], got["cycles"])):
            exp_kind = "hit" if g in seen else "miss"
            seen.add(g)
            exp = hit_cycles(p) if exp_kind == "hit" else \
                miss_cycles(want.tuples[g].workload, p)
            if (kind, cyc) != (exp_kind, exp):
                fail(f"row {k} (max index {g})", f"{exp_kind} of {exp} cycles",
                     f"{kind} of {cyc} cycles")

    @staticmethod
    def _memory(got: dict, width: int) -> SparseRowMemory:
        """The sparse row memory as the RTL left it."""
        tuples = {}
        for slot, (bv, wl, ix) in got["tuples"].items():
            bits = np.array([(bv >> j) & 1 for j in range(width)], dtype=bool)
            tuples[slot] = SparseTuple(bits, np.flatnonzero(bits), wl, ix)
        return SparseRowMemory(width=width, tuples=tuples,
                               index_list=np.array(got["index_list"], dtype=np.int64))

    # ---------------------------------------------------------------------------------------
    def summary(self) -> str:
        text = (f"  RTL OSEL encoder ({self.backend_name}): {self.instructions:,} osel "
                f"instructions, "
                f"{self.rows:,} rows ({self.misses:,} misses, {self.hits:,} hits), "
                f"{self.rtl_cycles:,} RTL cycles in {self.wall_s:.1f} s;\n    every index "
                f"list, tuple and row's cycles equal the TLM's encode_osel and hit/miss_cycles")
        if self.functional:
            text += f"; {self.functional} baseline-encoder osel op(s) kept functional"
        return text
