"""An agent's pre-decoded program as the tables the compiled loop (:mod:`.interp`) reads.

:func:`build` turns the agent's :class:`~rlaccel.tlm.loader.Op` list into one int64 row per
instruction: its kind, kernel code and operands (when its model bound a
:class:`~rlaccel.tlm.model.Kernel` and nothing replaced its ``run`` since, e.g. the RTL
transactor), its cost, branch target, loop counter, mark slot, the units it occupies and the
address ranges it reads and writes with their schedules (:mod:`.hazards`). An instruction the
loop cannot carry out itself -- no kernel, data-dependent cost, host exchange,
synchronisation, halt, fault -- is flagged for Python. So is an instruction whose ``run``
something replaced (a transactor handing it to an RTL unit): the loop hands back only those
and runs the rest compiled; they are not counted in ``work`` (what the controller weighs
the kernels against when it picks a loop), since either loop hands them to Python.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlaccel.isa.table import TABLE

from rlaccel.tlm.loader import BRANCH, ENDMARK, EXEC, JMP, LOOP, LSET, MARK
from rlaccel.tlm.fast import dispatch
from rlaccel.tlm.fast import interp as I
from rlaccel.tlm.fast.floatpoint import F_LOOPBUF
from rlaccel.tlm.fast.hazards import RANGE, ranges

__all__ = ["Program", "build", "loop_memory", "PENDING", "PEND_FIELDS", "TABLES", "STATE"]

#: pending results the loop keeps (the controller keeps about the pipeline depth's worth)
PENDING = 256
#: a pending result: space, lo, hi, last ready, then its schedule (t0 absolute)
PEND_FIELDS = 4 + 6
_TRACE_BUFFER = 1 << 14
#: a Program's tables the agents running the same binary text on one architecture share:
#: the decoded program, its geometry and immediates, the kernels' constants, the scratch
#: vectors and the trace buffer
TABLES = ("P", "G", "IMM", "K", "T", "B", "TB")
#: the loop's mutable state of one run (:func:`_state`)
STATE = ("ST", "PEND", "CTR", "UF", "STATS", "MK")
_IN_LOOP = (EXEC, BRANCH, JMP, LOOP, LSET, MARK, ENDMARK)


def loop_memory(agent, space: str) -> np.ndarray:
    """An agent's memory as the compiled loop sees it: its words (a live view), as their
    bits (uint16) when they are binary16, which numba cannot type; an empty view of the
    unified memory for a space the agent lacks."""
    if space not in agent.memories:
        return loop_memory(agent, "unified")[:0]
    m = agent.memory(space)
    return m.view(np.uint16) if m.dtype == np.float16 else m


@dataclass
class Program:
    """The tables of one agent (see the module docstring) and the mutable loop state."""

    P: np.ndarray
    G: np.ndarray
    IMM: np.ndarray
    K: np.ndarray
    units: list            # unit index -> Unit
    unit_index: dict       # unit name -> index
    marks: list            # mark slot -> mark id
    T: np.ndarray
    B: np.ndarray
    ST: np.ndarray
    PEND: np.ndarray
    CTR: np.ndarray
    UF: np.ndarray
    STATS: np.ndarray
    MK: np.ndarray
    TB: np.ndarray
    compiled: int          # instructions that run in the loop
    work: int = 0          # instructions with work of their own (exec and branch) that a
    #                        loop carries out itself: not those whose run was replaced
    kernels: int = 0       # of which have a compiled kernel
    FS: tuple = ()         # the agent's family states (:func:`.dispatch.state`)

    def unit(self, agent, name: str) -> int:
        """The index of a unit in ``UF``, adding one an instruction named at run time."""
        i = self.unit_index.get(name)
        if i is None:
            u = agent.unit(name)
            i = self.unit_index[name] = len(self.units)
            self.units.append(u)
            if i >= len(self.UF):
                if self.UF.base is not None:
                    from rlaccel.util.errors import SimError
                    raise SimError(f"unit '{name}' appeared at run time in a batch member, "
                                   f"beyond the {len(self.UF)} units the batch holds")
                self.UF = np.concatenate([self.UF, np.zeros(len(self.UF), dtype=np.int64)])
            self.UF[i] = u.free
        return i


def build(agent, kernels_of, constants, like: Program | None = None) -> Program:
    """The tables of ``agent``'s ops; ``kernels_of(op)`` is the op's Kernel or None,
    ``constants`` the base family's kernels' constants array (None: no base kernels for
    this format; the other families' kernels keep theirs in their state,
    :func:`.dispatch.state`). ``like``: the Program of an agent of the same architecture
    running the same binary text (a batch's member 0), whose tables are shared; only the
    loop state and the family states are new."""
    if like is not None:
        units = [agent.unit(u.name) for u in like.units]
        return Program(**{k: getattr(like, k) for k in TABLES}, units=units,
                       unit_index=dict(like.unit_index), marks=list(like.marks),
                       compiled=like.compiled, work=like.work, kernels=like.kernels,
                       FS=dispatch.state(agent), **_state(agent, units, len(like.marks)))
    ops = agent.ops
    n = len(ops)
    units: list = list(agent.units.values())
    unit_index = {u.name: i for i, u in enumerate(units)}
    mark_ids: dict[int, int] = {}
    maxu = max([len(op.occupy) for op in ops] + [1])
    maxr = max([len(op.reads) for op in ops] + [1])
    maxw = max([len(op.writes) for op in ops] + [1])
    bound = {op.pc: _kernel(op, kernels_of, constants) for op in ops
             if op.kind in (EXEC, BRANCH) and not op.dynamic}
    nargs = max([8] + [len(k[1].args) for k in bound.values() if k is not None])
    c_occ = I.C_ARGS + nargs
    c_r = c_occ + 2 * maxu
    c_w = c_r + RANGE * maxr
    P = np.zeros((max(n, 1), c_w + RANGE * maxw), dtype=np.int64)
    U = loop_memory(agent, "unified")
    IMM = np.zeros(max(n, 1), dtype=U.dtype)
    longest = 1
    compiled = work = with_kernel = 0
    for op in ops:
        row = P[op.pc]
        row[I.C_KIND] = op.kind
        row[I.C_ISSUE], row[I.C_DEPTH], row[I.C_LAT] = op.issue, op.depth, op.latency
        o = op.operands
        if "target" in o:
            row[I.C_TARGET] = o["target"]
        if "ctr" in o:
            row[I.C_CTR] = o["ctr"]
        if "limit" in o:
            row[I.C_LIMIT] = o["limit"]
        if op.kind in (MARK, ENDMARK):
            row[I.C_MARK] = mark_ids.setdefault(o["id"], len(mark_ids))
        for k, (unit, cycles) in enumerate(op.occupy):
            if unit.name not in unit_index:
                unit_index[unit.name] = len(units)
                units.append(unit)
            row[c_occ + 2 * k] = unit_index[unit.name]
            row[c_occ + 2 * k + 1] = cycles
        row[I.C_NOCC] = len(op.occupy)
        reads, writes = ranges(op)
        for k, r in enumerate(reads):
            row[c_r + RANGE * k: c_r + RANGE * (k + 1)] = r
        for k, w in enumerate(writes):
            row[c_w + RANGE * k: c_w + RANGE * (k + 1)] = w
        row[I.C_NR], row[I.C_NW] = len(op.reads), len(op.writes)
        py = op.kind not in _IN_LOOP or op.dynamic
        work += op.kind in (EXEC, BRANCH) and op.run is op.bound_run
        if not py and op.kind in (EXEC, BRANCH):
            bk = bound.get(op.pc)
            if bk is None:
                py = True
            else:
                code, k = bk
                row[I.C_CODE] = code
                row[I.C_ARGS:I.C_ARGS + len(k.args)] = k.args
                IMM[op.pc] = k.imm
                if code < dispatch.FAMILY_CODES:   # the base family's vectors: scratch T
                    longest = max(longest, *(v for v in k.args[3:5]))
                with_kernel += 1
        row[I.C_PY] = 1 if py else 0
        compiled += 0 if py else 1
    G = np.array([c_occ, c_r, c_w], dtype=np.int64)
    scratch = 4 * longest + 8
    return Program(P=P, G=G, IMM=IMM, K=constants if constants is not None
                   else np.zeros(1, dtype=np.int64), units=units, unit_index=unit_index,
                   marks=list(mark_ids), T=np.zeros(scratch, dtype=U.dtype),
                   B=np.zeros(F_LOOPBUF, dtype=np.int64),
                   TB=np.zeros((_TRACE_BUFFER, I.TR_FIELDS), dtype=np.int64),
                   compiled=compiled, work=work, kernels=with_kernel,
                   FS=dispatch.state(agent),
                   **_state(agent, units, len(mark_ids)))


def _kernel(op, kernels_of, constants):
    """``(the loop's code, Kernel)`` of an op, or None: no kernel (its family has no
    compiled kernels, or the base family none for this format without ``constants``)."""
    family = TABLE[op.mnemonic].family
    f = dispatch.index(family)
    if f is None or (f == 0 and constants is None):
        return None
    k = kernels_of(op)
    if k is None:
        return None
    if not 0 <= k.code < dispatch.FAMILY_CODES:
        from rlaccel.util.errors import SimError
        raise SimError(f"{op.text}: kernel code {k.code} of family '{family}' is outside "
                         f"0..{dispatch.FAMILY_CODES - 1}")
    return dispatch.code(family, k.code), k


def _state(agent, units: list, marks: int) -> dict:
    """The loop's mutable state of a fresh run of ``agent``'s program."""
    nu = max(len(units), 1)
    ST = np.zeros(I.S_FIELDS, dtype=np.int64)
    ST[I.S_LIMIT] = -1
    ST[I.S_TRBUDGET] = -1
    ST[I.S_PENALTY] = agent.timing.get("branch_penalty", 0)
    UF = np.zeros(2 * nu, dtype=np.int64)
    for i, u in enumerate(units):
        UF[i] = u.free
    return dict(ST=ST, PEND=np.zeros((PENDING, PEND_FIELDS), dtype=np.int64),
                CTR=np.zeros(agent.arch.knobs.loop_counters, dtype=np.int64), UF=UF,
                STATS=np.zeros((3, max(len(agent.ops), 1)), dtype=np.int64),
                MK=np.zeros((max(marks, 1), 5), dtype=np.int64))
