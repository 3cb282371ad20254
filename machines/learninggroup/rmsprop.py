"""RMSprop as PyTorch implements it (``torch.optim.RMSprop``, no momentum, not centred),
the optimiser of IC3Net's trainer and of the paper (Tieleman & Hinton 2012)::

    v <- alpha v + (1 - alpha) g^2
    p <- p - lr g / (sqrt(v) + eps)

with ``v`` starting at zero; every operation in the parameters' dtype.
"""

from __future__ import annotations

import numpy as np

__all__ = ["RMSprop"]


class RMSprop:
    """One square-average per parameter; :meth:`step` updates the parameters in place."""

    def __init__(self, params: dict[str, np.ndarray], lr: float, alpha: float, eps: float):
        self.lr, self.alpha, self.eps = lr, alpha, eps
        self.square_avg = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray]) -> None:
        for name, g in grads.items():
            p, v = params[name], self.square_avg[name]
            t = p.dtype.type
            v *= t(self.alpha)
            v += t(1.0 - self.alpha) * g * g
            p -= t(self.lr) * g / (np.sqrt(v) + t(self.eps))
