"""Many independent runs of one program as one simulation: a batch of one-agent platforms
(seeds, bit widths or hyper-parameters of the same program) whose machine states advance
together.

Each member is built as its single run would be (its platform, memories, host link,
controller and compiled tables, :func:`.engine.prepare`); the batch stacks the members'
state arrays and runs them round by round in one SimPy process:

1. one call of :func:`interpret_many` advances every live member through its own
   instructions -- its own data-dependent branches, its own loop counts -- until its next
   host exchange (or ``cc.halt``);
2. the members' host exchanges are answered together by a *batch host*
   (:class:`MemberHosts` asks each member's own host; a program family may provide a
   vectorised one, e.g. the ADHDP plants stepped for every member at once), and
   :func:`finish_hosts` writes every reply into its member's memory and retires the
   ``cc.host`` instruction with the host link's cycles, as the single run does;
3. the SimPy process advances to the earliest member's time.

A member's figures are its single run's, bit for bit (``tests/tlm/fast/test_batch.py``,
``tests/programs/test_runner.py``). A batch runs programs whose only host-side work is
``cc.host`` and ``cc.halt`` (no synchronisation between agents, no instruction without a
compiled kernel); anything else is refused before the run with what to do instead.
"""

from __future__ import annotations

import time

import numpy as np
import simpy

from rlaccel.isa.errors import SimError

from ..loader import EXEC, BRANCH, FAULT, HALT, HOST
from . import interp as I
from .engine import prepare, _write_back
from .jit import HAVE_NUMBA, njit

__all__ = ["Batch", "MemberHosts", "interpret_many", "finish_hosts"]

_FAR = 1 << 62                  # members never stop at quantum boundaries (the batch syncs)


@njit
def interpret_many(P, G, ST, PEND, CTR, UF, STATS, MK, TB, Us, Ss, K, T, B, IMM, members,
                   reasons):
    """:func:`~.interp.interpret` for each member index in ``members`` (rows of the stacked
    state arrays; ``Us``/``Ss`` the members' memories); the reasons into ``reasons``."""
    for i in range(len(members)):
        b = members[i]
        reasons[i] = I.interpret(P, G, ST[b], PEND[b], CTR[b], UF[b], STATS[b], MK[b], TB,
                                 Us[b], Ss[b], K, T, B, IMM)


@njit
def finish_hosts(P, G, ST, PEND, STATS, MK, TB, Us, members, replies, inp, busy, latency,
                 depth):
    """Write each member's reply at ``inp`` and retire its ``cc.host`` (``busy``: issue plus
    the link's cycles); returns R_LIMIT if a member reached its instruction limit, else 0."""
    worst = 0
    for i in range(len(members)):
        b = members[i]
        U = Us[b]
        for j in range(replies.shape[1]):
            U[inp + j] = replies[i, j]
        pc = ST[b, I.S_PC]
        r = I.retire(P, G, ST[b], PEND[b], STATS[b], MK[b], TB, pc, ST[b, I.S_START], busy,
                     latency, depth, pc + 1)
        if r == I.R_LIMIT:
            worst = r
    return worst


def _typed_list(arrays):
    if not HAVE_NUMBA:
        return list(arrays)
    from numba.typed import List
    out = List()
    for a in arrays:
        out.append(a)
    return out


class MemberHosts:
    """The batch host that asks every member's own host (through its host link's host):
    exact for any host, as fast as the hosts are."""

    def __init__(self, platforms):
        self.hosts = [p.agent.link.host for p in platforms]

    def exchange(self, members, outs: np.ndarray, nin: int) -> np.ndarray:
        """Raw reply words, one row per member of ``members`` (its output words in
        ``outs``)."""
        rows = []
        for b, out in zip(members, outs):
            reply = np.asarray(self.hosts[b].exchange(out))
            if reply.shape != (nin,):
                raise SimError(f"host link: the host answered {reply.shape} words, the "
                               f"program expects {nin}")
            rows.append(reply)
        return np.array(rows)


