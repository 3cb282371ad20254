"""The SimPy side of the compiled loop: one agent's controller process, entering Python only
where :mod:`.interp` returns.

:func:`process` is what :meth:`rlaccel.tlm.controller.Controller.process` runs when the
program's kernels are compiled: it calls :func:`~.interp.interpret`, and on each return does
what only Python can -- a host exchange through the host link and the TLM-2.0 socket, a
synchronisation with other agents in SimPy time, an instruction without a compiled kernel or
with a data-dependent cost (its model's ``semantics``), ``cc.halt``, a fault -- retires that
instruction through :func:`~.interp.retire`, moves the saturation count and the trace entries
to their owners, and yields to SimPy at quantum boundaries, exactly where the Python
controller yields. At the end the controller holds the same figures as after a Python run.
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import SimError

from rlaccel.tlm.loader import BRANCH, EXEC, FAULT, HALT, HOST, SYNC
from rlaccel.tlm.model import Cost
from rlaccel.tlm.fast import interp as I
from rlaccel.tlm.fast.program import Program, build, loop_memory

__all__ = ["process", "prepare", "carry_out"]


def prepare(ctrl, like: Program | None = None, always: bool = False) -> Program | None:
    """The compiled tables of a controller's program, or None when none of its instructions
    has a compiled kernel (for its number format, or at all: they then run their reference
    semantics in the Python loop) unless ``always``; ``like``: share the tables of this
    Program of the same binary text on the same architecture (:func:`.program.build`)."""
    from rlaccel.tlm.families.base.kernels import constants
    K = constants(ctrl.agent.dt)
    prog = build(ctrl.agent, lambda op: op.kernel if op.run is op.bound_run else None, K,
                 like)
    return prog if prog.kernels or always else None


def carry_out(ctrl, prog: Program, op, start: int) -> tuple[int, int, int, int, int]:
    """An instruction the compiled loop handed back (no kernel, a data-dependent cost or a
    kernel that refused its operands) carried out by its semantics at cycle ``start``:
    ``(busy, latency, depth, start, next PC)`` for :func:`.interp.retire` (an EXEC's units
    are booked in ``prog.UF``; a data-dependent cost may move its start)."""
    busy, latency, depth, nxt = op.issue, op.latency, op.depth, op.pc + 1
    if op.kind == BRANCH:
        if op.run():
            nxt = op.operands["target"]
            busy += ctrl.branch_penalty
    elif op.dynamic:
        busy, latency, depth, start = _dynamic(ctrl, prog, op, start)
    else:
        op.run()
        for unit, cycles in op.occupy:
            prog.UF[prog.unit(ctrl.agent, unit.name)] = start + cycles
    return busy, latency, depth, start, nxt


def process(ctrl, prog: Program):
    """The controller's SimPy process on the compiled loop (a generator)."""
    agent, env, qk, trace = ctrl.agent, ctrl.env, ctrl.qk, ctrl.trace
    ops = ctrl.ops
    n = len(ops)
    dt, counter = agent.dt, agent.saturations
    U, S = loop_memory(agent, "unified"), loop_memory(agent, "synapse")
    P, G, ST, PEND, CTR, STATS, MK, TB = (prog.P, prog.G, prog.ST, prog.PEND, prog.CTR,
                                          prog.STATS, prog.MK, prog.TB)
    K, T, B, IMM = prog.K, prog.T, prog.B, prog.IMM
    ST[I.S_LIMIT] = -1 if ctrl.max_instructions is None else ctrl.max_instructions
    ST[I.S_PENALTY] = ctrl.branch_penalty
    if trace is not None:
        trace.program(agent.index, [(op.mnemonic, tuple((u.name, c) for u, c in op.occupy))
                                    for op in ops])
        ST[I.S_TRBUDGET] = trace.remaining()
    ST[I.S_BOUND] = env.now + qk._budget

    cap = len(TB) - 2                     # room for a host row and an instruction

    def settle(flush=False):
        """Saturations to their owners; the trace rows too when ``flush`` (before Python
        records something itself) or when the buffer is nearly full."""
        s = int(ST[I.S_SAT])
        if s:
            ST[I.S_SAT] = 0
            dt.saturations += s
            counter.saturations += s
        if trace is not None and (flush or ST[I.S_NTR] >= cap):
            if ST[I.S_TRPROD]:
                trace.compiled(agent.index, TB[:ST[I.S_NTR]].copy(), int(ST[I.S_TRPROD]))
                ST[I.S_NTR] = 0
                ST[I.S_TRPROD] = 0
            ST[I.S_TRBUDGET] = trace.remaining()

    def host_row(start, cycles, words_out, words_in):
        """The host exchange as a trace row in the loop's buffer (kept in order with the
        instructions, without handing the buffer over at every step)."""
        if ST[I.S_TRPROD] < ST[I.S_TRBUDGET]:
            n = int(ST[I.S_NTR])
            TB[n] = (-1, start, cycles, words_out, words_in)
            ST[I.S_NTR] = n + 1
        ST[I.S_TRPROD] += 1

    def limit_error():
        ctrl.instructions, ctrl.cycles = int(ST[I.S_EXEC]), int(ST[I.S_T])
        return SimError(f"the program did not halt within {ctrl.max_instructions} instructions "
                        f"(PC {int(ST[I.S_PC])}, cycle {int(ST[I.S_T])})")

    try:
        while True:
            reason = I.interpret(P, G, ST, PEND, CTR, prog.UF, STATS, MK, TB, U, S, K, T, B,
                                 IMM, prog.FS)
            settle()
            if reason == I.R_LIMIT:
                raise limit_error()
            if reason == I.R_PY or reason == I.R_REF:
                pc, t, start = int(ST[I.S_PC]), int(ST[I.S_T]), int(ST[I.S_START])
                if not 0 <= pc < n or ops[pc].kind == FAULT:
                    raise ctrl._stopped(pc, int(ST[I.S_EXEC]), t)
                op = ops[pc]
                kind = op.kind
                nxt, busy, latency, depth = pc + 1, op.issue, op.latency, op.depth
                if kind in (EXEC, BRANCH):
                    busy, latency, depth, start, nxt = carry_out(ctrl, prog, op, start)
                elif kind == HOST:
                    if trace is None:
                        busy += yield from ctrl._host(op, start)
                    else:
                        ctrl.trace = None             # the row goes to the loop's buffer
                        try:
                            cycles = yield from ctrl._host(op, start)
                        finally:
                            ctrl.trace = trace
                        busy += cycles
                        o = op.operands
                        host_row(start, cycles, o["nout"], o["nin"])
                    ctrl.host_cycles += busy - op.issue
                elif kind == SYNC:
                    settle(flush=True)
                    waited = yield from ctrl._sync(op, start)
                    busy = max(busy, waited)
                    ctrl.sync_cycles += waited
                elif kind == HALT:
                    npend = int(ST[I.S_NPEND])
                    end = max([start + busy] + PEND[:npend, 3].tolist()
                              + prog.UF[:len(prog.units)].tolist())
                    STATS[0, pc] += 1
                    STATS[1, pc] += end - t
                    STATS[2, pc] += start - t
                    ST[I.S_EXEC] += 1
                    if trace is not None:
                        settle(flush=True)
                        trace.instruction(agent.index, pc, op.mnemonic, start, end - start,
                                          start - t)
                    ctrl.instructions, ctrl.cycles, ctrl.halted = int(ST[I.S_EXEC]), end, True
                    qk.local_time = end - env.now
                    yield from qk.sync()
                    return
                else:                                   # pragma: no cover - never flagged
                    raise SimError(f"PC {pc} ({op.text}): the compiled loop handed back an "
                                   f"instruction of kind {kind} it should carry out itself")
                ST[I.S_BOUND] = env.now + qk._budget
                r = I.retire(P, G, ST, PEND, STATS, MK, TB, pc, start, busy, latency, depth,
                             nxt)
                settle()
                if r == I.R_LIMIT:
                    raise limit_error()
            t = int(ST[I.S_T])
            if t >= ST[I.S_BOUND]:
                qk.local_time = t - env.now
                if qk.need_sync():
                    yield from qk.sync()
                ST[I.S_BOUND] = env.now + qk._budget
    finally:
        _write_back(ctrl, prog)


