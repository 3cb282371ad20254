"""A LearningGroup layer's sparse matrix-vector dataflow in FP16 (the paper, sections III-C,
III-D; Fig. 6 and 7): what the cores and the aggregator compute, in the order they compute
it. The timing of the same dataflow is :func:`.timing.core_passes`.

Forward, ``y = x (W * mask)`` for ``W`` M x N (row-major in the global parameter memory) and
a sparse row memory of the mask (:mod:`.osel`):

1. the load allocation unit gives core c its rows ``allocation[c]`` (with ``x[i]`` and the
   unmasked weights ``W[i, nz]`` of each row);
2. a VPU multiplies one weight by its row's broadcast activation, ``fp16(x[i] * W[i, j])``,
   and adds it into the partial sum of output j, ``fp16(partial + product)``; a core's
   partial sum of an output accumulates over the core's rows in allocation order, from +0;
3. the aggregator adds the cores' partial sums in core order, each add rounded to FP16.

The transposed product ``g (W * mask)^T`` (back-propagation; section III-B) is the same
dataflow over the transposed sparse row memory, whose row j lists the inputs i with
``mask[i, j] = 1``; the weights are read in place at ``i*N + j``
(:func:`.load_allocation.transposed_addresses`).

How the four accumulation registers of a VPU are used does not change these sums: every
output's partial sum within a core is one FP16 chain in row order.
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import SimError

from rlaccel.machines.learninggroup.tlm.osel import SparseRowMemory
from rlaccel.machines.learninggroup.tlm.vpu import FP16, half

__all__ = ["sparse_forward", "sparse_transposed", "sparse_outer", "kept"]


def kept(srm: SparseRowMemory | None, rows: int, cols: int) -> np.ndarray:
    """The rows x cols boolean mask of a sparse row memory (all True without one)."""
    if srm is None:
        return np.ones((rows, cols), bool)
    if srm.rows != rows or srm.width != cols:
        raise SimError(f"the sparse row memory encodes {srm.rows} x {srm.width}, not the "
                       f"{rows} x {cols} matrix it is used with")
    return srm.mask()


def _chain_rows(products: np.ndarray) -> np.ndarray:
    """FP16 sums down the rows (one chain per column, from +0)."""
    if products.shape[0] == 0:
        return np.zeros(products.shape[1], np.float16)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.cumsum(products, axis=0, dtype=np.float16)[-1] + np.float16(0.0)


def _dataflow(Wr: np.ndarray, x: np.ndarray, keep: np.ndarray,
              allocation: list[np.ndarray] | None, counter) -> np.ndarray:
    rows = Wr.shape[0]
    if x.shape != (rows,):
        raise SimError(f"{rows} rows need {rows} input activations, not {x.shape}")
    if allocation is None:
        allocation = [np.arange(rows)]
    seen = np.sort(np.concatenate([np.asarray(a, np.int64) for a in allocation]))
    if not np.array_equal(seen, np.arange(rows)):
        raise SimError("the allocation must give every row to exactly one core")
    products = FP16.mul(x[:, None], Wr, counter=counter)
    products = np.where(keep, products, np.float16(0.0))
    y = None
    for rows_c in allocation:
        part = _chain_rows(products[np.asarray(rows_c, np.int64)])
        y = part if y is None else FP16.add(y, part, counter=counter)
    return y


def sparse_forward(W, x, srm: SparseRowMemory | None = None,
                   allocation: list[np.ndarray] | None = None, *, counter=None) -> np.ndarray:
    """``y[j] = sum_i x[i] W[i, j] mask[i, j]`` in the cores' FP16 order (module rules).
    Without ``srm`` the layer is dense; without ``allocation`` one core has every row."""
    W, x = half(W, "weights"), half(x, "input")
    if W.ndim != 2:
        raise SimError(f"weights must be an M x N matrix, not shape {W.shape}")
    return _dataflow(W, x, kept(srm, *W.shape), allocation, counter)


def sparse_transposed(W, g, srm_t: SparseRowMemory | None = None,
                      allocation: list[np.ndarray] | None = None, *,
                      counter=None) -> np.ndarray:
    """``d[i] = sum_j g[j] W[i, j] mask[i, j]`` over the transposed sparse row memory
    (rows = the N outputs of W), W read in place."""
    W, g = half(W, "weights"), half(g, "error")
    if W.ndim != 2:
        raise SimError(f"weights must be an M x N matrix, not shape {W.shape}")
    return _dataflow(W.T, g, kept(srm_t, W.shape[1], W.shape[0]), allocation, counter)


def sparse_outer(x, d, srm: SparseRowMemory | None = None, *, counter=None) -> np.ndarray:
    """The weight gradient of the kept weights, ``fp16(x[i] * d[j])`` where the mask is 1
    and 0 elsewhere (masked weights get no gradient, as in FLGW)."""
    x, d = half(x, "input"), half(d, "error")
    keep = kept(srm, x.size, d.size)
    return np.where(keep, FP16.outer(x, d, counter=counter), np.float16(0.0))
