"""Compiled FP16 kernels of the cores' matrix work: the same arithmetic as :mod:`.core` and
:mod:`.vpu` (every product and every partial sum rounded to IEEE binary16, chains in the
order the cores compute them), run on packed layers (:mod:`.layer`) fast enough to train
IC3Net through the simulator.

numba has no float16 arithmetic, so values travel as float32 arrays holding binary16 values
and :func:`r16` rounds a float32 to the nearest binary16 value (ties to even, overflow to
infinity, subnormals on the 2^-24 grid, NaN kept); :func:`h2f` and :func:`f2h` convert
binary16 bits to and from such values. On a CPU with x86's F16C conversions
(:data:`HARDWARE_HALF`) the three are LLVM's ``fptrunc`` to ``half`` and ``fpext`` from it,
which the loops vectorise (eight values an instruction); elsewhere they work on the bits
(:func:`r16_bits`, :func:`h2f_bits`, :func:`f2h_bits`). Both give the same value for every
float32 (:func:`r16`: compared on all 2^32 of them) and every binary16, NaNs aside, whose
payloads may differ but never their sign; :func:`f2h` writes every NaN as the same bits
(sign, then ``0x7E00``), so the kernels' results are identical either way. A binary16 product is exact
in float32 and a binary16 sum rounded to float32 and then to binary16 equals the correctly
rounded binary16 sum (float32 has more than 2 x 11 + 2 significand bits), so
``r16(a * b)`` and ``r16(acc + p)`` are the VPU's FP16 multiplier and adder. Tests compare
every kernel with the numpy models of :mod:`.core` and :mod:`.vpu` bit for bit.

A packed layer stores, for each row of the (possibly transposed) matrix, the unmasked
weights of that row contiguously; every row of one group has the same unmasked columns (the
group's columns, FLGW's second observation), so a core accumulates a row into the compact
partial sums of its group's columns (padded to whole vectors, :data:`.layer.PAD`); the
cores' sums are combined in that order and scattered to the outputs once. The chain of each
output is over the core's rows in order, as in :func:`.core._dataflow`.

The loops are arranged so that the compiler vectorises them; where two NaN operands of
different signs meet, which one an IEEE operation returns depends on the operand order the
compiler chose, so a rearranged loop selects the one the plain loop returns explicitly
(``x if x != x else ...``), so that every kernel gives the plain loop's bits.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from rlaccel.tlm.fast.jit import HAVE_NUMBA, njit

__all__ = ["r16", "r16_bits", "r16d", "h2f", "h2f_bits", "f2h", "f2h_bits", "round16",
           "packed_forward", "packed_grad", "layout", "HAVE_NUMBA", "HARDWARE_HALF"]


if HAVE_NUMBA:
    def _bitcast(src, dst, llvm_type):
        """An intrinsic reading a ``src`` value's bits as a ``dst`` (``llvm_type``)."""
        @intrinsic
        def cast(typingctx, x):
            def codegen(context, builder, sig, args):
                return builder.bitcast(args[0], llvm_type)
            return dst(src), codegen
        return cast

    _bits = _bitcast(types.float32, types.uint32, ir.IntType(32))
    _float = _bitcast(types.uint32, types.float32, ir.FloatType())
    _bits64 = _bitcast(types.float64, types.uint64, ir.IntType(64))
    _float64 = _bitcast(types.uint64, types.float64, ir.DoubleType())

    @intrinsic
    def _half_round(typingctx, x):
        """A float32 to binary16 and back as two IEEE conversions (round to nearest even)."""
        def codegen(context, builder, sig, args):
            return builder.fpext(builder.fptrunc(args[0], ir.HalfType()), ir.FloatType())
        return types.float32(types.float32), codegen

    @intrinsic
    def _half_to_float(typingctx, h):
        """Binary16 bits (uint16) as a float32, by an IEEE conversion."""
        def codegen(context, builder, sig, args):
            return builder.fpext(builder.bitcast(args[0], ir.HalfType()), ir.FloatType())
        return types.float32(types.uint16), codegen

    @intrinsic
    def _float_to_half(typingctx, x):
        """A float32 as binary16 bits (uint16), by an IEEE conversion."""
        def codegen(context, builder, sig, args):
            return builder.bitcast(builder.fptrunc(args[0], ir.HalfType()), ir.IntType(16))
        return types.uint16(types.float32), codegen
else:                                              # pragma: no cover - numba is a dependency
    def _bitcast(src, dst):
        return lambda x: dst(np.asarray(x, src).view(dst))

    _bits = _bitcast(np.float32, np.uint32)
    _float = _bitcast(np.uint32, np.float32)
    _bits64 = _bitcast(np.float64, np.uint64)
    _float64 = _bitcast(np.uint64, np.float64)


