"""The DARL units compiled (numba), in fixed point: every instruction of the hdc family as a
kernel of the simulator's compiled loop, and one HDQL training iteration fused.

The unit models of this package (:mod:`.encoder`, :mod:`.codebook`, :mod:`.regression`,
:mod:`.updating`, :mod:`.update_cache`, :mod:`.allreduce`) are the semantics; each works on
whole 2,048-element vectors through numpy, so an iteration costs tens of numpy calls and
their per-call overhead, not arithmetic. These kernels do
the same integer operations element by element in one compiled pass, and give the same bits
(``tests/machines/darl/tlm/test_kernels.py`` compares every output and the saturation count
against the unit models):

* :func:`encode` -- eq. 1-6: the state quantized as the host writes it (round half up,
  saturate: :meth:`FixedType.quantize`), the exact sum ``sum_i P_turns[j, i] s[i]``, one round half up at
  the binary point, one saturation (:meth:`FixedType.matvec`), then the codebook's address
  of the phase's fraction bits and the quarter-wave table unrolled to a period
  (:class:`.codebook.Codebook`'s ``_period``): ``Im = period[addr]``,
  ``Re = period[addr + quarter]``;
* :func:`act` -- an inference iteration: :func:`encode`, the regression of every action
  against a model (eq. 9-10: the exact sum of ``2 D`` products divided by ``2**frac D`` with
  one round half up, one saturation, :func:`.regression.regress`; or the printed form's
  value) and select's argmax (the lowest index among equal values, eq. 11);
* :func:`train` -- a training batch, sample by sample in the kernel's order: ``q_true`` of
  every sample against ``Q'`` first (as :func:`.regression.regress_rows` does for the batch;
  QHD's maximum over the next state's values, or as printed the marked entry of the same
  state's, eq. 13), then per sample the pending update of the marked row lands (the delayed
  update cache, eq. 17-18: at most one entry per row, since a row's entry is applied before
  its next push), ``V_Q(s)`` of every action and ``q_pred``, the update value (eq. 14: QHD's
  ``g = gamma q_true``, ``t = r + g``, ``e = t - q_pred``, ``v = beta e``, or as printed
  ``e = q_true - q_pred``, ``v = beta e + r``; each product rounded once, every step
  saturating), the update hypervectors (eq. 15-16), the push and the shard's saturating add;
* :func:`run` and :func:`state` -- the family's instructions on the simulator's compiled
  loop (:mod:`rlaccel.tlm.fast.dispatch`): ``henc``, ``hld``, ``hreg``/``hreg.t`` (the
  cache's stream, then the regression), ``hsel``, ``hupd``, ``hpush``, ``hsync`` on the
  agent's memories, with the codebook and the update cache of ``agent.state["hdc"]``
  (``hallreduce`` waits on the other agents in SimPy time: the loop hands it to Python);
* :func:`act` and :func:`train` compute either form: QHD's, or the DARL paper's printed
  one (:mod:`.printed`: eq. 9's per-chunk cosine, eq. 13-14 on the same state);
* :func:`running_average` -- the shards as the machine leaves them when every iteration ends
  with the butterfly all-reduce (average) of the shards
  (``FunctionalHdql._running_average``): per iteration ``j``, every agent's copy of the
  average so far plus its ``j``-th update, the ``log2 n`` butterfly stages (each pair adds
  the lower agent's vector first, saturating) and the division by ``n`` (a multiply by
  ``2**(frac - log2 n)`` rounded half up), element by element.

Saturations are counted as the unit models count them (per saturated element of every
operation, the butterfly's partners and the ``n`` divided copies each counted), so the
learner's ``SaturationCounter`` is the same too. Raw operands are int64 inside the format;
the exact sums fit int64 for the dimensions :mod:`.regression` accepts (``D <= 2**14``) and
for position matrices of ``|P / 2 pi| < 2**13`` turns (``encode_fits``).
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes import FixedType
from rlaccel.tlm.fast import fixedpoint as fx
from rlaccel.tlm.fast.fixedpoint import sat
from rlaccel.tlm.fast.fixedpoint import sat as _sat
from rlaccel.tlm.fast.jit import HAVE_NUMBA, njit

__all__ = ["HAVE_NUMBA", "encode_fits", "encode", "act", "train", "running_average",
           "CODES", "SEL", "run", "state"]


def encode_fits(p_turns_t: np.ndarray, fmt) -> bool:
    """Whether every phase sum of this stored position matrix (D x N raw) with any raw state
    stays exact in int64 (and its rounding offset with it): then :func:`encode` equals the
    encoder bit for bit."""
    n = p_turns_t.shape[1]
    amax = int(np.abs(p_turns_t).max()) if p_turns_t.size else 0
    return n * amax * (1 << (fmt.bits - 1)) + (1 << fmt.frac_bits) < (1 << 62)


@njit
def _quantize(x, frac, lo, hi):
    """``floor(x 2**frac + 1/2)`` saturated (:meth:`FixedType.quantize`; NaN is 0), and 0/1."""
    if np.isnan(x):
        return np.int64(0), 1
    t = x * float(np.int64(1) << frac)                # exact: a power of two
    f = np.floor(t)
    r = f + 1.0 if t - f >= 0.5 else f
    if r > hi:
        return np.int64(hi), 1
    if r < lo:
        return np.int64(lo), 1
    return np.int64(r), 0


@njit
def _encode_row(p, x, period, shift, amask, quarter, frac, lo, hi, s, acc, re, im):
    """One float state ``x`` quantized into ``s`` (N,) and encoded into raw ``re``, ``im``
    (D,) with the position matrix ``p`` (N x D, raw turns; ``acc`` (D,) scratch); the
    saturations of the state and of its phases."""
    n, d = p.shape
    sats = 0
    for i in range(n):
        s[i], c = _quantize(x[i], frac, lo, hi)
        sats += c
    acc[:] = np.int64(1) << (frac - 1)                # the rounding offset, then the sum
    for i in range(n):
        si = s[i]
        for j in range(d):
            acc[j] += p[i, j] * si
    for j in range(d):
        e, c = _sat(acc[j] >> frac, lo, hi)
        sats += c
        addr = (e >> shift) & amask
        im[j] = period[addr]
        re[j] = period[(addr + quarter) & amask]
    return sats


@njit
def encode(p, x, period, shift, amask, quarter, frac, lo, hi):
    """Raw ``(Re, Im)`` (B, D) of float states ``x`` (B, N), quantized to the format as the
    host writes them, with the position matrix ``p`` (N x D); and the saturation count."""
    b_n, n = x.shape
    d = p.shape[1]
    re = np.empty((b_n, d), dtype=np.int64)
    im = np.empty((b_n, d), dtype=np.int64)
    s = np.empty(n, dtype=np.int64)
    acc = np.empty(d, dtype=np.int64)
    sats = 0
    for b in range(b_n):
        sats += _encode_row(p, x[b], period, shift, amask, quarter, frac, lo, hi, s, acc,
                            re[b], im[b])
    return re, im, sats


@njit
def _value(re, im, qr, qi, a, sign, frac, lo, hi):
    """Raw ``V[a]`` (eq. 9-10, exact sum, one round half up, one saturation) and 0/1."""
    d = re.shape[0]
    acc_r = np.int64(0)
    acc_i = np.int64(0)
    for j in range(d):
        acc_r += qr[a, j] * re[j]
        acc_i += qi[a, j] * im[j]
    total = acc_r + sign * acc_i
    div = np.int64(d) << frac
    # floor(total / div + 1/2) with div even: floor((total + div / 2) / div), Python's floor
    return _sat((total + (div >> 1)) // div, lo, hi)


@njit
def _mul(a, b, frac, lo, hi):
    return _sat((a * b + (np.int64(1) << (frac - 1))) >> frac, lo, hi)


@njit
def _land(a, qr, qi, pr, pi, pending, d, lo, hi):
    """Row ``a``'s pending update lands as the marked row streams through the arrays (the
    delayed update cache's rule, in both training forms); the saturations it counts."""
    sats = 0
    if pending[a]:
        for j in range(d):
            x, c = _sat(qr[a, j] + pr[a, j], lo, hi)
            qr[a, j] = x
            sats += c
            x, c = _sat(qi[a, j] + pi[a, j], lo, hi)
            qi[a, j] = x
            sats += c
        pending[a] = False
    return sats


