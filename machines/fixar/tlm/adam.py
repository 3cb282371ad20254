"""The Adam unit of FIXAR (the FIXAR paper, section III: "weight update occurs in Adam optimizer
module, which is fully local to FPGA as the entire model parameters are stored on-chip").

The paper gives the optimiser (Adam, learning rate 1e-4, section VI-B) but not the unit's
arithmetic. Table I gives it 46.7K LUTs, 70.2K flip-flops and **3 DSPs**: too few for
fixed-point multipliers per lane, about one IEEE single-precision multiplier (LUTs for the
adders, square root and divider). We therefore model its datapath as float32, with every
operation correctly rounded (numpy float32 arithmetic is), in this order::

    m  <- b1 * m + (1 - b1) * g
    v  <- b2 * v + (1 - b2) * (g * g)
    dw <- (lr * c1) * m / (sqrt(v) * c2 + eps),   c1 = 1 / (1 - b1**t),  c2 = 1 / sqrt(1 - b2**t)

which is Kingma & Ba's update with the bias corrections folded into two per-step constants
(:func:`corrections`, computed once per step by the host or controller, in float64 and
rounded to float32). The moments ``m`` and ``v`` are float32 words of the optimiser-state
memory. On the fixed-point machine (:func:`adam_fixed`) the 32-bit gradient word is converted
to float32 (round to nearest even), and ``dw`` is rounded half up to the weight format and
subtracted with saturation. The float reference runs the same :func:`adam_update` on float32
weights.

The simulator's ``adam`` instruction updates the memory words in place through
:class:`AdamWords` (with numba one compiled pass computes the moments and ``dw`` in float32,
a second rounds, subtracts and saturates: the same float32 and int64 operations, in the same
order, as :func:`adam_fixed`, which the reference runs; tested bit for bit against it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlaccel.tlm.fast.jit import HAVE_NUMBA, njit

from rlaccel.machines.fixar.tlm.kernels import NO_MIRROR, f2i, i2f

__all__ = ["AdamHyper", "corrections", "constants", "adam_step", "adam_update", "adam_fixed",
           "round_to", "AdamWords"]


@dataclass(frozen=True)
class AdamHyper:
    """Adam's hyper-parameters (the FIXAR paper: lr 1e-4; betas and eps are Kingma & Ba's)."""

    lr: float = 1e-4
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8


def corrections(t: int, hp: AdamHyper) -> tuple[np.float32, np.float32]:
    """``(lr * c1, c2)`` for step ``t >= 1`` as float32: the two constants the unit takes
    per step (bias corrections folded into them)."""
    if t < 1:
        raise ValueError(f"Adam step {t}: steps count from 1")
    c1 = 1.0 / (1.0 - hp.beta1 ** t)
    c2 = 1.0 / np.sqrt(1.0 - hp.beta2 ** t)
    return np.float32(hp.lr * c1), np.float32(c2)


def constants(t: int, hp: AdamHyper) -> np.ndarray:
    """The unit's seven float32 constants of step ``t``: ``[lr*c1, c2, b1, 1-b1, b2, 1-b2,
    eps]`` (what the ``adam`` instruction reads at ``hp``; the host computes them)."""
    f = np.float32
    lr_c1, c2 = corrections(t, hp)
    return np.array([lr_c1, c2, f(hp.beta1), f(1.0 - hp.beta1), f(hp.beta2),
                     f(1.0 - hp.beta2), f(hp.eps)], dtype=np.float32)


def adam_step(g, m, v, k):
    """``(dw, m', v')`` from the seven constants ``k`` of :func:`constants` (float32)."""
    g = np.asarray(g, dtype=np.float32)
    lr_c1, c2, b1, omb1, b2, omb2, eps = (np.float32(x) for x in k)
    m = b1 * m + omb1 * g
    v = b2 * v + omb2 * (g * g)
    dw = lr_c1 * m / (np.sqrt(v) * c2 + eps)
    return dw, m, v


def adam_update(g, m, v, t: int, hp: AdamHyper):
    """``(dw, m', v')``: one Adam step in float32 (see the module docstring for the order);
    the weight moves by ``-dw``. ``g``, ``m``, ``v`` are float32 arrays of one shape."""
    return adam_step(g, m, v, constants(t, hp))


def adam_fixed(w_raw, g_raw, m, v, t: int, hp: AdamHyper, wfmt, gfmt, *, counter=None):
    """``(w', m', v')`` on the fixed-point machine: ``w_raw`` in ``wfmt``, ``g_raw`` in
    ``gfmt`` (both :class:`~rlaccel.isa.dtypes.FixedType`), moments float32."""
    g32 = (np.asarray(g_raw, dtype=np.int64).astype(np.float64) * gfmt.lsb).astype(np.float32)
    dw, m, v = adam_update(g32, m, v, t, hp)
    w = wfmt.sub(w_raw, round_to(wfmt, dw, counter=counter), counter=counter)
    return w, m, v


def round_to(fmt, x, *, counter=None) -> np.ndarray:
    """``fmt.quantize(x)`` (round half up, saturate) of float32 values, by the shortcut
    ``floor(x * 2**N + 1/2)``, exact while ``|x * 2**N| < 2**51`` (then ``+ 1/2`` is exact);
    anything else (huge or not finite) goes through ``fmt.quantize`` itself."""
    t = np.asarray(x, dtype=np.float64) * (2.0 ** fmt.frac_bits)
    if t.size and not (np.abs(t).max() < 2.0 ** 51):
        return fmt.quantize(np.asarray(x, dtype=np.float64), counter=counter)
    r = np.floor(t + 0.5).astype(np.int64)
    lo, hi = int(fmt.min_raw), int(fmt.max_raw)
    if r.size and (int(r.min()) < lo or int(r.max()) > hi):
        n = int(np.count_nonzero(r < lo) + np.count_nonzero(r > hi))
        if counter is not None:
            counter.saturations += n
        r = np.clip(r, lo, hi)
    return r


@njit
def _adam_moments(G, lsb, m, v, k, dw):
    """:func:`adam_step` on the gradient words ``G`` (raw, LSB ``lsb``) element by element in
    float32: ``m`` and ``v`` updated in place, ``dw`` written (``np.true_divide`` divides as
    numpy does, without numba's zero check, so the loop vectorises)."""
    lr_c1, c2, b1, omb1, b2, omb2, eps = k[0], k[1], k[2], k[3], k[4], k[5], k[6]
    for i in range(G.shape[0]):
        g = np.float32(np.float64(G[i]) * lsb)
        mi = b1 * m[i] + omb1 * g
        vi = b2 * v[i] + omb2 * (g * g)
        m[i] = mi
        v[i] = vi
        dw[i] = np.true_divide(lr_c1 * mi, np.sqrt(vi) * c2 + eps)


@njit
def _adam_words(G, lsb, M, V, k, dw):
    """:func:`_adam_moments` on the moment words themselves (int64 words holding float32 bit
    patterns, updated in place; for ``G``, ``M``, ``V`` that do not overlap)."""
    lr_c1, c2, b1, omb1, b2, omb2, eps = k[0], k[1], k[2], k[3], k[4], k[5], k[6]
    for i in range(G.shape[0]):
        g = np.float32(i2f(G[i]) * lsb)         # a gradient word: exact (|G| < 2**51)
        mi = b1 * np.int32(M[i]).view(np.float32) + omb1 * g
        vi = b2 * np.int32(V[i]).view(np.float32) + omb2 * (g * g)
        M[i] = np.int64(np.float32(mi).view(np.int32))
        V[i] = np.int64(np.float32(vi).view(np.int32))
        dw[i] = np.true_divide(lr_c1 * mi, np.sqrt(vi) * c2 + eps)


@njit
def _adam_apply(W, dw, scale, lo, hi, F, mirror):
    """``W <- sat(W - round_to(dw))`` in place when every ``dw * scale`` is finite and below
    2**51 (:func:`round_to`'s shortcut), with ``mirror`` their float64 copies into ``F``:
    ``(True, saturations of the rounding, of the subtraction, max|W|)``; else ``(False, 0,
    0, 0)`` and ``W`` untouched. The loops have no branches (a flag, min, max and counts of
    clipped words), so they vectorise."""
    n = W.shape[0]
    ok = True
    for i in range(n):
        ok &= abs(np.float64(dw[i]) * scale) < 2.0 ** 51     # False for NaN too
    if not ok:
        return False, 0, 0, 0
    n_round = 0
    n_sub = 0
    top = 0
    for i in range(n):
        # an integral float64 of magnitude at most 2**51 (checked above): f2i is exact
        r = f2i(np.floor(np.float64(dw[i]) * scale + 0.5))
        rc = min(max(r, lo), hi)
        n_round += rc != r
        w = W[i] - rc
        wc = min(max(w, lo), hi)
        n_sub += wc != w
        W[i] = wc
        if mirror:                              # (unswitched: a loop for each case)
            F[i] = i2f(wc)                      # a weight word: exact
        top = max(top, abs(wc))
    return True, n_round, n_sub, top


class AdamWords:
    """One ``adam`` instruction's update of ``n`` memory words in place: weights ``W`` (raw
    words of ``fmt``) and gradients ``G`` (of ``gfmt``, ``fmt`` when not given), moments ``M`` and ``V`` (int64 words holding
    float32 bit patterns), the seven constants ``H`` (float32 bit patterns, :func:`constants`).
    The same results, bit for bit, as :func:`adam_fixed` (with numba one compiled pass and
    buffers made once; without it, :func:`adam_fixed`'s numpy operations)."""

    def __init__(self, fmt, W, G, M, V, H, gfmt=None) -> None:
        self.fmt, self.W, self.G, self.M, self.V, self.H = fmt, W, G, M, V, H
        self.glsb = (gfmt or fmt).lsb
        n = W.shape[0]
        self._m, self._v, self._dw = (np.empty(n, np.float32) for _ in range(3))
        self._mi, self._vi = self._m.view(np.int32), self._v.view(np.int32)
        self._k = np.empty(7, np.float32)
        words = (W, G, M, V)
        # the moments updated where they are when no two operands share words (otherwise
        # every word is read before any is written, as adam_fixed does)
        self._in_place = all(w.dtype == np.int64 for w in words) and not any(
            np.may_share_memory(a, b) for i, a in enumerate(words) for b in words[i + 1:])

    def __call__(self, counter=None, mirror=None) -> int | None:
        """Update the words; with ``mirror`` (float64, ``n`` words) also write the new
        weights' float64 copies there and return ``max|W|`` -- None when the mirror was not
        written (no numba, or rounding's general path)."""
        fmt, W, M, V = self.fmt, self.W, self.M, self.V
        np.copyto(self._k.view(np.int32), self.H, casting="unsafe")
        if HAVE_NUMBA and self._in_place:
            _adam_words(self.G, self.glsb, M, V, self._k, self._dw)
        else:
            np.copyto(self._mi, M, casting="unsafe")      # the float32 bit patterns
            np.copyto(self._vi, V, casting="unsafe")
        if not HAVE_NUMBA:
            g32 = (self.G.astype(np.float64) * self.glsb).astype(np.float32)
            dw, m2, v2 = adam_step(g32, self._m, self._v, self._k)
            W[...] = fmt.sub(W, round_to(fmt, dw, counter=counter), counter=counter)
            M[...] = np.asarray(m2, np.float32).view(np.int32)
            V[...] = np.asarray(v2, np.float32).view(np.int32)
            return None
        if not self._in_place:
            _adam_moments(self.G, self.glsb, self._m, self._v, self._k, self._dw)
        done, n_round, n_sub, top = _adam_apply(
            W, self._dw, 2.0 ** fmt.frac_bits, int(fmt.min_raw), int(fmt.max_raw),
            NO_MIRROR if mirror is None else mirror, mirror is not None)
        if done:
            if n_round and counter is not None:
                counter.saturations += int(n_round)
            fmt._count(int(n_sub), counter)
        else:                       # a huge or non-finite dw: round_to's general path
            W[...] = fmt.sub(W, round_to(fmt, self._dw, counter=counter), counter=counter)
        if not self._in_place:
            M[...] = self._mi
            V[...] = self._vi
        return int(top) if done and mirror is not None else None
