"""The LOSS stage of the value training pipeline (the MADDPG paper, Fig. 4; eq. 2), one sample, fp32.

``y = r + (gamma (1 - d)) q'`` -- the target from the reward, the done flag and the target
value network's output -- and the error the value network's back-propagation starts from,
``delta = (2 / B) (q - y)``, the gradient of the batch's mean squared error. Each operation
is rounded once, in the order written (the float reference computes the same expression).
With numba (:mod:`rlaccel.tlm.fast.jit`) a batch of 1-D float32 operands runs compiled, the
same float64 operations each rounded once, used when everything is finite (else the
:mod:`rlaccel.isa.dtypes` operations run, which count saturations).
"""

from __future__ import annotations

import math

import numpy as np

from rlaccel.isa.dtypes import get_dtype
from rlaccel.tlm.fast.jit import HAVE_NUMBA, njit

__all__ = ["td_target", "loss_error"]

_F32 = get_dtype("fp32")


@njit
def _target(r, q_next, done, gamma):
    g0 = np.float32(gamma)
    y = np.empty(r.size, dtype=np.float32)
    ok = math.isfinite(g0)
    for k in range(r.size):
        a = np.float32(np.float64(np.float32(1.0)) - np.float64(done[k]))
        g = np.float32(np.float64(g0) * np.float64(a))
        p = np.float32(np.float64(g) * np.float64(q_next[k]))
        y[k] = v = np.float32(np.float64(r[k]) + np.float64(p))
        ok = (ok and math.isfinite(r[k]) and math.isfinite(q_next[k]) and math.isfinite(done[k])
              and math.isfinite(a) and math.isfinite(g) and math.isfinite(p) and math.isfinite(v))
    return y, ok


@njit
def _error(q, y, scale):
    c = np.float32(scale)
    out = np.empty(q.size, dtype=np.float32)
    ok = math.isfinite(c)
    for k in range(q.size):
        d = np.float32(np.float64(q[k]) - np.float64(y[k]))
        out[k] = v = np.float32(np.float64(c) * np.float64(d))
        ok = (ok and math.isfinite(q[k]) and math.isfinite(y[k]) and math.isfinite(d)
              and math.isfinite(v))
    return out, ok


def _compiled(*arrays) -> bool:
    return HAVE_NUMBA and all(isinstance(a, np.ndarray) and a.dtype == np.float32
                              and a.ndim == 1 and a.size == arrays[0].size for a in arrays)


def td_target(r, q_next, done, gamma: float, *, counter=None) -> np.ndarray:
    """``r + (gamma (1 - done)) q_next`` (eq. 2's y), fp32."""
    if _compiled(r, q_next, done) and isinstance(gamma, float):
        y, ok = _target(r, q_next, done, gamma)
        if ok:
            return y
    g = _F32.mul(_F32.quantize(gamma), _F32.sub(np.float32(1.0), done), counter=counter)
    return _F32.add(r, _F32.mul(g, q_next, counter=counter), counter=counter)


def loss_error(q, y, batch: int, *, counter=None) -> np.ndarray:
    """``(2 / B) (q - y)``, fp32 (the scale ``2 / B`` rounded to fp32 first)."""
    if _compiled(q, y):
        out, ok = _error(q, y, 2.0 / batch)
        if ok:
            return out
    return _F32.mul(_F32.quantize(2.0 / batch), _F32.sub(q, y, counter=counter),
                    counter=counter)
