"""FIXAR's configurable processing element (the FIXAR paper, section V-C, Fig. 5).

Each PE holds two 32x16-bit multipliers. **Full precision** (before the quantization delay):
the 32-bit activation ``a`` is split into its upper and lower 16 bits, ``a = a_hi * 2**16 +
a_lo`` (``a_hi`` signed, ``a_lo`` unsigned), both multipliers take the same 32-bit weight
``w``, and "the output from the upper-bits multiplier is left-shifted and added to the output
of the lower-bits multiplier": ``w * a = (w * a_hi << 16) + w * a_lo``, one exact 32x32
product a cycle. **Half precision** (after the delay): "two 16-bit activations just replace a
single 32-bit activation" in the same 512-bit line, and the two products ``w * a0`` and
``w * a1`` are kept apart, two MACs a cycle.

So one multiplier must take a signed upper half and the other an unsigned lower half; we
model each as a 32 x 17-bit signed multiplier (:data:`MUL_BITS`), which also takes a 16-bit
QAT code minus its zero point (:mod:`.qat`), in ``[-2**16, 2**16)``. Products are exact
(at most 62 bits); the accumulation down a PE column and across tiles is
:func:`.kernels.matmul_round`.

Every function works on Python ints and on int64 numpy arrays alike.
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import DTypeError

__all__ = ["WEIGHT_BITS", "MUL_BITS", "split", "product_full", "products_half"]

#: a weight is a 32-bit signed word (the FIXAR paper: "Weight: Fixed-point 32-bit")
WEIGHT_BITS = 32
#: each of the two multipliers takes a 17-bit signed operand beside the weight
MUL_BITS = 17


def _check(name: str, v, bits: int) -> None:
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    vmin, vmax = (int(np.min(v)), int(np.max(v))) if np.size(v) else (0, 0)
    if vmin < lo or vmax > hi:
        bad = vmin if vmin < lo else vmax
        raise DTypeError(f"PE: {name} = {bad} does not fit {bits}-bit signed "
                         f"[{lo}, {hi}]")


def split(a):
    """``(a_hi, a_lo)`` of a 32-bit activation: ``a_hi = a >> 16`` (arithmetic, signed 16-bit)
    and ``a_lo = a & 0xFFFF`` (unsigned 16-bit), so ``a == a_hi * 2**16 + a_lo``."""
    _check("activation", a, 32)
    return a >> 16, a & 0xFFFF


def product_full(w, a):
    """One 32x32 product from the two 32x16 multipliers: ``(w * a_hi << 16) + w * a_lo``."""
    _check("weight", w, WEIGHT_BITS)
    hi, lo = split(a)
    return ((w * hi) << 16) + w * lo


def products_half(w, a0, a1):
    """The half-precision mode: two products of one weight with two 16-bit operands (17-bit
    signed: a QAT code minus its zero point), kept apart: ``(w * a0, w * a1)``."""
    _check("weight", w, WEIGHT_BITS)
    _check("half-precision operand a0", a0, MUL_BITS)
    _check("half-precision operand a1", a1, MUL_BITS)
    return w * a0, w * a1
