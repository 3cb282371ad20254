"""The regression layer (the DARL paper, section 3.3, Fig. 4, eq. 9-10): the value of every action
from the encoded state, by chunks of the hypervector.

The hypervector of D elements is cut into ``D / C`` chunks of ``C`` elements (the paper calls
the chunk size M, a letter it also uses for the batch and the action mask); chunk ``k`` of the
real part meets the ``A x C`` block ``QR[:, k]`` of the model in one systolic array and chunk
``k`` of the imaginary part meets ``QI[:, k]`` in another (``2 D / C`` arrays), and a
reduction adds the ``2 D / C`` partial vectors::

    V[a] = (1 / D) sum_k ( Re_k . QR[a, k] + Im_k . QI[a, k] )  =  Re(conj(E') . Q[a]) / D

This is QHD's value ``Re(H(s)^H M_a) / D``, the model being ``Q = QR + j QI``. Two choices
against the printed eq. 9, both argued in ``machines/darl/README.md``:

* **the sign**: eq. 9 subtracts the imaginary products. With the update of eq. 15-16
  (``QI += V Im``) that makes the value a sum of ``cos(E(s) + E(s_t))`` over past updates,
  which carries no similarity between s and s_t, and HDQL with it does not learn CartPole
  (``machines/darl/README.md``); adding them gives ``cos(E(s) - E(s_t))``, the kernel QHD regresses
  with. ``imag_sign=-1`` computes the printed form.
* **the scale**: eq. 9 normalises every chunk's products by the norms of the chunk and of the
  model block (a cosine similarity per chunk); QHD divides by D. ``norm="dimension"`` (the
  default, any format) divides by D; ``norm="chunk"`` is the printed normalisation, float64
  only (a divider and a square root per chunk and action that the fixed-point datapath of
  Table 1's 17 DSPs does not show); a zero norm makes its term 0.

Fixed point: every product of the arrays is exact, the ``2 D`` products of an action are
summed exactly (the arrays' accumulators and the reduction tree are wide enough:
``accumulator_bits(2 D)`` bits), and the sum is divided by ``2**frac_bits * D`` with one
round-half-up and one saturation, so the chunked result equals the direct sum bit for bit
whatever the chunk size.
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import ArchError

from rlaccel.machines.darl.tlm._fixed import as_dtype, div_round, saturate

__all__ = ["chunks", "regress", "regress_rows", "NORMS"]

#: the value normalisations: QHD's 1/D and the printed eq. 9's per-chunk cosine
NORMS = ("dimension", "chunk")

#: the largest D whose 2 D products of 32-bit operands sum exactly in int64
_MAX_FIXED_D = 1 << 14


def chunks(d: int, chunk: int) -> int:
    """The number of chunks ``d / chunk``; an :class:`ArchError` unless ``chunk`` divides ``d``."""
    for name, v in (("hypervector dimension", d), ("chunk size", chunk)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ArchError(f"regression: the {name} must be a positive integer, not {v!r}")
    if d % chunk:
        raise ArchError(f"regression: a hypervector of dimension {d} does not split into chunks "
                        f"of {chunk} elements ({d} is not a multiple of {chunk}); choose a "
                        f"dimension that is")
    return d // chunk


def _shapes(re, im, qr, qi):
    re, im, qr, qi = (np.asarray(x) for x in (re, im, qr, qi))
    if re.ndim != 1 or im.shape != re.shape or qr.ndim != 2 or qi.shape != qr.shape \
            or qr.shape[1] != re.shape[0]:
        raise ArchError(f"regression: need Re, Im of shape (D,) and QR, QI of shape (A, D), not "
                        f"{re.shape}, {im.shape}, {qr.shape}, {qi.shape}")
    return re, im, qr, qi


def regress(re, im, qr, qi, *, chunk: int, fmt="float64", norm: str = "dimension",
            imag_sign: int = 1, counter=None) -> np.ndarray:
    """The value vector ``V`` (A,) of an encoded state ``(re, im)`` against the model
    ``(qr, qi)`` (A x D each), chunk by chunk (raw in a fixed-point ``fmt``)."""
    re, im, qr, qi = _shapes(re, im, qr, qi)
    d = re.shape[0]
    k = chunks(d, chunk)
    t = as_dtype(fmt)
    if norm not in NORMS:
        raise ArchError(f"regression: norm must be one of {', '.join(NORMS)}, not {norm!r}")
    if imag_sign not in (1, -1):
        raise ArchError(f"regression: imag_sign must be +1 or -1, not {imag_sign!r}")
    if t.is_float:
        return _regress_float(re, im, qr, qi, chunk, k, norm, imag_sign)
    if norm != "dimension":
        raise ArchError(f"regression: the per-chunk cosine of eq. 9 (norm='chunk') is modelled "
                        f"in float64 only, not {t.name}")
    if d > _MAX_FIXED_D:
        raise ArchError(f"regression: D = {d} is beyond the exact int64 sum of this model "
                        f"(D <= {_MAX_FIXED_D})")
    re, im, qr, qi = (np.asarray(x, dtype=np.int64) for x in (re, im, qr, qi))
    # The chunks' partial sums and their reduction are exact, so their total is the whole
    # row's exact sum: one int64 product per part gives it (bounded above, no overflow).
    acc = qr @ re + imag_sign * (qi @ im)
    return saturate(t, div_round(acc, d << t.frac_bits), counter)


def regress_rows(re, im, qr, qi, *, chunk: int, fmt, imag_sign: int = 1,
                 counter=None) -> np.ndarray:
    """:func:`regress` of several encoded states at once, ``re``/``im`` (B, D) against one
    model, in a fixed-point ``fmt``: (B, A), every row bit for bit what :func:`regress` gives
    it (the same exact integer sums and one rounding each)."""
    re, im = np.asarray(re), np.asarray(im)
    if re.ndim != 2 or im.shape != re.shape:
        raise ArchError(f"regression: need Re, Im of shape (B, D), not {re.shape}, {im.shape}")
    t = as_dtype(fmt)
    if t.is_float:
        raise ArchError("regression: regress_rows is the fixed-point path; float64 goes row "
                        "by row through regress (its chunk order)")
    _shapes(re[0], im[0], qr, qi)
    d = re.shape[1]
    chunks(d, chunk)
    if imag_sign not in (1, -1):
        raise ArchError(f"regression: imag_sign must be +1 or -1, not {imag_sign!r}")
    if d > _MAX_FIXED_D:
        raise ArchError(f"regression: D = {d} is beyond the exact int64 sum of this model "
                        f"(D <= {_MAX_FIXED_D})")
    re, im, qr, qi = (np.asarray(x, dtype=np.int64) for x in (re, im, qr, qi))
    acc = re @ qr.T + imag_sign * (im @ qi.T)
    return saturate(t, div_round(acc, d << t.frac_bits), counter)


def _regress_float(re, im, qr, qi, chunk, k, norm, sign):
    re, im, qr, qi = (np.asarray(x, dtype=np.float64) for x in (re, im, qr, qi))
    v = np.zeros(qr.shape[0])
    for j in range(k):
        s = slice(j * chunk, (j + 1) * chunk)
        pr, pi = qr[:, s] @ re[s], qi[:, s] @ im[s]
        if norm == "chunk":
            pr = _cosine(pr, np.linalg.norm(re[s]), np.linalg.norm(qr[:, s], axis=1))
            pi = _cosine(pi, np.linalg.norm(im[s]), np.linalg.norm(qi[:, s], axis=1))
        v += pr + sign * pi
    return v / re.shape[0] if norm == "dimension" else v


def _cosine(dots, nx, nq):
    den = nx * nq
    out = np.zeros_like(dots)
    np.divide(dots, den, out=out, where=den > 0)
    return out
