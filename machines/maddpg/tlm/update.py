"""Applying a batch's accumulated gradients and moving the target networks, in fp32 (seed
003: the WU stages accumulate per sample; these run once per batch, Algorithm 1 lines 11-14).

Each operation is rounded once, in the order written:

* :func:`clip_by_norm` -- ``g * (c / max(||g||, c))`` per tensor, ``||g||`` the square root of
  an fp32 MAC chain of ``g^2`` in index order (openai/maddpg clips every tensor to 0.5);
* :func:`sgd` -- ``W - lr g`` (the paper names SGD);
* :func:`adam` -- TensorFlow 1 Adam (openai/maddpg): ``m = b1 m + (1 - b1) g``,
  ``v = b2 v + (1 - b2) (g g)``, ``W - (lr_t m) / (sqrt(v) + eps)`` with
  ``lr_t = lr sqrt(1 - b2^t) / (1 - b1^t)`` computed in float64 and rounded once (a
  per-batch constant the controller loads), ``1 - b1`` and ``1 - b2`` computed in fp32;
* :func:`soft_update` -- ``(1 - tau) W' + tau W`` with ``1 - tau`` rounded once.

With numba (:mod:`rlaccel.tlm.fast.jit`) :func:`clip_by_norm`, :func:`adam_step` and
:func:`soft_update` run compiled on 1-D float32 operands, in one pass over the tensor instead
of a dozen whole-array operations, hand-written so that every element goes through the same
float64 operations, each rounded once to float32, in the same order (the sum of squares in
float32, as the MAC chain). A compiled result is used only when every operand, constant and
intermediate result is finite, so that the :mod:`rlaccel.isa.dtypes` operations would have
counted no saturation either; otherwise (and without numba) the whole-array operations run
and count the overflows. Tests compare both paths bit for bit.
"""

from __future__ import annotations

import math

import numpy as np

from rlaccel.isa.dtypes import get_dtype
from rlaccel.tlm.fast.jit import HAVE_NUMBA, njit

__all__ = ["clip_by_norm", "sgd", "adam", "adam_step", "adam_rate", "soft_update"]

_F32 = get_dtype("fp32")


# ---- compiled passes (module docstring): float64 in, every result rounded to float32 --------
@njit
def _r(x):
    return np.float32(x)


@njit
def _clip(g, clip):
    """``(out, scaled, finite)``: clip_by_norm of ``g``; ``scaled`` False when ``g`` is kept."""
    c = _r(clip)
    ok = math.isfinite(c)
    acc = np.float32(0.0)
    for x in g:
        ok = ok and math.isfinite(x)
        acc = acc + _r(np.float64(x) * np.float64(x))
    norm = _r(math.sqrt(np.float64(acc + np.float32(0.0))))
    ok = ok and math.isfinite(norm)
    if not ok or norm <= c:
        return g, False, ok
    if norm == 0:                      # c < 0: numba would raise where numpy divides by zero
        return g, False, False
    scale = _r(np.float64(c) / np.float64(norm))
    ok = math.isfinite(scale)
    out = np.empty_like(g)
    for i in range(g.size):
        out[i] = y = _r(np.float64(g[i]) * np.float64(scale))
        ok = ok and math.isfinite(y)
    return out, True, ok


@njit
def _adam(W, g, m, v, lr_t, beta1, beta2, eps):
    """``(W, m, v, finite)`` of adam_step."""
    lr, b1, b2, e = _r(lr_t), _r(beta1), _r(beta2), _r(eps)
    c1 = _r(np.float64(np.float32(1.0)) - np.float64(b1))
    c2 = _r(np.float64(np.float32(1.0)) - np.float64(b2))
    ok = True
    for x in (lr, b1, b2, e, c1, c2):
        ok = ok and math.isfinite(x)
    Wn, mn, vn = np.empty_like(W), np.empty_like(m), np.empty_like(v)
    for i in range(W.size):
        gi = np.float64(g[i])
        p = _r(np.float64(m[i]) * np.float64(b1))
        q = _r(np.float64(c1) * gi)
        mn[i] = mi = _r(np.float64(p) + np.float64(q))
        p2 = _r(np.float64(v[i]) * np.float64(b2))
        gg = _r(gi * gi)
        q2 = _r(np.float64(c2) * np.float64(gg))
        vn[i] = vi = _r(np.float64(p2) + np.float64(q2))
        if vi < 0:                     # NaN in numpy; math.sqrt raises in plain Python
            return Wn, mn, vn, False
        root = _r(math.sqrt(np.float64(vi)))
        num = _r(np.float64(lr) * np.float64(mi))
        den = _r(np.float64(root) + np.float64(e))
        if den == 0:                   # numba would raise where numpy divides by zero
            return Wn, mn, vn, False
        step = _r(np.float64(num) / np.float64(den))
        Wn[i] = wi = _r(np.float64(W[i]) - np.float64(step))
        ok = (ok and math.isfinite(W[i]) and math.isfinite(gi) and math.isfinite(m[i])
              and math.isfinite(v[i]) and math.isfinite(p) and math.isfinite(q)
              and math.isfinite(mi) and math.isfinite(p2) and math.isfinite(gg)
              and math.isfinite(q2) and math.isfinite(vi) and math.isfinite(root)
              and math.isfinite(num) and math.isfinite(den) and math.isfinite(step)
              and math.isfinite(wi))
    return Wn, mn, vn, ok


