"""The controller: fetch, schedule with hazard checks, loop counters, branches, host sync.

One SimPy process runs the program loosely timed: it keeps its own cycle count and yields to
SimPy only at quantum boundaries and when it waits for the host (a quantum keeper,
:mod:`tlm.core.quantum`). Per instruction it

1. waits for the results the instruction reads or overwrites (RAW and WAW hazards on address
   ranges from the ISA table; a producer's result can be used ``depth - 1`` cycles after it
   issued its last tile, the scheduler forwarding from the write-back buffer -- seed 001,
   III-B-1), counting the wait as stall cycles;
2. executes the functional semantics (numpy, in the architecture's number format);
3. occupies the issue stage for its issue cycles (plus the branch penalty when a branch is
   taken) and records when its results will be ready.

Cycles are attributed to the instruction that spent them (its stall plus its issue cycles),
so per-instruction cycles add up to the run's cycles.
"""

from __future__ import annotations

import numpy as np

from isa.errors import SimError
from tlm.core.payload import GenericPayload
from tlm.core.quantum import QuantumKeeper

from .program import BRANCH, ENDMARK, EXEC, FAULT, HALT, HOST, JMP, LOOP, LSET, MARK
from .timing import BRANCH_PENALTY

__all__ = ["Controller"]


class Controller:
    """Runs pre-decoded ops on the memories; counts per-PC executions and cycles."""

    def __init__(self, env, ops, U, dt, link, unified_socket, *, quantum: int = 10_000,
                 loop_counters: int = 4, max_instructions: int | None = None,
                 trace=None, progress=None):
        self.env = env
        self.ops = ops
        self.U = U
        self.dt = dt
        self.link = link
        self.socket = unified_socket
        self.qk = QuantumKeeper(env, quantum)
        self.ctr = [0] * loop_counters
        self.max_instructions = max_instructions
        self.trace = trace
        self.progress = progress
        n = len(ops)
        self.exec_count = [0] * n
        self.cycles_at = [0] * n
        self.stall_at = [0] * n
        self.instructions = 0
        self.cycles = 0
        self.host_cycles = 0
        self.marks: dict[int, list[int]] = {}
        self.halted = False
        self._zero = dt.quantize(0.0)

    # ---------------------------------------------------------------------------------------
    def _fault(self, pc: int, message: str) -> SimError:
        op = self.ops[pc]
        return SimError(f"PC {pc} ({op.text}): {message} (after {self.instructions} "
                        f"instructions, cycle {self.cycles})")

    def process(self):
        ops, U = self.ops, self.U
        exec_count, cycles_at, stall_at = self.exec_count, self.cycles_at, self.stall_at
        n = len(ops)
        pending: list[tuple[int, int, int, int]] = []     # (space, lo, hi, ready)
        t = 0                                             # issue stage free at cycle t
        pc = 0
        executed = 0
        limit = self.max_instructions
        qk = self.qk
        trace = self.trace
        zero = self._zero
        while True:
            if not 0 <= pc < n:
                self.instructions, self.cycles = executed, t
                raise SimError(f"PC {pc} is outside the program of {n} instructions "
                               f"(after {executed} instructions, cycle {t}): a jump past the "
                               f"end or a missing cc.halt")
            op = ops[pc]
            kind = op.kind
            if kind == FAULT:
                self.instructions, self.cycles = executed, t
                raise self._fault(pc, op.fault)
            start = t
            if pending:
                for space, lo, hi, ready in pending:
                    if ready > start:
                        for s2, lo2, hi2 in op.reads:
                            if s2 == space and lo2 < hi and lo < hi2:
                                start = ready
                                break
                        else:
                            for s2, lo2, hi2 in op.writes:
                                if s2 == space and lo2 < hi and lo < hi2:
                                    start = ready
                                    break
                if len(pending) > 6:      # drop results that are ready (cheap, not per op)
                    pending = [p for p in pending if p[3] > start]
            nxt = pc + 1
            busy = op.issue
            if kind == EXEC:
                op.run()
            elif kind == BRANCH:
                if _taken(op, U, zero):
                    nxt = op.operands["target"]
                    busy += BRANCH_PENALTY
            elif kind == LOOP:
                k = op.operands["ctr"]
                self.ctr[k] += 1
                if self.ctr[k] < op.operands["limit"]:
                    nxt = op.operands["target"]
                    busy += BRANCH_PENALTY
            elif kind == LSET:
                self.ctr[op.operands["ctr"]] = 0
            elif kind == JMP:
                nxt = op.operands["target"]
                busy += BRANCH_PENALTY
            elif kind == HOST:
                busy += yield from self._host(op, start)
                self.host_cycles += busy - op.issue
            elif kind == HALT:
                end = max([start + busy] + [p[3] for p in pending])
                exec_count[pc] += 1
                cycles_at[pc] += end - t
                stall_at[pc] += start - t
                executed += 1
                self.instructions, self.cycles, self.halted = executed, end, True
                qk.set(end - self.env.now)
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
                ready = start + busy + op.depth - 2
                for space, lo, hi in op.writes:
                    pending.append((space, lo, hi, ready))
            new_t = start + busy
            exec_count[pc] += 1
            cycles_at[pc] += new_t - t
            stall_at[pc] += start - t
            if trace is not None:
                trace.instruction(pc, op.mnemonic, start, busy, start - t)
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
            self.trace.transaction("host link", start, cycles, len(out), o["nin"])
        if self.progress is not None:
            self.progress()
        return cycles


def _taken(op, U, zero) -> bool:
    o = op.operands
    mn = op.mnemonic
    a = U[o["a"]]
    if mn == "cc.bnz":
        return a != zero
    if mn == "cc.bz":
        return a == zero
    b = U[o["b"]]
    if mn == "cc.blt":
        return a < b
    if mn == "cc.bge":
        return a >= b
    if mn == "cc.bsqlt":
        return op.sqh(a) < b
    raise SimError(f"no branch rule for {mn}")  # pragma: no cover - kinds come from the table