def _dynamic(ctrl, prog: Program, op, start: int):
    """An instruction whose cost its semantics returns (the controller's rule)."""
    cost = op.run()
    if not isinstance(cost, Cost):
        raise ctrl._fault(op.pc, f"the model of '{op.mnemonic}' has data-dependent timing but "
                                 f"its semantics returned {cost!r}, not a Cost")
    units = [(prog.unit(ctrl.agent, name), name, cycles) for name, cycles in cost.busy]
    later = max([start] + [int(prog.UF[i]) for i, _, _ in units])
    for i, name, cycles in units:
        prog.UF[i] = later + cycles
        ctrl.dynamic_busy[name] = ctrl.dynamic_busy.get(name, 0) + cycles
    if cost.actions:
        acc = ctrl.dynamic_actions.setdefault(op.pc, {})
        for a, k in cost.actions.items():
            acc[a] = acc.get(a, 0) + k
    return cost.issue, cost.latency, cost.depth, later


def _write_back(ctrl, prog: Program) -> None:
    """The loop's figures into the controller's own attributes (as the Python loop keeps
    them), and the units' free cycles into the Unit objects."""
    n = len(ctrl.ops)
    st = prog.STATS
    ctrl.exec_count[:] = st[0, :n].tolist()
    ctrl.cycles_at[:] = st[1, :n].tolist()
    ctrl.stall_at[:] = st[2, :n].tolist()
    if not ctrl.halted:
        ctrl.instructions = int(prog.ST[I.S_EXEC])
        ctrl.cycles = ctrl.cycles or int(prog.ST[I.S_T])
    ctrl.ctr[:] = prog.CTR.tolist()
    for i, unit in enumerate(prog.units):
        unit.free = int(prog.UF[i])
    touched = [(int(prog.MK[s, 4]), mid, s) for s, mid in enumerate(prog.marks)
               if prog.MK[s, 3]]
    for _, mid, s in sorted(touched):
        ctrl.marks[mid] = [int(prog.MK[s, 0]), int(prog.MK[s, 1]), int(prog.MK[s, 2])]


_ = np  # numpy is used through the tables
