"""The encoding layer (the DARL paper, section 3.2, Fig. 3, eq. 1-6): a state of N features to the
real and imaginary parts of a D-wide complex hypervector.

* eq. 1-2, multiply and reduce: ``E_j = sum_i s_i P_ij`` with the position matrix ``P``
  (N x D, entries N(0, 1) radians, as the QHD code draws them);
* eq. 3-6, the kernel: ``Re_j = cos E_j``, ``Im_j = sin E_j``.

In float64 this is plain numpy. In fixed point (:meth:`Encoder.encode`) the position matrix is
stored **in turns**, ``P / (2 pi)`` rounded to the data format, so ``E`` comes out in turns and
the triangle codebook (:class:`~.codebook.Codebook`) takes its fraction bits as the address;
each ``E_j`` is an exact sum of the N products with one rounding and one saturation
(:meth:`~rlaccel.isa.dtypes.FixedType.matvec`), the reduction tree of Fig. 3 process 2. A
state feature or phase beyond q16.16's +-32768 saturates (counted by the format); the
environments here stay far inside it.
"""

from __future__ import annotations

import math

import numpy as np

from rlaccel.isa.dtypes import FixedType, get_dtype
from rlaccel.util.errors import ArchError

from rlaccel.machines.darl.tlm.codebook import Codebook

__all__ = ["position_matrix", "encode_float", "Encoder"]


def position_matrix(n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """The position hypervectors ``P`` (n x d), float64 N(0, 1) radians, drawn from ``rng``."""
    for name, v in (("state features", n), ("hypervector dimension", d)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ArchError(f"encoder: the {name} must be a positive integer, not {v!r}")
    return rng.standard_normal((int(n), int(d)))


def encode_float(states, P) -> tuple[np.ndarray, np.ndarray]:
    """``(cos(s P), sin(s P))`` for one state (n,) or a batch (B, n), in float64."""
    e = np.asarray(states, dtype=np.float64) @ P
    return np.cos(e), np.sin(e)


class Encoder:
    """The fixed-point encoder: position matrix in turns plus a triangle codebook.

    ``P`` -- the float64 position matrix in radians (:func:`position_matrix`); ``fmt`` -- the
    data format; ``codebook`` -- a :class:`~.codebook.Codebook` of the same format (one with
    every fraction bit as address by default).
    """

    def __init__(self, P, fmt="fixed32", codebook: Codebook | None = None):
        fmt = get_dtype(fmt) if isinstance(fmt, str) else fmt
        if not isinstance(fmt, FixedType):
            raise ArchError(f"the codebook encoder computes in fixed point, not {fmt.name} "
                            f"(use encode_float for float64)")
        self.fmt = fmt
        self.codebook = codebook or Codebook(fmt)
        if self.codebook.fmt is not fmt:
            raise ArchError(f"encoder: the codebook holds {self.codebook.fmt.name} words but the "
                            f"encoder computes in {fmt.name}")
        P = np.asarray(P, dtype=np.float64)
        if P.ndim != 2:
            raise ArchError(f"encoder: the position matrix must be n x d, not shape {P.shape}")
        self.n, self.d = P.shape
        #: the stored position matrix, transposed (d x n) for the reduction, raw, in turns
        self.P_turns_T = fmt.quantize(P.T / (2.0 * math.pi))

    def phase(self, s_raw, *, counter=None) -> np.ndarray:
        """``E`` in turns (raw, (d,) or (d, B)) of raw states (n,) or columns (n, B)."""
        s = np.asarray(s_raw)
        if s.shape[0] != self.n:
            raise ArchError(f"encoder: a state of {s.shape[0]} features for a position matrix "
                            f"of {self.n}")
        return self.fmt.matvec(self.P_turns_T, s, counter=counter)

    def encode(self, s_raw, *, counter=None) -> tuple[np.ndarray, np.ndarray]:
        """Raw ``(Re, Im)`` of raw states: (d,) each for a state (n,), (d, B) for (n, B)."""
        return self.codebook.lookup(self.phase(s_raw, counter=counter))