def _hardware_half() -> bool:
    """Whether numba compiles for a CPU with F16C (its ``NUMBA_CPU_FEATURES`` or the host's):
    there LLVM's half conversions are single instructions; elsewhere they may be calls to a
    runtime library numba does not link."""
    if not HAVE_NUMBA:
        return False
    from numba.core import config
    feats = config.CPU_FEATURES
    if feats is None:
        import llvmlite.binding as llvm
        feats = llvm.get_host_cpu_features().flatten()
    return "+f16c" in feats.split(",")


#: :func:`r16` by the CPU's binary16 conversions (module docstring)
HARDWARE_HALF = _hardware_half()


@njit(inline=True)
def r16_bits(x):
    """The binary16 value nearest a float32 (ties to even), as a float32; beyond 65504 (from
    65520 on) infinity; NaN and infinities unchanged: computed on the bits."""
    b = _bits(x)
    a = b & np.uint32(0x7FFFFFFF)
    s = b & np.uint32(0x80000000)
    # normal binary16 range: keep 10 fraction bits, round half to even on the 13 dropped bits
    n = (a + np.uint32(0xFFF) + ((a >> np.uint32(13)) & np.uint32(1))) & np.uint32(0xFFFFE000)
    n = np.uint32(0x7F800000) if n > np.uint32(0x477FE000) else n
    # below 2^-14 the binary16 grid is 2^-24: adding 0.75 (whose float32 ulp is 2^-24) rounds
    t = _bits((_float(a) + np.float32(0.75)) - np.float32(0.75))
    r = t if a < np.uint32(0x38800000) else n
    r = a if a > np.uint32(0x7F800000) else r          # NaN
    return _float(s | r)


@njit(inline=True)
def r16d(x):
    """The binary16 value nearest a float64 (one rounding, ties to even), as a float32: how
    a function unit's float64 result becomes FP16 (``isa.dtypes``' fp16 activations)."""
    b = _bits64(x)
    a = b & np.uint64(0x7FFFFFFFFFFFFFFF)
    s = b & np.uint64(0x8000000000000000)
    n = (a + np.uint64(0x1FFFFFFFFFF) + ((a >> np.uint64(42)) & np.uint64(1))) \
        & np.uint64(0xFFFFFC0000000000)
    n = np.uint64(0x7FF0000000000000) if n > np.uint64(0x40EFFC0000000000) else n
    t = _bits64((_float64(a) + 402653184.0) - 402653184.0)   # the 2^-24 grid below 2^-14
    r = t if a < np.uint64(0x3F10000000000000) else n
    r = a if a > np.uint64(0x7FF0000000000000) else r
    return np.float32(_float64(s | r))


@njit(inline=True)
def h2f_bits(h):
    """The float32 of binary16 bits ``h`` (uint16), exactly: computed on the bits."""
    h = np.uint32(h)
    s = (h & np.uint32(0x8000)) << np.uint32(16)
    e = (h >> np.uint32(10)) & np.uint32(0x1F)
    m = h & np.uint32(0x3FF)
    if e == 0:                                         # zero and subnormals: m 2^-24
        v = np.float32(m) * np.float32(5.9604644775390625e-08)
        return -v if s else v
    if e == 31:                                        # infinities and NaN
        return _float(s | np.uint32(0x7F800000) | (m << np.uint32(13)))
    return _float(s | ((e + np.uint32(112)) << np.uint32(23)) | (m << np.uint32(13)))


@njit(inline=True)
def f2h_bits(x):
    """The binary16 bits of a float32 that holds a binary16 value (:func:`r16`'s results); a
    NaN as its sign and ``0x7E00``: computed on the bits."""
    b = _bits(x)
    s = (b >> np.uint32(16)) & np.uint32(0x8000)
    a = b & np.uint32(0x7FFFFFFF)
    if a > np.uint32(0x7F800000):
        return np.uint16(s | np.uint32(0x7E00))      # NaN
    if a >= np.uint32(0x47800000):
        return np.uint16(s | np.uint32(0x7C00))      # infinity
    if a >= np.uint32(0x38800000):
        return np.uint16(s | ((a - np.uint32(0x38000000)) >> np.uint32(13)))
    return np.uint16(s | np.uint32(_float(a) * np.float32(16777216.0)))


