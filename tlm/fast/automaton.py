"""The timing automaton of a batch: the controller's timing rules for each (timing state,
instruction) computed once and then looked up, for every member and every later round.

An agent's timing -- when an instruction may start (:func:`~.interp.start_of`: pending
results it reads or overwrites, units it occupies) and what it leaves pending
(:func:`~.interp.retire`) -- depends only on its timing state *relative to its own cycle*:
the pending results and unit times after that cycle. Results ready and units free by then
no longer matter: no later instruction starts earlier than that cycle. With those set
aside, the states a program runs through are few (the same loop bodies again and again),
so the automaton interns each such *normalized* state once and records, per state and
instruction, the start delay and the state that follows (one for each cost: a branch taken
adds the branch penalty). Computing the rules once per state and instruction instead of
once per instruction executed is what makes the bookkeeping of a batch member a table
look-up (:func:`run_round`); the rules themselves stay those of :mod:`.interp`.

A member's own rows (cycle, pending results, unit times) are written back whenever it
stops -- as its single run holds them, but for results and unit times already past, which
no rule reads. A state too large to intern (more than :data:`MAX_PENDING` pending results),
a full automaton or another branch penalty than the automaton's run the member on its own
rows through :func:`~.interp.interpret` instead, with the same results.
``tests/tlm/fast/test_automaton.py`` checks both paths against single runs.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


from rlaccel.tlm.loader import BRANCH, ENDMARK, EXEC, HOST, JMP, LOOP, LSET, MARK
from rlaccel.tlm.fast import interp as I
from rlaccel.tlm.fast.dispatch import branch, run
from rlaccel.tlm.fast.jit import njit

__all__ = ["Automaton", "Tables", "run_round", "MAX_PENDING"]

#: pending results a normalized state may hold (more: the member runs on its own rows)
MAX_PENDING = 32
#: states an automaton holds at most
STATES = 1 << 12
#: words its transition table may take (a long program gets fewer states, at least 16)
TABLE_WORDS = 1 << 22

# automaton scalars in A: states used, penalty, hash mask, misses (transitions computed)
_A_N, _A_PENALTY, _A_MASK, _A_MISSES = range(4)
# transition words: start delay, next state (not taken), next state (taken)
_T_START, _T_NEXT = 0, 1


@njit(nrt=False)
def _normalize(t, npend, PEND, UF, X):
    """The state (cycle ``t``, pending rows, unit times) relative to ``t``, without what can
    no longer matter, into ``X`` (count, unit delays, rows); False if it has too many
    rows."""
    nu = UF.shape[0]
    nf = PEND.shape[1]
    for u in range(nu):
        d = UF[u] - t
        X[1 + u] = d if d > 0 else 0
    k = 0
    base = 1 + nu
    for q in range(npend):
        if PEND[q, 3] <= t:
            continue
        if k == MAX_PENDING:
            return False
        o = base + k * nf
        for f in range(nf):
            X[o + f] = PEND[q, f]
        X[o + 3] -= t
        X[o + 4] -= t
        k += 1
    X[0] = k
    return True


@njit(nrt=False)
def _intern(X, SS, HT, A, nu, nf):
    """The state id of normalized state ``X`` (added if new), or -1 when the automaton is
    full."""
    w = 1 + nu + X[0] * nf
    h = np.uint64(1469598103934665603)
    for i in range(w):
        h = (h ^ np.uint64(X[i])) * np.uint64(1099511628211)
    mask = A[_A_MASK]
    j = np.int64(h & np.uint64(mask))
    while True:
        s = HT[j]
        if s < 0:
            break
        if SS[s, 0] == X[0]:
            same = True
            for i in range(w):
                if SS[s, i] != X[i]:
                    same = False
                    break
            if same:
                return s
        j = (j + 1) & mask
    s = A[_A_N]
    if s >= SS.shape[0]:
        return -1
    for i in range(w):
        SS[s, i] = X[i]
    HT[j] = s
    A[_A_N] = s + 1
    return s


@njit(nrt=False)
def _load(s, SS, XST, XPEND, XUF, nu, nf):
    """State ``s`` at cycle 0 into scratch rows."""
    k = SS[s, 0]
    XST[I.S_T] = 0
    XST[I.S_NPEND] = k
    for u in range(nu):
        XUF[u] = SS[s, 1 + u]
    base = 1 + nu
    for q in range(k):
        for f in range(nf):
            XPEND[q, f] = SS[s, base + q * nf + f]


@njit(nrt=False)
def _materialize(s, t, SS, ST, PEND, UF):
    """State ``s`` at cycle ``t`` into a member's own rows."""
    nu = UF.shape[0]
    nf = PEND.shape[1]
    k = SS[s, 0]
    ST[I.S_T] = t
    ST[I.S_NPEND] = k
    for u in range(nu):
        UF[u] = SS[s, 1 + u] + t
    base = 1 + nu
    for q in range(k):
        for f in range(nf):
            PEND[q, f] = SS[s, base + q * nf + f]
        PEND[q, 3] += t
        PEND[q, 4] += t


