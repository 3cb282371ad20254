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
def _combine(X, M):
    """``out[k] = sum_j X[k, j] * M[j]``, every sample's rows of ``M`` added in order j from
    +0 in float32 (the compute unit's chains: forward through W^T, backward through W)."""
    B, J = X.shape
    N = M.shape[1]
    out = np.empty((B, N), dtype=np.float32)
    acc = np.empty(N, dtype=np.float32)
    for k in range(B):
        for i in range(N):
            acc[i] = np.float32(0.0)
        for j in range(J):
            x = X[k, j]
            for i in range(N):
                acc[i] = acc[i] + M[j, i] * x
        for i in range(N):
            out[k, i] = acc[i]
    return out


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
        return _combine(X, np.ascontiguousarray(W.T)) + b
    return _F32.add(_F32.matvec(W, X.T), b[:, None]).T.copy()


def backward(W, D, off: int = 0, n: int | None = None) -> np.ndarray:
    """``(B, n)``: every sample's ``W[:, off:off+n]^T d`` (fp32, compute_unit.bp unmasked)."""
    W, D = _f32(W), _f32(D)
    n = W.shape[1] - off if n is None else n
    if HAVE_NUMBA:
        return _combine(D, np.ascontiguousarray(W[:, int(off):int(off) + int(n)]))
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
