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
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes import get_dtype

__all__ = ["clip_by_norm", "sgd", "adam", "adam_step", "adam_rate", "soft_update"]

_F32 = get_dtype("fp32")


def clip_by_norm(g, clip: float, *, counter=None) -> np.ndarray:
    """One tensor scaled to an L2 norm of at most ``clip``."""
    g = np.asarray(g, np.float32)
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
    keep, mix = _F32.quantize(1.0 - tau), _F32.quantize(tau)
    return _F32.add(_F32.mul(target, keep, counter=counter),
                    _F32.mul(source, mix, counter=counter), counter=counter)
