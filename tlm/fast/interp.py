"""The compiled inner loop: the controller of :mod:`rlaccel.tlm.controller`, instruction by
instruction the same rules, over the tables of :mod:`.program`.

:func:`interpret` runs an agent's pre-decoded program from ``ST[S_PC]`` and returns to Python
only when it must (the reason it returns): an instruction without a compiled kernel, a host
exchange, a synchronisation, ``cc.halt`` or a fault (``R_PY``: ``ST[S_START]`` holds the
cycle it may start at, hazards and units considered), a kernel whose reference semantics
would refuse the operands (``R_REF``), a quantum boundary (``R_QUANTUM``), a full trace buffer
(``R_TRACE``) or the instruction limit (``R_LIMIT``). Python carries out such an instruction
and calls :func:`retire`, the common tail every instruction goes through (pending results,
per-PC counts, trace record, next PC), so that the controller's rules exist once here.

Everything is integer bookkeeping on arrays; the arithmetic is the families' kernels
(:func:`.dispatch.run`, with the agent's family states ``FS``; conditional branches are the
base family's, :func:`.dispatch.branch`).
"""

from __future__ import annotations

import numpy as np


from rlaccel.tlm.loader import BRANCH, ENDMARK, EXEC, JMP, LOOP, LSET, MARK

from rlaccel.tlm.fast.hazards import RANGE, WHOLE, earliest, last_time
from rlaccel.tlm.fast.dispatch import branch, run
from rlaccel.tlm.fast.jit import njit

__all__ = ["interpret", "retire", "start_of", "S_PC", "S_T", "S_EXEC", "S_NPEND", "S_SAT",
           "S_START", "S_BOUND", "S_LIMIT", "S_NTR", "S_TRPROD", "S_TRBUDGET", "S_PENALTY",
           "S_FIELDS", "R_PY", "R_REF", "R_QUANTUM", "R_TRACE", "R_LIMIT",
           "C_KIND", "C_CODE", "C_ISSUE", "C_DEPTH", "C_LAT", "C_TARGET", "C_CTR", "C_LIMIT",
           "C_MARK", "C_PY", "C_NOCC", "C_NR", "C_NW", "C_ARGS", "G_OCC", "G_R", "G_W",
           "TR_FIELDS"]

# state words
(S_PC, S_T, S_EXEC, S_NPEND, S_SAT, S_START, S_BOUND, S_LIMIT, S_NTR, S_TRPROD, S_TRBUDGET,
 S_PENALTY, S_MARKSEQ) = range(13)
S_FIELDS = 13
# reasons to return
R_PY, R_REF, R_QUANTUM, R_TRACE, R_LIMIT = 1, 2, 3, 4, 5
# table columns
(C_KIND, C_CODE, C_ISSUE, C_DEPTH, C_LAT, C_TARGET, C_CTR, C_LIMIT, C_MARK, C_PY, C_NOCC,
 C_NR, C_NW) = range(13)
C_ARGS = 13
# geometry words: where the occupancy pairs, read triples and write triples start
G_OCC, G_R, G_W = range(3)
# trace entry: pc, start, busy, stall, units shown (latency > busy)
TR_FIELDS = 5



