"""Load-immediate operands: a data value <-> the bits of the ``word`` field.

A fixed-point machine's immediate is the raw two's-complement word. Floating-point machines
carry IEEE bit patterns: fp16 in 16 bits, and float64 as a float32 (the field is at most 32
bits wide, see :func:`isa.arch.derive`), so a float64 immediate must be exactly representable
in float32 -- other constants belong in ``.data`` (``.values``).
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import DTypeError

__all__ = ["imm_from_value", "value_from_imm", "raw_from_imm"]


def _float_carrier(dt):
    return np.float16 if dt.bits == 16 else np.float32


def imm_from_value(dt, x: float) -> int:
    """The signed integer stored in the ``word`` field for value ``x`` on format ``dt``."""
    if not dt.is_float:
        return int(dt.quantize(x, strict=True))
    carrier = _float_carrier(dt)
    with np.errstate(over="ignore"):
        v = carrier(x)
    if float(v) != float(x):
        raise DTypeError(f"{x!r} is not exactly representable as a {np.dtype(carrier).name} "
                         f"immediate on a {dt.name} machine; put it in .data with .values")
    bits = int(np.array(v).view(np.int16 if carrier is np.float16 else np.int32))
    return bits


def value_from_imm(dt, imm: int) -> float:
    """The data value an immediate field holds (inverse of :func:`imm_from_value`)."""
    if not dt.is_float:
        return float(dt.to_float(np.int64(imm)))
    carrier = _float_carrier(dt)
    ints = np.array(imm, dtype=np.int16 if carrier is np.float16 else np.int32)
    return float(ints.view(carrier))


def raw_from_imm(dt, imm: int):
    """The raw value (the format's storage type) an immediate loads into memory."""
    if not dt.is_float:
        return np.int64(imm)
    return np.asarray(value_from_imm(dt, imm), dtype=dt.storage)[()]
