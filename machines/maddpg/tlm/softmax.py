"""The policy head of the MADDPG paper's learners: the Gumbel-softmax sample of a discrete action
(openai/maddpg's ``SoftCategoricalPd.sample``), and its backward pass, for one sample in fp32.

Forward, with the Gumbel noise ``g`` supplied by the host (see ``machines/maddpg/replay.py``):
``z = logits + g``; ``e_k = exp(z_k - max z)``; ``s = sum_k e_k`` (a MAC chain in index order
from +0); ``y_k = e_k / s``. Every operation is rounded once to fp32 (``exp`` and the
division are computed in float64 and rounded: correctly rounded fp32 results).

Backward (the noise is additive, so it is also the gradient w.r.t. the logits): with
``p = sum_k dy_k y_k`` (a MAC chain), ``dz_k = y_k (dy_k - p)``.

The ``*_rows`` functions do the same for every row of a batch at once (what the head's
instructions run); tests check them against the one-sample functions, bit for bit. With
numba (:mod:`rlaccel.tlm.fast.jit`) their arithmetic runs compiled on float32 rows, by hand
the same float64 operations each rounded once to float32, the sums in the same order, numpy's
``exp`` in between: used when every operand and result is finite (so that the
:mod:`rlaccel.isa.dtypes` operations would count no saturation either), else the whole-array
operations run.
"""

from __future__ import annotations

import math

import numpy as np

from rlaccel.isa.dtypes import get_dtype
from rlaccel.tlm.fast.jit import HAVE_NUMBA, njit

__all__ = ["gumbel_softmax", "softmax_backward", "rowdot", "gumbel_softmax_rows",
           "softmax_backward_rows", "head_backward_rows"]

_F32 = get_dtype("fp32")


# ---- compiled (module docstring) -----------------------------------------------------------
@njit
def _shifted(logits, noise):
    """``(d, finite)``: ``z = logits + noise`` and ``d = z - max z`` of every row, float32
    values of float64 operations (as float64: ``exp``'s argument)."""
    B, n = logits.shape
    d = np.empty((B, n), dtype=np.float64)
    z = np.empty(n, dtype=np.float32)
    ok = True
    for k in range(B):
        for j in range(n):
            z[j] = np.float32(np.float64(logits[k, j]) + np.float64(noise[k, j]))
            ok = ok and math.isfinite(z[j])
        top = z[0]
        for j in range(1, n):
            if z[j] > top:
                top = z[j]
        for j in range(n):
            v = np.float32(np.float64(z[j]) - np.float64(top))
            ok = ok and math.isfinite(v)
            d[k, j] = v
    return d, ok


@njit
def _normalised(ex):
    """``(y, finite)``: ``e = float32(ex)``, ``y = e / s`` with ``s`` the row's MAC chain of
    ``e * 1``."""
    B, n = ex.shape
    y = np.empty((B, n), dtype=np.float32)
    ok = True
    for k in range(B):
        s = np.float32(0.0)
        for j in range(n):
            e = np.float32(ex[k, j])
            ok = ok and math.isfinite(e)
            s = s + e
        s = s + np.float32(0.0)
        if s == 0:                     # numba would raise where numpy divides by zero
            return y, False
        for j in range(n):
            v = np.float32(np.float64(np.float32(ex[k, j])) / np.float64(s))
            ok = ok and math.isfinite(v)
            y[k, j] = v
    return y, ok


@njit
def _backward(y, dy, reg, z):
    """``(dz, finite)`` of softmax_backward_rows, plus ``reg z`` (head_backward_rows) when
    ``z`` has rows."""
    B, n = y.shape
    out = np.empty((B, n), dtype=np.float32)
    ok = math.isfinite(reg)
    plus = z.shape[0] > 0
    for k in range(B):
        p = np.float32(0.0)
        for j in range(n):
            ok = ok and math.isfinite(y[k, j]) and math.isfinite(dy[k, j])
            p = p + np.float32(np.float64(dy[k, j]) * np.float64(y[k, j]))
        p = p + np.float32(0.0)
        ok = ok and math.isfinite(p)
        for j in range(n):
            g = np.float32(np.float64(dy[k, j]) - np.float64(p))
            v = np.float32(np.float64(y[k, j]) * np.float64(g))
            ok = ok and math.isfinite(g) and math.isfinite(v)
            if plus:
                r = np.float32(np.float64(reg) * np.float64(z[k, j]))
                v = np.float32(np.float64(v) + np.float64(r))
                ok = ok and math.isfinite(z[k, j]) and math.isfinite(r) and math.isfinite(v)
            out[k, j] = v
    return out, ok