@njit
def _quantize_rewards(rewards, frac, lo, hi):
    """A batch's float rewards quantized as the host writes them (:func:`_quantize`, in
    both training forms) and the saturations."""
    rew = np.empty(rewards.shape[0], dtype=np.int64)
    sats = 0
    for b in range(rewards.shape[0]):
        rew[b], c = _quantize(rewards[b], frac, lo, hi)
        sats += c
    return rew, sats


@njit
def _push(v, re, im, a, pr, pi, pending, sr, si, ur_out, ui_out, frac, lo, hi):
    """One sample's update hypervectors ``U = v (Re, Im)`` (eq. 15-16; ``re``, ``im`` (D,)
    raw) into ``ur_out``, ``ui_out`` (D,), pushed into the update cache as row ``a``'s
    pending update and added to that row of the shard (saturating), in both training forms;
    the saturations."""
    sats = 0
    for j in range(re.shape[0]):
        ur, c = _mul(v, re[j], frac, lo, hi)
        sats += c
        ui, c = _mul(v, im[j], frac, lo, hi)
        sats += c
        ur_out[j] = ur
        ui_out[j] = ui
        pr[a, j] = ur
        pi[a, j] = ui
        x, c = _sat(sr[a, j] + ur, lo, hi)
        sr[a, j] = x
        sats += c
        x, c = _sat(si[a, j] + ui, lo, hi)
        si[a, j] = x
        sats += c
    pending[a] = True
    return sats


