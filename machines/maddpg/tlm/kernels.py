"""A compute unit's arithmetic over a whole batch, in fp32, bit for bit what
:mod:`.compute_unit` computes sample by sample (every product rounded to fp32, every partial
sum rounded, each sum in its MAC chain's order from a +0 accumulator).

* :func:`forward` -- ``Y[k] = W X[k] + b`` (before the activation);
* :func:`backward` -- ``G[k] = W[:, off:off+n]^T D[k]`` (before the mask);
* :func:`relu_mask` -- the mask, ``G[k]`` where the layer input ``X[k] > 0``, else +0;
* :func:`gradient` -- ``G = sum_k D[k] X[k]^T``, ``g_b = sum_k D[k]`` in sample order.

With numba (:mod:`rlaccel.tlm.fast.jit`) these run compiled, hand-written rather than a
matrix product (BLAS reorders and fuses the sums): loops whose innermost index runs over
independent accumulators, so every chain keeps its order and nothing is reassociated or
fused (numba's default: no fast-math, so no multiply-add contraction). Each pass takes four
steps of a chain, ``(((acc + p0) + p1) + p2) + p3`` (its order, one load and store of the
accumulator per four products). Two loop orders, by the width of the result:
:func:`_rows` (wide: four samples at a time, the innermost loop over the outputs) and
:func:`_combine` (narrow, a 64 -> 1 layer: the batch transposed to ``(features, samples)``,
the innermost loop over the samples). :func:`forward_rows` and :func:`backward_rows` run
:func:`_rows` on the rows of a memory where they are and write the results there, the bias,
the ReLU or its mask applied on the way (what a stream instruction does; a result that is not
finite sends the instruction back to the separate steps, which count saturations).
:func:`_gradient_pass` (:func:`gradient_rows` on a memory's rows where they are)
accumulates four samples per pass, the innermost loop over the wider of the
layer's input and output widths, two rows of ``G`` sharing the inputs' loads. Rows are
taken as slices, whose indices numba need not wrap, so that the loops over a row
vectorise. Without numba they run the :mod:`rlaccel.isa.dtypes` operations on whole arrays.
Tests compare both with :mod:`.compute_unit` on random operands.
"""

from __future__ import annotations

import math

import numpy as np

from rlaccel.isa.dtypes import get_dtype
from rlaccel.tlm.fast.jit import HAVE_NUMBA, njit

__all__ = ["forward", "backward", "relu_mask", "gradient", "forward_rows", "backward_rows",
           "gradient_rows", "WIDE"]

_F32 = get_dtype("fp32")

#: results at least this wide (outputs per sample) take :func:`_rows`; narrower ones
#: :func:`_combine`
WIDE = 16


@njit
def _combine(M, XT):
    """``out[i, k] = sum_j M[i, j] * XT[j, k]``, every chain in order j from +0 in float32
    (the compute unit's chains: forward through W, backward through W^T); ``(N, B)``."""
    N, J = M.shape
    B = XT.shape[1]
    out = np.zeros((N, B), dtype=np.float32)
    J4 = J - J % 4
    for i in range(N):
        for j in range(0, J4, 4):
            m0, m1, m2, m3 = M[i, j], M[i, j + 1], M[i, j + 2], M[i, j + 3]
            for k in range(B):
                out[i, k] = (((out[i, k] + m0 * XT[j, k]) + m1 * XT[j + 1, k])
                             + m2 * XT[j + 2, k]) + m3 * XT[j + 3, k]
        for j in range(J4, J):
            m = M[i, j]
            for k in range(B):
                out[i, k] = out[i, k] + m * XT[j, k]
    return out


#: what :func:`_rows` does with a sum before writing it: nothing, add the bias, add the bias
#: and take the ReLU, or mask it where the layer input is not > 0 (compute_unit.fp and bp)
PLAIN, BIAS, BIAS_RELU, MASK = 0, 1, 2, 3


