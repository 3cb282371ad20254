"""A compute unit's arithmetic over a whole batch, in fp32, bit for bit what
:mod:`.compute_unit` computes sample by sample (every product rounded to fp32, every partial
sum rounded, each sum in its MAC chain's order from a +0 accumulator).

* :func:`forward` -- ``Y[k] = W X[k] + b`` (before the activation);
* :func:`backward` -- ``G[k] = W[:, off:off+n]^T D[k]`` (before the mask);
* :func:`gradient` -- ``G = sum_k D[k] X[k]^T``, ``g_b = sum_k D[k]`` in sample order.

With numba (:mod:`rlaccel.tlm.fast.jit`) these run compiled: loops whose innermost index
runs over independent accumulators (output neurons, columns, weights), so every chain keeps
its order and nothing is reassociated or fused (numba's default: no fast-math, so no
multiply-add contraction). Without numba they run the :mod:`rlaccel.isa.dtypes` operations
on whole arrays. Tests compare both with :mod:`.compute_unit` on random operands.
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes import get_dtype
from rlaccel.tlm.fast.jit import HAVE_NUMBA, njit

__all__ = ["forward", "backward", "gradient"]

_F32 = get_dtype("fp32")


@njit
def _forward(WT, b, X):
    B, ID = X.shape
    OD = WT.shape[1]
    Y = np.empty((B, OD), dtype=np.float32)
    acc = np.empty(OD, dtype=np.float32)
    for k in range(B):
        for i in range(OD):
            acc[i] = np.float32(0.0)
        for j in range(ID):
            x = X[k, j]
            for i in range(OD):
                acc[i] = acc[i] + WT[j, i] * x
        for i in range(OD):
            Y[k, i] = acc[i] + b[i]
    return Y


@njit
def _backward(W, D, off, n):
    B, OD = D.shape
    G = np.empty((B, n), dtype=np.float32)
    Ws = np.ascontiguousarray(W[:, off:off + n])
    acc = np.empty(n, dtype=np.float32)
    for k in range(B):
        for c in range(n):
            acc[c] = np.float32(0.0)
        for i in range(OD):
            d = D[k, i]
            row = Ws[i]
            for c in range(n):
                acc[c] = acc[c] + row[c] * d
        for c in range(n):
            G[k, c] = acc[c]
    return G


@njit
def _gradient(D, X):
    B, OD = D.shape
    ID = X.shape[1]
    G = np.zeros((OD, ID), dtype=np.float32)
    gb = np.zeros(OD, dtype=np.float32)
    for k in range(B):
        for i in range(OD):
            d = D[k, i]
            gb[i] = gb[i] + d
            for j in range(ID):
                G[i, j] = G[i, j] + d * X[k, j]
    return G, gb


def _f32(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float32)


def forward(W, b, X) -> np.ndarray:
    """``(B, OD)``: every sample's ``W x + b`` (fp32, compute_unit.fp without activation)."""
    W, b, X = _f32(W), _f32(b), _f32(X)
    if HAVE_NUMBA:
        return _forward(np.ascontiguousarray(W.T), b, X)
    return _F32.add(_F32.matvec(W, X.T), b[:, None]).T.copy()


def backward(W, D, off: int = 0, n: int | None = None) -> np.ndarray:
    """``(B, n)``: every sample's ``W[:, off:off+n]^T d`` (fp32, compute_unit.bp unmasked)."""
    W, D = _f32(W), _f32(D)
    n = W.shape[1] - off if n is None else n
    if HAVE_NUMBA:
        return _backward(W, D, int(off), int(n))
    return _F32.rmatvec(W[:, off:off + n], D.T).T.copy()


def gradient(D, X) -> tuple[np.ndarray, np.ndarray]:
    """``(G, g_b)``: the batch's weight and bias gradients accumulated from +0 in sample
    order (fp32, compute_unit.wu over the batch)."""
    D, X = _f32(D), _f32(X)
    if HAVE_NUMBA:
        return _gradient(D, X)
    G = np.zeros((D.shape[1], X.shape[1]), np.float32)
    gb = np.zeros(D.shape[1], np.float32)
    for d, x in zip(D, X):
        G = _F32.add(G, _F32.outer(d, x))
        gb = _F32.add(gb, d)
    return G, gb