if HARDWARE_HALF:
    @njit(inline=True)
    def r16(x):
        """The binary16 value nearest a float32 (ties to even), as a float32: the CPU's
        conversions, equal to :func:`r16_bits` (module docstring)."""
        return _half_round(x)

    @njit(inline=True)
    def h2f(h):
        """The float32 of binary16 bits ``h`` (uint16), exactly: the CPU's conversion."""
        return _half_to_float(h)

    @njit(inline=True)
    def f2h(x):
        """The binary16 bits of a float32 that holds a binary16 value, a NaN as
        :func:`f2h_bits` writes it: the CPU's conversion."""
        b = _bits(x)
        nan = np.uint16(((b >> np.uint32(16)) & np.uint32(0x8000)) | np.uint32(0x7E00))
        return nan if (b & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000) else _float_to_half(x)
else:
    r16, h2f, f2h = r16_bits, h2f_bits, f2h_bits


@njit
def round16(x):
    """:func:`r16` of every element of a float32 array (a new array)."""
    out = np.empty_like(x)
    flat_in = x.ravel()
    flat = out.ravel()
    for i in range(flat_in.size):
        flat[i] = r16(flat_in[i])
    return out


def layout(cores, row_group, koff, gptr, kptr, gcols, kcols) -> np.ndarray:
    """A packed layer's integer arrays as the kernels take them: one int64 array, eight
    boundaries (where each of the seven starts, and the end) then the seven (numba types and
    unboxes every array argument of a call, about 0.15 us each)."""
    parts = [np.asarray(a, np.int64) for a in (cores, row_group, koff, gptr, kptr, gcols,
                                                kcols)]
    ends = np.cumsum([8] + [a.size for a in parts])
    return np.concatenate([np.concatenate([[8], ends[1:]]).astype(np.int64)] + parts)


@njit(inline=True)
def _part(meta, k):
    """The ``k``-th array of :func:`layout`."""
    return meta[meta[k]:meta[k + 1]]


@njit
def packed_forward(X, meta, kvals, kbias, out):
    """``out[b, j] = sum over the kept i of X[b, i] * W[i, j] (+ bias[j])`` on a packed layer;
    ``X`` and ``out`` are binary16 bits (uint16 views of the memories).

    ``meta`` (:func:`layout`): ``cores`` -- row boundaries of the cores (C + 1, row-based
    blocks); ``row_group[i]`` the group of row i (-1: a row with no unmasked weight);
    ``koff[i]`` where its weights start in ``kvals``; ``kptr`` where each group's partial
    sums start, its width padded with zeros (:data:`.layer.PAD`, no scalar remainder in the
    vector loop; the padding's sums are never read); ``kcols[p]`` the output of sum ``p``
    (-1: padding). ``kbias`` the bias in that order, or empty. Each core chains its rows in
    order from +0 per output (the +0 turns a -0 sum into +0, as a cleared register); the
    aggregator adds the cores' sums in core order, then the bias, each add rounded; the
    sums are combined in their packed order (each output is one of them) and scattered to
    the outputs once."""
    cores, row_group, koff = _part(meta, 0), _part(meta, 1), _part(meta, 2)
    kptr, kcols = _part(meta, 4), _part(meta, 6)
    B = X.shape[0]
    P = kcols.size
    acc = np.empty(P, np.float32)
    res = np.empty(P, np.float32)
    y = np.empty(P, np.uint16)
    have_bias = kbias.size > 0
    for b in range(B):
        for c in range(cores.size - 1):
            for p in range(P):
                acc[p] = np.float32(0.0)
            for r in range(cores[c], cores[c + 1]):
                g = row_group[r]
                if g < 0:
                    continue
                xv = h2f(X[b, r])
                n = kptr[g + 1] - kptr[g]
                a = acc[kptr[g]:kptr[g + 1]]          # local views let the loop vectorise
                v = kvals[koff[r]:koff[r] + n]
                for k in range(n):
                    a[k] = r16(a[k] + r16(xv * v[k]))
            if c == 0:
                for p in range(P):
                    res[p] = acc[p] + np.float32(0.0)
            else:
                for p in range(P):
                    res[p] = r16(res[p] + (acc[p] + np.float32(0.0)))
        if have_bias:
            for p in range(P):
                y[p] = f2h(r16(res[p] + kbias[p]))
        else:
            for p in range(P):
                y[p] = f2h(res[p])
        ob = out[b]
        for p in range(P):
            j = kcols[p]
            if j >= 0:
                ob[j] = y[p]


#: a dense layer narrower than this accumulates its weight gradients column by column
#: (:func:`_dense_grad`)
NARROW = 32