@njit
def _rows(src, sa, ss, M, B, mode, bias, mask, ma, ms, dst, da, ds):
    """Sample k's input is the J words at ``src[sa + k ss]``, its result the N words at
    ``dst[da + k ds]``: ``sum_j M[j, i] x[j]`` (as :func:`_combine`), then ``mode``'s epilogue
    (the mask at ``mask[ma + k ms]``). Four samples at a time (a short last group repeats its
    first sample); every row through a slice, whose indices numba need not wrap (so the
    loops over a row vectorise). Returns whether every result before the ReLU or the mask
    is finite."""
    J, N = M.shape
    acc = np.empty((4, N), dtype=np.float32)
    a0, a1, a2, a3 = acc[0], acc[1], acc[2], acc[3]
    J4 = J - J % 4
    bad = False
    for k in range(0, B, 4):
        n = min(4, B - k)
        X0 = src[sa + k * ss:sa + k * ss + J]
        X1 = src[sa + (k + 1) * ss:sa + (k + 1) * ss + J] if n > 1 else X0
        X2 = src[sa + (k + 2) * ss:sa + (k + 2) * ss + J] if n > 2 else X0
        X3 = src[sa + (k + 3) * ss:sa + (k + 3) * ss + J] if n > 3 else X0
        for i in range(N):
            a0[i] = a1[i] = a2[i] = a3[i] = np.float32(0.0)
        for j in range(0, J4, 4):
            x0, x1, x2, x3 = X0[j], X0[j + 1], X0[j + 2], X0[j + 3]
            y0, y1, y2, y3 = X1[j], X1[j + 1], X1[j + 2], X1[j + 3]
            z0, z1, z2, z3 = X2[j], X2[j + 1], X2[j + 2], X2[j + 3]
            w0, w1, w2, w3 = X3[j], X3[j + 1], X3[j + 2], X3[j + 3]
            for i in range(N):
                m0, m1, m2, m3 = M[j, i], M[j + 1, i], M[j + 2, i], M[j + 3, i]
                a0[i] = (((a0[i] + m0 * x0) + m1 * x1) + m2 * x2) + m3 * x3
                a1[i] = (((a1[i] + m0 * y0) + m1 * y1) + m2 * y2) + m3 * y3
                a2[i] = (((a2[i] + m0 * z0) + m1 * z1) + m2 * z2) + m3 * z3
                a3[i] = (((a3[i] + m0 * w0) + m1 * w1) + m2 * w2) + m3 * w3
        for j in range(J4, J):
            x0, y0, z0, w0 = X0[j], X1[j], X2[j], X3[j]
            for i in range(N):
                m0 = M[j, i]
                a0[i] = a0[i] + m0 * x0
                a1[i] = a1[i] + m0 * y0
                a2[i] = a2[i] + m0 * z0
                a3[i] = a3[i] + m0 * w0
        for t in range(n):
            a = acc[t]
            out = dst[da + (k + t) * ds:da + (k + t) * ds + N]
            if mode == PLAIN:
                for i in range(N):
                    v = a[i]
                    bad |= v - v != 0                 # inf or NaN
                    out[i] = v
            elif mode == MASK:
                x = mask[ma + (k + t) * ms:ma + (k + t) * ms + N]
                for i in range(N):
                    v = a[i]
                    bad |= v - v != 0
                    out[i] = v if x[i] > 0 else np.float32(0.0)
            else:
                for i in range(N):
                    v = a[i] + bias[i]
                    bad |= v - v != 0
                    if mode == BIAS_RELU:             # np.maximum(v, 0): NaN kept, -0 -> +0
                        v = v if (v > 0 or v != v) else np.float32(0.0)
                    out[i] = v
    return not bad


@njit
def _relu_mask(G, X):
    B, N = G.shape
    for k in range(B):
        for i in range(N):
            if not X[k, i] > 0:
                G[k, i] = np.float32(0.0)
    return G


@njit
def _four_rows(m, a, s, k, n):
    """Rows ``k`` to ``k + 3`` of the batch whose sample ``j`` is ``m[a + j s:][:n]`` (views)."""
    return (m[a + k * s:a + k * s + n], m[a + (k + 1) * s:a + (k + 1) * s + n],
            m[a + (k + 2) * s:a + (k + 2) * s + n], m[a + (k + 3) * s:a + (k + 3) * s + n])


