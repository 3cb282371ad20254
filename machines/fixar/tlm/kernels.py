"""The AAP cores' matrix products on raw fixed-point operands, exact and batched.

FIXAR's PEs multiply a 32-bit weight by a 32-bit activation (or by a 16-bit one, two a cycle:
:mod:`.pe`); the products of a column are summed down the array, the columns' partial sums in
the accumulator and, in forward propagation, the cores' partial sums again (the FIXAR paper, section
V-B). The functional rule is the project's (``isa/dtypes/README.md``): **every product exact,
the whole sum exact, one round half up at the output's binary point, one saturation**. An
exact sum does not depend on the order it is formed in, so interleaving columns across cores
(forward) or vectors across cores (back-propagation, weight gradients) cannot change a result.

A 32x32-bit product has 62 bits and 400 of them need 71, beyond int64 and far beyond float64's
53-bit mantissa. :func:`matmul_round` therefore computes ``A @ B`` in float64 BLAS only where
that is exact: when every output's sum of product magnitudes stays at or below ``2**52`` one
product does it (then every partial sum BLAS forms, in any order or with fused multiply-adds,
is an integer below ``2**53``, exact in float64). The bound is ``K * max|A| * max|B|``, or
(with numba) where that is too coarse the finer ``max_i sum_k |A[i, k]| * max|B|`` (the largest row sum
of ``|A|``, found in the pass that converts ``A``), with ``max|B|`` made exact first when an
:class:`Operand` holds only a bound of it: 400 activations against exact 32-bit weights
(q4.28) have a coarse bound above ``2**52`` and a fine one about ``2**49``. Otherwise ``B`` (or
``A``, whichever is larger) is split into ``L``-bit limbs small enough that every partial
product sum stays below ``2**52``, and the partial sums are recombined with carries and rounded
without ever forming the full sum in one word (as :meth:`rlaccel.isa.dtypes.FixedType.matvec`
does with its 16-bit limb). Operands may be up to 33-bit signed (a 16-bit QAT code minus its
zero point needs 17) and ``K`` up to 2**19 terms of 33-bit operands.

With numba (:mod:`rlaccel.tlm.fast.jit`) the single-product path -- every product of a DDPG
run -- converts a raw operand to float64 and finds ``max|.|`` in one compiled pass
(:func:`_to_f64_into`) and adds a per-column or per-row bias, rounds and saturates in another
(:func:`_round_saturate`), with the same int64 operations as the plain path, which still
serves a full-matrix addend, the limb path and runs without numba. The simulator's
instructions go further (:func:`operand_into`, and ``matmul_round``'s ``into``, ``work``,
``relu`` and ``mask``): an operand converted into a buffer made once, which also gives its
minimum and maximum (the QAT monitor's), the product into a second buffer, and the tail
(with ReLU, or the ReLU derivative's mask) written straight into the destination; and
:func:`product_into` (forward and back-propagation) and :func:`gradient_into` (weight
gradients, and the bias gradients' column sums of the errors) do all of it in one compiled
call, the product through numba's BLAS call, declining (nothing written) whenever the
general path has to decide; a weight operand whose ``max|.|`` an update left as a bound is
made exact (:meth:`Operand.tighten`) before a product declines for its sums' bound. The compiled passes
convert between int64 and float64 by the ``1.5 * 2**52`` bit trick (:func:`i2f`,
:func:`f2i`; exact below ``2**51``, and it vectorises where AVX2 has no packed int64
conversion); the tail takes the plain cast for sums between ``2**51`` and ``2**52``.
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import DTypeError
from rlaccel.tlm.fast.jit import HAVE_NUMBA, njit

__all__ = ["matmul_round", "product_into", "gradient_into", "limb_plan", "saturate",
           "rescale", "Operand", "operand_into", "MAX_OPERAND_BITS"]

#: widest signed operand the kernels accept (a 32-bit word, or a 17-bit QAT code offset)
MAX_OPERAND_BITS = 33
_SAFE = 1 << 52             # partial sums are kept at or below this: exact in float64
_ADD_LIMIT = 1 << 60        # an addend's magnitude stays below this
_I64_MAX = (1 << 63) - 1


def _operand(name: str, a) -> tuple[np.ndarray, int]:
    """``a`` as a 2-D int64 array and ``max|a|`` (a Python int); a DTypeError otherwise."""
    a = np.asarray(a)
    if a.dtype.kind not in "iu":
        raise DTypeError(f"matmul_round: operand {name} must be raw integers, not {a.dtype} "
                         f"(quantize values first)")
    if a.ndim != 2:
        raise DTypeError(f"matmul_round: operand {name} must be a matrix, not shape {a.shape}")
    a = a.astype(np.int64, copy=False)
    lo, hi = (int(a.min()), int(a.max())) if a.size else (0, 0)
    return a, _fits(name, lo, hi)


def _fits(name: str, lo: int, hi: int) -> int:
    """``max|.|`` of an operand whose least and greatest words are ``lo`` and ``hi``; a
    DTypeError when it is wider than the kernels accept."""
    m = max(-int(lo), int(hi))
    if m >= 1 << (MAX_OPERAND_BITS - 1):
        raise DTypeError(f"matmul_round: operand {name} holds {m}, wider than "
                         f"{MAX_OPERAND_BITS}-bit signed")
    return m


class Operand:
    """A raw int64 matrix prepared once for several products: checked, its ``max|.|`` (or a
    bound of it: exactness needs no more), its float64 copy and, when known, its largest row
    sum of ``|.|`` (``l1``, the fine exactness bound's) computed when it is made (a weight
    matrix between two updates). ``.T`` is the transpose sharing the float64 copy and the
    bound (its ``l1`` unknown). :func:`matmul_round` accepts it wherever it accepts an
    array. :meth:`changed` after its words change in place; :meth:`tighten` makes the bound
    exact again."""

    __slots__ = ("raw", "f64", "l1", "_bound")

    def __init__(self, raw, _maxabs: int | None = None, _f64=None, _l1: int | None = None,
                 _bound: list | None = None) -> None:
        if _maxabs is None and _bound is None:
            raw, _maxabs, _f64, _l1 = _prepare("operand", raw)
            if _f64 is None:
                _f64 = raw.astype(np.float64)
        self.raw, self.f64, self.l1 = raw, _f64, _l1
        # [max|.| or a bound of it, whether it is exact], shared with the transposes
        self._bound = [_maxabs, True] if _bound is None else _bound

    @property
    def maxabs(self) -> int:
        return self._bound[0]

    @property
    def T(self) -> "Operand":
        return Operand(self.raw.T, _f64=self.f64.T, _bound=self._bound)

    @property
    def shape(self) -> tuple:
        return self.raw.shape

    def changed(self, maxabs: int) -> None:
        """Its words changed in place, none above ``maxabs`` in magnitude, and its float64
        copy with them: ``maxabs`` is its bound (for its transposes too), ``l1`` unknown."""
        self._bound[:] = [maxabs, False]
        self.l1 = None

    def tighten(self) -> bool:
        """Make ``maxabs`` exact (one compiled pass) if it is only a bound; whether it fell."""
        if self._bound[1]:
            return False
        old = self._bound[0]
        lo, hi = _extremes(self.raw) if HAVE_NUMBA else (int(self.raw.min()),
                                                         int(self.raw.max()))
        self._bound[:] = [max(-int(lo), int(hi)), True]
        return self._bound[0] < old


@njit
def _extremes(a):
    """``(min, max)`` of an int64 matrix (0, 0 when empty)."""
    m, n = a.shape
    hi = a[0, 0] if m and n else 0
    lo = hi
    for i in range(m):
        for j in range(n):
            v = a[i, j]
            hi = max(hi, v)         # branch-free: the loop vectorises
            lo = min(lo, v)
    return lo, hi


#: 1.5 * 2**52 and its bits: an integer ``|v| < 2**51`` added to it fills the mantissa
#: exactly, so the conversions between int64 and float64 are an add and a subtraction of
#: the bits, which vectorise (AVX2 has no packed int64 conversion)
_MAGIC = 6755399441055744.0
_MAGIC_BITS = 4843621399236968448
#: integers below this in magnitude convert by the bit trick
MAGIC_LIMIT = 1 << 51


@njit
def i2f(v):
    """An int64 ``|v| < 2**51`` as float64, exactly (:data:`_MAGIC`)."""
    return np.int64(v + _MAGIC_BITS).view(np.float64) - _MAGIC


@njit
def f2i(x):
    """An integral float64 ``|x| < 2**51`` as int64, exactly (:data:`_MAGIC`)."""
    return np.float64(x + _MAGIC).view(np.int64) - _MAGIC_BITS


@njit
def _to_f64_into(a, f):
    """One pass over an int64 matrix: its float64 copy written into the buffer ``f`` (``a``'s
    shape); returns ``(min, max)`` of ``a`` (0, 0 when empty) and its largest row sum of
    ``|a|``. The copy is exact where ``|a| < 2**51`` (:func:`i2f`), beyond every operand
    the kernels accept (:func:`_fits` refuses the others before the copy is used)."""
    m, n = a.shape
    hi = a[0, 0] if m and n else 0
    lo = hi
    l1 = 0
    for i in range(m):
        s = 0
        for j in range(n):
            v = a[i, j]
            f[i, j] = i2f(v)
            hi = max(hi, v)         # branch-free: the loop vectorises
            lo = min(lo, v)
            s += abs(v)
        l1 = max(l1, s)
    return lo, hi, l1


@njit
def _round_saturate(t, add, mode, shift, lo, hi, relu, mask, out, small):
    """The single-product path's tail in one pass: ``t`` (float64 sums, exact integers of
    magnitude at most 2**52; below 2**51 with ``small``, converted then by :func:`f2i`)
    plus the addend (``mode`` 0: none, 1: ``add[j]`` per column, 2: ``add[i]`` per row),
    rounded half up at ``shift`` and clipped to ``[lo, hi]``, with the number clipped -- the
    int64 operations of :func:`_shift_round` and :func:`saturate`, element by element --
    then, with ``relu``, ``max(., 0)``, and where ``mask`` (an array of ``t``'s shape; an
    empty one for none) is not positive, 0; written into ``out``. Returns the number
    clipped, or -1 (nothing written) when an addend is not below ``2**60`` in magnitude.
    Each row is formed in a contiguous buffer by branch-free loops, which vectorise, then
    copied into ``out`` (a view with any strides)."""
    m, n = t.shape
    for a in add:               # the addend's bound, checked before anything is written
        if a >= _ADD_LIMIT or a <= -_ADD_LIMIT:
            return -1
    half = (1 << (shift - 1)) if shift > 0 else 0
    masked = mask.shape[0] == m and mask.shape[1] == n and m * n > 0
    floor = 0 if relu else lo          # ReLU's max(., 0); max(., lo) changes nothing
    clipped = 0
    row = np.empty(n, np.int64)
    for i in range(m):
        if small:
            for j in range(n):
                row[j] = f2i(t[i, j])
        else:
            for j in range(n):
                row[j] = np.int64(t[i, j])
        if mode == 1:
            for j in range(n):
                row[j] += add[j]
        elif mode == 2:
            a = add[i]
            for j in range(n):
                row[j] += a
        for j in range(n):
            v = (row[j] + half) >> shift    # shift 0: half 0, unchanged
            c = min(max(v, lo), hi)
            clipped += c != v
            row[j] = max(c, floor)
        if masked:
            for j in range(n):
                out[i, j] = row[j] if mask[i, j] > 0 else 0
        else:
            for j in range(n):
                out[i, j] = row[j]
    return clipped


_NO_MASK = np.zeros((0, 0), np.int64)
NO_MIRROR = np.zeros(0)     # "no float64 mirror" for the in-place adam and soft passes


def _prepare(name: str, a) -> tuple[np.ndarray, int, np.ndarray | None, int | None]:
    """``(raw, max|.| or a bound, float64 copy or None, largest row sum of |.| or None)``."""
    if isinstance(a, Operand):
        return a.raw, a.maxabs, a.f64, a.l1
    if HAVE_NUMBA and isinstance(a, np.ndarray) and a.dtype == np.int64 and a.ndim == 2:
        f = np.empty(a.shape)
        lo, hi, l1 = _to_f64_into(a, f)
        return a, _fits(name, lo, hi), f, int(l1)
    raw, m = _operand(name, a)
    return raw, m, None, None


def operand_into(a: np.ndarray, f: np.ndarray) -> tuple[Operand, int, int]:
    """``(Operand(a), min(a), max(a))`` for an int64 matrix ``a`` whose float64 copy is
    written into the buffer ``f`` (``a``'s shape, reused from call to call): one pass with
    numba. The operand shares ``a`` (a live view) and ``f``: use it before either changes."""
    a = np.asarray(a)
    if a.dtype.kind not in "iu" or a.ndim != 2:
        _operand("A", a)                                 # its error message
    l1 = None
    if HAVE_NUMBA and a.dtype == np.int64 and f.shape == a.shape:
        lo, hi, l1 = _to_f64_into(a, f)
        lo, hi, l1 = int(lo), int(hi), int(l1)
    else:
        a = a.astype(np.int64, copy=False)
        np.copyto(f, a, casting="unsafe")
        lo, hi = (int(a.min()), int(a.max())) if a.size else (0, 0)
    return Operand(a, _fits("A", lo, hi), f, l1), lo, hi


def _sum_bound(k: int, amax: int, bmax: int, al1: int | None) -> int:
    """A bound of every output's sum of product magnitudes: the coarse one, or the fine one
    when ``A``'s largest row sum of ``|.|`` is known and lower (module docstring); one
    float64 product is exact when it is at most ``2**52``."""
    coarse = k * amax * bmax
    return coarse if al1 is None else min(coarse, al1 * bmax)


def _tighten(*ops) -> bool:
    """Make the bounds of the :class:`Operand` among ``ops`` exact; whether any fell."""
    fell = False
    for op in ops:
        if isinstance(op, Operand) and op.tighten():
            fell = True
    return fell


def limb_plan(k: int, amax: int, bmax: int) -> tuple[int, int]:
    """``(L, n)``: the limb width and count that keep a ``k``-term product sum exact when the
    operand with ``max|.| = bmax`` is split (``n == 1``: no split). A DTypeError when no limb
    width can (more than about 2**19 terms of 33-bit operands)."""
    if k * amax * bmax <= _SAFE:
        return max(bmax.bit_length(), 1), 1
    room = _SAFE // max(k * amax, 1)
    width = room.bit_length() - 1          # k * amax * 2**width <= 2**52
    if width < 1:
        raise DTypeError(f"matmul_round: a {k}-term sum of operands up to {amax} cannot be "
                         f"kept exact in float64 limbs")
    bl = bmax.bit_length()
    n = 1 + -(-max(bl - width, 0) // width)
    return width, n


def saturate(y: np.ndarray, lo: int, hi: int, counter=None) -> np.ndarray:
    """Clip int64 ``y`` to ``[lo, hi]``; the clipped elements are added to
    ``counter.saturations`` when a counter is given."""
    if y.size and (int(y.min()) < lo or int(y.max()) > hi):
        if counter is not None:
            counter.saturations += int(np.count_nonzero(y < lo) + np.count_nonzero(y > hi))
        return np.clip(y, lo, hi)
    return y


def rescale(total: np.ndarray, shift: int, fmt, counter=None) -> np.ndarray:
    """An exact int64 sum with ``shift`` more fraction bits than ``fmt`` (fewer if negative),
    rounded half up and saturated into ``fmt`` (a bias gradient: the errors' column sum)."""
    total = np.asarray(total, dtype=np.int64)
    if shift > 0:
        total = _shift_round(total, shift)
    elif shift < 0:
        total = np.clip(total, -(1 << 40), 1 << 40) << np.int64(-shift)
    return saturate(total, int(fmt.min_raw), int(fmt.max_raw), counter)


def _shift_round(total: np.ndarray, s: int) -> np.ndarray:
    """round_half_up(total / 2**s) for int64 ``total`` with headroom for ``+2**(s-1)``."""
    if s == 0:
        return total
    return (total + np.int64(1 << (s - 1))) >> np.int64(s)


_ZERO = np.zeros(1, np.int64)
_EMPTY_ROW = np.zeros(0, np.int64)
_ADD_ERROR = "matmul_round: the addend must stay below 2**60 in magnitude"


def _gemm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """An exact float64 product (the caller guarantees every sum stays below 2**52), as int64."""
    return (a @ b).astype(np.int64)


#: the fused path's bounds in float64, a little inside 2**52 and 2**51: the bound is formed
#: in float64 with one rounding (relative error below 2**-52), so a sum bound that passes
#: is below the exact limit (a near miss only takes the general path, with the same bits)
_SAFE_F = float(_SAFE - (1 << 4))
_MAGIC_F = float(MAGIC_LIMIT - (1 << 4))
#: operands wider than this take the general path (which refuses them with its message)
_WIDE = 1 << (MAX_OPERAND_BITS - 1)


@njit
def _fused_product(X, xf, Bf, bmax, add, mode, shift, lo, hi, relu, mask, out, work):
    """An instruction's whole single-product path in one compiled call: ``X`` (raw int64,
    any strides) converted into ``xf`` with its min, max and largest row sum of ``|.|``
    (:func:`_to_f64_into`), the exactness bound of ``X @ B`` from those and ``bmax``
    (``max|B|`` or a bound of it), one float64 product ``xf @ Bf`` into ``work`` (BLAS)
    and the fused tail into ``out`` (:func:`_round_saturate`). Returns ``(saturations,
    min X, max X)``, or a negative first value with nothing written to ``out`` when the
    general path must decide: -1 an addend of 2**60 or more, -2 an operand wider than
    33-bit signed, -3 sums that may exceed 2**52."""
    xlo, xhi, l1 = _to_f64_into(X, xf)
    amax = max(-xlo, xhi)
    if amax >= _WIDE or bmax >= _WIDE:
        return -2, xlo, xhi
    if X.shape[1] == 0:                 # an empty sum: the general path
        return -3, xlo, xhi
    fb = min(float(X.shape[1]) * float(amax) * float(bmax), float(l1) * float(bmax))
    if fb > _SAFE_F:
        return -3, xlo, xhi
    np.dot(xf, Bf, work)
    return _round_saturate(work, add, mode, shift, lo, hi, relu, mask, out,
                           fb < _MAGIC_F), xlo, xhi


def product_into(X, xf, W: Operand, transpose: bool, shift: int, out, D, work, *,
                 add=None, relu: bool = False, mask=None, counter=None):
    """``matmul_round(X, W.T if transpose else W, shift, out, addend=add, into=D, work=work,
    relu=relu, mask=mask, counter=counter)`` for an instruction whose operands keep their
    shapes from call to call (``X`` raw int64, ``xf`` its float64 buffer, ``W`` a prepared
    :class:`Operand`, ``add`` a per-column int64 vector, ``mask`` not sharing memory with
    ``D``) in one compiled call when one float64 product is exact (when the sums' bound
    fails with ``W``'s ``max|.|`` only a bound, :meth:`Operand.tighten` and a second call,
    as :func:`matmul_round` tightens before it splits); returns ``(min X, max X)``, or None
    when the general path must run (it was not: call :func:`matmul_round`, which decides,
    and raises its errors). Nothing is written to ``D`` when it returns None."""
    if not HAVE_NUMBA:
        return None
    Bf = W.f64.T if transpose else W.f64
    if not (Bf.flags.c_contiguous or Bf.flags.f_contiguous):
        return None
    args = (_ZERO if add is None else add, 0 if add is None else 1, shift, out.min_raw,
            out.max_raw, relu, _NO_MASK if mask is None else mask, D, work)
    c, lo, hi = _fused_product(X, xf, Bf, W.maxabs, *args)
    if c == -3 and W.tighten():
        c, lo, hi = _fused_product(X, xf, Bf, W.maxabs, *args)
    if c < 0:
        return None
    if c and counter is not None:
        counter.saturations += int(c)
    return int(lo), int(hi)


@njit
def _column_sums_into(E, shift, lo, hi, out):
    """:func:`rescale` of ``E.sum(axis=0)`` (raw int64, any strides) into ``out``: the
    same int64 operations, column by column; returns the number clipped."""
    m, n = E.shape
    total = np.zeros(n, np.int64)
    for i in range(m):
        for j in range(n):
            total[j] += E[i, j]
    half = (1 << (shift - 1)) if shift > 0 else 0
    clipped = 0
    for j in range(n):
        v = total[j]
        if shift > 0:
            v = (v + half) >> shift
        elif shift < 0:
            v = min(max(v, -(1 << 40)), 1 << 40) << -shift
        c = min(max(v, lo), hi)
        clipped += c != v
        out[j] = c
    return clipped


@njit
def _fused_gradient(E, ef, X, xf, shift, lo, hi, out, work, bias, bshift):
    """A weight gradient's single-product path in one compiled call: ``E`` and ``X`` (raw
    int64, any strides) converted into ``ef`` and ``xf``, the bound of ``E.T @ X``, one
    float64 product ``ef.T @ xf`` into ``work`` and the tail into ``out``; then, when
    ``bias`` is not empty, the bias gradient (:func:`_column_sums_into` of ``E`` at
    ``bshift``) into it. Returns the saturations of both, or -2 / -3 with nothing written
    to ``out`` or ``bias`` as :func:`_fused_product`."""
    elo, ehi, _ = _to_f64_into(E, ef)
    xlo, xhi, _ = _to_f64_into(X, xf)
    amax, bmax = max(-elo, ehi), max(-xlo, xhi)
    if amax >= _WIDE or bmax >= _WIDE:
        return -2
    if E.shape[0] == 0:                 # an empty sum: the general path
        return -3
    fb = float(E.shape[0]) * float(amax) * float(bmax)
    if fb > _SAFE_F:
        return -3
    np.dot(ef.T, xf, work)
    c = _round_saturate(work, _ZERO, 0, shift, lo, hi, False, _NO_MASK, out, fb < _MAGIC_F)
    if bias.shape[0]:
        c += _column_sums_into(E, bshift, lo, hi, bias)
    return c


def gradient_into(E, ef, X, xf, shift: int, out, G, work, *, bias=None, bias_shift: int = 0,
                  counter=None) -> bool:
    """``matmul_round(E.T, X, shift, out, into=G, work=work, counter=counter)`` for raw
    int64 ``E`` and ``X`` (float64 buffers ``ef`` and ``xf`` of their shapes) in one
    compiled call when one float64 product is exact, and with ``bias`` (an int64 vector of
    ``E``'s columns) ``bias[...] = rescale(E.sum(axis=0), bias_shift, out, counter)`` in
    the same call; whether it did (False: nothing was written to ``G`` or ``bias``; call
    :func:`matmul_round` and :func:`rescale`, which decide and raise their errors)."""
    if not HAVE_NUMBA:
        return False
    c = _fused_gradient(E, ef, X, xf, shift, out.min_raw, out.max_raw, G, work,
                        _EMPTY_ROW if bias is None else bias, bias_shift)
    if c < 0:
        return False
    if c and counter is not None:
        counter.saturations += int(c)
    return True


def matmul_round(A, B, shift: int, out, *, addend=None, counter=None, into=None, work=None,
                 relu: bool = False, mask=None) -> np.ndarray:
    """``sat(round_half_up((A @ B + addend) / 2**shift))`` on raw int64 operands, exactly.

    ``A`` is (M, K), ``B`` is (K, N), arrays or :class:`Operand`; ``shift`` (>= 0) is the
    product's fraction bits minus the output's; ``out`` is the output
    :class:`~rlaccel.isa.dtypes.FixedType` (its range is the saturation bound); ``addend``
    (broadcastable to (M, N), int64, ``|addend| < 2**60``) is added at the products' binary
    point before rounding -- a bias aligned to the products, which the accumulator starts
    from. Saturated elements are counted on ``counter``.

    For an instruction's destination: ``relu`` then takes ``max(., 0)`` and ``mask`` (an
    (M, N) array) zeroes the results where it is not positive (neither counts as a
    saturation); ``into`` (an int64 (M, N) array or view) receives the result, which is
    returned; ``work`` (a float64 (M, N) buffer) holds the single product's sums.
    """
    opA, opB = A, B
    A, amax, af, al1 = _prepare("A", A)
    B, bmax, bf, _ = _prepare("B", B)
    if A.shape[1] != B.shape[0]:
        raise DTypeError(f"matmul_round: shapes {A.shape} and {B.shape} do not match "
                         f"(need (M, K) and (K, N))")
    if not 0 <= shift <= 60:
        raise DTypeError(f"matmul_round: shift {shift} is outside 0..60 (the output cannot have "
                         f"more fraction bits than the products)")
    M, N = A.shape[0], B.shape[1]
    mode, add = 0, _ZERO                 # the fused tail's addend: none, per column, per row
    if addend is not None:
        addend = np.asarray(addend, dtype=np.int64)
        if addend.shape in ((N,), (1, N)):
            mode, add = 1, addend.reshape(N)
        elif addend.shape == (M, 1):
            mode, add = 2, addend.reshape(M)
        else:
            mode = 3
    if mask is not None and np.shape(mask) != (M, N):
        raise DTypeError(f"matmul_round: the mask has shape {np.shape(mask)}, not the "
                         f"result's {(M, N)}")
    k = A.shape[1]
    lo_out, hi_out = int(out.min_raw), int(out.max_raw)
    bound = _sum_bound(k, amax, bmax, al1)
    fast = HAVE_NUMBA and mode < 3 and bound <= _SAFE
    if HAVE_NUMBA and mode < 3 and not fast and _tighten(opA, opB):
        amax = opA.maxabs if isinstance(opA, Operand) else amax
        bmax = opB.maxabs if isinstance(opB, Operand) else bmax
        bound = _sum_bound(k, amax, bmax, al1)
        fast = bound <= _SAFE
    if addend is not None and not fast and addend.size and \
            max(-int(addend.min()), int(addend.max())) >= _ADD_LIMIT:
        raise DTypeError(_ADD_ERROR)
    if fast:   # the fused tail checks the addend's bound
        # one float64 product, then the fused tail (same int64 arithmetic as below)
        af = A.astype(np.float64) if af is None else af
        bf = B.astype(np.float64) if bf is None else bf
        t = af @ bf if work is None else np.matmul(af, bf, out=work)
        keep = _NO_MASK if mask is None else np.asarray(mask)
        dest = into
        if dest is None or (mask is not None and np.may_share_memory(dest, keep)):
            dest = np.empty((M, N), np.int64)
        clipped = _round_saturate(t, add, mode, shift, lo_out, hi_out, relu, keep, dest,
                                   bound < MAGIC_LIMIT)
        if clipped < 0:
            raise DTypeError(_ADD_ERROR)
        if clipped and counter is not None:
            counter.saturations += int(clipped)
        if into is not None and dest is not into:
            into[...] = dest
            return into
        return dest
    if addend is not None:
        addend = np.broadcast_to(addend, (M, N))
    transpose = amax > bmax                  # split the larger operand
    if transpose:
        A, B, amax, bmax = B.T, A.T, bmax, amax
        af, bf = (None if bf is None else bf.T), (None if af is None else af.T)
        if addend is not None:
            addend = addend.T
    width, n = limb_plan(k, amax, bmax)
    if af is None:
        af = A.astype(np.float64)
    if n == 1:
        total = _gemm(af, B.astype(np.float64) if bf is None else bf)
        if addend is not None:
            total = total + addend
        res = _shift_round(total, shift)
    else:
        lmask = np.int64((1 << width) - 1)
        carry = addend.astype(np.int64) if addend is not None else np.int64(0)
        lo = np.int64(0)
        for i in range(n - 1):
            limb = (B >> np.int64(i * width)) & lmask
            t = _gemm(af, limb.astype(np.float64)) + carry
            lo = lo + ((t & lmask) << np.int64(i * width))
            carry = t >> np.int64(width)
        m = (n - 1) * width
        hi = _gemm(af, (B >> np.int64(m)).astype(np.float64)) + carry
        # value = hi * 2**m + lo with 0 <= lo < 2**m
        if shift >= m + 1:      # lo cannot carry into the rounded quotient
            res = _shift_round(hi, shift - m)
        else:                   # hi * 2**(m - shift) + round(lo / 2**shift); a clipped hi
            c = np.int64(1 << (61 - (m - shift)))     # still saturates the output
            rounded_lo = _shift_round(lo, shift) if shift else lo
            res = (np.clip(hi, -c, c) << np.int64(m - shift)) + rounded_lo
    if transpose:
        res = res.T
    res = saturate(np.ascontiguousarray(res), lo_out, hi_out, counter)
    if relu:
        res = np.maximum(res, 0)
    if mask is not None:
        res = np.where(np.asarray(mask) > 0, res, np.int64(0))
    if into is not None:
        into[...] = res
        return into
    return res