@njit(nrt=False)
def start_of(P, G, ST, PEND, UF, pc):
    """The cycle instruction ``pc`` may start at: after the pending results it reads or
    overwrites, word by word where schedules say when (:mod:`.hazards`), and after every unit
    it occupies is free (the controller's rule). Results ready by the current cycle are
    dropped on the way: no later instruction can wait for them (the controller drops them
    too, less often; either way nothing changes)."""
    t = ST[S_T]
    start = t
    npend = ST[S_NPEND]
    if npend:
        nr, nw = P[pc, C_NR], P[pc, C_NW]
        cr, cw = G[G_R], G[G_W]
        nf = PEND.shape[1]
        k = 0
        for q in range(npend):
            space, lo, hi, ready = PEND[q, 0], PEND[q, 1], PEND[q, 2], PEND[q, 3]
            if ready <= t:
                continue
            if k != q:
                for f in range(nf):
                    PEND[k, f] = PEND[q, f]
            k += 1
            if ready > start:
                for r in range(nr):
                    b = cr + RANGE * r
                    if P[pc, b] == space and P[pc, b + 1] < hi and lo < P[pc, b + 2]:
                        e = earliest(lo, hi, PEND[k - 1, 4], PEND[k - 1, 5], PEND[k - 1, 6],
                                     PEND[k - 1, 7], PEND[k - 1, 8], PEND[k - 1, 9],
                                     P[pc, b + 1], P[pc, b + 2], P[pc, b + 3], P[pc, b + 4],
                                     P[pc, b + 5], P[pc, b + 6], P[pc, b + 7], P[pc, b + 8])
                        if e > start:
                            start = e
                for r in range(nw):
                    b = cw + RANGE * r
                    if P[pc, b] == space and P[pc, b + 1] < hi and lo < P[pc, b + 2]:
                        t0 = P[pc, b + 3]
                        e = earliest(lo, hi, PEND[k - 1, 4], PEND[k - 1, 5], PEND[k - 1, 6],
                                     PEND[k - 1, 7], PEND[k - 1, 8], PEND[k - 1, 9],
                                     P[pc, b + 1], P[pc, b + 2], t0 if t0 >= 0 else 0,
                                     P[pc, b + 4], P[pc, b + 5], P[pc, b + 6], P[pc, b + 7],
                                     P[pc, b + 8])
                        if e > start:
                            start = e
        ST[S_NPEND] = k
    co = G[G_OCC]
    for u in range(P[pc, C_NOCC]):
        free = UF[P[pc, co + 2 * u]]
        if free > start:
            start = free
    return start


@njit(nrt=False)
def retire(P, G, ST, PEND, STATS, MK, TB, pc, start, busy, latency, depth, nxt):
    """The tail of every instruction: its results pending until ready, its cycles and stall
    counted at its PC, its trace entry, the next PC; returns R_LIMIT, R_TRACE or 0."""
    t = ST[S_T]
    nw = P[pc, C_NW]
    if nw:
        ready = start + (busy if busy > latency else latency) + depth - 2
        cw = G[G_W]
        k = ST[S_NPEND]
        nf = PEND.shape[1]
        if k + nw > PEND.shape[0]:        # full: drop what is ready (changes nothing)
            j = 0
            for q in range(k):
                if PEND[q, 3] > start:
                    for f in range(nf):
                        PEND[j, f] = PEND[q, f]
                    j += 1
            k = j
        for r in range(nw):
            b = cw + RANGE * r
            lo, hi, t0 = P[pc, b + 1], P[pc, b + 2], P[pc, b + 3]
            PEND[k, 0] = P[pc, b]
            PEND[k, 1] = lo
            PEND[k, 2] = hi
            if t0 < 0:                    # no schedule: every word with the last
                PEND[k, 3] = ready
                PEND[k, 4] = ready
                PEND[k, 5] = WHOLE
                PEND[k, 6] = 0
                PEND[k, 7] = 0
                PEND[k, 8] = WHOLE
                PEND[k, 9] = 0
            else:
                t0 += start
                PEND[k, 4] = t0
                for f in range(5, 10):
                    PEND[k, f] = P[pc, b + f - 1]
                PEND[k, 3] = last_time(hi - lo, t0, PEND[k, 5], PEND[k, 6], PEND[k, 7],
                                       PEND[k, 8], PEND[k, 9])
            k += 1
        ST[S_NPEND] = k
    new_t = start + busy
    STATS[0, pc] += 1
    STATS[1, pc] += new_t - t
    STATS[2, pc] += start - t
    reason = 0
    if ST[S_TRBUDGET] >= 0:
        shown = 1 if latency > busy else 0
        records = 1 + (1 if start > t else 0)
        if shown:
            co = G[G_OCC]
            for u in range(P[pc, C_NOCC]):
                if P[pc, co + 2 * u + 1] > busy:
                    records += 1
        if ST[S_TRPROD] < ST[S_TRBUDGET]:
            n = ST[S_NTR]
            TB[n, 0] = pc
            TB[n, 1] = start
            TB[n, 2] = busy
            TB[n, 3] = start - t
            TB[n, 4] = shown
            ST[S_NTR] = n + 1
            if n + 1 == TB.shape[0]:
                reason = R_TRACE
        ST[S_TRPROD] += records
    ST[S_T] = new_t
    ST[S_PC] = nxt
    ST[S_EXEC] += 1
    if ST[S_LIMIT] >= 0 and ST[S_EXEC] >= ST[S_LIMIT]:
        return R_LIMIT
    return reason


