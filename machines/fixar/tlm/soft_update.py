"""The soft target update of DDPG, ``theta' <- tau * theta + (1 - tau) * theta'`` (Lillicrap et
al. 2016; the FIXAR paper names target networks only through DDPG).

On the fixed-point machine it is one multiply per word (:func:`soft_update_fixed`)::

    theta' <- sat(theta' + round_half_up(tau_raw * (theta - theta') / 2**TAU_FRAC))

with ``tau`` held as an unsigned fraction of :data:`TAU_FRAC` bits (0.001 is 16777 / 2**24,
1.3e-5 relative error) and the difference exact (33 bits). A consequence the float update
does not have: a target word stops moving once ``|theta - theta'| < 2**(TAU_FRAC-1) /
tau_raw`` LSBs of the weight format (500 LSBs for tau = 0.001), so targets trail the online
weights by up to ``0.5 / tau`` LSBs; ``machines/fixar/README.md`` discusses it.

The simulator's ``soft`` instruction updates the target words in place
(:func:`soft_update_inplace`: with numba one compiled pass of the same int64 operations).
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import DTypeError
from rlaccel.tlm.fast.jit import HAVE_NUMBA, njit

from rlaccel.machines.fixar.tlm.kernels import NO_MIRROR, i2f, saturate

__all__ = ["TAU_FRAC", "tau_raw", "soft_update_float", "soft_update_fixed", "soft_update_raw",
           "soft_update_inplace"]

#: fraction bits of the tau register
TAU_FRAC = 24


def tau_raw(tau: float) -> int:
    """``tau`` as the unit's register: ``round(tau * 2**TAU_FRAC)``, in ``(0, 2**TAU_FRAC]``."""
    r = int(np.floor(tau * (1 << TAU_FRAC) + 0.5))
    if not 0 < r <= 1 << TAU_FRAC:
        raise DTypeError(f"soft update: tau = {tau} is outside (0, 1] at {TAU_FRAC} "
                         f"fraction bits")
    return r


def soft_update_float(target, source, tau: float):
    """``(1 - tau) * target + tau * source`` in the arrays' own float type (a new array)."""
    t = np.asarray(target)
    f = t.dtype.type
    return f(1.0 - tau) * t + f(tau) * np.asarray(source, dtype=t.dtype)


def soft_update_fixed(target_raw, source_raw, tau: float, fmt, *, counter=None):
    """The fixed-point soft update of raw words in ``fmt`` (a new array)."""
    return soft_update_raw(target_raw, source_raw, tau_raw(tau), fmt, counter=counter)


def soft_update_raw(target_raw, source_raw, traw: int, fmt, *, counter=None):
    """:func:`soft_update_fixed` with tau given as the unit's register ``traw`` (the integer
    ``tau * 2**TAU_FRAC``, in ``1 .. 2**TAU_FRAC``)."""
    if not 0 < traw <= 1 << TAU_FRAC:
        raise DTypeError(f"soft update: the tau register holds {traw}, outside 1.."
                         f"{1 << TAU_FRAC}")
    t = np.asarray(target_raw, dtype=np.int64)
    d = np.asarray(source_raw, dtype=np.int64) - t
    step = (d * np.int64(traw) + np.int64(1 << (TAU_FRAC - 1))) >> np.int64(TAU_FRAC)
    return saturate(t + step, int(fmt.min_raw), int(fmt.max_raw), counter)


@njit
def _soft_pass(T, S, traw, half, lo, hi, F, mirror):
    """:func:`soft_update_raw` into ``T`` itself, element by element (with ``mirror`` the
    new words' float64 copies into ``F``); returns the number of saturated words and the
    new ``max|T|``."""
    clipped = 0
    top = 0
    for i in range(T.shape[0]):             # branch-free (min, max): the loop vectorises
        t = T[i]
        v = t + (((S[i] - t) * traw + half) >> TAU_FRAC)
        y = min(max(v, lo), hi)
        clipped += y != v
        T[i] = y
        if mirror:                          # (unswitched: a loop for each case)
            F[i] = i2f(y)                   # a weight word: exact
        top = max(top, abs(y))
    return clipped, top


def soft_update_inplace(T: np.ndarray, S: np.ndarray, traw: int, fmt, *, counter=None,
                        mirror=None) -> int | None:
    """``T[...] = soft_update_raw(T, S, traw, fmt)`` for int64 word arrays ``T`` and ``S``
    that do not overlap (with numba in one pass, without temporaries). With ``mirror``
    (float64, ``T``'s length, not overlapping it) the new words' float64 copies go there
    too and ``max|T|`` is returned; None when the mirror was not written."""
    if not (HAVE_NUMBA and T.dtype == np.int64 and S.dtype == np.int64
            and not np.may_share_memory(T, S)):
        T[...] = soft_update_raw(T, S, traw, fmt, counter=counter)
        return None
    if not 0 < traw <= 1 << TAU_FRAC:
        raise DTypeError(f"soft update: the tau register holds {traw}, outside 1.."
                         f"{1 << TAU_FRAC}")
    clipped, top = _soft_pass(T, S, np.int64(traw), np.int64(1 << (TAU_FRAC - 1)),
                              np.int64(fmt.min_raw), np.int64(fmt.max_raw),
                              NO_MIRROR if mirror is None else mirror, mirror is not None)
    if clipped and counter is not None:
        counter.saturations += int(clipped)
    return None if mirror is None else int(top)
