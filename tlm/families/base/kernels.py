"""Fused kernels of the base family: each instruction's whole arithmetic in one compiled
function on the memories, bound once at load.

A model's ``kernel`` piece (:func:`kernel`) turns a :class:`~rlaccel.tlm.model.Binding` into
a :class:`~rlaccel.tlm.model.Kernel`: a code and eight integer operands (plus an immediate).
:func:`run` executes a code on the unified memory ``U`` and the synapse memory ``S``: one pass
per instruction, each product rounded once and each result saturated once, exactly as
:mod:`.semantics` does it through :mod:`rlaccel.isa.dtypes` (fixed point:
:mod:`rlaccel.tlm.fast.fixedpoint`; float64: :mod:`rlaccel.tlm.fast.floatpoint`).
:func:`branch` decides a conditional branch on plain words. Both return the saturations they
counted, or -1 when the reference semantics would refuse the operands (the controller then
runs the reference semantics, which raises the error).

Kernels exist for fixed-point formats (``qM.N``) and float64; for other formats
:func:`kernel` returns None and the instruction runs its reference semantics.
``tests/tlm/families/base/test_kernels.py`` checks every kernel against the reference
semantics on random and saturating operands.
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes import FixedType, Float64Type
from rlaccel.isa.immediate import raw_from_imm

from rlaccel.tlm.fast import fixedpoint as fx
from rlaccel.tlm.fast import floatpoint as fp
from rlaccel.tlm.fast.jit import HAVE_NUMBA, njit
from rlaccel.tlm.model import Binding, Kernel
from rlaccel.tlm.families.base.semantics import BRANCHES, E_MERGED, MATRIX, SCALAR

__all__ = ["kernel", "constants", "run", "branch", "CODES", "N_ARGS"]

N_ARGS = 8
#: kernel code of every mnemonic that has one
CODES = {"ff": 1, "bp": 2, "bp_wu": 3, "wu": 4, "bp.vu": 2, "bp_wu.vu": 3, "vu.init": 6,
         "vu.step": 7, "vu.commit": 8, "ff.mov": 9, "sca.li": 10, "sca.mov": 11, "sca.sqh": 12,
         "sca.add": 13,
         "sca.sub": 14, "sca.mul": 15, "sca.max": 16, "sca.min": 17, "sca.cmp": 18,
         "sca.mac": 19, "sca.td": 20, "cc.bnz": 30, "cc.bz": 31, "cc.blt": 32, "cc.bge": 33,
         "cc.bsqlt": 34}
assert set(CODES) == MATRIX | SCALAR | BRANCHES

# family constants before the format's: q(0.5), q(1.0), q(0.0), q(-1.0)
_HALF, _ONE, _ZERO, _MINUS = range(4)
_EXTRA = 4


def supported(dt) -> bool:
    """Whether kernels exist for a number format."""
    return isinstance(dt, (FixedType, Float64Type))


def constants(dt) -> np.ndarray | None:
    """The constants array the kernels of format ``dt`` read (None: no kernels)."""
    if isinstance(dt, FixedType):
        k = fx.constants(dt, _EXTRA)
        for i, v in ((_HALF, 0.5), (_ONE, 1.0), (_ZERO, 0.0), (_MINUS, -1.0)):
            k[i] = int(dt.quantize(v))
        return k
    if isinstance(dt, Float64Type):
        return fp.constants(_EXTRA)
    return None


def kernel(b: Binding) -> Kernel | None:
    """The kernel piece of every base-family model with arithmetic."""
    if not supported(b.dt):
        return None
    o, mn = b.ops, b.mnemonic
    if mn == "ff.mov":
        args = (o["src"], 0, o["dst"], 1, o["cols"], 0, 0, 0)
    elif mn in MATRIX:                    # the last operand: E merged (bp.vu, bp_wu.vu)
        args = (o["src"] if "src" in o else 0, o["syn"], o["dst"] if "dst" in o else 0,
                o["rows"], o["cols"], o.get("off", 0), o.get("act", 0),
                1 if mn in E_MERGED else 0)
    elif mn in SCALAR:
        args = (o["dst"], *(o.get(k, 0) for k in "abcd"), 0, 0, 0)
    else:
        args = (o["a"], o.get("b", 0), 0, 0, 0, 0, 0, 0)
    imm = raw_from_imm(b.dt, o["imm"]) if mn == "sca.li" else 0
    return Kernel(CODES[mn], args, imm)


# ------------------------------------------------------------------------ both formats
@njit(nrt=False, inline=True)
def _mov(A, i, c0, U, T):
    """ff.mov: the words through the scratch (the datapath's pass)."""
    src, dst, n = A[i, c0], A[i, c0 + 2], A[i, c0 + 4]
    for j in range(n):
        T[j] = U[src + j]
    for j in range(n):
        U[dst + j] = T[j]


@njit(nrt=False, inline=True)
def _matrix(A, i, c0):
    """A matrix instruction's operands: src, syn (W's row 0 when E is merged before it), dst,
    rows, cols, off, act, the window's width n, merged, and W's first word w0."""
    src, syn, dst = A[i, c0], A[i, c0 + 1], A[i, c0 + 2]
    rows, cols, off, act = A[i, c0 + 3], A[i, c0 + 4], A[i, c0 + 5], A[i, c0 + 6]
    n = cols - off
    merged = A[i, c0 + 7]                          # E of the layer below at syn, W after it
    if merged:
        syn += n
    return src, syn, dst, rows, cols, off, act, n, merged, syn + off


# ------------------------------------------------------------------------ fixed point
@njit(nrt=False, inline=True)
def _fixed_wu(S, w0, cols, rows, n, U, src, X, xb, K, o, lo_, hi_):
    """The weight update W[i, j] -= src[i] * x[j] of the rows x n window at ``w0`` (x at
    ``X[xb]``), each product rounded and each result saturated once; the saturations."""
    c = 0
    for i in range(rows):
        g = U[src + i]
        for j in range(n):
            p, c1 = fx.mul(g, X[xb + j], K, o)
            w, c2 = fx.sat(S[w0 + i * cols + j] - p, lo_, hi_)
            S[w0 + i * cols + j] = w
            c += c1 + c2
    return c


@njit(nrt=False, inline=True)
def _fixed_matrix(code, A, i, c0, U, S, K, T):
    """The matrix instructions (codes 1 to 9) of fixed point."""
    if code == 9:                                             # ff.mov
        _mov(A, i, c0, U, T)
        return 0
    src, syn, dst, rows, cols, off, act, n, merged, w0 = _matrix(A, i, c0)
    o = _EXTRA
    lo_, hi_ = K[o + fx.K_MIN], K[o + fx.K_MAX]
    L = T.shape[0] // 4
    if code == 1:                                             # ff
        c = fx.dot_rows(S, w0, cols, 1, rows, n, U, src, T, K, o)
        if c < 0:
            return -1
        return c + fx.activate(act, T, 0, U, dst, rows, K, o)
    if code == 2 or code == 3:                                # bp, bp_wu
        for j in range(n):
            T[L + j] = U[dst + j]
        c = fx.dot_rows(S, w0, 1, cols, n, rows, U, src, T, K, o)
        if c < 0:
            return -1
        if code == 3:
            c += _fixed_wu(S, w0, cols, rows, n, U, src, T, L, K, o, lo_, hi_)
        for j in range(n):
            if act == 0:
                U[dst + j] = T[j]
            else:
                d, c1 = fx.derivative(act, T[L + j], K, o)
                v, c2 = fx.mul(d, T[j], K, o)
                U[dst + j] = v
                c += c1 + c2
        if merged:                                            # eq. 23: E -= eps
            for j in range(n):
                v, c1 = fx.sat(S[syn - n + j] - U[dst + j], lo_, hi_)
                S[syn - n + j] = v
                c += c1
        return c
    if code == 4:                                             # wu
        return _fixed_wu(S, w0, cols, rows, n, U, src, U, dst, K, o, lo_, hi_)
    lam = syn + rows * cols
    o0 = lam + 1
    e = o0 + rows
    if off != 0:                           # the reference refuses a window here
        return -1
    if code == 6:                                             # vu.init
        c = fx.dot_rows(S, syn, cols, 1, rows, cols, U, src, T, K, o)
        if c < 0:
            return -1
        c1 = fx.dot_rows(U, src, 0, 1, 1, cols, U, src, T[L:], K, o)
        if c1 < 0:
            return -1
        for i in range(rows):
            S[o0 + i] = T[i]
            S[e + i] = 0
        S[lam] = T[L]
        return c + c1 + fx.activate(act, S, o0, U, dst, rows, K, o)
    if code == 7:                                             # vu.step
        c = 0
        lv = S[lam]
        for i in range(rows):
            p, c1 = fx.mul(S[e + i], lv, K, o)
            T[i], c2 = fx.sat(S[o0 + i] + p, lo_, hi_)
            c += c1 + c2
        return c + fx.activate(act, T, 0, U, dst, rows, K, o)
    c = 0                                                     # vu.commit
    for i in range(rows):
        g = S[e + i]
        for j in range(cols):
            p, c1 = fx.mul(g, U[src + j], K, o)
            w, c2 = fx.sat(S[syn + i * cols + j] + p, lo_, hi_)
            S[syn + i * cols + j] = w
            c += c1 + c2
    return c


@njit(nrt=False)
def _fixed(code, A, i, c0, U, S, K, T, imm):
    """Kernel ``code`` in fixed point: the matrix instructions through :func:`_fixed_matrix`,
    the scalar ones (codes 10 to 20) here."""
    o = _EXTRA
    lo_, hi_ = K[o + fx.K_MIN], K[o + fx.K_MAX]
    if code <= 9:
        return _fixed_matrix(code, A, i, c0, U, S, K, T)
    d, a, b, cc, dd = A[i, c0], A[i, c0 + 1], A[i, c0 + 2], A[i, c0 + 3], A[i, c0 + 4]
    if code == 10:                                            # sca.li
        U[d] = imm
        return 0
    if code == 11:                                            # sca.mov
        U[d] = U[a]
        return 0
    if code == 12:                                            # sca.sqh
        t, c1 = fx.mul(U[a], U[a], K, o)
        r, c2 = fx.mul(t, K[_HALF], K, o)
        U[d] = r
        return c1 + c2
    if code == 13:
        r, c1 = fx.sat(U[a] + U[b], lo_, hi_)
    elif code == 14:
        r, c1 = fx.sat(U[a] - U[b], lo_, hi_)
    elif code == 15:
        r, c1 = fx.mul(U[a], U[b], K, o)
    elif code == 16:
        r, c1 = max(U[a], U[b]), 0
    elif code == 17:
        r, c1 = min(U[a], U[b]), 0
    elif code == 18:                                          # sca.cmp
        va, vb = U[a], U[b]
        r = K[_ONE] if va > vb else (K[_ZERO] if va == vb else K[_MINUS])
        c1 = 0
    elif code == 19:                                          # sca.mac: c + a*b
        p, c0 = fx.mul(U[a], U[b], K, o)
        r, c1 = fx.sat(U[cc] + p, lo_, hi_)
        c1 += c0
    else:                                                     # sca.td: d*a - b + c
        p, c0 = fx.mul(U[dd], U[a], K, o)
        s, c2 = fx.sat(p - U[b], lo_, hi_)
        r, c1 = fx.sat(s + U[cc], lo_, hi_)
        c1 += c0 + c2
    U[d] = r
    return c1


@njit(nrt=False)
def _fixed_branch(code, A, i, c0, U, K):
    a, b = A[i, c0], A[i, c0 + 1]
    if code == 30:
        return (1 if U[a] != K[_ZERO] else 0), 0
    if code == 31:
        return (1 if U[a] == K[_ZERO] else 0), 0
    if code == 32:
        return (1 if U[a] < U[b] else 0), 0
    if code == 33:
        return (1 if U[a] >= U[b] else 0), 0
    t, c1 = fx.mul(U[a], U[a], K, _EXTRA)                     # cc.bsqlt: a*a/2 < b
    r, c2 = fx.mul(t, K[_HALF], K, _EXTRA)
    return (1 if r < U[b] else 0), c1 + c2


# ------------------------------------------------------------------------ float64
@njit(nrt=False, inline=True)
def _float_wu(S, w0, cols, rows, n, U, src, X, xb):
    """The weight update W[i, j] -= src[i] * x[j] (as :func:`_fixed_wu`) in float64."""
    for i in range(rows):
        g = U[src + i]
        for j in range(n):
            S[w0 + i * cols + j] = S[w0 + i * cols + j] - g * X[xb + j]


@njit(nrt=False, inline=True)
def _float_matrix(code, A, i, c0, U, S, K, T, B):
    """The matrix instructions (codes 1 to 9) of float64."""
    if code == 9:                                             # ff.mov
        _mov(A, i, c0, U, T)
        return 0
    src, syn, dst, rows, cols, off, act, n, merged, w0 = _matrix(A, i, c0)
    o = _EXTRA
    L = T.shape[0] // 4
    if code == 1:                                             # ff
        fp.matvec(S, w0, cols, rows, n, U, src, T, K, o)
        fp.activate(act, T, 0, U, dst, rows, K, o, T[L:], B)
        return 0
    if code == 2 or code == 3:                                # bp, bp_wu
        for j in range(n):
            T[L + j] = U[dst + j]
        fp.rmatvec(S, w0, cols, rows, n, U, src, T, K, o)
        if code == 3:
            _float_wu(S, w0, cols, rows, n, U, src, T, L)
        for j in range(n):
            if act == 0:
                U[dst + j] = T[j]
            else:
                U[dst + j] = fp.derivative(act, T[L + j]) * T[j]
        if merged:                                            # eq. 23: E -= eps
            for j in range(n):
                S[syn - n + j] = S[syn - n + j] - U[dst + j]
        return 0
    if code == 4:                                             # wu
        _float_wu(S, w0, cols, rows, n, U, src, U, dst)
        return 0
    lam = syn + rows * cols
    o0 = lam + 1
    e = o0 + rows
    if off != 0:
        return -1
    if code == 6:                                             # vu.init
        fp.matvec(S, syn, cols, rows, cols, U, src, T, K, o)
        lv = fp.sumsq(U, src, cols, K, o)
        for i in range(rows):
            S[o0 + i] = T[i]
        S[lam] = lv
        for i in range(rows):
            S[e + i] = 0.0
        fp.activate(act, S, o0, U, dst, rows, K, o, T[L:], B)
        return 0
    if code == 7:                                             # vu.step
        lv = S[lam]
        for i in range(rows):
            T[i] = S[o0 + i] + S[e + i] * lv
        fp.activate(act, T, 0, U, dst, rows, K, o, T[L:], B)
        return 0
    for i in range(rows):                                     # vu.commit
        g = S[e + i]
        for j in range(cols):
            S[syn + i * cols + j] = S[syn + i * cols + j] + g * U[src + j]
    return 0


@njit(nrt=False)
def _float(code, A, i, c0, U, S, K, T, B, imm):
    """Kernel ``code`` in float64: the matrix instructions through :func:`_float_matrix`,
    the scalar ones (codes 10 to 20) here."""
    o = _EXTRA
    if code <= 9:
        return _float_matrix(code, A, i, c0, U, S, K, T, B)
    d, a, b, cc, dd = A[i, c0], A[i, c0 + 1], A[i, c0 + 2], A[i, c0 + 3], A[i, c0 + 4]
    if code == 10:
        U[d] = imm
    elif code == 11:
        U[d] = U[a]
    elif code == 12:
        U[d] = (U[a] * U[a]) * 0.5
    elif code == 13:
        U[d] = U[a] + U[b]
    elif code == 14:
        U[d] = U[a] - U[b]
    elif code == 15:
        U[d] = U[a] * U[b]
    elif code == 16 or code == 17:                            # np.maximum / np.minimum
        fp.binary(fp.MAXIMUM if code == 16 else fp.MINIMUM, U, a, 1, U, b, 1, T, 0, 1, K, o, B)
        U[d] = T[0]
    elif code == 18:
        va, vb = U[a], U[b]
        U[d] = 1.0 if va > vb else (0.0 if va == vb else -1.0)
    elif code == 19:
        U[d] = U[cc] + U[a] * U[b]
    else:
        U[d] = (U[dd] * U[a] - U[b]) + U[cc]
    return 0


@njit(nrt=False)
def _float_branch(code, A, i, c0, U):
    a, b = A[i, c0], A[i, c0 + 1]
    if code == 30:
        return (1 if U[a] != 0.0 else 0), 0
    if code == 31:
        return (1 if U[a] == 0.0 else 0), 0
    if code == 32:
        return (1 if U[a] < U[b] else 0), 0
    if code == 33:
        return (1 if U[a] >= U[b] else 0), 0
    return (1 if (U[a] * U[a]) * 0.5 < U[b] else 0), 0


# ------------------------------------------------------------------------ dispatch
def run(code, A, i, c0, U, S, K, T, B, imm):
    """Execute kernel ``code`` with the operands ``A[i, c0:c0 + N_ARGS]`` (a row of a table,
    read in place) on ``U``/``S``; ``T`` is scratch of the memories' type (at least 4 x the
    longest vector + 8 words), ``B`` int64 scratch of ``floatpoint.F_LOOPBUF`` words.
    Returns saturations, or -1 (run the reference)."""
    if U.dtype == np.float64:
        return _float(code, A, i, c0, U, S, K, T, B, imm)
    return _fixed(code, A, i, c0, U, S, K, T, imm)


def branch(code, A, i, c0, U, K):
    """(taken, saturations) of conditional branch ``code`` (operands as for :func:`run`)."""
    if U.dtype == np.float64:
        return _float_branch(code, A, i, c0, U)
    return _fixed_branch(code, A, i, c0, U, K)


if HAVE_NUMBA:
    from numba import types
    from numba.extending import overload

    @overload(run, jit_options={"cache": True, "_nrt": False})
    def _run(code, A, i, c0, U, S, K, T, B, imm):
        if U.dtype == types.float64:
            return lambda code, A, i, c0, U, S, K, T, B, imm: _float(code, A, i, c0, U, S, K,
                                                                       T, B, imm)
        return lambda code, A, i, c0, U, S, K, T, B, imm: _fixed(code, A, i, c0, U, S, K, T,
                                                                   imm)

    @overload(branch, jit_options={"cache": True, "_nrt": False})
    def _branch(code, A, i, c0, U, K):
        if U.dtype == types.float64:
            return lambda code, A, i, c0, U, K: _float_branch(code, A, i, c0, U)
        return lambda code, A, i, c0, U, K: _fixed_branch(code, A, i, c0, U, K)