@njit(nrt=False)
def mark(MK, ST, m, opens, start):
    """A profiling mark ``m`` at ``start``: numbered on its first use; ``opens`` starts an
    interval, else the open one is closed (total cycles in column 0, count in 1)."""
    if MK[m, 3] == 0:
        MK[m, 3] = 1
        MK[m, 4] = ST[S_MARKSEQ]
        ST[S_MARKSEQ] += 1
        MK[m, 2] = -1
    if opens:
        MK[m, 2] = start
    elif MK[m, 2] >= 0:
        MK[m, 0] += start - MK[m, 2]
        MK[m, 1] += 1
        MK[m, 2] = -1


@njit(nrt=False)
def interpret(P, G, ST, PEND, CTR, UF, STATS, MK, TB, U, S, K, T, B, IMM, FS):
    """Run from ``ST[S_PC]`` until Python is needed; returns the reason (module doc)."""
    n = P.shape[0]
    penalty = ST[S_PENALTY]
    ca = C_ARGS
    co = G[G_OCC]
    while True:
        pc = ST[S_PC]
        if pc < 0 or pc >= n:
            ST[S_START] = ST[S_T]
            return R_PY
        start = start_of(P, G, ST, PEND, UF, pc)
        if P[pc, C_PY]:
            ST[S_START] = start
            return R_PY
        kind = P[pc, C_KIND]
        busy = P[pc, C_ISSUE]
        nxt = pc + 1
        if kind == EXEC:
            c = run(P[pc, C_CODE], P, pc, ca, U, S, K, T, B, IMM[pc], FS)
            if c < 0:
                ST[S_START] = start
                return R_REF
            ST[S_SAT] += c
            for u in range(P[pc, C_NOCC]):
                UF[P[pc, co + 2 * u]] = start + P[pc, co + 2 * u + 1]
        elif kind == BRANCH:
            taken, c = branch(P[pc, C_CODE], P, pc, ca, U, K)
            if c < 0:
                ST[S_START] = start
                return R_REF
            ST[S_SAT] += c
            if taken:
                nxt = P[pc, C_TARGET]
                busy += penalty
        elif kind == LOOP:
            k = P[pc, C_CTR]
            CTR[k] += 1
            if CTR[k] < P[pc, C_LIMIT]:
                nxt = P[pc, C_TARGET]
                busy += penalty
        elif kind == LSET:
            CTR[P[pc, C_CTR]] = 0
        elif kind == JMP:
            nxt = P[pc, C_TARGET]
            busy += penalty
        elif kind == MARK or kind == ENDMARK:
            mark(MK, ST, P[pc, C_MARK], kind == MARK, start)
        reason = retire(P, G, ST, PEND, STATS, MK, TB, pc, start, busy, P[pc, C_LAT],
                        P[pc, C_DEPTH], nxt)
        if reason:
            return reason
        if ST[S_T] >= ST[S_BOUND]:
            return R_QUANTUM