@njit
def _soft(target, source, keep, tau):
    """``(out, finite)`` of soft_update (``keep`` is ``1 - tau`` in float64)."""
    k, t = _r(keep), _r(tau)
    ok = math.isfinite(k) and math.isfinite(t)
    out = np.empty_like(target)
    for i in range(target.size):
        a = _r(np.float64(target[i]) * np.float64(k))
        b = _r(np.float64(source[i]) * np.float64(t))
        out[i] = y = _r(np.float64(a) + np.float64(b))
        ok = (ok and math.isfinite(target[i]) and math.isfinite(source[i])
              and math.isfinite(a) and math.isfinite(b) and math.isfinite(y))
    return out, ok


_FLOAT32 = np.dtype(np.float32)


def _compiled(*arrays) -> bool:
    """Whether the compiled pass takes these operands: 1-D float32 arrays of one size."""
    if not HAVE_NUMBA:
        return False
    n = -1
    for a in arrays:
        if type(a) is not np.ndarray or a.dtype != _FLOAT32 or a.ndim != 1 or \
                (n >= 0 and a.size != n):
            return False
        n = a.size
    return True


def _real(*xs) -> bool:
    """Whether the constants are plain real scalars (the compiled pass takes them as float64)."""
    for x in xs:
        if type(x) is float:
            continue
        if not (isinstance(x, (int, np.floating, np.integer)) and not isinstance(x, bool)
                or (isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "fiu")):
            return False
    return True


# ---- the operations ---------------------------------------------------------------------------
def clip_by_norm(g, clip: float, *, counter=None) -> np.ndarray:
    """One tensor scaled to an L2 norm of at most ``clip``."""
    g = np.asarray(g, np.float32)
    if _compiled(g) and _real(clip):
        out, scaled, ok = _clip(g, float(clip))
        if ok:
            return out if scaled else g
    c = _F32.quantize(clip)
    norm = _F32.quantize(np.sqrt(np.float64(_F32.sumsq(g.reshape(-1), counter=counter))))
    if norm <= c:
        return g
    scale = _F32.quantize(np.float64(c) / np.float64(norm))
    return _F32.mul(g, scale, counter=counter)


def sgd(W, g, lr: float, *, counter=None) -> np.ndarray:
    """``W - lr g``."""
    return _F32.sub(W, _F32.mul(_F32.quantize(lr), g, counter=counter), counter=counter)


def adam_rate(lr: float, t: int, beta1: float = 0.9, beta2: float = 0.999) -> np.ndarray:
    """Step ``t``'s ``lr_t`` (t from 1), float64 rounded once to fp32."""
    return _F32.quantize(lr * np.sqrt(1.0 - beta2 ** t) / (1.0 - beta1 ** t))


def adam(W, g, m, v, t: int, lr: float, beta1: float = 0.9, beta2: float = 0.999,
         eps: float = 1e-8, *, counter=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One Adam step at step ``t``: returns the new ``(W, m, v)``."""
    return adam_step(W, g, m, v, adam_rate(lr, t, beta1, beta2), beta1, beta2, eps,
                     counter=counter)


def adam_step(W, g, m, v, lr_t, beta1=0.9, beta2=0.999, eps=1e-8, *,
              counter=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One Adam step with the step's rate ``lr_t`` given (:func:`adam_rate`; the machine's
    host sends it with every batch): returns the new ``(W, m, v)``."""
    if _compiled(W, g, m, v) and _real(lr_t, beta1, beta2, eps):
        Wn, mn, vn, ok = _adam(W, g, m, v, float(lr_t), float(beta1), float(beta2), float(eps))
        if ok:
            return Wn, mn, vn
    b1, b2, e = _F32.quantize(beta1), _F32.quantize(beta2), _F32.quantize(eps)
    one = np.float32(1.0)
    m = _F32.add(_F32.mul(m, b1, counter=counter),
                 _F32.mul(_F32.sub(one, b1), g, counter=counter), counter=counter)
    v = _F32.add(_F32.mul(v, b2, counter=counter),
                 _F32.mul(_F32.sub(one, b2), _F32.mul(g, g, counter=counter), counter=counter),
                 counter=counter)
    root = _F32.quantize(np.sqrt(v.astype(np.float64)))
    step = _F32.quantize(_F32.mul(_F32.quantize(lr_t), m, counter=counter)
                         .astype(np.float64) / _F32.add(root, e).astype(np.float64),
                         counter=counter)
    return _F32.sub(W, step, counter=counter), m, v


def soft_update(target, source, tau: float, *, counter=None) -> np.ndarray:
    """``(1 - tau) target + tau source``."""
    if _compiled(target, source) and _real(tau):
        out, ok = _soft(target, source, 1.0 - tau, float(tau))
        if ok:
            return out
    keep, mix = _F32.quantize(1.0 - tau), _F32.quantize(tau)
    return _F32.add(_F32.mul(target, keep, counter=counter),
                    _F32.mul(source, mix, counter=counter), counter=counter)
