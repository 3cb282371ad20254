"""The updating layer (the DARL paper, section 3.4, Fig. 5, eq. 11-16): select, the update value and
the update hypervectors.

* select (Fig. 5a, eq. 11): with no action marked in the mask, the greedy action,
  ``argmax_a V[a]`` of the value vector the host infers with (the lowest index among equal
  values, as a comparator chain that replaces only on "greater" keeps it);
  :func:`select` also returns ``q_pred`` (eq. 12): the marked action's value, 0 if none.
* update value (Fig. 5b, eq. 14): ``V_update = beta * (r + gamma * q_true - q_pred)`` with
  ``q_true = max_a' V_Q'(s')[a']``, the delayed model's best value of the next state. This is
  QHD's temporal-difference step; the printed eq. 13-14 (``q_true`` the marked entry of
  ``V_Q'`` of the same state, ``(q_true - q_pred) beta + r``) has neither the next state nor
  the discount, so it would not back values up (``machines/darl/README.md``).
* update hypervectors (Fig. 5c, eq. 15-16): ``UR = V_update * Re``, ``UI = V_update * Im``
  for the marked action's row, pushed into the update cache (:mod:`.update_cache`).

Fixed point: ``g = gamma * q_true`` (one rounding), ``t = r + g``, ``e = t - q_pred``,
``V_update = beta * e`` (one rounding), each step saturating; ``UR``, ``UI`` are elementwise
products, each rounded once (:meth:`~rlaccel.isa.dtypes.FixedType.mul`). In float64 the same
order of operations.
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import ArchError

from rlaccel.machines.darl.tlm._fixed import as_dtype

__all__ = ["select", "greedy", "update_value", "update_hypervectors"]


def greedy(v) -> int:
    """``argmax_a v[a]``, the lowest index among equal maxima (eq. 11)."""
    v = np.asarray(v)
    if v.ndim != 1 or not v.size:
        raise ArchError(f"select: a value vector of one or more actions, not shape {v.shape}")
    return int(np.argmax(v))


def select(v, mask) -> tuple[int, object]:
    """Eq. 11-12: ``(index, q_pred)``. No action marked: ``(argmax v, 0)``; exactly one
    marked: ``(-1, v[marked])``. More than one marked is an error (the host marks one)."""
    v = np.asarray(v)
    m = np.asarray(mask, dtype=bool)
    if m.shape != v.shape:
        raise ArchError(f"select: an action mask of shape {m.shape} for {v.shape} values")
    marked = np.flatnonzero(m)
    if marked.size == 0:
        return greedy(v), v.dtype.type(0)
    if marked.size > 1:
        raise ArchError(f"select: the action mask marks {marked.size} actions "
                        f"({marked.tolist()}); a training sample marks exactly one")
    return -1, v[marked[0]]


def update_value(q_pred, q_true, r, *, beta, gamma, fmt="float64", counter=None):
    """``beta * ((r + gamma * q_true) - q_pred)`` (eq. 14 as QHD computes it). In a
    fixed-point ``fmt`` every argument is raw (``beta``, ``gamma`` and ``r`` quantized by the
    caller, as the host writes them) and so is the result."""
    t = as_dtype(fmt)
    if t.is_float:
        return float(beta) * ((float(r) + float(gamma) * float(q_true)) - float(q_pred))
    g = t.mul(gamma, q_true, counter=counter)
    e = t.sub(t.add(r, g, counter=counter), q_pred, counter=counter)
    return t.mul(beta, e, counter=counter)


def update_hypervectors(v_update, re, im, *, fmt="float64", counter=None):
    """Eq. 15-16: ``(V_update * Re, V_update * Im)``, raw in a fixed-point ``fmt``."""
    t = as_dtype(fmt)
    if t.is_float:
        v = float(v_update)
        return v * np.asarray(re, dtype=np.float64), v * np.asarray(im, dtype=np.float64)
    return t.mul(v_update, re, counter=counter), t.mul(v_update, im, counter=counter)
