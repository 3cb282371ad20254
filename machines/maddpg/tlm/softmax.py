"""The policy head of the MADDPG paper's learners: the Gumbel-softmax sample of a discrete action
(openai/maddpg's ``SoftCategoricalPd.sample``), and its backward pass, for one sample in fp32.

Forward, with the Gumbel noise ``g`` supplied by the host (see ``machines/maddpg/replay.py``):
``z = logits + g``; ``e_k = exp(z_k - max z)``; ``s = sum_k e_k`` (a MAC chain in index order
from +0); ``y_k = e_k / s``. Every operation is rounded once to fp32 (``exp`` and the
division are computed in float64 and rounded: correctly rounded fp32 results).

Backward (the noise is additive, so it is also the gradient w.r.t. the logits): with
``p = sum_k dy_k y_k`` (a MAC chain), ``dz_k = y_k (dy_k - p)``.

The ``*_rows`` functions do the same for every row of a batch at once (what the head's
instructions run); tests check them against the one-sample functions, bit for bit.
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes import get_dtype

__all__ = ["gumbel_softmax", "softmax_backward", "rowdot", "gumbel_softmax_rows",
           "softmax_backward_rows"]

_F32 = get_dtype("fp32")


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
    z = _F32.add(logits, noise, counter=counter)
    d = _F32.sub(z, np.max(z, axis=1, keepdims=True), counter=counter)
    e = _F32.quantize(np.exp(d.astype(np.float64)), counter=counter)
    s = rowdot(e, np.ones_like(e))
    return _F32.quantize(e.astype(np.float64) / s.astype(np.float64)[:, None],
                         counter=counter)


def softmax_backward_rows(y, dy, *, counter=None) -> np.ndarray:
    """:func:`softmax_backward` of every row of ``(B, n)`` outputs and output gradients."""
    p = rowdot(dy, y)
    return _F32.mul(y, _F32.sub(dy, p[:, None], counter=counter), counter=counter)