@njit(nrt=False)
def _start(s, pc, P, G, SS, TR, XST, XPEND, XUF):
    """The start delay of instruction ``pc`` in state ``s`` (computed on a miss)."""
    d = TR[s, pc, _T_START]
    if d < 0:
        _load(s, SS, XST, XPEND, XUF, XUF.shape[0], XPEND.shape[1])
        d = I.start_of(P, G, XST, XPEND, XUF, pc)
        TR[s, pc, _T_START] = d
    return d


@njit(nrt=False)
def _next(s, pc, taken, busy, P, G, SS, TR, HT, A, XST, XPEND, XUF, X, DSTATS, MK0, TB):
    """The state after instruction ``pc`` in state ``s`` at cost ``busy`` (computed on a
    miss: the start, the units it occupies, :func:`~.interp.retire`, normalized and
    interned); -1 if it cannot be interned."""
    ns = TR[s, pc, _T_NEXT + taken]
    if ns >= 0:
        return ns
    nu, nf = XUF.shape[0], XPEND.shape[1]
    _load(s, SS, XST, XPEND, XUF, nu, nf)
    start = I.start_of(P, G, XST, XPEND, XUF, pc)
    if P[pc, I.C_KIND] == EXEC:
        co = G[I.G_OCC]
        for u in range(P[pc, I.C_NOCC]):
            XUF[P[pc, co + 2 * u]] = start + P[pc, co + 2 * u + 1]
    I.retire(P, G, XST, XPEND, DSTATS, MK0, TB, pc, start, busy, P[pc, I.C_LAT],
             P[pc, I.C_DEPTH], pc + 1)
    A[_A_MISSES] += 1
    if not _normalize(XST[I.S_T], XST[I.S_NPEND], XPEND, XUF, X):
        return -1
    ns = _intern(X, SS, HT, A, nu, nf)
    if ns >= 0:
        TR[s, pc, _T_NEXT + taken] = ns
    return ns


