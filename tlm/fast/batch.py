"""Many independent runs of one program as one simulation: a batch of one-agent platforms
(seeds, bit widths or hyper-parameters of the same program) whose machine states advance
together.

Each member is built as its single run would be (its platform, memories, host link,
controller and compiled tables, :func:`.engine.prepare`); the batch stacks the members'
state arrays and runs them round by round in one SimPy process:

1. one call of :func:`.automaton.run_round` advances every live member through its own
   instructions -- its own data-dependent branches, its own loop counts -- until its next
   host exchange (or ``cc.halt``), each instruction's timing looked up in the batch's
   timing automaton (:mod:`.automaton`: computed once per timing state and instruction);
2. the members' host exchanges are answered together by a *batch host*
   (:class:`MemberHosts` asks each member's own host; a program family may provide a
   compiled one, e.g. the ADHDP cart-poles stepped for every member at once, whose
   ``exchange_into`` reads the actions from and writes the replies into the members'
   memories in one compiled call), and :func:`retire_hosts` retires the ``cc.host``
   instructions with the host link's cycles, as the single run does;
3. the SimPy process advances to the earliest member's time.

An instruction a member's loop hands back (no compiled kernel for it or its number format,
a data-dependent cost, a kernel that refused its operands, a synchronisation that waits for
no other agent) is carried out by its semantics as the single run's loop does
(:func:`.engine.carry_out`), for that member alone. A member's figures are its single
run's, bit for bit (``tests/tlm/fast/test_batch.py``, ``tests/programs/test_runner_seeds.py``
for every machine). Platforms of several agents, traced or not on the compiled loop are
refused before the run.
"""

from __future__ import annotations

import time
from collections import namedtuple
from typing import NamedTuple

import numpy as np
import simpy

from rlaccel.util.errors import SimError

from rlaccel.tlm.controller import outside
from rlaccel.tlm.loader import BRANCH, EXEC, FAULT, HALT, HOST, SYNC
from rlaccel.tlm.fast import interp as I
from rlaccel.tlm.fast.engine import _write_back, carry_out, prepare
from rlaccel.tlm.fast.program import STATE, TABLES, loop_memory
from rlaccel.tlm.fast.jit import HAVE_NUMBA, njit
from rlaccel.tlm.fast.automaton import Automaton, Tables, run_round

__all__ = ["Batch", "State", "Loop", "Memories", "MemberHosts", "retire_hosts", "finish_hosts",
           "H_PC", "H_OUT", "H_NOUT", "H_INP", "H_NIN", "H_BUSY", "H_LATENCY", "H_DEPTH"]

_FAR = 1 << 62                  # members never stop at quantum boundaries (the batch syncs)


Loop = namedtuple("Loop", TABLES + STATE)
Loop.__doc__ = """The compiled loop's tables of a batch: member 0's program tables (every member
runs the same program; :data:`.program.TABLES`) and the members' loop state, stacked
(:data:`.program.STATE`: row ``b`` is member ``b``'s; its Program holds a view)."""


class State(NamedTuple):
    """What the compiled rounds of a batch read and write, owned by its :class:`Batch` and
    passed whole to :func:`~.automaton.run_round`, :func:`retire_hosts` and a batch host's
    ``rounds(state, memories, live)``: the tables ``loop`` (:class:`Loop`), the timing
    automaton's tables ``auto``; ``reasons``, ``at_host``, ``other``, ``out``: what the last
    round left (:func:`~.automaton.run_round`); ``host``: the ``cc.host`` a batch host's
    ``rounds`` answers (``H_PC`` .. ``H_DEPTH``: pc, out, nout, inp, nin, busy, latency,
    depth; set at the first exchange); ``host_counts``: the exchanges answered per member.
    The Batch keeps its loop state under the same names (``batch.ST``, ...)."""

    loop: Loop
    auto: Tables
    reasons: np.ndarray
    at_host: np.ndarray
    other: np.ndarray
    out: np.ndarray
    host: np.ndarray
    host_counts: np.ndarray


