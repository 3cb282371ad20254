"""float64 arithmetic for compiled kernels: numpy's results, bit for bit.

:class:`~rlaccel.isa.dtypes.Float64Type` is plain numpy, so a compiled float64 kernel must
compute what numpy computes: elementwise ``+ - * /`` are IEEE operations (compiled without
fast-math or contraction, they round alike), but ``W @ x`` runs numpy's BLAS in its own
summation order and ``np.tanh``/``np.exp``/``np.maximum`` run numpy's own loops. This module
calls those very functions (:mod:`.native`) the way numpy's ``matmul`` calls them -- ``dot``
for a one-row product, a plain loop from a zeroed output for a one-column one, ``gemv``
otherwise -- on the same memory views. :func:`constants` holds their addresses;
``tests/tlm/fast/test_floatpoint.py`` checks every function against the dtype.
"""

from __future__ import annotations

import numpy as np

from rlaccel.tlm.fast.jit import njit
from rlaccel.tlm.fast.native import COL_MAJOR, NATIVE_FIELDS, ROW_MAJOR, TRANS, call_ddot, call_gemv, \
    call_loop, float_natives

__all__ = ["constants", "matvec", "rmatvec", "sumsq", "activate", "derivative", "unary",
           "binary", "F_LOOPBUF"]

_F = {name: i for i, name in enumerate(NATIVE_FIELDS)}
_GEMV, _DDOT, _TANH, _EXP, _MAX, _MIN = (_F[k] for k in ("gemv", "ddot", "tanh", "exp",
                                                        "maximum", "minimum"))
#: words of scratch a ufunc call needs (data pointers, count, strides)
F_LOOPBUF = 8


def constants(extra: int = 0) -> np.ndarray | None:
    """The int64 constants array of float64 kernels (native addresses after ``extra``
    leading words), or None when numpy's natives are not reachable."""
    nat = float_natives()
    if nat is None:
        return None
    return np.concatenate([np.zeros(extra, dtype=np.int64), nat])


@njit(inline=True)
def _ptr(a, i):
    return np.int64(a.ctypes.data) + np.int64(8) * i


@njit(nrt=False, inline=True)
def _sums(M, wb, nout, out_step, nterm, term_step, V, vb, out, K, o, order, m, n, ld):
    """``out[i] = sum_t M[wb + i * out_step + t * term_step] * V[vb + t]`` for ``i < nout``,
    as numpy computes it: one output is matmul's scalar_out case (DOUBLE_dot, BLAS ddot),
    one term the plain loop from 0, else BLAS gemv (``order``, ``m``, ``n``, ``ld``)."""
    if nout == 1:
        s = 0.0
        s += call_ddot(K[o + _DDOT], nterm, _ptr(M, wb), term_step, _ptr(V, vb), 1)
        out[0] = s
    elif nterm == 1:
        x = V[vb]
        for i in range(nout):
            s = 0.0
            s += M[wb + i * out_step] * x
            out[i] = s
    else:
        call_gemv(K[o + _GEMV], order, TRANS, m, n, 1.0, _ptr(M, wb), ld, _ptr(V, vb), 1, 0.0,
                  _ptr(out, 0), 1)
    return 0


@njit(nrt=False)
def matvec(M, wb, ld, rows, k, V, vb, out, K, o):
    """``out[:rows] = W @ x`` as numpy computes it, W the ``rows x k`` matrix at ``M[wb]``
    with row stride ``ld`` and x at ``V[vb]``."""
    return _sums(M, wb, rows, ld, k, 1, V, vb, out, K, o, COL_MAJOR, k, rows, ld)


@njit(nrt=False)
def rmatvec(M, wb, ld, rows, n, V, vb, out, K, o):
    """``out[:n] = W.T @ g`` as numpy computes it (W as in :func:`matvec`, ``rows x n``)."""
    return _sums(M, wb, n, 1, rows, ld, V, vb, out, K, o, ROW_MAJOR, rows, n, ld)


@njit(nrt=False)
def sumsq(V, vb, k, K, o):
    """``p @ p`` as numpy computes it."""
    s = 0.0
    s += call_ddot(K[o + _DDOT], k, _ptr(V, vb), 1, _ptr(V, vb), 1)
    return s


@njit(nrt=False)
def unary(which, src, sb, dst, db, m, K, o, buf):
    """numpy's loop of a unary ufunc (``which``: a :data:`NATIVE_FIELDS` index) from
    ``src[sb:sb+m]`` to ``dst[db:db+m]``; ``buf`` is int64 scratch of F_LOOPBUF words."""
    buf[0] = _ptr(src, sb)
    buf[1] = _ptr(dst, db)
    buf[2] = m
    buf[3] = 8
    buf[4] = 8
    call_loop(K[o + which], K[o + which + 1], _ptr(buf, 0), _ptr(buf, 2), _ptr(buf, 3),
              K[o + which + 2])


@njit(nrt=False)
def binary(which, a, ab, sa, b, bb, sb, dst, db, m, K, o, buf):
    """numpy's loop of a binary ufunc with input strides ``sa``, ``sb`` (words; 0 for a
    scalar operand)."""
    buf[0] = _ptr(a, ab)
    buf[1] = _ptr(b, bb)
    buf[2] = _ptr(dst, db)
    buf[3] = m
    buf[4] = 8 * sa
    buf[5] = 8 * sb
    buf[6] = 8
    call_loop(K[o + which], K[o + which + 1], _ptr(buf, 0), _ptr(buf, 3), _ptr(buf, 4),
              K[o + which + 2])


@njit(nrt=False)
def activate(act, src, sb, dst, db, m, K, o, tmp, buf):
    """``Float64Type.activate`` (act by its ISA index) from ``src[sb:]`` to ``dst[db:]``;
    ``tmp`` is float64 scratch of ``m`` words (``src`` may be ``dst``)."""
    if act == 0:                                            # none: a copy
        for i in range(m):
            dst[db + i] = src[sb + i]
    elif act == 1:                                          # np.tanh(v)
        unary(_TANH, src, sb, dst, db, m, K, o, buf)
    elif act == 4:                                          # np.tanh(v / 2.0)
        for i in range(m):
            tmp[i] = src[sb + i] / 2.0
        unary(_TANH, tmp, 0, dst, db, m, K, o, buf)
    elif act == 2:                                          # 1.0 / (1.0 + np.exp(-v))
        for i in range(m):
            tmp[i] = -src[sb + i]
        unary(_EXP, tmp, 0, tmp, 0, m, K, o, buf)
        for i in range(m):
            dst[db + i] = 1.0 / (1.0 + tmp[i])
    else:                                                   # np.maximum(v, 0.0)
        tmp[m] = 0.0
        binary(_MAX, src, sb, 1, tmp, m, 0, dst, db, m, K, o, buf)
    return 0


@njit(inline=True)
def derivative(act, y):
    """``Float64Type.derivative`` of one activation output."""
    if act == 0:
        return 1.0
    if act == 1:
        return 1.0 - y * y
    if act == 2:
        return y * (1.0 - y)
    if act == 3:
        return 1.0 if y > 0 else 0.0
    return (1.0 - y * y) / 2.0


MAXIMUM, MINIMUM = _MAX, _MIN
