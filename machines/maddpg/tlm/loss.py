"""The LOSS stage of the value training pipeline (the MADDPG paper, Fig. 4; eq. 2), one sample, fp32.

``y = r + (gamma (1 - d)) q'`` -- the target from the reward, the done flag and the target
value network's output -- and the error the value network's back-propagation starts from,
``delta = (2 / B) (q - y)``, the gradient of the batch's mean squared error. Each operation
is rounded once, in the order written (the float reference computes the same expression).
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes import get_dtype

__all__ = ["td_target", "loss_error"]

_F32 = get_dtype("fp32")


def td_target(r, q_next, done, gamma: float, *, counter=None) -> np.ndarray:
    """``r + (gamma (1 - done)) q_next`` (eq. 2's y), fp32."""
    g = _F32.mul(_F32.quantize(gamma), _F32.sub(np.float32(1.0), done), counter=counter)
    return _F32.add(r, _F32.mul(g, q_next, counter=counter), counter=counter)


def loss_error(q, y, batch: int, *, counter=None) -> np.ndarray:
    """``(2 / B) (q - y)``, fp32 (the scale ``2 / B`` rounded to fp32 first)."""
    return _F32.mul(_F32.quantize(2.0 / batch), _F32.sub(q, y, counter=counter),
                    counter=counter)