@njit
def _dense_grad(X, D, G):
    """:func:`packed_grad` of a dense layer (every row keeps every column): the same chains,
    each column's accumulators side by side (a loop over the rows vectorises; one over a
    narrow row, the heads' eight columns, hardly does)."""
    B, rows, ncols = X.shape[0], X.shape[1], G.shape[1]
    T = np.empty((ncols, rows), np.float32)
    for r in range(rows):
        for j in range(ncols):
            T[j, r] = h2f(G[r, j])
    Xf = np.empty((B, rows), np.float32)
    for b in range(B):
        for r in range(rows):
            Xf[b, r] = h2f(X[b, r])
    for j in range(ncols):
        t = T[j]
        for b in range(B):
            dv, xb = h2f(D[b, j]), Xf[b]
            for r in range(rows):                     # two NaNs: x's, then the product's,
                x = xb[r]                             # as the rows' loops keep them
                p = r16(x if x != x else x * dv)
                t[r] = p if p != p else r16(t[r] + p)
    for r in range(rows):
        for j in range(ncols):
            G[r, j] = f2h(T[j, r])
    Gb = G[rows]
    for j in range(ncols):
        acc = h2f(Gb[j])
        for b in range(B):
            acc = r16(acc + h2f(D[b, j]))
        Gb[j] = f2h(acc)


@njit
def packed_grad(X, D, meta, G):
    """``G[i, j] += X[b, i] * D[b, j]`` for the kept (i, j) and the bias row
    ``G[rows, j] += D[b, j]``, for b = 0, 1, ... in order, each product and each sum rounded
    (a VPU MAC per weight and sample). ``X``, ``D`` and the (rows + 1) x ncols accumulator
    ``G`` are binary16 bits (uint16 views of the memories); ``meta`` as
    :func:`packed_forward`'s, with ``gptr``/``gcols`` each group's columns (ascending). A
    row's kept words are gathered as bits and converted side by side (the conversions
    vectorise, a gather of each does not), its MACs run over the group's padded width (the
    padding's sums are never written); a group of consecutive columns (a dense layer's) is
    read and written in place. The bias row's chains over b run side by side (one
    vectorised pass per sample); where two NaNs meet, the sum's is kept, as a chain would."""
    row_group, gptr, kptr = _part(meta, 1), _part(meta, 3), _part(meta, 4)
    gcols, kcols = _part(meta, 5), _part(meta, 6)
    B = X.shape[0]
    P = kcols.size
    ncols = G.shape[1]
    if ncols < NARROW and gptr[1] - gptr[0] == ncols and np.all(row_group == 0):
        _dense_grad(X, D, G)
        return
    raw = np.empty(P, np.uint16)
    Dc = np.empty((B, P), np.float32)                # each group's columns, side by side
    for b in range(B):
        Db = D[b]
        for p in range(P):
            raw[p] = Db[max(kcols[p], 0)]
        for p in range(P):
            Dc[b, p] = h2f(raw[p]) if kcols[p] >= 0 else np.float32(0.0)
    tmp = np.empty(max(P, ncols), np.float32)
    xs = np.empty(B, np.float32)
    for r in range(row_group.size):
        g = row_group[r]
        if g < 0:
            continue
        lo, hi, klo = gptr[g], gptr[g + 1], kptr[g]
        n, w = hi - lo, kptr[g + 1] - klo
        Gr, cols, h, t = G[r], gcols[lo:hi], raw[:n], tmp[:w]
        c0 = cols[0]
        run = cols[n - 1] - c0 == n - 1              # ascending: consecutive columns
        if run:
            Gs = Gr[c0:c0 + n]
            for k in range(n):
                t[k] = h2f(Gs[k])
        else:
            for k in range(n):
                h[k] = Gr[cols[k]]
            for k in range(n):
                t[k] = h2f(h[k])
        for k in range(n, w):
            t[k] = np.float32(0.0)
        for b in range(B):
            xs[b] = h2f(X[b, r])
        for b in range(B):
            xv = xs[b]
            d = Dc[b, klo:klo + w]
            for k in range(w):
                t[k] = r16(t[k] + r16(xv * d[k]))
        if run:
            for k in range(n):
                Gs[k] = f2h(t[k])
        else:
            for k in range(n):
                h[k] = f2h(t[k])
            for k in range(n):
                Gr[cols[k]] = h[k]
    Gb = G[row_group.size]
    acc = tmp[:ncols]
    for j in range(ncols):
        acc[j] = h2f(Gb[j])
    for b in range(B):
        Db = D[b]
        for j in range(ncols):
            x = acc[j]
            acc[j] = x if x != x else r16(x + h2f(Db[j]))   # two NaNs: the sum's, in order
    for j in range(ncols):
        Gb[j] = f2h(acc[j])