class Memories(NamedTuple):
    """The members' memories the compiled rounds read and write, as numba typed lists (item
    ``b``: member ``b``'s): ``U`` unified, ``S`` synapse, ``FS`` the family states of its
    kernels (:func:`.dispatch.state`). They are the members' own, so they travel beside the
    :class:`State` (a typed list in the State would also make numba type the State's every
    array in Python at each call)."""

    U: object
    S: object
    FS: object


#: the words of ``State.host``
H_PC, H_OUT, H_NOUT, H_INP, H_NIN, H_BUSY, H_LATENCY, H_DEPTH = range(8)


@njit
def retire_hosts(s, members, busy, latency, depth):
    """Retire the ``cc.host`` of each member of ``members`` (rows of batch state ``s``; its
    reply written; ``busy``: issue plus the link's cycles); returns R_LIMIT if a member
    reached its instruction limit, else 0."""
    L = s.loop
    ST = L.ST
    worst = 0
    for i in range(len(members)):
        b = members[i]
        pc = ST[b, I.S_PC]
        r = I.retire(L.P, L.G, ST[b], L.PEND[b], L.STATS[b], L.MK[b], L.TB, pc,
                     ST[b, I.S_START], busy, latency, depth, pc + 1)
        if r == I.R_LIMIT:
            worst = r
    return worst


