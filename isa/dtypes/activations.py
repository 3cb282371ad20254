"""The activation functions: their ISA order, exact float forms and derivatives.

``ACTIVATIONS`` is the order the ISA encodes (the activation field holds the index).

==========  ==============================  ===========================  =====================
name        f(v)                            derivative from y = f(v)     float64 expression
==========  ==============================  ===========================  =====================
none        v                               1                            ``v``
tanh        tanh(v)                         1 - y^2                      ``np.tanh(v)``
sigmoid     1 / (1 + e^-v)                  y (1 - y)                    ``1 / (1 + np.exp(-v))``
relu        max(v, 0)                       1 if y > 0 else 0            ``np.maximum(v, 0)``
bsig        (1 - e^-v) / (1 + e^-v)         (1 - y^2) / 2                ``np.tanh(v / 2)``
==========  ==============================  ===========================  =====================

``bsig`` is the bipolar sigmoid of Si & Wang's ADHDP, equal to tanh(v/2).
"""

from __future__ import annotations

from decimal import ROUND_FLOOR, Context, Decimal

import numpy as np

from rlaccel.util.errors import DTypeError

__all__ = ["ACTIVATIONS", "PWL_FUNCTIONS", "activation_name", "float_activate",
           "float_derivative"]

ACTIVATIONS = ("none", "tanh", "sigmoid", "relu", "bsig")

#: The activations fixed point evaluates with a :class:`~isa.dtypes.PwlTable`.
PWL_FUNCTIONS = ("tanh", "sigmoid", "bsig")


def activation_name(name) -> str:
    """The activation's name from its name (any case) or its ISA index."""
    if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
        if 0 <= name < len(ACTIVATIONS):
            return ACTIVATIONS[int(name)]
        raise DTypeError(
            f"activation index {int(name)} is out of range: valid indices are 0 to "
            f"{len(ACTIVATIONS) - 1} ({', '.join(ACTIVATIONS)})"
        )
    if name in ACTIVATIONS:                 # the common case, a canonical name
        return name
    if isinstance(name, str) and name.strip().lower() in ACTIVATIONS:
        return name.strip().lower()
    raise DTypeError(f"unknown activation {name!r}: valid names are {', '.join(ACTIVATIONS)}")


def float_activate(name: str, v: np.ndarray) -> np.ndarray:
    """The exact activation on a float64 array (the expressions in the module table)."""
    if name == "none":
        return v.copy()
    if name == "tanh":
        return np.tanh(v)
    if name == "sigmoid":
        with np.errstate(over="ignore"):
            return 1.0 / (1.0 + np.exp(-v))
    if name == "relu":
        return np.maximum(v, 0.0)
    if name == "bsig":
        return np.tanh(v / 2.0)
    raise DTypeError(f"unknown activation {name!r}")  # pragma: no cover - names are resolved


def float_derivative(name: str, y: np.ndarray) -> np.ndarray:
    """The derivative from the activation output y, in float64 (module table)."""
    if name == "none":
        return np.ones_like(y)
    if name == "tanh":
        return 1.0 - y * y
    if name == "sigmoid":
        return y * (1.0 - y)
    if name == "relu":
        return (y > 0).astype(y.dtype)
    if name == "bsig":
        return (1.0 - y * y) / 2.0
    raise DTypeError(f"unknown activation {name!r}")  # pragma: no cover - names are resolved


# ---------------------------------------------------------------------------------------------
# Platform-independent constants for PWL tables: 60-digit decimal arithmetic, whose exp() is
# correctly rounded, so a table's raw constants never depend on the host's libm.
_CTX = Context(prec=60)


def _decimal_value(name: str, x: Decimal) -> Decimal:
    c = _CTX
    if name == "tanh":
        e = c.exp(c.multiply(-2, x))
        return c.divide(c.subtract(1, e), c.add(1, e))
    if name == "bsig":
        e = c.exp(c.minus(x))
        return c.divide(c.subtract(1, e), c.add(1, e))
    if name == "sigmoid":
        return c.divide(1, c.add(1, c.exp(c.minus(x))))
    raise DTypeError(f"no PWL table for activation {name!r}: tables exist for "
                     f"{', '.join(PWL_FUNCTIONS)}")


def exact_raw(name: str, x_raw: int, frac_bits: int) -> int:
    """floor(f(x) * 2^N + 1/2) for x = x_raw * 2^-N, computed in 60-digit decimal arithmetic."""
    scale = Decimal(2) ** frac_bits
    x = _CTX.divide(Decimal(x_raw), scale)
    v = _CTX.add(_CTX.multiply(_decimal_value(name, x), scale), Decimal("0.5"))
    return int(v.to_integral_value(rounding=ROUND_FLOOR))