class Batch:
    """One-agent platforms of the same program (each built as for a single run; compiled
    kernels, no trace, no RTL datapath), run together by :meth:`run`; ``hosts`` answers
    their exchanges (default :class:`MemberHosts`)."""

    def __init__(self, platforms: list, hosts=None):
        if not platforms:
            raise SimError("a batch needs at least one platform")
        self.platforms = platforms
        first = platforms[0]
        for i, p in enumerate(platforms):
            where = f"batch member {i}"
            if p.n_agents != 1:
                raise SimError(f"{where}: a batch runs one-agent machines, not {p.n_agents} "
                               f"agents")
            if p.trace is not None:
                raise SimError(f"{where}: a batch is not traced (trace a single run)")
            if p.agent.controller.kernels != "compiled":
                raise SimError(f"{where}: a batch runs the compiled loop")
            if [op.text for op in p.agent.ops] != [op.text for op in first.agent.ops]:
                raise SimError(f"{where}: its program differs from member 0's; a batch runs "
                               f"one program")
            if p.agent.dt is not first.agent.dt:
                raise SimError(f"{where}: its number format {p.agent.dt.name} differs from "
                               f"member 0's {first.agent.dt.name}")
        self.progs = [prepare(p.agent.controller) for p in platforms]
        p0 = self.progs[0]
        if p0 is None:
            raise SimError(f"{first.origin}: the number format {first.agent.dt.name} has no "
                           f"compiled kernels; run the members one by one")
        ops = first.agent.ops
        for op in ops:
            py = p0.P[op.pc, I.C_PY]
            if py and op.kind not in (HOST, HALT, FAULT):
                raise SimError(f"{first.origin}: PC {op.pc} ({op.text}) needs Python in every "
                               f"member (no compiled kernel, a data-dependent cost or a "
                               f"synchronisation); run the members one by one")
        if any((pr.P != p0.P).any() for pr in self.progs):
            raise SimError("batch members' compiled programs differ; a batch runs one program")
        self.hosts = hosts if hosts is not None else MemberHosts(platforms)
        self._stack()

    def _stack(self) -> None:
        """The members' state arrays as rows of stacked arrays (their Programs keep views)."""
        for name in ("ST", "PEND", "CTR", "UF", "STATS", "MK"):
            shapes = {getattr(p, name).shape for p in self.progs}
            if len(shapes) != 1:
                raise SimError(f"batch members disagree on their {name} tables {shapes}")
            stacked = np.stack([getattr(p, name) for p in self.progs])
            setattr(self, name, stacked)
            for b, p in enumerate(self.progs):
                setattr(p, name, stacked[b])
        self.Us = _typed_list([pl.agent.memory("unified") for pl in self.platforms])
        self._U = [pl.agent.memory("unified") for pl in self.platforms]
        self._links = [pl.agent.link for pl in self.platforms]
        self._dtype = self.platforms[0].agent.memory("unified").dtype
        self.Ss = _typed_list([pl.agent.memory("synapse") for pl in self.platforms])

    def run(self) -> list:
        """Run every member until it halts; their Results, in order."""
        from rlaccel.tlm.results import Results
        env = simpy.Environment()
        wall = time.perf_counter()
        proc = env.process(self._rounds(env))
        try:
            env.run(until=proc)
        finally:
            close = getattr(self.hosts, "close", None)
            if close is not None:
                close()
        wall = time.perf_counter() - wall
        return [Results.collect(pl, wall) for pl in self.platforms]

    def _rounds(self, env):
        """The batch's SimPy process (module docstring)."""
        n = len(self.platforms)
        p0, ST = self.progs[0], self.ST
        ctrls = [pl.agent.controller for pl in self.platforms]
        ops = self.platforms[0].agent.ops
        for b, c in enumerate(ctrls):
            ST[b, I.S_LIMIT] = -1 if c.max_instructions is None else c.max_instructions
            ST[b, I.S_PENALTY] = c.branch_penalty
            ST[b, I.S_BOUND] = _FAR
        reasons = np.zeros(n, dtype=np.int64)
        host_counts = np.zeros(n, dtype=np.int64)
        live = np.arange(n, dtype=np.int64)
        kinds = p0.P[:, I.C_KIND]
        npc = len(ops)
        try:
            while len(live):
                k = len(live)
                interpret_many(p0.P, p0.G, ST, self.PEND, self.CTR, self.UF, self.STATS,
                               self.MK, p0.TB, self.Us, self.Ss, p0.K, p0.T, p0.B, p0.IMM, live,
                               reasons[:k])
                self._settle(live)
                why = reasons[:k]
                pcs = ST[live, I.S_PC]
                inside = (pcs >= 0) & (pcs < npc)
                host = (why == I.R_PY) & inside & (kinds[np.where(inside, pcs, 0)] == HOST)
                other = ~host & (why != I.R_QUANTUM)
                halted = []
                for i in np.flatnonzero(other).tolist():
                    b, reason = int(live[i]), int(why[i])
                    if reason == I.R_LIMIT:
                        raise self._limit(b)
                    self._op(b, reason)               # cc.halt, or raises
                    halted.append(b)
                for b in halted:
                    self._halt(b)
                if host.any():
                    self._exchange(live[host].tolist(), ops, host_counts)
                if halted:
                    live = live[~other]
                t_min = int(ST[live, I.S_T].min()) if len(live) else int(ST[:, I.S_T].max())
                if t_min > env.now:
                    yield env.timeout(t_min - env.now)
        finally:
            for b, (pl, prog) in enumerate(zip(self.platforms, self.progs)):
                link = pl.agent.link
                nh = int(host_counts[b])
                stats = pl.agent.memories["unified"].stats
                stats.writes += nh
                stats.words_written += nh * self._nin
                _write_back(pl.agent.controller, prog)
                link.exchanges += nh
                link.words_out += nh * self._nout
                link.words_in += nh * self._nin
                link.cycles += nh * self._cycles
                link.timeline.transfer_cycles["to_host"] += nh * self._up
                link.timeline.transfer_cycles["to_device"] += nh * self._down
                pl.agent.controller.host_cycles += nh * self._cycles

    _nin = _nout = _cycles = _up = _down = 0

    def _settle(self, live) -> None:
        sats = self.ST[live, I.S_SAT]
        if sats.any():
            for b, s in zip(live.tolist(), sats.tolist()):
                if s:
                    a = self.platforms[b].agent
                    a.dt.saturations += s
                    a.saturations.saturations += s
            self.ST[live, I.S_SAT] = 0

    def _limit(self, b: int) -> SimError:
        c = self.platforms[b].agent.controller
        return SimError(f"batch member {b}: the program did not halt within "
                        f"{c.max_instructions} instructions (PC {int(self.ST[b, I.S_PC])}, "
                        f"cycle {int(self.ST[b, I.S_T])})")

    def _op(self, b: int, reason: int):
        """The instruction member ``b`` handed back: a host exchange or cc.halt; anything
        else raises the single run's error."""
        ops = self.platforms[b].agent.ops
        ctrl = self.platforms[b].agent.controller
        pc, t = int(self.ST[b, I.S_PC]), int(self.ST[b, I.S_T])
        executed = int(self.ST[b, I.S_EXEC])
        if not 0 <= pc < len(ops):
            raise SimError(f"batch member {b}: PC {pc} is outside the program of {len(ops)} "
                           f"instructions (after {executed} instructions, cycle {t}): a jump "
                           f"past the end or a missing cc.halt")
        op = ops[pc]
        if op.kind == FAULT:
            raise SimError(f"batch member {b}: {ctrl._fault(pc, op.fault)}")
        if reason == I.R_REF and op.kind in (EXEC, BRANCH):
            op.run()                      # the reference semantics raise the error
        if op.kind not in (HOST, HALT):
            raise SimError(f"batch member {b}: PC {pc} ({op.text}) needs Python; run the "
                           f"members one by one")
        return op

    def _halt(self, b: int) -> None:
        """cc.halt of member ``b``, as the single run's controller ends."""
        prog, pl = self.progs[b], self.platforms[b]
        ST, ctrl = self.ST[b], pl.agent.controller
        pc, t, start = int(ST[I.S_PC]), int(ST[I.S_T]), int(ST[I.S_START])
        op = pl.agent.ops[pc]
        npend = int(ST[I.S_NPEND])
        end = max([start + op.issue] + prog.PEND[:npend, 3].tolist()
                  + prog.UF[:len(prog.units)].tolist())
        prog.STATS[0, pc] += 1
        prog.STATS[1, pc] += end - t
        prog.STATS[2, pc] += start - t
        ST[I.S_EXEC] += 1
        ctrl.instructions, ctrl.cycles, ctrl.halted = int(ST[I.S_EXEC]), end, True

    def _exchange(self, at_host: list, ops, host_counts) -> None:
        """Every waiting member's cc.host: the batch host answers, the replies are written and
        the instructions retired with the link's cycles."""
        pcs = self.ST[at_host, I.S_PC]
        pc = int(pcs[0])
        op = ops[pc]
        if (pcs != pc).any():
            by_pc: dict[int, list] = {}
            for b in at_host:
                by_pc.setdefault(int(self.ST[b, I.S_PC]), []).append(b)
            for group in by_pc.values():
                self._exchange(group, ops, host_counts)
            return
        o = op.operands
        link = self._links[at_host[0]]
        nout, nin = o["nout"], o["nin"]
        up, down = link.to_host.delay(nout), link.to_device.delay(nin)
        cycles = up + link.host_cycles + down
        self._nin, self._nout, self._cycles, self._up, self._down = nin, nout, cycles, up, down
        Us, lo = self._U, o["out"]
        outs = np.array([Us[b][lo:lo + nout] for b in at_host])
        replies = self.hosts.exchange(at_host, outs, nin)
        replies = np.ascontiguousarray(replies, dtype=self._dtype).reshape(len(at_host), nin)
        members = np.array(at_host, dtype=np.int64)
        p0 = self.progs[0]
        r = finish_hosts(p0.P, p0.G, self.ST, self.PEND, self.STATS, self.MK, p0.TB, self.Us,
                         members, replies, o["inp"], op.issue + cycles, op.latency, op.depth)
        host_counts[members] += 1
        if r == I.R_LIMIT:
            for b in at_host:
                c = self.platforms[b].agent.controller
                if c.max_instructions is not None and self.ST[b, I.S_EXEC] >= c.max_instructions:
                    raise self._limit(b)