@njit
def finish_hosts(s, Us, members, replies, inp, busy, latency, depth):
    """Write each member's reply at ``inp`` into its unified memory (``Us``) and retire its
    ``cc.host`` (:func:`retire_hosts`)."""
    for i in range(len(members)):
        U = Us[members[i]]
        for j in range(replies.shape[1]):
            U[inp + j] = replies[i, j]
    return retire_hosts(s, members, busy, latency, depth)


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
        p0 = prepare(first.agent.controller, always=True)
        # a member of member 0's binary text on its architecture shares its tables
        self.progs = [p0] + [prepare(p.agent.controller, p0 if self._shares(p) else None,
                                     always=True) for p in platforms[1:]]
        if any((pr.P != p0.P).any() for pr in self.progs):
            raise SimError("batch members' compiled programs differ; a batch runs one program")
        self.hosts = hosts if hosts is not None else MemberHosts(platforms)
        self._stack()

    def _shares(self, p) -> bool:
        first = self.platforms[0]
        return (p.arch is first.arch and p.agent.binary.text == first.agent.binary.text
                and all(op.run is op.bound_run for op in p.agent.ops)
                and all(op.run is op.bound_run for op in first.agent.ops))

    def _stack(self) -> None:
        """The members' state arrays as rows of stacked arrays (their Programs keep views)."""
        for name in STATE:
            shapes = {getattr(p, name).shape for p in self.progs}
            if len(shapes) != 1:
                raise SimError(f"batch members disagree on their {name} tables {shapes}")
            stacked = np.stack([getattr(p, name) for p in self.progs])
            setattr(self, name, stacked)
            for b, p in enumerate(self.progs):
                setattr(p, name, stacked[b])
        self.Us = _typed_list([loop_memory(pl.agent, "unified") for pl in self.platforms])
        self._U = [pl.agent.memory("unified") for pl in self.platforms]
        self._links = [pl.agent.link for pl in self.platforms]
        self._dtype = self.platforms[0].agent.memory("unified").dtype
        self._loop_dtype = self.Us[0].dtype
        self.Ss = _typed_list([loop_memory(pl.agent, "synapse") for pl in self.platforms])
        self.memories = Memories(self.Us, self.Ss, _typed_list([p.FS for p in self.progs]))
        self.state = None           # the State of a run (:meth:`run`)
        self.automaton = Automaton(self.progs[0].P.shape[0], self.UF.shape[1],
                                   self.PEND.shape[2],
                                   self.platforms[0].agent.controller.branch_penalty)

    def run(self) -> list:
        """Run every member until it halts; their Results, in order."""
        from rlaccel.tlm.results import Results
        self.state, self._host = self._state(), None
        self._io = np.zeros((len(self.platforms), 6), dtype=np.int64)
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

    def _state(self) -> State:
        """A fresh :class:`State` over the members' tables, memories and the automaton."""
        n, p0 = len(self.platforms), self.progs[0]
        loop = Loop(*(getattr(p0, k) for k in TABLES), *(getattr(self, k) for k in STATE))
        return State(loop=loop, auto=self.automaton.tables,
                     reasons=np.zeros(n, dtype=np.int64), at_host=np.zeros(n, dtype=np.int64),
                     other=np.zeros(n, dtype=np.int64), out=np.zeros(4, dtype=np.int64),
                     host=np.zeros(8, dtype=np.int64), host_counts=np.zeros(n, dtype=np.int64))

    def _rounds(self, env):
        """The batch's SimPy process (module docstring)."""
        n = len(self.platforms)
        s = self.state
        ST, reasons, at_host, other, out = s.loop.ST, s.reasons, s.at_host, s.other, s.out
        ctrls = [pl.agent.controller for pl in self.platforms]
        ops = self.platforms[0].agent.ops
        for b, c in enumerate(ctrls):
            ST[b, I.S_LIMIT] = -1 if c.max_instructions is None else c.max_instructions
            ST[b, I.S_PENALTY] = c.branch_penalty
            ST[b, I.S_BOUND] = _FAR
        host_counts = s.host_counts
        live = np.arange(n, dtype=np.int64)
        driver = getattr(self.hosts, "rounds", None)
        try:
            while len(live):
                k = len(live)
                if driver is not None and self._host is not None:
                    if driver(s, self.memories, live):
                        self._check_limit(at_host[:int(out[0])])
                else:
                    run_round(s, self.memories, live)
                nh, no, sats, t_min = out.tolist()
                if sats:
                    self._settle(live)
                halted = []
                stops = other[:no].tolist()
                for i in stops:
                    b, reason = int(live[i]), int(reasons[i])
                    if reason == I.R_LIMIT:
                        raise self._limit(b)
                    if self._python(b, reason):       # cc.halt, or an op carried out
                        halted.append(i)
                if nh:
                    self._exchange(at_host[:nh].copy(), ops)
                if halted:
                    keep = np.ones(k, dtype=bool)
                    keep[halted] = False
                    live = live[keep]
                if stops or nh:
                    t_min = int(ST[live, I.S_T].min()) if len(live) else int(ST[:, I.S_T].max())
                if t_min > env.now:
                    yield env.timeout(t_min - env.now)
        finally:
            io = self._io.copy()
            io += host_counts[:, None] * np.array([1, *self._driver_io], dtype=np.int64)
            for b, (pl, prog) in enumerate(zip(self.platforms, self.progs)):
                link = pl.agent.link
                nh, words_out, words_in, cycles, up, down = io[b].tolist()
                stats = pl.agent.memories["unified"].stats
                stats.writes += nh
                stats.words_written += words_in
                _write_back(pl.agent.controller, prog)
                link.exchanges += nh
                link.words_out += words_out
                link.words_in += words_in
                link.cycles += cycles
                link.timeline.transfer_cycles["to_host"] += up
                link.timeline.transfer_cycles["to_device"] += down
                pl.agent.controller.host_cycles += cycles

    #: the words out, in, cycles, cycles up and down of the exchange of ``State.host``
    #: (the batch host's ``rounds`` counts its exchanges in ``State.host_counts``)
    _driver_io = (0, 0, 0, 0, 0)
    _host = None              # State.host once the first cc.host has set it

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

    def _python(self, b: int, reason: int) -> bool:
        """Carry out the instruction member ``b`` handed back as its single run's loop does
        (:func:`.engine.process`): an instruction without a kernel, with a data-dependent
        cost or whose kernel refused its operands (its semantics), a synchronisation that
        needs no other agent, ``cc.halt`` (True); a fault raises the single run's error."""
        pl, prog = self.platforms[b], self.progs[b]
        agent = pl.agent
        ops, ctrl = agent.ops, agent.controller
        ST = self.ST[b]
        pc, t, start = int(ST[I.S_PC]), int(ST[I.S_T]), int(ST[I.S_START])
        executed = int(ST[I.S_EXEC])
        if not 0 <= pc < len(ops):
            raise SimError(f"batch member {b}: {outside(pc, len(ops), executed, t)}")
        op = ops[pc]
        kind = op.kind
        if kind == FAULT:
            raise SimError(f"batch member {b}: {ctrl._fault(pc, op.fault)}")
        if kind == HALT:
            self._halt(b)
            return True
        if kind in (EXEC, BRANCH):
            busy, latency, depth, start, nxt = carry_out(ctrl, prog, op, start)
        elif kind == SYNC:
            busy, latency, depth, nxt = op.issue, op.latency, op.depth, pc + 1
            busy = max(busy, self._sync(b, op))
        else:
            raise SimError(f"batch member {b}: PC {pc} ({op.text}) needs Python; run the "
                           f"members one by one")
        r = I.retire(prog.P, prog.G, ST, prog.PEND, prog.STATS, prog.MK, prog.TB, pc, start,
                     busy, latency, depth, nxt)
        self._settle(np.array([b]))
        if r == I.R_LIMIT:
            raise self._limit(b)
        return False

    def _sync(self, b: int, op) -> int:
        """A synchronisation of a one-agent member: its semantics with no other agent to
        wait for take no SimPy time (0 cycles waited, as in its single run); one that
        waits is refused."""
        gen = op.run()
        try:
            next(gen)
        except StopIteration:
            return 0
        raise SimError(f"batch member {b}: PC {op.pc} ({op.text}) waits in SimPy time; run "
                       f"the members one by one")

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

    def _exchange(self, at_host: np.ndarray, ops) -> None:
        """Every waiting member's cc.host (``at_host``: member indices): the batch host
        answers, the replies are written and the instructions retired with the link's
        cycles. A batch host with ``exchange_into`` answers the members it can in place (the
        replies written straight into their memories); the others, and every member of a
        host without it, go through ``exchange``."""
        pcs = self.ST[at_host, I.S_PC]
        pc = int(pcs[0])
        op = ops[pc]
        if (pcs != pc).any():
            for p in np.unique(pcs).tolist():
                self._exchange(at_host[pcs == p], ops)
            return
        o = op.operands
        link = self._links[int(at_host[0])]
        nout, nin = o["nout"], o["nin"]
        up, down = link.to_host.delay(nout), link.to_device.delay(nin)
        cycles = up + link.host_cycles + down
        row = np.array([1, nout, nin, cycles, up, down], dtype=np.int64)
        s = self.state
        timing = (op.issue + cycles, op.latency, op.depth)
        if self._host is None:
            s.host[:] = (pc, o["out"], nout, o["inp"], nin, *timing)
            self._host = s.host
            self._driver_io = (nout, nin, cycles, up, down)
        members = at_host
        into = getattr(self.hosts, "exchange_into", None)
        r = 0
        if into is not None:
            done = into(members, self.Us, o["out"], nout, o["inp"], nin)
            if done.all():
                rest = members[:0]
            else:
                rest, members = members[~done], members[done]
            if len(members):
                r = retire_hosts(s, members, *timing)
                self._io[members] += row
            members = rest
        if len(members):
            Us, lo = self._U, o["out"]
            outs = np.array([Us[b][lo:lo + nout] for b in members.tolist()])
            replies = self.hosts.exchange(members.tolist(), outs, nin)
            replies = np.ascontiguousarray(replies, dtype=self._dtype).reshape(
                len(members), nin).view(self._loop_dtype)
            r2 = finish_hosts(s, self.Us, members, replies, o["inp"], *timing)
            self._io[members] += row
            r = r or r2
        if r == I.R_LIMIT:
            self._check_limit(at_host)

    def _check_limit(self, members) -> None:
        """The limit error of the first of ``members`` that reached its instruction limit."""
        for b in members.tolist():
            c = self.platforms[b].agent.controller
            if c.max_instructions is not None and self.ST[b, I.S_EXEC] >= c.max_instructions:
                raise self._limit(b)
