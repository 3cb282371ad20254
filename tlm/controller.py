"""The controller of one agent: fetch, schedule with hazard checks, loop counters, branches,
host exchanges and synchronisation with other agents.

One SimPy process per agent runs its program loosely timed: it keeps its own cycle count and
yields to SimPy only at quantum boundaries, when it waits for the host and when it
synchronises with other agents (a quantum keeper, :mod:`rlaccel.tlm.core.quantum`). Per
instruction it

1. waits for the results the instruction reads or overwrites (RAW and WAW hazards on address
   ranges from the ISA table; a producer's result can be used ``depth - 1`` cycles after it
   issued its last tile, the scheduler forwarding from the write-back buffer -- seed 001,
   III-B-1; where the models give schedules, word by word: the instruction starts as soon as
   its first operands are ready and every later word is ready when its tile uses it,
   :mod:`rlaccel.tlm.fast.hazards`) and for every unit it occupies to be free, counting the
   wait as stall cycles;
2. executes the functional semantics (numpy, in the architecture's number format);
3. occupies the issue stage for its issue cycles (plus the branch penalty when a branch is
   taken) and each of its units for their busy cycles, and records when its results will be
   ready.

Cycles are attributed to the instruction that spent them (its stall plus its issue cycles),
so per-instruction cycles add up to the agent's cycles.

Two loops implement these rules. ``kernels="compiled"`` (the default) runs the program in the
compiled loop of :mod:`rlaccel.tlm.fast`, which enters Python only for host exchanges,
synchronisations, quantum boundaries and instructions without a compiled kernel -- when the
number format has kernels (fixed point, float64) and at least half of the program's
instructions with work of their own have one (otherwise returning to Python for the others
would cost more than it saves); ``kernels="reference"`` runs every instruction here, in
Python, through its model's reference semantics (:mod:`isa.dtypes` arithmetic). Both give
the same results, bit for bit.
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import SimError

from rlaccel.tlm.core.payload import GenericPayload
from rlaccel.tlm.core.quantum import QuantumKeeper
from rlaccel.tlm.fast.hazards import WHOLE, earliest, last_time, ranges
from rlaccel.tlm.loader import BRANCH, ENDMARK, EXEC, FAULT, HALT, HOST, JMP, LOOP, LSET, MARK, SYNC
from rlaccel.tlm.model import Cost

__all__ = ["Controller", "KERNELS", "outside"]

#: the controller's loops (module docstring)
KERNELS = ("compiled", "reference")
#: data-dependent Costs a controller keeps resolved (all are forgotten when it is full: a
#: model that makes a new Cost every execution gains nothing and keeps no memory)
_COSTS_KEPT = 512


def outside(pc: int, n: int, executed: int, t: int) -> str:
    """What a run that jumped to PC ``pc`` of a program of ``n`` instructions says."""
    return (f"PC {pc} is outside the program of {n} instructions (after {executed} "
            f"instructions, cycle {t}): a jump past the end or a missing cc.halt")


class Controller:
    """Runs an agent's pre-decoded ops; counts per-PC executions, cycles and stalls."""

    def __init__(self, agent, *, quantum: int = 10_000, max_instructions: int | None = None,
                 trace=None, progress=None, kernels: str = "compiled"):
        if kernels not in KERNELS:
            raise SimError(f"kernels must be one of {', '.join(KERNELS)}, not {kernels!r}")
        self.agent = agent
        self.kernels = kernels
        self.env = agent.platform.env
        self.ops = agent.ops
        self.link = agent.link
        self.socket = agent.socket
        self.U = agent.memory("unified")
        self.qk = QuantumKeeper(self.env, quantum)
        self.ctr = [0] * agent.arch.knobs.loop_counters
        self.branch_penalty = agent.timing["branch_penalty"]
        self.max_instructions = max_instructions
        self.trace = trace
        self.progress = progress
        n = len(self.ops)
        self.exec_count = [0] * n
        self.cycles_at = [0] * n
        self.stall_at = [0] * n
        self.dynamic_busy: dict[str, int] = {}       # unit -> busy cycles of dynamic ops
        self.dynamic_actions: dict[int, dict] = {}    # pc -> action counts of dynamic ops
        # id(Cost) -> (the Cost, its units resolved, its latency): the models keep their
        # Costs from execution to execution (a Cost is frozen), so each is resolved once
        self._costs: dict[int, tuple] = {}
        self.instructions = 0
        self.cycles = 0
        self.host_cycles = 0
        self.sync_cycles = 0
        self.marks: dict[int, list[int]] = {}
        self.halted = False

    # ---------------------------------------------------------------------------------------
    def _fault(self, pc: int, message: str) -> SimError:
        op = self.ops[pc]
        where = f"agent {self.agent.index}: " if self.agent.platform.n_agents > 1 else ""
        return SimError(f"{where}PC {pc} ({op.text}): {message} (after {self.instructions} "
                        f"instructions, cycle {self.cycles})")

    def _stopped(self, pc: int, executed: int, t: int) -> SimError:
        """The error of a run that reached PC ``pc`` outside the program or at a fault after
        ``executed`` instructions, at cycle ``t`` (which the controller keeps)."""
        self.instructions, self.cycles = executed, t
        if not 0 <= pc < len(self.ops):
            return SimError(outside(pc, len(self.ops), executed, t))
        return self._fault(pc, self.ops[pc].fault)

    def process(self):
        """The agent's SimPy process: the compiled loop when the program has kernels and
        ``kernels`` is "compiled", else the Python loop."""
        if self.kernels == "compiled":
            from rlaccel.tlm.fast.engine import prepare, process
            prog = prepare(self)
            if prog is not None and prog.kernels and 2 * prog.kernels >= prog.work:
                return (yield from process(self, prog))
        return (yield from self._process_reference())

    def _process_reference(self):
        ops = self.ops
        exec_count, cycles_at, stall_at = self.exec_count, self.cycles_at, self.stall_at
        n = len(ops)
        rng = [ranges(op) for op in ops]                  # ranges with their schedules
        # (space, lo, hi, last ready, t0 (absolute), stride, rstep, coff, per, cstep)
        pending: list[tuple] = []
        t = 0                                             # issue stage free at cycle t
        pc = 0
        executed = 0
        limit = self.max_instructions
        qk = self.qk
        trace = self.trace
        agent_id = self.agent.index
        penalty = self.branch_penalty
        while True:
            if not 0 <= pc < n or ops[pc].kind == FAULT:
                raise self._stopped(pc, executed, t)
            op = ops[pc]
            kind = op.kind
            start = t
            if pending:
                reads, writes = rng[pc]
                for space, lo, hi, ready, *ps in pending:
                    if ready > start:
                        for r in reads:
                            if r[0] == space and r[1] < hi and lo < r[2]:
                                e = earliest(lo, hi, *ps, *r[1:])
                                if e > start:
                                    start = e
                        for w in writes:                    # WAW: land after the earlier
                            if w[0] == space and w[1] < hi and lo < w[2]:
                                e = earliest(lo, hi, *ps, w[1], w[2],
                                             w[3] if w[3] >= 0 else 0, *w[4:])
                                if e > start:
                                    start = e
                if len(pending) > 6:      # drop results that are ready (cheap, not per op)
                    pending = [p for p in pending if p[3] > start]
            for unit, _ in op.occupy:
                if unit.free > start:
                    start = unit.free
            nxt = pc + 1
            busy = op.issue
            latency = op.latency
            depth = op.depth
            if kind == EXEC:
                if op.dynamic:
                    busy, latency, depth, start = self._dynamic(op, start)
                else:
                    op.run()
                    for unit, cycles in op.occupy:
                        unit.free = start + cycles
            elif kind == BRANCH:
                if op.run():
                    nxt = op.operands["target"]
                    busy += penalty
            elif kind == LOOP:
                k = op.operands["ctr"]
                self.ctr[k] += 1
                if self.ctr[k] < op.operands["limit"]:
                    nxt = op.operands["target"]
                    busy += penalty
            elif kind == LSET:
                self.ctr[op.operands["ctr"]] = 0
            elif kind == JMP:
                nxt = op.operands["target"]
                busy += penalty
            elif kind == HOST:
                busy += yield from self._host(op, start)
                self.host_cycles += busy - op.issue
            elif kind == SYNC:
                waited = yield from self._sync(op, start)
                busy = max(busy, waited)
                self.sync_cycles += waited
            elif kind == HALT:
                end = max([start + busy] + [p[3] for p in pending]
                          + [u.free for u in self.agent.units.values()])
                exec_count[pc] += 1
                cycles_at[pc] += end - t
                stall_at[pc] += start - t
                executed += 1
                if trace is not None:
                    trace.instruction(agent_id, pc, op.mnemonic, start, end - start, start - t)
                self.instructions, self.cycles, self.halted = executed, end, True
                qk.local_time = end - self.env.now
                yield from qk.sync()
                return
            elif kind == MARK:
                self.marks.setdefault(op.operands["id"], [0, 0, -1])[2] = start
            elif kind == ENDMARK:
                m = self.marks.setdefault(op.operands["id"], [0, 0, -1])
                if m[2] >= 0:
                    m[0] += start - m[2]
                    m[1] += 1
                    m[2] = -1
            if op.writes:
                ready = start + (busy if busy > latency else latency) + depth - 2
                for space, lo, hi, t0, *sc in rng[pc][1]:
                    if t0 < 0:
                        pending.append((space, lo, hi, ready, ready, WHOLE, 0, 0, WHOLE, 0))
                    else:
                        t0 += start
                        pending.append((space, lo, hi, last_time(hi - lo, t0, *sc), t0, *sc))
            new_t = start + busy
            exec_count[pc] += 1
            cycles_at[pc] += new_t - t
            stall_at[pc] += start - t
            if trace is not None:
                trace.instruction(agent_id, pc, op.mnemonic, start, busy, start - t,
                                  op.occupy if latency > busy else ())
            t = new_t
            pc = nxt
            executed += 1
            if limit is not None and executed >= limit:
                self.instructions, self.cycles = executed, t
                raise SimError(f"the program did not halt within {limit} instructions "
                               f"(PC {pc}, cycle {t})")
            qk.local_time = t - self.env.now
            if qk.need_sync():
                yield from qk.sync()

    def _dynamic(self, op, start: int) -> tuple[int, int, int, int]:
        """Run an op whose cost depends on the data: its semantics returns the Cost."""
        cost = op.run()
        hit = self._costs.get(id(cost))
        if hit is None or hit[0] is not cost:        # a Cost not seen (or not kept) before
            if not isinstance(cost, Cost):
                raise self._fault(op.pc, f"the model of '{op.mnemonic}' has data-dependent "
                                         f"timing but its semantics returned {cost!r}, not a "
                                         f"Cost")
            if len(self._costs) >= _COSTS_KEPT:
                self._costs.clear()
            hit = self._costs[id(cost)] = (
                cost, tuple((self.agent.unit(name), cycles) for name, cycles in cost.busy),
                cost.latency)
        units, latency = hit[1], hit[2]
        later = start
        for unit, _ in units:
            if unit.free > later:
                later = unit.free
        busy = self.dynamic_busy
        for unit, cycles in units:
            unit.free = later + cycles
            busy[unit.name] = busy.get(unit.name, 0) + cycles
        if cost.actions:
            acc = self.dynamic_actions.setdefault(op.pc, {})
            for a, k in cost.actions.items():
                acc[a] = acc.get(a, 0) + k
        return cost.issue, latency, cost.depth, later

    def _host(self, op, start: int):
        """cc.host: sync with SimPy, hand the output to the link, write the reply back
        through a transaction; returns the cycles it took."""
        o = op.operands
        out = self.U[o["out"]:o["out"] + o["nout"]].copy()
        self.qk.local_time = start - self.env.now
        yield from self.qk.sync()
        reply, cycles = self.link.exchange(out, o["nin"])
        payload = GenericPayload.write(o["inp"], np.asarray(reply, dtype=self.U.dtype))
        self.socket.b_transport(payload, 0)
        payload.raise_for_status()
        if self.trace is not None:
            self.trace.transaction(self.agent.index, "host link", start, cycles, len(out),
                                   o["nin"])
        if self.progress is not None:
            self.progress()
        return cycles

    def _sync(self, op, start: int):
        """An instruction that waits on other agents: run its generator in SimPy time from
        ``start``; returns the cycles it took."""
        self.qk.local_time = start - self.env.now
        yield from self.qk.sync()
        yield from op.run()
        waited = self.env.now - start
        self.qk.local_time = 0
        if self.trace is not None:
            self.trace.transaction(self.agent.index, "interconnect", start, waited, 0, 0,
                                   name=op.mnemonic)
        return waited
