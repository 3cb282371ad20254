"""Operand readiness element by element: when each word of a range is produced or used.

An instruction's read or write range may carry a *schedule*: six integers ``(t0, stride,
rstep, coff, per, cstep)`` that give, for the word at ``lo + e``, the cycle (relative to the
instruction's start) at which the instruction uses it (reads) or at which it can be forwarded
from the write-back buffer (writes)::

    r, c = divmod(e, stride)                # row and column of a row-major matrix
    t0 + r * rstep + (max(c - coff, 0) // per) * cstep

(a vector is one row: ``stride`` = :data:`WHOLE`; ``per`` = :data:`WHOLE` makes every word of
a row the same time). A pending result keeps its schedule with ``t0`` made absolute; a
consumer may start at the earliest cycle at which every word it shares with the result is
ready by the time it uses it (:func:`earliest`), so it starts as soon as its first operands
are ready and the later ones arrive in time -- the scheduler's forwarding from the write-back
buffer (seed 001, III-B-1). Without schedules (:data:`NONE`) every word is used at the start
and a result's words are all ready when its last one is: the per-instruction rule.

Both controller loops (:mod:`rlaccel.tlm.controller`, :mod:`.interp`) call these functions, so
the rule exists once.
"""

from __future__ import annotations

from rlaccel.tlm.fast.jit import njit

__all__ = ["WHOLE", "NONE", "AT_END", "SCHED", "RANGE", "word_time", "earliest", "last_time",
           "ranges"]

#: a stride or group larger than any memory: one row, or one time for a whole row
WHOLE = 1 << 40
#: the schedule of a range without one: every word at t0
NONE = (0, WHOLE, 0, 0, WHOLE, 0)
#: the write schedule of a range without one: every word ready with the instruction's last
#: result (``t0`` = -1 stands for that time, known when the instruction retires)
AT_END = (-1, WHOLE, 0, 0, WHOLE, 0)
#: integers per schedule
SCHED = 6
#: integers per range with its schedule: space, lo, hi, then the schedule
RANGE = 3 + SCHED


def ranges(op) -> tuple[tuple, tuple]:
    """An op's read and write ranges with their schedules, ``RANGE`` integers each (the rows
    both loops read)."""
    rs = op.read_sched or (None,) * len(op.reads)
    ws = op.write_sched or (None,) * len(op.writes)
    return (tuple((*r, *(s or NONE)) for r, s in zip(op.reads, rs)),
            tuple((*w, *(s or AT_END)) for w, s in zip(op.writes, ws)))


@njit(nrt=False)
def word_time(e, t0, stride, rstep, coff, per, cstep):
    """The time of word ``e`` (from the range's start) under a schedule."""
    r = e // stride
    c = e - r * stride - coff
    if c < 0:
        c = 0
    return t0 + r * rstep + (c // per) * cstep


@njit(nrt=False)
def _uniform(stride, rstep, per):
    return (stride >= WHOLE or rstep == 0) and per >= WHOLE


@njit(nrt=False, inline=True)
def _pos(e, stride, coff, per):
    """Word ``e``'s row, column, group ``max(c - coff, 0) // per`` and place in its group
    (-1 before ``coff``): the state :func:`_next` steps without dividing."""
    if stride >= WHOLE:                   # one row (no 64-bit division for it)
        r, c = e - e, e
    else:
        r = e // stride
        c = e - r * stride
    d = c - coff
    if d < 0:
        return r, c, 0, -1
    if per >= WHOLE:
        return r, c, 0, d
    g = d // per
    return r, c, g, d - g * per


@njit(nrt=False, inline=True)
def _next(r, c, g, q, stride, coff, per):
    """The state of the next word (:func:`_pos` of ``e + 1``)."""
    c += 1
    if c == stride:
        return _pos((r + 1) * stride, stride, coff, per)
    d = c - coff
    if d < 0:
        return r, c, 0, -1
    if d == 0:
        return r, c, 0, 0
    q += 1
    if q == per:
        return r, c, g + 1, 0
    return r, c, g, q


@njit(nrt=False)
def earliest(plo, phi, pt0, pstride, prstep, pcoff, pper, pcstep,
             clo, chi, ct0, cstride, crstep, ccoff, cper, ccstep):
    """The earliest start of a consumer whose range ``[clo, chi)`` (relative schedule) overlaps
    a pending result ``[plo, phi)`` (absolute schedule): the largest ready - use over the
    words both share (:func:`word_time` of each, stepped word by word without dividing;
    ``tests/tlm/fast/test_hazards.py`` checks it against :func:`word_time`)."""
    lo = plo if plo > clo else clo
    hi = phi if phi < chi else chi
    if _uniform(pstride, prstep, pper) and _uniform(cstride, crstep, cper):
        return pt0 - ct0
    best = -WHOLE
    if lo >= hi:
        return best
    rp, cp, gp, qp = _pos(lo - plo, pstride, pcoff, pper)
    rc, cc, gc, qc = _pos(lo - clo, cstride, ccoff, cper)
    for _ in range(lo, hi):
        v = (pt0 + rp * prstep + gp * pcstep) - (ct0 + rc * crstep + gc * ccstep)
        if v > best:
            best = v
        rp, cp, gp, qp = _next(rp, cp, gp, qp, pstride, pcoff, pper)
        rc, cc, gc, qc = _next(rc, cc, gc, qc, cstride, ccoff, cper)
    return best


@njit(nrt=False)
def last_time(n, t0, stride, rstep, coff, per, cstep):
    """The latest time of the ``n`` words of a range (when a result is entirely ready)."""
    if _uniform(stride, rstep, per):
        return t0
    best = t0
    r, c, g, q = _pos(0, stride, coff, per)
    for _ in range(n):
        v = t0 + r * rstep + g * cstep
        if v > best:
            best = v
        r, c, g, q = _next(r, c, g, q, stride, coff, per)
    return best
