"""The printed form of the DARL paper's algorithm (section 3.3-3.4): eq. 9-10's value, a
cosine per chunk with the imaginary part subtracted, and eq. 13-14's update on the same
state, in the machine's number format.

* value (eq. 9-10): ``V[a] = sum_k Re_k . QR[a, k] / (||Re_k|| ||QR[a, k]||) -
  Im_k . QI[a, k] / (||Im_k|| ||QI[a, k]||)`` over the ``D / C`` chunks; a zero norm makes
  its term 0 (the models start at zero);
* q_true (eq. 13): the marked action's entry of ``V_Q'`` of the *same* state, so one
  encoding serves both models and the iteration needs no ``s'``;
* update value (eq. 14): ``V_update = (q_true - q_pred) beta + r``.

Fixed point (:func:`regress_cosine`): each chunk's dot products are exact integer sums of
the raw products; the squared norms, their square roots, the product of the norms, the
division and the sum over the chunks are IEEE float64 in a fixed order (the elements of a
chunk in turn, then the chunks in turn), which :mod:`.kernels` repeats operation for
operation, and the total is rounded half up into the format and saturated once. So the
value is the printed cosine to float64's precision, landing in q16.16 like every other
value; a datapath would compute it with square-root and divider units whose own rounding
the paper does not give. The update value (:func:`update_value_printed`):
``e = q_true - q_pred``, ``m = beta e`` (one rounding), ``V_update = m + r``, every step
saturating, as :func:`.updating.update_value` does for QHD's form.
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import ArchError
from rlaccel.machines.darl.tlm._fixed import as_dtype
from rlaccel.machines.darl.tlm.regression import chunks, regress

__all__ = ["regress_cosine", "update_value_printed", "cosine_cycles", "printed_cycles",
           "cosine_actions"]


def _seq_squares(x: np.ndarray) -> np.ndarray:
    """``sum_j x[..., j]**2`` in float64, the elements added in turn (the kernels' order)."""
    x = x.astype(np.float64)
    acc = np.zeros(x.shape[:-1])
    for j in range(x.shape[-1]):
        acc = acc + x[..., j] * x[..., j]
    return acc


def _cosines(dots: np.ndarray, nx: np.ndarray, nq: np.ndarray) -> np.ndarray:
    den = np.sqrt(nx) * np.sqrt(nq)
    out = np.zeros(den.shape)
    np.divide(dots.astype(np.float64), den, out=out, where=den > 0)
    return out


def regress_cosine(re, im, qr, qi, *, chunk: int, fmt="float64", counter=None) -> np.ndarray:
    """Eq. 9-10 as printed: the value vector ``V`` (A,) of ``(re, im)`` against ``(qr, qi)``
    (raw in a fixed-point ``fmt``; float64 is :func:`.regression.regress` with
    ``norm="chunk"`` and the minus sign)."""
    t = as_dtype(fmt)
    if t.is_float:
        return regress(re, im, qr, qi, chunk=chunk, fmt=t, norm="chunk", imag_sign=-1)
    re, im, qr, qi = (np.asarray(x, dtype=np.int64) for x in (re, im, qr, qi))
    if re.ndim != 1 or qr.ndim != 2 or qr.shape[1] != re.shape[0] or im.shape != re.shape \
            or qi.shape != qr.shape:
        raise ArchError(f"regression: need Re, Im of shape (D,) and QR, QI of shape (A, D), not "
                        f"{re.shape}, {im.shape}, {qr.shape}, {qi.shape}")
    k = chunks(re.shape[0], chunk)
    n_a = qr.shape[0]
    terms = np.zeros((n_a, k))
    for sign, x, q in ((1.0, re, qr), (-1.0, im, qi)):
        xc, qc = x.reshape(k, chunk), q.reshape(n_a, k, chunk)
        dots = (qc * xc[None]).sum(axis=2)                 # exact: |products| < 2**47
        c = _cosines(dots, _seq_squares(xc)[None], _seq_squares(qc))
        terms = terms + c if sign > 0 else terms - c
    total = np.array([np.add.accumulate(row)[-1] for row in terms])
    return t.quantize(total, counter=counter)


def update_value_printed(q_pred, q_true, r, *, beta, fmt="float64", counter=None):
    """Eq. 14 as printed: ``(q_true - q_pred) beta + r`` (raw in a fixed-point ``fmt``, with
    ``beta`` and ``r`` quantized by the caller as the host writes them)."""
    t = as_dtype(fmt)
    if t.is_float:
        return (float(q_true) - float(q_pred)) * float(beta) + float(r)
    e = t.sub(q_true, q_pred, counter=counter)
    return t.add(t.mul(beta, e, counter=counter), r, counter=counter)


def _clog2(x: int) -> int:
    return (x - 1).bit_length() if x > 1 else 0


def cosine_cycles(chunk: int, c) -> int:
    """The depth eq. 9's per-chunk cosine adds to a regression (``c`` the
    :class:`~.timing.LatencyConstants`): the squares (a multiply) and their sum over the
    chunk (``ceil(log2 C)`` adder levels), a square root and a division, each a pipelined
    non-restoring unit of 32 stages of one add, and the product of the two norms (a
    multiply). The chunks still stream one a cycle; the units are area, the depth is time."""
    return 2 * c.mul + _clog2(chunk) * c.add + 2 * 32 * c.add


def printed_cycles(mnemonic: str, *, n: int, d: int, chunk: int, c, opt) -> int:
    """Busy cycles of the printed form's instructions: ``hreg.c`` / ``hreg.tc`` are ``hreg``
    / ``hreg.t`` plus :func:`cosine_cycles`; ``hupd.p`` is eq. 14 as printed, a subtract, a
    multiply and an add."""
    from rlaccel.machines.darl.tlm.timing import instruction_cycles
    if mnemonic in ("hreg.c", "hreg.tc"):
        base = "hreg" if mnemonic == "hreg.c" else "hreg.t"
        return (instruction_cycles(base, n=n, d=d, chunk=chunk, c=c, opt=opt)
                + cosine_cycles(chunk, c))
    if mnemonic == "hupd.p":
        return c.mul + 2 * c.add
    raise ArchError(f"no printed-form cycle count for '{mnemonic}'")


def cosine_actions(n: int, d: int, chunk: int) -> dict:
    """The arithmetic of eq. 9's per-chunk cosine beyond the dot products, as the cost
    model's actions: the squares of the state's and the model's chunks (``2 d + 2 n d``
    multiplies) and their sums, per chunk the two state norms' and, per action, the two
    model norms' square roots and the two divisions (each 32 adds, one a stage, as
    :func:`cosine_cycles` counts them), the norms' products (multiplies) and the terms'
    sum."""
    k = d // chunk
    roots = 2 * k + 2 * n * k
    return {"mul": 2 * d + 2 * n * d + 2 * n * k,
            "add": 2 * d + 2 * n * d + 32 * roots + 32 * 2 * n * k + 2 * n * k}