_NO_ROWS = np.zeros((0, 0), np.float32)


def _compiled(*arrays) -> bool:
    """Whether the compiled rows take these operands: 2-D float32 arrays of one shape."""
    return HAVE_NUMBA and all(isinstance(a, np.ndarray) and a.dtype == np.float32
                              and a.ndim == 2 and a.shape == arrays[0].shape for a in arrays)


def gumbel_softmax(logits, noise, *, counter=None) -> np.ndarray:
    """``softmax(logits + noise)`` of one sample (1-D fp32 arrays)."""
    z = _F32.add(logits, noise, counter=counter)
    d = _F32.sub(z, np.float32(np.max(z)), counter=counter)
    e = _F32.quantize(np.exp(d.astype(np.float64)), counter=counter)
    s = _F32.dot(e, np.ones_like(e), counter=counter)
    return _F32.quantize(e.astype(np.float64) / np.float64(s), counter=counter)


def softmax_backward(y, dy, *, counter=None) -> np.ndarray:
    """``y * (dy - sum(dy * y))`` of one sample."""
    p = _F32.dot(dy, y, counter=counter)
    return _F32.mul(y, _F32.sub(dy, p, counter=counter), counter=counter)


def rowdot(A, B) -> np.ndarray:
    """``sum_j A[k, j] B[k, j]`` for every row k, by the fp32 dot rule (every product rounded,
    summed in index order from +0, every partial sum rounded)."""
    A, B = np.asarray(A, np.float32), np.asarray(B, np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        products = (A.astype(np.float64) * B.astype(np.float64)).astype(np.float32)
        return np.cumsum(products, axis=1, dtype=np.float32)[:, -1] + np.float32(0.0)


def gumbel_softmax_rows(logits, noise, *, counter=None) -> np.ndarray:
    """:func:`gumbel_softmax` of every row of ``(B, n)`` logits and noise."""
    if _compiled(logits, noise) and logits.shape[1] > 0:
        d, ok = _shifted(logits, noise)
        if ok:
            y, ok = _normalised(np.exp(d))
            if ok:
                return y
    z = _F32.add(logits, noise, counter=counter)
    d = _F32.sub(z, np.max(z, axis=1, keepdims=True), counter=counter)
    e = _F32.quantize(np.exp(d.astype(np.float64)), counter=counter)
    s = rowdot(e, np.ones_like(e))
    return _F32.quantize(e.astype(np.float64) / s.astype(np.float64)[:, None],
                         counter=counter)


def softmax_backward_rows(y, dy, *, counter=None) -> np.ndarray:
    """:func:`softmax_backward` of every row of ``(B, n)`` outputs and output gradients."""
    if _compiled(y, dy):
        out, ok = _backward(y, dy, np.float32(0.0), _NO_ROWS)
        if ok:
            return out
    p = rowdot(dy, y)
    return _F32.mul(y, _F32.sub(dy, p[:, None], counter=counter), counter=counter)


def head_backward_rows(y, dy, reg, z, *, dt=None, counter=None) -> np.ndarray:
    """:func:`softmax_backward_rows` plus ``reg z`` (the regulariser's gradient on the
    logits ``z``, ``reg`` an fp32 scalar), every row, each operation rounded once: the policy
    head's backward pass (``pgb``); the sum and product in ``dt`` (an fp32 format, default
    ``isa.dtypes``' own) when they do not run compiled."""
    if _compiled(y, dy, z) and isinstance(reg, np.float32):
        out, ok = _backward(y, dy, reg, z)
        if ok:
            return out
    dt = _F32 if dt is None else dt
    return dt.add(softmax_backward_rows(y, dy, counter=counter),
                  dt.mul(reg, z, counter=counter), counter=counter)