@njit
def _value_cos(re, im, qr, qi, a, chunk, frac, lo, hi):
    """Raw ``V[a]`` of eq. 9 as printed (:func:`.printed.regress_cosine`: a cosine per
    chunk, the imaginary part subtracted, float64 in the same order, one rounding) and 0/1."""
    d = re.shape[0]
    v = 0.0
    for k in range(d // chunk):
        dr = np.int64(0)
        di = np.int64(0)
        xr = 0.0
        xi = 0.0
        nr = 0.0
        ni = 0.0
        for j in range(k * chunk, (k + 1) * chunk):
            dr += qr[a, j] * re[j]
            di += qi[a, j] * im[j]
            fr = float(re[j])
            fi = float(im[j])
            gr = float(qr[a, j])
            gi = float(qi[a, j])
            xr = xr + fr * fr
            xi = xi + fi * fi
            nr = nr + gr * gr
            ni = ni + gi * gi
        den_r = np.sqrt(xr) * np.sqrt(nr)
        den_i = np.sqrt(xi) * np.sqrt(ni)
        tr = float(dr) / den_r if den_r > 0 else 0.0
        ti = float(di) / den_i if den_i > 0 else 0.0
        v += tr - ti
    return _quantize(v, frac, lo, hi)


@njit
def _value_in(printed, k, re, im, qr, qi, a, frac, lo, hi):
    """Raw ``V[a]`` and 0/1 in either form: eq. 9-10 as QHD computes them (:func:`_value`,
    ``k`` the imaginary part's sign) or as printed (:func:`_value_cos`, ``k`` the chunk)."""
    if printed:
        return _value_cos(re, im, qr, qi, a, k, frac, lo, hi)
    return _value(re, im, qr, qi, a, k, frac, lo, hi)


@njit
def _best(printed, k, re, im, qr, qi, frac, lo, hi):
    """Every action's value against ``(qr, qi)`` (:func:`_value_in`): select's argmax (the
    lowest index among equal values, eq. 11), its value and the saturations."""
    best = np.int64(0)
    index = 0
    sats = 0
    for a in range(qr.shape[0]):
        v, c = _value_in(printed, k, re, im, qr, qi, a, frac, lo, hi)
        sats += c
        if a == 0 or v > best:
            best = v
            index = a
    return index, best, sats


@njit
def _marked_value(printed, k, re, im, qr, qi, a, frac, lo, hi):
    """The value of the marked action ``a`` (the arrays evaluate every action, each
    saturation counted) and the saturations."""
    marked = np.int64(0)
    sats = 0
    for r in range(qr.shape[0]):
        v, c = _value_in(printed, k, re, im, qr, qi, r, frac, lo, hi)
        sats += c
        if r == a:
            marked = v
    return marked, sats


@njit
def act(p, x, period, shift, amask, quarter, qr, qi, printed, k, frac, lo, hi, s, acc, re,
        im):
    """An inference iteration of float state ``x`` (N,) against the model ``(qr, qi)`` in
    either form (``printed``, ``k``: :func:`_value_in`): the greedy action and the
    saturation count (``s`` (N,), ``acc``, ``re``, ``im`` (D,): scratch)."""
    sats = _encode_row(p, x, period, shift, amask, quarter, frac, lo, hi, s, acc, re, im)
    index, _, c = _best(printed, k, re, im, qr, qi, frac, lo, hi)
    return index, sats + c


@njit
def train(re, im, re2, im2, rewards, actions, qr, qi, tr, ti, pending, pr, pi, sr, si, beta,
          gamma, printed, k, frac, lo, hi, ur_out, ui_out, v_out):
    """One training batch of one agent in either form (``printed``, ``k``: :func:`_value_in`),
    in place: ``qr``, ``qi`` (its Q), ``pending``, ``pr``, ``pi`` (its update cache: a flag
    and the pending update per row), ``sr``, ``si`` (its shard); ``re2``, ``im2`` the
    encoded states ``q_true`` is taken on (QHD: the next states; printed: the same states);
    ``rewards`` are floats (quantized here, as the host writes them); ``ur_out``, ``ui_out``
    (B, D) and ``v_out`` (B,) receive every iteration's update hypervectors and update
    value. Returns the saturation count."""
    b_n, d = re.shape
    rew, sats = _quantize_rewards(rewards, frac, lo, hi)
    q_true = np.empty(b_n, dtype=np.int64)
    for b in range(b_n):
        if printed:
            q_true[b], c = _marked_value(printed, k, re2[b], im2[b], tr, ti, actions[b], frac,
                                         lo, hi)
        else:
            _, q_true[b], c = _best(printed, k, re2[b], im2[b], tr, ti, frac, lo, hi)
        sats += c
    for b in range(b_n):
        a = actions[b]
        sats += _land(a, qr, qi, pr, pi, pending, d, lo, hi)
        q_pred, c = _marked_value(printed, k, re[b], im[b], qr, qi, a, frac, lo, hi)
        sats += c
        if printed:
            e, c1 = _sat(q_true[b] - q_pred, lo, hi)
            m, c2 = _mul(beta, e, frac, lo, hi)
            v, c3 = _sat(m + rew[b], lo, hi)
            c4 = 0
        else:
            g, c1 = _mul(gamma, q_true[b], frac, lo, hi)
            t, c2 = _sat(rew[b] + g, lo, hi)
            e, c3 = _sat(t - q_pred, lo, hi)
            v, c4 = _mul(beta, e, frac, lo, hi)
        sats += c1 + c2 + c3 + c4
        v_out[b] = v
        sats += _push(v, re[b], im[b], a, pr, pi, pending, sr, si, ur_out[b], ui_out[b],
                      frac, lo, hi)
    return sats


@njit
def running_average(acts, lengths, ur, ui, k, frac, lo, hi, avg_r, avg_i):
    """The running average of the agents' updates (``acts`` (n, J) rows, ``lengths`` (n,)
    iterations each, ``ur``/``ui`` (n, J, D) their update hypervectors) with the all-reduce
    after every iteration, into ``avg_r``, ``avg_i`` (A, D, zeroed first); the saturations.

    Element by element (each element's average depends only on its own history): per
    iteration every agent's copy, the butterfly's sums (stage ``s`` pairs the groups of
    ``2**s`` agents, each sum held -- and its saturation counted -- by ``2**(s + 1)`` agents)
    and the division. When no partial sum can leave the format (``n |x| + sum |u| <= max``)
    that is the exact ``(n x + sum u) / n`` rounded half up, which is taken directly."""
    n = acts.shape[0]
    n_a, d = avg_r.shape
    jmax = 0
    for i in range(n):
        if lengths[i] > jmax:
            jmax = lengths[i]
    inv = np.int64(1) << (frac - k)
    half = np.int64(1) << (frac - 1)
    vals = np.empty(n, dtype=np.int64)
    who = np.empty(n, dtype=np.int64)
    avg_r[:, :] = 0
    avg_i[:, :] = 0
    sats = 0
    for j in range(jmax):
        for a in range(n_a):
            m = 0                                   # the agents whose j-th update is row a's
            for i in range(n):
                if j < lengths[i] and acts[i, j] == a:
                    who[m] = i
                    m += 1
            for part in range(2):
                upd = ur if part == 0 else ui
                out = avg_r if part == 0 else avg_i
                for e in range(d):
                    x = out[a, e]
                    total = np.int64(0)
                    bound = n * (x if x >= 0 else -x)
                    for t in range(m):
                        u = upd[who[t], j, e]
                        total += u
                        bound += u if u >= 0 else -u
                    if bound <= hi:                 # no partial sum leaves the format
                        out[a, e] = ((n * x + total) * inv + half) >> frac
                        continue
                    for i in range(n):
                        vals[i] = x
                    for t in range(m):
                        v, c = _sat(x + upd[who[t], j, e], lo, hi)
                        vals[who[t]] = v
                        sats += c
                    width = n
                    mult = 2
                    for _ in range(k):
                        width >>= 1
                        for g in range(width):
                            v, c = _sat(vals[2 * g] + vals[2 * g + 1], lo, hi)
                            vals[g] = v
                            sats += mult * c
                        mult <<= 1
                    v, c = _mul(vals[0], inv, frac, lo, hi)
                    out[a, e] = v
                    sats += n * c
    return sats


# ---- the hdc family's instructions on the compiled loop ---------------------------------
# Each instruction of ``machines/darl/isa.toml`` as one kernel of the simulator's compiled
# loop (:mod:`rlaccel.tlm.fast.dispatch`), on the agent's memories and the family state
# :func:`state` gives: the same integer operations as the models' semantics (the unit models
# of this package through :mod:`rlaccel.isa.dtypes`), the same saturations counted, and -1,
# before anything is written, where those semantics would raise (the loop then runs them).
# ``tests/machines/darl/tlm/test_kernels.py`` compares every kernel with the semantics.

#: the kernel code of each mnemonic (the family's own; the loop adds the family's base)
CODES = {"henc": 1, "hld": 2, "hreg": 3, "hreg.t": 3, "hsel.argmax": 4, "hsel.mask": 4,
         "hsel.max": 4, "hupd": 5, "hpush": 6, "hsync": 7}
#: hsel's selection: argmax, the marked action's value, max
SEL = {"hsel.argmax": 0, "hsel.mask": 1, "hsel.max": 2}
#: the words of a state's ``cfg``: the codebook's shift, address mask and quarter, whether
#: updates are delayed (the cache) or written straight into Q
C_SHIFT, C_AMASK, C_QUARTER, C_DELAYED = range(4)
#: the words of the cache's counts (:mod:`.update_cache`): pending, pushed, applied
_N, _PUSHED, _APPLIED = range(3)
#: the largest D whose sums :func:`.regression.regress` accepts
_MAX_D = 1 << 14


@njit(nrt=False, inline=True)
def _marked(U, at, n):
    """The one action marked in ``U[at:at + n]`` (a non-zero word), or -1 unless exactly
    one is."""
    a = -1
    for k in range(n):
        if U[at + k] != 0:
            if a >= 0:
                return -1
            a = k
    return a


@njit(inline=True)
def _div_round(t, div):
    """``floor(t / div + 1/2)`` for an even ``div > 0``, without overflow (the exact
    :func:`._fixed.div_round`)."""
    q = t // div
    return q + (1 if t - q * div >= (div >> 1) else 0)


@njit(nrt=False)
def _henc(A, i, c0, U, S, X):
    FK, period, cfg, scratch = X[0], X[1], X[6], X[7]
    src, syn, dst, n, d = A[i, c0], A[i, c0 + 1], A[i, c0 + 2], A[i, c0 + 3], A[i, c0 + 4]
    c = fx.dot_rows(S, syn, 1, d, d, n, U, src, scratch, FK, 0)   # E = P^T s
    if c < 0:
        return -1
    shift, amask, quarter = cfg[C_SHIFT], cfg[C_AMASK], cfg[C_QUARTER]
    for j in range(d):
        addr = (scratch[j] >> shift) & amask
        S[dst + j] = period[(addr + quarter) & amask]
        S[dst + d + j] = period[addr]
    return c


@njit(nrt=False)
def _values(A, i, c0, U, S, FK, acts, ur, ui, counts, masked):
    """hreg (``masked``: the marked rows' pending updates land first) and hreg.t."""
    src, syn, dst, at, n, d = (A[i, c0], A[i, c0 + 1], A[i, c0 + 2], A[i, c0 + 3],
                               A[i, c0 + 4], A[i, c0 + 5])
    frac, lo, hi = FK[fx.K_N], FK[fx.K_MIN], FK[fx.K_MAX]
    if d > _MAX_D:
        return -1
    sats = 0
    qi0 = syn + n * d
    if masked:                            # the cache streams (UpdateCache.stream)
        kept = 0
        for k in range(counts[_N]):
            a = acts[k]
            if U[at + a] != 0:
                for j in range(d):
                    v, s1 = sat(S[syn + a * d + j] + ur[k, j], lo, hi)
                    S[syn + a * d + j] = v
                    w, s2 = sat(S[qi0 + a * d + j] + ui[k, j], lo, hi)
                    S[qi0 + a * d + j] = w
                    sats += s1 + s2
                counts[_APPLIED] += 1
            else:
                if kept != k:
                    acts[kept] = a
                    for j in range(d):
                        ur[kept, j] = ur[k, j]
                        ui[kept, j] = ui[k, j]
                kept += 1
        counts[_N] = kept
    div = np.int64(d) << frac
    for a in range(n):                    # regress: (QR[a] . Re + QI[a] . Im) / (2^frac D)
        acc = np.int64(0)
        for j in range(d):
            acc += S[syn + a * d + j] * S[src + j]
        acc2 = np.int64(0)
        for j in range(d):
            acc2 += S[qi0 + a * d + j] * S[src + d + j]
        v, s = sat(_div_round(acc + acc2, div), lo, hi)
        U[dst + a] = v
        sats += s
    return sats


@njit(nrt=False)
def _hsel(A, i, c0, U, FK):
    src, dst, at, n, how = A[i, c0], A[i, c0 + 1], A[i, c0 + 2], A[i, c0 + 3], A[i, c0 + 4]
    if how == 1:                                            # hsel.mask: q_pred
        a = _marked(U, at, n)
        if a < 0:
            return -1
        U[dst] = U[src + a]
        return 0
    best = U[src]
    k = 0
    for a in range(1, n):
        if U[src + a] > best:
            best = U[src + a]
            k = a
    if how == 2:                                            # hsel.max
        U[dst] = best
        return 0
    v, s = sat(np.int64(k) << FK[fx.K_N], FK[fx.K_MIN], FK[fx.K_MAX])   # argmax, quantized
    U[dst] = v
    return s


@njit(nrt=False)
def _hupd(A, i, c0, U, FK):
    dst, a, b, c, k = A[i, c0], A[i, c0 + 1], A[i, c0 + 2], A[i, c0 + 3], A[i, c0 + 4]
    frac, lo, hi = FK[fx.K_N], FK[fx.K_MIN], FK[fx.K_MAX]
    g, s1 = _mul(U[k + 1], U[b], frac, lo, hi)               # gamma q_true
    t, s2 = sat(U[c] + g, lo, hi)                            # r + g
    e, s3 = sat(t - U[a], lo, hi)                            # - q_pred
    v, s4 = _mul(U[k], e, frac, lo, hi)                      # beta e
    U[dst] = v
    return s1 + s2 + s3 + s4


@njit(nrt=False)
def _hpush(A, i, c0, U, S, X):
    FK, acts, ur, ui, counts, cfg, scratch = X[0], X[2], X[3], X[4], X[5], X[6], X[7]
    src, v, at, syn, aux, n, d = (A[i, c0], A[i, c0 + 1], A[i, c0 + 2], A[i, c0 + 3],
                                  A[i, c0 + 4], A[i, c0 + 5], A[i, c0 + 6])
    frac, lo, hi = FK[fx.K_N], FK[fx.K_MIN], FK[fx.K_MAX]
    a = _marked(U, at, n)
    delayed = cfg[C_DELAYED] != 0
    if a < 0 or (delayed and counts[_N] >= acts.shape[0]):
        return -1
    value = U[v]
    sats = 0
    for j in range(d):                                       # UR, UI (eq. 15-16)
        x, s1 = _mul(value, S[src + j], frac, lo, hi)
        y, s2 = _mul(value, S[src + d + j], frac, lo, hi)
        scratch[j] = x
        scratch[d + j] = y
        sats += s1 + s2
    for base in (syn, aux):
        if base == aux and delayed:
            break
        for part in range(2):
            row = base + part * n * d + a * d
            for j in range(d):
                w, s = sat(S[row + j] + scratch[part * d + j], lo, hi)
                S[row + j] = w
                sats += s
    if delayed:
        k = counts[_N]
        acts[k] = a
        for j in range(d):
            ur[k, j] = scratch[j]
            ui[k, j] = scratch[d + j]
        counts[_N] = k + 1
        counts[_PUSHED] += 1
    return sats


@njit(nrt=False)
def _hsync(A, i, c0, S, X):
    FK, counts, scratch = X[0], X[5], X[7]
    src, syn, aux, n, d = A[i, c0], A[i, c0 + 1], A[i, c0 + 2], A[i, c0 + 3], A[i, c0 + 4]
    lo, hi = FK[fx.K_MIN], FK[fx.K_MAX]
    k = 2 * n * d
    counts[_N] = 0                                           # the cache cleared
    sats = 0
    for j in range(k):                                       # Q' += shard, then Q <- Q'
        w, s = sat(S[aux + j] + S[src + j], lo, hi)
        scratch[j] = w
        sats += s
    for j in range(k):
        S[aux + j] = scratch[j]
    for j in range(k):
        S[syn + j] = scratch[j]
    for j in range(k):
        S[src + j] = 0
    return sats


@njit(nrt=False)
def run(code, A, i, c0, U, S, K, T, B, imm, X):
    """Kernel ``code`` (:data:`CODES`) of the hdc family with the operands ``A[i, c0:]``
    on the unified and synapse memories (raw fixed-point words) and the family state ``X``
    (:func:`state`); returns the saturations, or -1 (the semantics then run, and raise)."""
    if code == 1:
        return _henc(A, i, c0, U, S, X)
    if code == 2:                                            # hld
        src, syn, k = A[i, c0], A[i, c0 + 1], A[i, c0 + 2]
        for j in range(k):
            S[syn + j] = U[src + j]
        return 0
    if code == 3:
        return _values(A, i, c0, U, S, X[0], X[2], X[3], X[4], X[5], A[i, c0 + 6] != 0)
    if code == 4:
        return _hsel(A, i, c0, U, X[0])
    if code == 5:
        return _hupd(A, i, c0, U, X[0])
    if code == 6:
        return _hpush(A, i, c0, U, S, X)
    if code == 7:
        return _hsync(A, i, c0, S, X)
    return -1


def state(agent) -> tuple:
    """The hdc family's kernel state of ``agent`` (its ``agent.state["hdc"]``, made by the
    models when its instructions were bound): the format's constants
    (:func:`rlaccel.tlm.fast.fixedpoint.constants`), the codebook's period table, the update
    cache's arrays (:attr:`.update_cache.UpdateCache.arrays`; empty without a cache), the
    configuration words (:data:`C_SHIFT` ...) and scratch for the longest vector an
    instruction of the agent's program computes before it writes it."""
    st = agent.state.get("hdc", {})
    dt = agent.dt
    if not isinstance(dt, FixedType):
        return None                # the family's instructions refuse it when bound
    book, cache = st.get("codebook"), st.get("cache")
    fk = fx.constants(dt)
    period = book._period if book is not None else np.zeros(1, np.int64)
    if cache is not None:
        acts, ur, ui, counts = cache.arrays
    else:
        acts, ur, ui = (np.zeros(0, np.int64), np.zeros((0, 0), np.int64),
                        np.zeros((0, 0), np.int64))
        counts = np.zeros(3, np.int64)
    cfg = np.zeros(4, np.int64)
    if book is not None:
        cfg[C_SHIFT] = dt.frac_bits - book.addr_bits
        cfg[C_AMASK] = (1 << book.addr_bits) - 1
        cfg[C_QUARTER] = book.quarter
    opt = st.get("opt")
    cfg[C_DELAYED] = 1 if opt is None or opt.delayed_update else 0
    need = 1
    for op in agent.ops:
        o = op.operands or {}
        if op.mnemonic in CODES:
            need = max(need, 2 * o.get("n", 1) * o.get("d", 1), 2 * o.get("d", 1))
    return fk, period, acts, ur, ui, counts, cfg, np.zeros(need, np.int64)