@njit(inline=True)
def _rows4(G, D0, D1, D2, D3, X0, X1, X2, X3):
    """Four samples into ``G`` ``(OD, ID)``, the innermost loop over the inputs, two rows of
    ``G`` sharing the inputs' loads."""
    OD, ID = G.shape
    for i in range(0, OD - OD % 2, 2):
        d0, d1, d2, d3 = D0[i], D1[i], D2[i], D3[i]
        e0, e1, e2, e3 = D0[i + 1], D1[i + 1], D2[i + 1], D3[i + 1]
        Gi, Gn = G[i], G[i + 1]
        for j in range(ID):
            x0, x1, x2, x3 = X0[j], X1[j], X2[j], X3[j]
            Gi[j] = (((Gi[j] + d0 * x0) + d1 * x1) + d2 * x2) + d3 * x3
            Gn[j] = (((Gn[j] + e0 * x0) + e1 * x1) + e2 * x2) + e3 * x3
    if OD % 2:
        i = OD - 1
        d0, d1, d2, d3 = D0[i], D1[i], D2[i], D3[i]
        Gi = G[i]
        for j in range(ID):
            Gi[j] = (((Gi[j] + d0 * X0[j]) + d1 * X1[j]) + d2 * X2[j]) + d3 * X3[j]


@njit(inline=True)
def _cols4(GT, D0, D1, D2, D3, X0, X1, X2, X3):
    """Four samples into ``GT`` ``(ID, OD)`` (``G`` transposed), the innermost loop over the
    outputs."""
    ID, OD = GT.shape
    for j in range(ID):
        x0, x1, x2, x3 = X0[j], X1[j], X2[j], X3[j]
        Gj = GT[j]
        for i in range(OD):
            Gj[i] = (((Gj[i] + D0[i] * x0) + D1[i] * x1) + D2[i] * x2) + D3[i] * x3


@njit
def _gradient_pass(dm, da, ds, xm, xa, xs, B, OD, ID, by_cols):
    """:func:`gradient` of the batch whose sample k has its error at ``dm[da + k ds]`` and
    its layer input at ``xm[xa + k xs]``, four samples a pass, the innermost loop over the
    layer's inputs (``G``'s rows, :func:`_rows4`) or with ``by_cols`` over its outputs
    (``G`` accumulated transposed, :func:`_cols4`); a last sample alone runs the same chain
    one step at a time."""
    G = np.zeros((ID, OD) if by_cols else (OD, ID), dtype=np.float32)
    gb = np.zeros(OD, dtype=np.float32)
    B4 = B - B % 4
    for k in range(0, B4, 4):
        D0, D1, D2, D3 = _four_rows(dm, da, ds, k, OD)
        X0, X1, X2, X3 = _four_rows(xm, xa, xs, k, ID)
        for i in range(OD):
            gb[i] = (((gb[i] + D0[i]) + D1[i]) + D2[i]) + D3[i]
        if by_cols:
            _cols4(G, D0, D1, D2, D3, X0, X1, X2, X3)
        else:
            _rows4(G, D0, D1, D2, D3, X0, X1, X2, X3)
    for k in range(B4, B):
        D0 = dm[da + k * ds:da + k * ds + OD]
        X0 = xm[xa + k * xs:xa + k * xs + ID]
        for i in range(OD):
            gb[i] = gb[i] + D0[i]
        if by_cols:
            for j in range(ID):
                x = X0[j]
                Gj = G[j]
                for i in range(OD):
                    Gj[i] = Gj[i] + D0[i] * x
        else:
            for i in range(OD):
                d = D0[i]
                Gi = G[i]
                for j in range(ID):
                    Gi[j] = Gi[j] + d * X0[j]
    return (np.ascontiguousarray(G.T) if by_cols else G), gb


def _f32(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float32)


def _samples(X) -> np.ndarray:
    """A batch ``(B, n)`` (any strides: a view of memory rows) as ``(n, B)`` float32, C order."""
    return np.ascontiguousarray(np.asarray(X, dtype=np.float32).T)


_NONE = np.zeros(0, np.float32)


