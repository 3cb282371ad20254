"""FIXAR's activation unit: ReLU and the actor's output tanh (the FIXAR paper, V-A and VI-B), forward
and backward, in fixed point.

The forward tanh is the project's PWL table (:class:`rlaccel.isa.dtypes.PwlTable`: uniform
segments on ``[0, xmax)``, ``f(xmax)`` beyond). Its **derivative for back-propagation** is
the derivative of that table, taken from the pre-activation ``z``: the slope of ``z``'s
segment inside ``[-xmax, xmax)`` and **zero beyond**.

The other choice, ``1 - y^2`` from the output ``y`` (what ``FixedType.derivative`` does, and
what the ADHDP chip uses), never reaches zero on a PWL table: beyond ``xmax`` (4 for tanh)
``y`` is ``f(4) = 0.99933`` and ``1 - y^2 = 0.00134``. When the critic keeps asking for more
action at the bound, a float actor's gradient vanishes as ``tanh`` saturates, but this one
keeps pushing the pre-activation outward at a constant rate, and on HalfCheetah the actor's
hidden activations grew until they saturated q16.16 (``machines/fixar/README.md``, section 10).
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes.activations import activation_name

__all__ = ["activate", "derivative"]


def activate(fmt, name, z, *, segments: int | None = None, counter=None) -> np.ndarray:
    """The activation unit's output for raw pre-activations ``z`` in ``fmt``."""
    return fmt.activate(name, z, segments=segments, counter=counter)


def derivative(fmt, name, z, *, segments: int | None = None) -> np.ndarray:
    """``f'(z)`` as raw ``fmt`` words, from the pre-activation: ReLU ``[z > 0]``, none 1,
    tanh/sigmoid/bsig the slope of the PWL segment holding ``z`` (zero at and beyond
    ``xmax``; the table is symmetric, so the slope at ``|z|``)."""
    name = activation_name(name)
    z = np.asarray(z, dtype=np.int64)
    one = np.int64(1 << fmt.frac_bits)
    if name == "none":
        return np.full(z.shape, one)
    if name == "relu":
        return np.where(z > 0, one, np.int64(0))
    table = fmt.pwl(name, segments)
    az = np.abs(z)
    inside = az < table.xmax_raw
    idx = np.searchsorted(table.breaks, np.minimum(az, table.xmax_raw - 1), side="right") - 1
    return np.where(inside, table.slopes[idx], np.int64(0))
