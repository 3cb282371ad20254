"""The accumulator / activation unit's vector instructions (vact, vdact, td and noise's tail)
as compiled element loops, bit for bit the numpy semantics they replace.

Each kernel does, element by element, the int64 operations of the format's methods
(:class:`rlaccel.isa.dtypes.FixedType`: ``mul`` rounds the full product half up at the binary
point, then every result saturates; :class:`rlaccel.isa.dtypes.PwlTable` for tanh, sigmoid and
bsig; :func:`.activation.derivative` for the slope at the pre-activation) and returns the
number of saturated elements, which the wrappers count where the numpy path counts them (on
the format and the caller's counter; a negated source's clip on the counter only, as
:func:`.kernels.saturate`). The wrappers return False (nothing written) when the plain path
must run: without numba, or when the destination shares memory with a source (the numpy
path reads every source before it writes), so the caller keeps one semantics and one set of
error messages.
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes.activations import activation_name
from rlaccel.tlm.fast.fixedpoint import sat
from rlaccel.tlm.fast.jit import HAVE_NUMBA, njit

__all__ = ["activate_into", "derivative_mul_into", "td_into", "noise_into", "apart"]

#: the kernels' activation modes
_NONE, _RELU, _PWL = 0, 1, 2
_EMPTY = np.zeros(1, np.int64)


def apart(dst, *srcs) -> bool:
    """Whether ``dst`` shares no memory with any of ``srcs`` (then an element loop writing
    ``dst`` reads the same sources as the numpy path, which reads them all first)."""
    return not any(np.may_share_memory(dst, s) for s in srcs)


def _table(fmt, name: str, segments):
    """``(mode, breaks, slopes, intercepts, shift, xmax_raw, end_value, odd)`` of activation
    ``name`` in ``fmt`` (the PWL table's arrays, or empty ones for none and relu); shift -1
    when the segments are not uniform powers of two."""
    name = activation_name(name)
    if name == "none":
        return _NONE, _EMPTY, _EMPTY, _EMPTY, -1, 0, 0, False
    if name == "relu":
        return _RELU, _EMPTY, _EMPTY, _EMPTY, -1, 0, 0, False
    t = fmt.pwl(name, segments)
    return (_PWL, t.breaks, t.slopes, t.intercepts, -1 if t.shift is None else t.shift,
            t.xmax_raw, t.end_value, t.odd)


@njit
def _segment(a, breaks, shift):
    """The PWL segment holding ``0 <= a < xmax``: ``a >> shift`` when uniform, else the
    table's search (``searchsorted(breaks, a, side="right") - 1``)."""
    if shift >= 0:
        return a >> shift
    return np.searchsorted(breaks, a, side="right") - 1


@njit
def _activate_kernel(Z, D, mode, breaks, slopes, inter, shift, xmax, end, odd, n, lo, hi):
    """``D = act(Z)`` (2-D, any strides): none a copy, relu ``max(z, 0)``, a PWL table
    ``inter[k] + round_half_up(slope[k] * |z| / 2**n)`` inside ``xmax`` and ``end`` beyond,
    mirrored for negative ``z`` (``-y`` odd, ``2**n - y`` otherwise), then saturated to
    ``[lo, hi]``. Returns the saturations (the PWL table's only)."""
    half = (1 << (n - 1)) if n > 0 else 0
    one = 1 << n
    c = 0
    for i in range(Z.shape[0]):
        for j in range(Z.shape[1]):
            v = Z[i, j]
            if mode == 0:
                D[i, j] = v
                continue
            if mode == 1:
                D[i, j] = v if v > 0 else 0
                continue
            a = -v if v < 0 else v
            if a < xmax:
                k = _segment(a, breaks, shift)
                y = inter[k] + ((slopes[k] * a + half) >> n)
            else:
                y = end
            if v < 0:
                y = -y if odd else one - y
            y, clipped = sat(y, lo, hi)
            c += clipped
            D[i, j] = y
    return c


def activate_into(fmt, name, Z, D, *, segments=None, counter=None) -> bool:
    """``D[...] = fmt.activate(name, Z, segments=segments, counter=counter)`` for int64
    matrices ``Z`` and ``D`` (memory views), in one compiled call; whether it ran (False:
    nothing written, use the numpy path)."""
    if not HAVE_NUMBA or not apart(D, Z):
        return False
    mode, br, sl, it, sh, xmax, end, odd = _table(fmt, name, segments)
    c = _activate_kernel(Z, D, mode, br, sl, it, sh, xmax, end, odd, fmt.frac_bits,
                         fmt.min_raw, fmt.max_raw)
    if c:
        fmt._count(c, counter)
    return True


@njit
def _derivative_mul_kernel(S, Z, D, neg, mode, breaks, slopes, shift, xmax, n, lo, hi):
    """``D = mul(±S, f'(Z))`` (2-D, any strides): ``-S`` clipped to ``[lo, hi]`` when
    ``neg``; ``f'`` 1 (none), ``[z > 0]`` (relu) or the PWL slope of ``|z|``'s segment inside
    ``xmax`` and 0 beyond, saturated (the cast); the product rounded half up at ``n`` and
    saturated. Returns ``(clips of -S, saturations of the cast and the product)``."""
    half = (1 << (n - 1)) if n > 0 else 0
    one = 1 << n
    cn = 0
    cm = 0
    for i in range(S.shape[0]):
        for j in range(S.shape[1]):
            d = S[i, j]
            if neg:
                d = -d
                d, clipped = sat(d, lo, hi)
                cn += clipped
            z = Z[i, j]
            if mode == 0:
                f = one
            elif mode == 1:
                f = one if z > 0 else 0
            else:
                a = -z if z < 0 else z
                f = slopes[_segment(a, breaks, shift)] if a < xmax else 0
            f, clipped = sat(f, lo, hi)
            cm += clipped
            p = (d * f + half) >> n
            p, clipped = sat(p, lo, hi)
            cm += clipped
            D[i, j] = p
    return cn, cm


def derivative_mul_into(fmt, name, S, Z, D, neg: bool, *, segments=None,
                        counter=None) -> bool:
    """vdact's ``D[...] = fmt.mul(d, fmt.cast(derivative(fmt, name, Z), fmt))`` with ``d``
    ``saturate(-S)`` when ``neg`` else ``S`` (int64 matrices of one shape), in one compiled
    call; whether it ran (False: nothing written, use the numpy path)."""
    if not HAVE_NUMBA or not apart(D, S, Z):
        return False
    mode, br, sl, _, sh, xmax, _, _ = _table(fmt, name, segments)
    cn, cm = _derivative_mul_kernel(S, Z, D, neg, mode, br, sl, sh, xmax, fmt.frac_bits,
                                    fmt.min_raw, fmt.max_raw)
    if cn and counter is not None:
        counter.saturations += int(cn)
    if cm:
        fmt._count(cm, counter)
    return True


@njit
def _td_kernel(Q, Z, D, gamma, n, lo, hi):
    """``D[b] = sub(Q[b], add(r_b, done_b > 0 ? 0 : mul(gamma, q2_b)))`` with ``q2 = Z[:B]``
    and ``(r, done)`` the pairs after it; every step saturated (a masked product's clip
    still counted, as the numpy path counts it). Returns the saturations."""
    B = Q.shape[0]
    half = (1 << (n - 1)) if n > 0 else 0
    c = 0
    for b in range(B):
        p = (gamma * Z[b] + half) >> n
        p, clipped = sat(p, lo, hi)
        c += clipped
        if Z[B + 2 * b + 1] > 0:
            p = 0
        y = Z[B + 2 * b] + p
        y, clipped = sat(y, lo, hi)
        c += clipped
        e = Q[b] - y
        e, clipped = sat(e, lo, hi)
        c += clipped
        D[b] = e
    return c


def td_into(fmt, gamma: int, Q, Z, D, *, counter=None) -> bool:
    """td's ``D[...] = fmt.sub(Q, fmt.add(r, where(done > 0, 0, fmt.mul(gamma, q2))))`` (``Q``
    and ``D`` of B words, ``Z`` of 3B: q2, then (r, done) pairs) in one compiled call;
    whether it ran (False: nothing written, use the numpy path, which also refuses a
    ``gamma`` outside the format)."""
    if not HAVE_NUMBA or not fmt.min_raw <= gamma <= fmt.max_raw or not apart(D, Q, Z):
        return False
    c = _td_kernel(Q, Z, D, gamma, fmt.frac_bits, fmt.min_raw, fmt.max_raw)
    if c:
        fmt._count(c, counter)
    return True


@njit
def _noise_kernel(S, g, sigma, D, n, lo, hi):
    """``D = add(S, mul(sigma, g))`` element by element, each step saturated. Returns the
    saturations."""
    half = (1 << (n - 1)) if n > 0 else 0
    c = 0
    for i in range(S.shape[0]):
        p = (sigma * g[i] + half) >> n
        p, clipped = sat(p, lo, hi)
        c += clipped
        y = S[i] + p
        y, clipped = sat(y, lo, hi)
        c += clipped
        D[i] = y
    return c


def noise_into(fmt, S, sigma: int, g, D, *, counter=None) -> bool:
    """noise's ``D[...] = fmt.add(S, fmt.mul(sigma, g))`` (``g`` the PRNG's raw Gaussians) in
    one compiled call; whether it ran (False: nothing written, use the numpy path, which also
    refuses a ``sigma`` outside the format)."""
    if not HAVE_NUMBA or not fmt.min_raw <= sigma <= fmt.max_raw or not apart(D, S):
        return False
    c = _noise_kernel(S, g, sigma, D, fmt.frac_bits, fmt.min_raw, fmt.max_raw)
    if c:
        fmt._count(c, counter)
    return True