def _through(M, X, bias=None) -> np.ndarray:
    """``(B, N)``: every sample's ``M^T x`` (``+ bias``) for ``M`` ``(J, N)``, compiled (a
    transposed view when narrow)."""
    J, N = M.shape
    if N >= WIDE:
        X = _f32(X)
        out = np.empty((X.shape[0], N), np.float32)
        _rows(X.reshape(-1), 0, J, _f32(M), X.shape[0], PLAIN if bias is None else BIAS,
              _NONE if bias is None else bias, _NONE, 0, 0, out.reshape(-1), 0, N)
        return out
    Y = _combine(_f32(M.T), _samples(X)).T
    return Y if bias is None else Y + bias


def forward(W, b, X) -> np.ndarray:
    """``(B, OD)``: every sample's ``W x + b`` (fp32, compute_unit.fp without activation)."""
    W, b = _f32(W), _f32(b)
    if HAVE_NUMBA:
        return _through(W.T, X, b)
    return _F32.add(_F32.matvec(W, _f32(X).T), b[:, None]).T.copy()


def backward(W, D, off: int = 0, n: int | None = None) -> np.ndarray:
    """``(B, n)``: every sample's ``W[:, off:off+n]^T d`` (fp32, compute_unit.bp unmasked)."""
    W = _f32(W)
    n = W.shape[1] - off if n is None else n
    if HAVE_NUMBA:
        return _through(W[:, int(off):int(off) + int(n)], D)
    return _F32.rmatvec(W[:, off:off + n], _f32(D).T).T.copy()


def forward_rows(W, b, relu: bool, src, sa: int, ss: int, dst, da: int, ds: int,
                 batch: int) -> bool:
    """:func:`forward` and, with ``relu``, the ReLU (``np.maximum(y, 0)``) of every sample,
    compiled, its input the ``ID`` words at ``src[sa + k ss]`` and its result written to the
    ``OD`` words at ``dst[da + k ds]`` (1-D float32 memories, results at least :data:`WIDE`
    wide, ``dst`` not overlapping the inputs). False when a result before the ReLU is not
    finite: the caller then computes the batch again with :func:`forward` and counts."""
    return _rows(src, sa, ss, _f32(W.T), batch, BIAS_RELU if relu else BIAS, _f32(b), _NONE, 0, 0,
                 dst, da, ds)


def backward_rows(W, off: int, n: int, src, sa: int, ss: int, mask, ma: int, ms: int, dst,
                  da: int, ds: int, batch: int) -> bool:
    """:func:`backward` and, with a ``mask`` memory, :func:`relu_mask` by the layer input at
    ``mask[ma + k ms]``, as :func:`forward_rows` (its error at ``src[sa + k ss]``)."""
    return _rows(src, sa, ss, _f32(W[:, off:off + n]), batch, PLAIN if mask is None else MASK,
                 _NONE, _NONE if mask is None else mask, ma, ms, dst, da, ds)


def gradient_rows(dm, da: int, ds: int, xm, xa: int, xs: int, batch: int, od: int,
                  id_: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`gradient` compiled, sample k's error the ``od`` words at ``dm[da + k ds]`` and
    its layer input the ``id_`` words at ``xm[xa + k xs]`` (1-D float32 memories, read where
    they are)."""
    return _gradient_pass(dm, da, ds, xm, xa, xs, batch, od, id_, id_ < od)


def relu_mask(G, X) -> np.ndarray:
    """``G`` where ``X > 0``, else +0 (compute_unit.bp's mask; NaN in ``X`` masks), in place
    when compiled; ``X`` may be a view of memory rows."""
    if HAVE_NUMBA:
        return _relu_mask(G, np.asarray(X, dtype=np.float32))
    return np.where(np.asarray(X) > 0, G, np.float32(0.0))


def gradient(D, X) -> tuple[np.ndarray, np.ndarray]:
    """``(G, g_b)``: the batch's weight and bias gradients accumulated from +0 in sample
    order (fp32, compute_unit.wu over the batch)."""
    D, X = _f32(D), _f32(X)
    if HAVE_NUMBA:
        (B, OD), ID = D.shape, X.shape[1]
        return gradient_rows(D.reshape(-1), 0, OD, X.reshape(-1), 0, ID, B, OD, ID)
    G = np.zeros((D.shape[1], X.shape[1]), np.float32)
    gb = np.zeros(D.shape[1], np.float32)
    for d, x in zip(D, X):
        G = _F32.add(G, _F32.outer(d, x))
        gb = _F32.add(gb, d)
    return G, gb