@njit(nrt=False)
def member_round(L, auto, b, U, S, FS):
    """:func:`~.interp.interpret` for member ``b`` of a batch's tables ``L`` (its own rows,
    its memories ``U`` and ``S``, its family states ``FS``), its timing through the automaton's tables ``auto``;
    returns the reason it stopped."""
    P, G, TB, K, T, B, IMM = L.P, L.G, L.TB, L.K, L.T, L.B, L.IMM
    ST, PEND, CTR, UF, STATS, MK = L.ST[b], L.PEND[b], L.CTR[b], L.UF[b], L.STATS[b], L.MK[b]
    SS, TR, HT, A, XST, XPEND, XUF, X, DSTATS = auto
    nu, nf = UF.shape[0], PEND.shape[1]
    if ST[I.S_PENALTY] != A[_A_PENALTY] or not _normalize(ST[I.S_T], ST[I.S_NPEND], PEND,
                                                          UF, X):
        return I.interpret(P, G, ST, PEND, CTR, UF, STATS, MK, TB, U, S, K, T, B, IMM, FS)
    q = _intern(X, SS, HT, A, nu, nf)
    if q < 0:
        return I.interpret(P, G, ST, PEND, CTR, UF, STATS, MK, TB, U, S, K, T, B, IMM, FS)
    n = P.shape[0]
    penalty = ST[I.S_PENALTY]
    ca = I.C_ARGS
    t = ST[I.S_T]
    limit = ST[I.S_LIMIT]
    while True:
        pc = ST[I.S_PC]
        if pc < 0 or pc >= n:
            _materialize(q, t, SS, ST, PEND, UF)
            ST[I.S_START] = t
            return I.R_PY
        d = TR[q, pc, _T_START]
        if d < 0:
            d = _start(q, pc, P, G, SS, TR, XST, XPEND, XUF)
        start = t + d
        if P[pc, I.C_PY]:
            _materialize(q, t, SS, ST, PEND, UF)
            ST[I.S_START] = start
            return I.R_PY
        kind = P[pc, I.C_KIND]
        taken = 0
        nxt = pc + 1
        if kind == EXEC:
            c = run(P[pc, I.C_CODE], P, pc, ca, U, S, K, T, B, IMM[pc], FS)
            if c < 0:
                _materialize(q, t, SS, ST, PEND, UF)
                ST[I.S_START] = start
                return I.R_REF
            ST[I.S_SAT] += c
        elif kind == BRANCH:
            tk, c = branch(P[pc, I.C_CODE], P, pc, ca, U, K)
            if c < 0:
                _materialize(q, t, SS, ST, PEND, UF)
                ST[I.S_START] = start
                return I.R_REF
            ST[I.S_SAT] += c
            if tk:
                nxt = P[pc, I.C_TARGET]
                taken = 1
        elif kind == LOOP:
            k = P[pc, I.C_CTR]
            CTR[k] += 1
            if CTR[k] < P[pc, I.C_LIMIT]:
                nxt = P[pc, I.C_TARGET]
                taken = 1
        elif kind == LSET:
            CTR[P[pc, I.C_CTR]] = 0
        elif kind == JMP:
            nxt = P[pc, I.C_TARGET]
            taken = 1
        elif kind == MARK or kind == ENDMARK:
            I.mark(MK, ST, P[pc, I.C_MARK], kind == MARK, start)
        busy = P[pc, I.C_ISSUE] + (penalty if taken else 0)
        ns = TR[q, pc, _T_NEXT + taken]
        if ns < 0:
            ns = _next(q, pc, taken, busy, P, G, SS, TR, HT, A, XST, XPEND, XUF, X, DSTATS,
                       MK, TB)
        if ns < 0:                       # not internable: on with the member's own rows
            _materialize(q, t, SS, ST, PEND, UF)
            I.start_of(P, G, ST, PEND, UF, pc)
            if kind == EXEC:
                co = G[I.G_OCC]
                for u in range(P[pc, I.C_NOCC]):
                    UF[P[pc, co + 2 * u]] = start + P[pc, co + 2 * u + 1]
            r = I.retire(P, G, ST, PEND, STATS, MK, TB, pc, start, busy, P[pc, I.C_LAT],
                         P[pc, I.C_DEPTH], nxt)
            if r == I.R_LIMIT:
                return r
            return I.interpret(P, G, ST, PEND, CTR, UF, STATS, MK, TB, U, S, K, T, B, IMM, FS)
        STATS[0, pc] += 1
        STATS[1, pc] += start + busy - t
        STATS[2, pc] += start - t
        t = start + busy
        q = ns
        ST[I.S_PC] = nxt
        ST[I.S_EXEC] += 1
        if limit >= 0 and ST[I.S_EXEC] >= limit:
            _materialize(q, t, SS, ST, PEND, UF)
            return I.R_LIMIT


