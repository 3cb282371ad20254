"""Fully learnable weight grouping (FLGW; the LearningGroup paper, section III-A and Fig. 4(b)) in numpy.

For a layer of M inputs and N outputs (``y = x W``, ``W`` is M x N, the paper's convention)
and G groups:

* ``IG`` is M x G and ``OG`` is G x N, both learnable and initialised N(0, 1) (as the FLGC
  re-implementation ``Daniil-Osokin/fully-learnable-group-convolution.pytorch``
  ``modules/flgc.py`` does).
* ``IS`` is IG with each row binarised at its maximum, ``OS`` is OG with each column
  binarised at its maximum: one-hot rows and columns. Ties go to the first (lowest) index,
  as a comparator chain that replaces its maximum only on ``>`` would.
* ``mask = IS @ OS`` (M x N): ``mask[i, j] = 1`` iff input i and output j fall in the same
  group, so its density is about 1/G. The layer computes with ``W * mask``: masked weights
  are kept, not zeroed, and come back when the grouping changes.

Training (the FLGC source's rule, which FLGW follows): the binarisation is applied to the
softmax of the grouping matrix (rows of IG, columns of OG), which selects the same maximum,
and its backward pass is straight-through at the selected entry only: the gradient reaching
``IS`` passes unchanged to the softmax output where ``IS`` is 1 and is zero elsewhere, then
flows through the softmax into ``IG``. The weights receive ``dW = dW_eff * mask`` (a masked
weight gets no gradient) and the mask receives ``dmask = dW_eff * W``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["max_index_rows", "max_index_cols", "selection", "mask", "grouping_grads",
           "selected_grads", "softmax"]


def max_index_rows(IG: np.ndarray) -> np.ndarray:
    """The group of each input: argmax over each row of IG (first maximum on ties)."""
    return np.argmax(IG, axis=1)


def max_index_cols(OG: np.ndarray) -> np.ndarray:
    """The group of each output: argmax over each column of OG (first maximum on ties)."""
    return np.argmax(OG, axis=0)


def selection(idx: np.ndarray, groups: int, axis: int, dtype=np.float32) -> np.ndarray:
    """One-hot selection matrix from max indexes: IS (``axis=1``: len(idx) x G) or OS
    (``axis=0``: G x len(idx))."""
    eye = np.eye(groups, dtype=dtype)[np.asarray(idx)]
    return eye if axis == 1 else np.ascontiguousarray(eye.T)


def mask(IG: np.ndarray, OG: np.ndarray, dtype=np.float32) -> np.ndarray:
    """``IS @ OS`` without the product: ``mask[i, j] = (row group i == column group j)``."""
    return (max_index_rows(IG)[:, None] == max_index_cols(OG)[None, :]).astype(dtype)


def softmax(Z: np.ndarray, axis: int) -> np.ndarray:
    """Numerically stable softmax along ``axis`` in the dtype of Z."""
    e = np.exp(Z - Z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def grouping_grads(IG: np.ndarray, OG: np.ndarray,
                   dmask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gradients of IG and OG from the gradient of the mask (straight-through binarised
    softmax; module docstring)."""
    G = IG.shape[1]
    IS = selection(max_index_rows(IG), G, axis=1, dtype=IG.dtype)
    OS = selection(max_index_cols(OG), G, axis=0, dtype=OG.dtype)
    dIS = dmask @ OS.T                          # M x G
    dOS = IS.T @ dmask                          # G x N
    return (_softmax_backward(softmax(IG, 1), dIS * IS, 1),
            _softmax_backward(softmax(OG, 0), dOS * OS, 0))


def selected_grads(x: np.ndarray, d: np.ndarray, W_eff: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The only non-zero entries of ``dIS`` and ``dOS`` for one input ``x`` (M) and output
    gradient ``d`` (N), without the dense ``dmask = outer(x, d) * W``: the straight-through
    rule keeps ``dIS[i, IS(i)] = sum over kept j of x_i d_j W_ij = x_i (W_eff d)_i`` and
    ``dOS[OS(j), j] = d_j (x W_eff)_j``, the products the backward and forward passes
    already compute (so the machine's grouping update is O(M G + G N), not O(M N))."""
    return x * (W_eff @ d), d * (x @ W_eff)


def _softmax_backward(P: np.ndarray, dP: np.ndarray, axis: int) -> np.ndarray:
    """``dZ`` for ``P = softmax(Z)`` along ``axis``."""
    return P * (dP - (dP * P).sum(axis=axis, keepdims=True))