@njit
def kept_dot(Gacc, W, keep, by_column, out):
    """:func:`.vpu.dot` of ``where(keep, Gacc, 0)`` and ``W`` (rows x cols binary16 bits,
    ``keep`` bool) along each row, or with ``by_column`` along each column: every product
    and partial sum rounded, a chain from its first product, plus +0. ``out`` gets one
    binary16 (bits) per row (column); returns the overflows FP16's multiply and
    :func:`.vpu.dot` count (finite to infinite)."""
    rows, cols = W.shape
    lines, length = (cols, rows) if by_column else (rows, cols)
    count = 0
    for a in range(lines):
        acc = np.float32(0.0)
        finite = True
        for k in range(length):
            i, j = (k, a) if by_column else (a, k)
            g = h2f(Gacc[i, j]) if keep[i, j] else np.float32(0.0)
            prod = g * h2f(W[i, j])                     # exact in float32
            p = r16(prod)
            if not np.isfinite(p):
                finite = False
                if np.isfinite(prod):
                    count += 1
            acc = p if k == 0 else r16(acc + p)
        res = acc + np.float32(0.0)
        if finite and length > 0 and not np.isfinite(res):
            count += 1
        out[a] = f2h(res)
    return count


# ---- the VPUs' vector operations (the expressions of :mod:`.vector`, one rounding per
# operation; binary16 bits in and out) ----------------------------------------------------
_TABLES: list = []


def activation_tables() -> tuple[np.ndarray, np.ndarray]:
    """The sigmoid and tanh of every binary16 (indexed by its bits), as :mod:`.vector`
    computes them (the float64 function rounded once), as binary16 bits, every NaN as
    :func:`f2h` writes it: a function unit's answer to any FP16 input, looked up (made on
    first use; 128 KiB each, half the float32 values, so that they stay in the cache)."""
    if not _TABLES:
        from rlaccel.machines.learninggroup.tlm import vector
        every = np.arange(65536, dtype=np.uint16).view(np.float16)
        for f in (vector.sigmoid, vector.tanh):
            with np.errstate(invalid="ignore"):
                v = f(every)
            bits = v.view(np.uint16).copy()
            nan = np.isnan(v)
            bits[nan] = (bits[nan] & 0x8000) | 0x7E00
            _TABLES.append(bits)
    return _TABLES[0], _TABLES[1]


@njit
def vec_add(a, b, out):
    """``out = a + b`` (binary16 bits)."""
    for k in range(out.size):
        out[k] = f2h(r16(h2f(a[k]) + h2f(b[k])))


@njit
def vec_muls(a, s, out):
    """``out = a * s`` for a binary16 scalar ``s`` (bits)."""
    sv = h2f(s)
    for k in range(out.size):
        out[k] = f2h(r16(h2f(a[k]) * sv))


@njit
def vec_add_into(a, b, into_a):
    """:func:`vec_add` written over ``a`` (``into_a``) or over ``b``, in place: with one
    array both read and written the loop vectorises (an ``out`` that is an input's words
    fails the compiler's overlap check, and the element-by-element loop is about ten times
    slower)."""
    if into_a:
        for k in range(a.size):
            a[k] = f2h(r16(h2f(a[k]) + h2f(b[k])))
    else:
        for k in range(b.size):
            b[k] = f2h(r16(h2f(a[k]) + h2f(b[k])))


@njit
def vec_muls_into(a, s):
    """:func:`vec_muls` written over ``a``, in place (as :func:`vec_add_into`)."""
    sv = h2f(s)
    for k in range(a.size):
        a[k] = f2h(r16(h2f(a[k]) * sv))


@njit
def softmax_rows(a, out, B, n, m):
    """:func:`.vector.softmax` of ``B`` segments of ``n`` words ``m`` apart (``a`` and
    ``out`` binary16 bits, the segment of ``b`` at ``b * m``): ``e = exp(x - max)`` (the
    float64 function rounded once), the sum a chain of FP16 adds in order (``e * 1`` is
    exact), ``e / sum``; every segment computed before any is written."""
    e = np.empty((B, n), np.float32)
    for b in range(B):
        x = a[b * m:b * m + n]
        mx = h2f(x[0])
        for k in range(1, n):
            v = h2f(x[k])
            if v > mx or v != v:                       # a NaN is the maximum, as numpy's
                mx = v
        for k in range(n):
            e[b, k] = r16d(np.exp(np.float64(r16(h2f(x[k]) - mx))))
    for b in range(B):
        acc = e[b, 0]
        for k in range(1, n):
            acc = r16(acc + e[b, k])
        acc = acc + np.float32(0.0)
        for k in range(n):
            out[b * m + k] = f2h(r16(e[b, k] / acc))


