"""The update rules MADDPG applies to a network's gradients, float32.

* :func:`clip_by_norm`: TensorFlow's ``clip_by_norm`` applied to every tensor on its own
  (``W`` and ``b`` of every layer), as openai/maddpg's ``minimize_and_clip``:
  ``g * c / max(||g||_2, c)``.
* :class:`Adam`: TensorFlow 1's ``AdamOptimizer`` (the reference's optimiser):
  ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g^2``,
  ``theta -= lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps)``.
* :class:`Sgd`: ``theta -= lr * g`` (the MADDPG paper, section II-A, names SGD).
* :func:`soft_update`: ``theta' = (1 - tau) theta' + tau theta`` (Algorithm 1, line 14).

Parameters are lists of ``(W, b)`` layers (:mod:`.mlp`) and are updated in place.
"""

from __future__ import annotations

import numpy as np

__all__ = ["clip_by_norm", "Adam", "Sgd", "make_optimizer", "soft_update"]


def clip_by_norm(grads, clip: float | None) -> list:
    """Every tensor of ``grads`` rescaled to an L2 norm of at most ``clip`` (None: unchanged)."""
    if clip is None:
        return grads
    c = np.float32(clip)
    out = []
    for layer in grads:
        clipped = []
        for g in layer:
            norm = np.float32(np.sqrt(np.sum(g.astype(np.float64) ** 2)))
            clipped.append(g * (c / max(norm, c)) if norm > c else g)
        out.append(tuple(clipped))
    return out


class Adam:
    """TensorFlow 1 Adam for one network (state per tensor)."""

    def __init__(self, layers, lr: float, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8):
        self.lr, self.b1, self.b2, self.eps = lr, beta1, beta2, eps
        self.t = 0
        self.m = [tuple(np.zeros_like(p) for p in layer) for layer in layers]
        self.v = [tuple(np.zeros_like(p) for p in layer) for layer in layers]

    def step(self, layers, grads) -> None:
        self.t += 1
        t = self.t
        lr_t = np.float32(self.lr * np.sqrt(1.0 - self.b2 ** t) / (1.0 - self.b1 ** t))
        b1, b2, eps = np.float32(self.b1), np.float32(self.b2), np.float32(self.eps)
        for layer, grad, m, v in zip(layers, grads, self.m, self.v):
            for p, g, mi, vi in zip(layer, grad, m, v):
                mi *= b1
                mi += (1 - b1) * g
                vi *= b2
                vi += (1 - b2) * (g * g)
                p -= lr_t * mi / (np.sqrt(vi) + eps)


class Sgd:
    """Plain gradient descent for one network."""

    def __init__(self, layers, lr: float):
        self.lr = np.float32(lr)
        self.t = 0

    def step(self, layers, grads) -> None:
        self.t += 1
        for layer, grad in zip(layers, grads):
            for p, g in zip(layer, grad):
                p -= self.lr * g


def make_optimizer(cfg, layers):
    """The optimiser ``cfg.optimizer`` names, for ``layers``."""
    if cfg.optimizer == "adam":
        return Adam(layers, cfg.lr, cfg.adam_beta1, cfg.adam_beta2, cfg.adam_eps)
    return Sgd(layers, cfg.lr)


def soft_update(target, source, tau: float) -> None:
    """``target = (1 - tau) * target + tau * source``, in place, tensor by tensor."""
    keep, mix = np.float32(1.0 - tau), np.float32(tau)
    for t_layer, s_layer in zip(target, source):
        for t, s in zip(t_layer, s_layer):
            t *= keep
            t += mix * s
