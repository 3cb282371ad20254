"""Classical fourth-order Runge-Kutta integration over one control period.

The plants are continuous-time systems ``y' = f(y, u)`` driven by a controller that holds
its input ``u`` constant for one sample period ``dt`` (zero-order hold). The envs close
over ``u`` and pass an autonomous ``f(y)``; :func:`rk4_step` splits the period into
``substeps`` equal RK4 steps. The Si-lab reference code integrates each 0.02 s period with
MATLAB ``ode45``; He, Ni & Fu (2012) say only "Runge-Kutta". A fixed-step RK4 keeps every
step deterministic and cheap, and the sub-step count is each env's knob for accuracy.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["rk4_step"]


def rk4_step(f: Callable[[np.ndarray], np.ndarray], y: np.ndarray, dt: float,
             substeps: int = 1) -> np.ndarray:
    """Advance ``y' = f(y)`` by ``dt`` with ``substeps`` classical RK4 steps of ``dt/substeps``.

    Returns a new array; ``y`` is not modified. The local error per sub-step is O(h^5), the
    global error O(h^4).
    """
    if substeps < 1:
        raise ValueError(f"substeps must be a positive integer, not {substeps!r}")
    h = dt / substeps
    half = 0.5 * h
    sixth = h / 6.0
    for _ in range(substeps):
        k1 = f(y)
        k2 = f(y + half * k1)
        k3 = f(y + half * k2)
        k4 = f(y + h * k3)
        y = y + sixth * (k1 + 2.0 * (k2 + k3) + k4)
    return y