@njit
def rms(w, g, v, hp):
    """The ``rms`` instruction: :func:`.vector.rmsprop` of the weights ``w`` with the
    gradients ``g`` times the scale, then ``g`` cleared; ``w``, ``g``, ``v`` binary16 bits of
    the same length (not overlapping), ``hp`` the hyper-parameter block's bits (lr, alpha,
    1 - alpha, eps, scale)."""
    lr, alpha, oma, eps, scale = h2f(hp[0]), h2f(hp[1]), h2f(hp[2]), h2f(hp[3]), h2f(hp[4])
    for k in range(w.size):
        gk = r16(h2f(g[k]) * scale)
        vk = r16(r16(alpha * h2f(v[k])) + r16(oma * r16(gk * gk)))
        step = r16(lr * r16(gk / r16(r16(np.sqrt(vk)) + eps)))
        w[k] = f2h(r16(h2f(w[k]) - step))
        v[k] = f2h(vk)
        g[k] = 0


@njit(inline=True)
def _f2h_numpy(x):
    """The binary16 bits of a float32 holding a binary16 value, a NaN as numpy's float16
    arithmetic writes it (sign, quiet, the payload's top bits) where :func:`f2h` writes one
    NaN: the bits of :mod:`.vector`'s numpy results."""
    b = _bits(x)
    if (b & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000):
        return np.uint16(((b >> np.uint32(16)) & np.uint32(0x8000)) | np.uint32(0x7E00)
                         | ((b & np.uint32(0x7FFFFF)) >> np.uint32(13)))
    return f2h(x)


@njit
def grouping_rms(w, g, v, hp):
    """:func:`.vector.rmsprop` of the grouping matrices ``w`` with gradients ``g`` and
    square averages ``v`` (binary16 bits, apart; ``w`` and ``v`` written in place), ``hp``
    the hyper-parameters' bits (lr, alpha, 1 - alpha, eps): numpy's float16 operations one
    by one, each rounded, and its bits where NaNs meet (which operand's NaN each returns,
    named by :func:`_nan`; the NaN bits by :func:`_f2h_numpy`)."""
    lr, alpha, oma, eps = h2f(hp[0]), h2f(hp[1]), h2f(hp[2]), h2f(hp[3])
    for k in range(w.size):
        gk, vk, wk = h2f(g[k]), h2f(v[k]), h2f(w[k])
        t = r16(_nan(vk, alpha * vk))
        gg = r16(gk * gk)
        u = r16(_nan(gg, oma * gg))
        vn = r16(_nan(u, t + u))
        s = r16(np.sqrt(vn))
        s = r16(_nan(eps, s + eps))
        q = r16(_nan(gk, gk / s))
        q = r16(_nan(q, lr * q))
        w[k] = _f2h_numpy(r16(_nan(wk, wk - q)))
        v[k] = _f2h_numpy(vn)


@njit
def head_grads(out, td, coef, d, B, n):
    """:func:`.vector.head_grads` (``pgrad``): ``out`` the heads of ``B`` agents (``n``
    action probabilities, two talk probabilities, the value; binary16 bits), ``td`` the
    environment actions, talk actions, advantages and returns (4 x B), ``coef`` the value
    coefficient (one word) -> ``d`` (B x (n + 3)), computed whole before it is written. False (and
    nothing written) when an action is not a whole number in range."""
    k = n + 3
    for b in range(B):
        ae, at = h2f(td[b]), h2f(td[B + b])
        if not (ae >= 0 and ae < n and at >= 0 and at < 2 and ae == np.floor(ae)
                and at == np.floor(at)):
            return False
    c = h2f(coef[0])
    tmp = np.empty(B * k, np.uint16)
    for b in range(B):
        ae, at = int(h2f(td[b])), int(h2f(td[B + b]))
        adv, ret = h2f(td[2 * B + b]), h2f(td[3 * B + b])
        for j in range(n + 2):
            hot = np.float32(1.0) if (j == ae if j < n else j - n == at) else np.float32(0.0)
            tmp[b * k + j] = f2h(r16(adv * r16(h2f(out[b * k + j]) - hot)))
        tmp[b * k + n + 2] = f2h(r16(c * r16(h2f(out[b * k + n + 2]) - ret)))
    for i in range(B * k):
        d[i] = tmp[i]
    return True