@njit
def run_round(s, mem, members):
    """:func:`member_round` for each member index in ``members`` (rows of batch state ``s``,
    a :class:`rlaccel.tlm.fast.batch.State`, their memories in ``mem``, a
    :class:`~rlaccel.tlm.fast.batch.Memories`); the reasons into ``s.reasons``, the members
    waiting at a ``cc.host`` into ``s.at_host`` and the positions in ``members`` of those that
    need anything else into ``s.other``. ``s.out``: how many at a host, how many others, the
    saturations counted, the earliest member's cycle."""
    L, auto = s.loop, s.auto
    P, ST = L.P, L.ST
    reasons, at_host, other, out = s.reasons, s.at_host, s.other, s.out
    n = P.shape[0]
    nh = 0
    no = 0
    sats = 0
    t_min = np.int64(1) << 62
    for i in range(len(members)):
        b = members[i]
        r = member_round(L, auto, b, mem.U[b], mem.S[b], mem.FS[b])
        reasons[i] = r
        sats += ST[b, I.S_SAT]
        pc = ST[b, I.S_PC]
        if r == I.R_PY and pc >= 0 and pc < n and P[pc, I.C_KIND] == HOST:
            at_host[nh] = b
            nh += 1
        else:
            other[no] = i
            no += 1
        if ST[b, I.S_T] < t_min:
            t_min = ST[b, I.S_T]
    out[0] = nh
    out[1] = no
    out[2] = sats
    out[3] = t_min


class Tables(NamedTuple):
    """The automaton's tables, as the compiled functions read them: the interned states
    ``SS``, the transitions ``TR`` (start delay, next state not taken, taken), the hash
    table ``HT``, the scalars ``A`` (states used, penalty, hash mask, misses), scratch rows
    ``XST``, ``XPEND``, ``XUF``, ``X`` and the per-PC counts ``DSTATS`` of the computations
    on a miss (thrown away)."""

    SS: np.ndarray
    TR: np.ndarray
    HT: np.ndarray
    A: np.ndarray
    XST: np.ndarray
    XPEND: np.ndarray
    XUF: np.ndarray
    X: np.ndarray
    DSTATS: np.ndarray


class Automaton:
    """The automaton's tables for a program of ``npc`` instructions whose agents keep
    ``units`` unit times and pending rows of ``fields`` words, with branch penalty
    ``penalty`` (members with another run on their own rows); ``states``: how many it holds
    (default: :data:`STATES`, fewer for a long program so that the transition table stays
    within :data:`TABLE_WORDS`)."""

    def __init__(self, npc: int, units: int, fields: int, penalty: int,
                 states: int | None = None):
        if states is None:
            states = min(STATES, max(16, TABLE_WORDS // (3 * max(npc, 1))))
        width = 1 + units + MAX_PENDING * fields
        size = 1 << (2 * states - 1).bit_length()
        xst = np.zeros(I.S_FIELDS, dtype=np.int64)
        xst[I.S_LIMIT] = -1
        xst[I.S_TRBUDGET] = -1
        self.tables = Tables(SS=np.zeros((states, width), dtype=np.int64),
                             TR=np.full((states, max(npc, 1), 3), -1, dtype=np.int64),
                             HT=np.full(size, -1, dtype=np.int64),
                             A=np.array([0, penalty, size - 1, 0], dtype=np.int64),
                             XST=xst,
                             XPEND=np.zeros((MAX_PENDING + 64, fields), dtype=np.int64),
                             XUF=np.zeros(units, dtype=np.int64),
                             X=np.zeros(width, dtype=np.int64),
                             DSTATS=np.zeros((3, max(npc, 1)), dtype=np.int64))
        (self.SS, self.TR, self.HT, self.A, self.XST, self.XPEND, self.XUF, self.X,
         self.DSTATS) = self.tables

    @property
    def states(self) -> int:
        """States interned so far."""
        return int(self.tables.A[_A_N])

    @property
    def misses(self) -> int:
        """Transitions computed so far (each once)."""
        return int(self.tables.A[_A_MISSES])