def lstm_fw(z, sp, out, B, n, passes: bool = False):
    """:func:`.vector.lstm_forward`: ``z`` (B x 4n), ``sp`` (B x n) -> ``out`` = gates,
    s, tanh(s), h (flat, B*4n + 3*B*n); the activations from :func:`activation_tables`.
    ``passes`` -- :func:`_lstm_fw_passes`, for an ``out`` apart from ``z`` and ``sp``; else
    one loop over the units on the tables as float32."""
    if passes:
        _lstm_fw_passes(z, sp, out, B, n, *activation_tables())
    else:
        sig, tanh = activation_tables()
        if len(_TABLES) == 2:                        # their float32 values, made once
            _TABLES.extend(t.view(np.float16).astype(np.float32) for t in (sig, tanh))
        _lstm_fw(z, sp, out, B, n, _TABLES[2], _TABLES[3])


@njit
def _lstm_fw(z, sp, out, B, n, sig, tanh):
    S, T, Hh = 4 * B * n, 5 * B * n, 6 * B * n
    for b in range(B):
        for u in range(n):
            i, f = sig[z[b * 4 * n + u]], sig[z[b * 4 * n + n + u]]
            g, o = tanh[z[b * 4 * n + 2 * n + u]], sig[z[b * 4 * n + 3 * n + u]]
            s = r16(r16(f * h2f(sp[b * n + u])) + r16(i * g))
            t = tanh[f2h(s)]
            out[b * 4 * n + u] = f2h(i)
            out[b * 4 * n + n + u] = f2h(f)
            out[b * 4 * n + 2 * n + u] = f2h(g)
            out[b * 4 * n + 3 * n + u] = f2h(o)
            out[S + b * n + u] = f2h(s)
            out[T + b * n + u] = f2h(t)
            out[Hh + b * n + u] = f2h(r16(o * t))


@njit
def _lstm_fw_passes(z, sp, out, B, n, sig, tanh):
    """:func:`_lstm_fw` one result at a time over each agent's units (the gates looked up,
    s, tanh(s) looked up, h), the same operations in the same order, so that the arithmetic
    vectorises; for an ``out`` apart from ``z`` and ``sp`` (a later pass reads what an
    earlier one wrote)."""
    S, T, Hh = 4 * B * n, 5 * B * n, 6 * B * n
    for b in range(B):
        q = b * 4 * n
        for k in range(4):
            tab = tanh if k == 2 else sig
            Zk, Ok = z[q + k * n:q + (k + 1) * n], out[q + k * n:q + (k + 1) * n]
            for u in range(n):
                Ok[u] = tab[Zk[u]]
        I, F, G, O = out[q:q + n], out[q + n:q + 2 * n], out[q + 2 * n:q + 3 * n], \
            out[q + 3 * n:q + 4 * n]
        Sp = sp[b * n:(b + 1) * n]
        Ss, Tt, H = out[S + b * n:S + (b + 1) * n], out[T + b * n:T + (b + 1) * n], \
            out[Hh + b * n:Hh + (b + 1) * n]
        for u in range(n):
            x, y = r16(h2f(F[u]) * h2f(Sp[u])), r16(h2f(I[u]) * h2f(G[u]))
            Ss[u] = f2h(y if y != y else r16(x + y))     # two NaNs: i g's, as _lstm_fw
        for u in range(n):
            Tt[u] = tanh[Ss[u]]
        for u in range(n):
            H[u] = f2h(r16(h2f(O[u]) * h2f(Tt[u])))


@njit
def lstm_bw(dh, dsn, fr, sp, keep, dz, B, n):
    """:func:`.vector.lstm_backward`: ``dh``, ``dsn`` (in and out), the frame ``fr`` (gates,
    s, tanh(s), h), ``sp`` (B x n), ``keep`` (bits) -> ``dz`` (B x 4n)."""
    kp = h2f(keep)
    T = 5 * B * n
    one = np.float32(1.0)
    for b in range(B):
        for u in range(n):
            q = b * 4 * n + u
            i, f = h2f(fr[q]), h2f(fr[q + n])
            g, o = h2f(fr[q + 2 * n]), h2f(fr[q + 3 * n])
            t = h2f(fr[T + b * n + u])
            d = h2f(dh[b * n + u])
            ds = r16(r16(r16(d * o) * r16(one - r16(t * t))) + h2f(dsn[b * n + u]))
            dz[q] = f2h(r16(r16(r16(ds * g) * i) * r16(one - i)))
            dz[q + n] = f2h(r16(r16(r16(ds * h2f(sp[b * n + u])) * f) * r16(one - f)))
            dz[q + 2 * n] = f2h(r16(r16(ds * i) * r16(one - r16(g * g))))
            dz[q + 3 * n] = f2h(r16(r16(r16(d * t) * o) * r16(one - o)))
            dsn[b * n + u] = f2h(r16(r16(ds * f) * kp))


@njit(inline=True)
def _nan(x, r):
    """``r``, the result of an operation on ``x`` and another operand, or ``x`` when ``x`` is
    NaN: which of two NaN operands an IEEE operation returns is the compiler's choice of
    operand order, so a rearranged loop names the one the plain loop returns."""
    return x if x != x else r


@njit
def lstm_bw_passes(dh, dsn, fr, sp, keep, dz, B, n):
    """:func:`lstm_bw` in six passes over each agent's units, each computing one result from
    the same operations in the same order (``ds`` kept as float32, which holds its binary16
    value exactly), so that every pass vectorises (the single loop reads and writes too many
    arrays for the compiler's overlap checks); where two NaN operands meet, the one
    :func:`lstm_bw` returns (:func:`_nan`). For operands that do not overlap: with ``dz`` or
    ``dsn`` on an input's words a pass would read what an earlier one wrote."""
    kp = h2f(keep)
    T = 5 * B * n
    one = np.float32(1.0)
    ds = np.empty(n, np.float32)
    for b in range(B):
        q = b * 4 * n
        I, F, Gg, O = fr[q:q + n], fr[q + n:q + 2 * n], fr[q + 2 * n:q + 3 * n], \
            fr[q + 3 * n:q + 4 * n]
        Tt, D = fr[T + b * n:T + (b + 1) * n], dh[b * n:(b + 1) * n]
        Sp, Dn = sp[b * n:(b + 1) * n], dsn[b * n:(b + 1) * n]
        for u in range(n):
            t, d, o, dn = h2f(Tt[u]), h2f(D[u]), h2f(O[u]), h2f(Dn[u])
            m = r16(_nan(o, d * o))
            c = r16(one - r16(t * t))
            m = r16(_nan(c, m * c))
            ds[u] = r16(_nan(dn, m + dn))
        Z = dz[q:q + n]
        for u in range(n):
            i, g = h2f(I[u]), h2f(Gg[u])
            x = r16(_nan(g, ds[u] * g))
            x = r16(_nan(i, x * i))
            w = r16(one - i)
            Z[u] = f2h(r16(_nan(x, x * w)))
        Z = dz[q + n:q + 2 * n]
        for u in range(n):
            f, s = h2f(F[u]), h2f(Sp[u])
            x = r16(_nan(ds[u], ds[u] * s))
            x = r16(_nan(f, x * f))
            w = r16(one - f)
            Z[u] = f2h(r16(_nan(x, x * w)))
        Z = dz[q + 2 * n:q + 3 * n]
        for u in range(n):
            i, g = h2f(I[u]), h2f(Gg[u])
            x = r16(_nan(i, ds[u] * i))
            w = r16(one - r16(g * g))
            Z[u] = f2h(r16(_nan(x, x * w)))
        Z = dz[q + 3 * n:q + 4 * n]
        for u in range(n):
            d, t, o = h2f(D[u]), h2f(Tt[u]), h2f(O[u])
            x = r16(_nan(t, d * t))
            x = r16(_nan(o, x * o))
            w = r16(one - o)
            Z[u] = f2h(r16(_nan(x, x * w)))
        for u in range(n):
            x = r16(_nan(h2f(F[u]), ds[u] * h2f(F[u])))
            Dn[u] = f2h(r16(_nan(x, x * kp)))


@njit
def comm_mean(a, talk, out, B, n):
    """:func:`.vector.comm_mean`: ``out[i] = sum_j C[i, j] a[j]`` as MAC chains over j,
    ``C[i, j] = fp16(fp16(g_i g_j) fp16(1/(B-1)))`` off the diagonal; ``a`` is read whole
    before ``out`` is written (the two may be one). False (and nothing written) when a talk
    action is not 0 or 1."""
    for i in range(B):
        g = h2f(talk[i])
        if not (g == 0 or g == 1):
            return False
    c = r16d(1.0 / max(B - 1, 1))
    C = np.zeros((B, B), np.float32)
    for i in range(B):
        for j in range(B):
            if i != j:
                C[i, j] = r16(r16(h2f(talk[i]) * h2f(talk[j])) * c)
    av = np.empty((B, n), np.float32)
    for j in range(B):
        for u in range(n):
            av[j, u] = h2f(a[j * n + u])
    acc = np.empty((B, n), np.float32)              # every chain over j, side by side
    for i in range(B):
        ai = acc[i]
        for u in range(n):
            ai[u] = np.float32(0.0)
        for j in range(B):
            cij, aj = C[i, j], av[j]
            for u in range(n):
                ai[u] = r16(ai[u] + r16(cij * aj[u]))
    for i in range(B):
        for u in range(n):
            out[i * n + u] = f2h(acc[i, u] + np.float32(0.0))
    return True
