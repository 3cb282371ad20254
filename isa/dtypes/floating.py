"""Floating-point formats: ``float64`` (the exact reference), ``fp16`` and ``fp32``.

float64 is plain numpy float64: ``mul`` is ``a * b``, ``matvec(W, x)`` is ``W @ x``,
``rmatvec(W, g)`` is ``W.T @ g``, ``outer`` is ``np.outer(g, x)``, ``dot(a, b)`` is ``a @ b``,
``sumsq(a)`` is ``a @ a`` and ``quantize`` is ``np.asarray(x, float64)``, so a float64
reference model written in plain numpy matches it bit for bit. Nothing saturates (inf and NaN
propagate as in numpy) and ``saturations`` stays 0.

fp16 stores IEEE binary16 values (raw arrays are ``float16``):

* ``quantize``: float64 to float16, round to nearest even; a finite value beyond +-65504 that
  becomes inf is an overflow, counted as a saturation (``strict=True`` raises instead).
* ``add``/``sub``/``mul``/``outer``: computed in float32, then rounded to float16. (float32
  has more than 2*11 + 2 significand bits, so this double rounding equals a correctly rounded
  fp16 operation; an fp16 product is even exact in float32.)
* ``matvec``/``rmatvec``/``dot``/``sumsq``: products exact in float32, accumulated in
  float32 sequentially in index order (a MAC chain from a +0 accumulator, ``j = 0 .. K-1``,
  not numpy's pairwise or BLAS order), then rounded once to float16. With the option
  ``accumulate="fp16"`` (``get_dtype("fp16", accumulate="fp16")``: an FP16 multiplier and
  an FP16 adder with FP16 accumulation registers, as LearningGroup's VPUs, the LearningGroup paper, section
  III-D) every product is rounded to float16 and every partial sum too, in the same order
  from +0 (``2048 + 1 + 1 + 1 + 1`` is 2048, where the float32 rule gives 2052).
* activations: the float64 functions of the fp16 input, rounded once to float16;
  derivatives: the float64 expressions (exact for fp16 inputs), rounded once to float16.

Every float16 result that is inf from finite inputs counts as a saturation (an overflow).

fp32 stores IEEE binary32 values (raw arrays are ``float32``); it is the number format of the
MADDPG accelerator (the MADDPG paper, section IV-A: a float multiplier-adder costs 5 DSPs in Vitis
HLS, i.e. a separate multiplier and adder, not a fused multiply-add):

* ``quantize``: float64 to float32, round to nearest even; overflow to inf is counted (or
  raised with ``strict=True``).
* ``add``/``sub``/``mul``/``outer``: computed exactly or in float64, then rounded once to
  float32 (float64 has more than 2*24 + 2 significand bits, so this equals a correctly rounded
  float32 operation, i.e. numpy's own float32 arithmetic).
* ``matvec``/``rmatvec``/``dot``/``sumsq``: every product rounded to float32 (the
  multiplier), then accumulated in float32 sequentially in index order from a +0 accumulator
  (``j = 0 .. K-1``, every partial sum rounded: the adder), so it is a MAC chain of unfused
  multiply-adds, not numpy's pairwise or BLAS order.
* activations and derivatives: the float64 expressions of the fp32 input, rounded once.

An output that is inf or NaN although every operand was finite counts as a saturation.
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes.activations import activation_name, float_activate, float_derivative
from rlaccel.isa.dtypes.base import DType
from rlaccel.isa.dtypes.pwl import PWL_DEFAULT_SEGMENTS
from rlaccel.util.errors import DTypeError

__all__ = ["FloatType", "Float64Type", "Fp16Type", "Fp32Type"]


class FloatType(DType):
    """Common code of the float formats (``is_float``; ``frac_bits``/``int_bits`` are None;
    ``lsb`` is the machine epsilon; ``min_raw``/``max_raw`` the largest finite values)."""

    is_float = True

    def __init__(self, name: str, storage, segments: int) -> None:
        self.storage = np.dtype(storage)
        self._word = np.dtype(f"u{self.storage.itemsize}")
        info = np.finfo(self.storage)
        super().__init__(name, self.storage.itemsize * 8, segments)
        self.min_raw = self.storage.type(-info.max)
        self.max_raw = self.storage.type(info.max)
        self.lsb = float(info.eps)

    @property
    def range_text(self) -> str:
        return f"[{float(self.min_raw)!r}, {float(self.max_raw)!r}]"

    def _check_strict(self, v: np.ndarray, raw: np.ndarray) -> None:
        self._refuse(v, ~np.isfinite(raw))

    def _exact(self, a) -> np.ndarray:
        """``a`` as this format's storage; every element must already be a value of the format
        (a narrow float format never rounds an operand silently)."""
        a = np.asarray(a)
        if a.dtype == self.storage:
            return a
        if a.dtype.kind not in "fiu":
            raise DTypeError(f"{self.name} operands must be real numbers, not {a.dtype}")
        with np.errstate(over="ignore"):
            h = a.astype(self.storage)
        same = (h.astype(a.dtype) == a) | (np.isnan(h) & np.isnan(a.astype(np.float64)))
        if not np.all(same):
            bad = a.reshape(-1)[np.flatnonzero(~same.reshape(-1))[0]]
            raise DTypeError(f"{float(bad)!r} is not an {self.name} value (quantize values "
                             f"first)")
        return h

    @staticmethod
    def _shapes(name: str, W: np.ndarray, x: np.ndarray) -> None:
        if W.ndim != 2 or x.ndim not in (1, 2) or W.shape[1] != x.shape[0]:
            raise DTypeError(f"{name} matvec: shapes {W.shape} and {x.shape} do not match "
                             f"(need (M, K) and (K,) or (K, B))")

    def to_float(self, raw) -> np.ndarray:
        """Raw to float64 values (exact)."""
        return self._raw(raw).astype(np.float64)

    def rmatvec(self, W, g, *, counter=None) -> np.ndarray:
        """``W.T @ g`` (see the module rules)."""
        W = self._raw(W)
        if W.ndim != 2:
            raise DTypeError(f"{self.name} rmatvec: W must be a matrix, not shape {W.shape}")
        return self.matvec(W.T, g, counter=counter)

    def sumsq(self, a, *, counter=None) -> np.ndarray:
        """``sum a**2`` as ``dot(a, a)``."""
        return self.dot(a, a, counter=counter)

    def derivative(self, name, y_raw, *, counter=None) -> np.ndarray:
        """Derivative from the activation output y (expressions in
        :mod:`isa.dtypes.activations`)."""
        y = self._raw(y_raw).astype(np.float64)
        return self._round(float_derivative(activation_name(name), y), counter)

    def activate(self, name, raw, *, segments: int | None = None, counter=None) -> np.ndarray:
        """The exact activation (``segments`` is accepted and ignored: floats use no table)."""
        v = self._raw(raw).astype(np.float64)
        return self._round(float_activate(activation_name(name), v), counter)

    def to_words(self, raw) -> np.ndarray:
        """IEEE bit patterns as uint64."""
        r = self._raw(raw)
        return r.reshape(-1).view(self._word).astype(np.uint64).reshape(r.shape)

    def from_words(self, words) -> np.ndarray:
        """Inverse of :meth:`to_words`; a word wider than ``bits`` raises DTypeError."""
        w = np.asarray(words)
        if w.dtype.kind not in "iu":
            raise DTypeError(f"{self.name} words must be integers, not {w.dtype}")
        if w.size and (int(w.min()) < 0 or int(w.max()) >= 1 << self.bits):
            bad = int(w.min()) if int(w.min()) < 0 else int(w.max())
            raise DTypeError(f"word {bad:#x} does not fit the {self.bits} bits of {self.name}")
        return w.astype(self._word).reshape(-1).view(self.storage).reshape(w.shape)


class Float64Type(FloatType):
    """IEEE binary64 with plain numpy semantics: the exact reference format."""

    def __init__(self, name: str = "float64", segments: int = PWL_DEFAULT_SEGMENTS) -> None:
        super().__init__(name, np.float64, segments)

    def _raw(self, a) -> np.ndarray:
        a = np.asarray(a)
        if a.dtype.kind not in "fiu":
            raise DTypeError(f"{self.name} operands must be real numbers, not {a.dtype}")
        return a.astype(np.float64, copy=False)

    def _round(self, v: np.ndarray, counter=None) -> np.ndarray:
        return v

    def quantize(self, x, *, strict: bool = False, counter=None) -> np.ndarray:
        """``np.asarray(x, float64)``; ``strict=True`` rejects inf and NaN."""
        v = np.asarray(x, dtype=np.float64)
        if strict:
            self._check_strict(v, v)
        return v

    def add(self, a, b, *, counter=None) -> np.ndarray:
        """``a + b``."""
        return np.asarray(self._raw(a) + self._raw(b))

    def sub(self, a, b, *, counter=None) -> np.ndarray:
        """``a - b``."""
        return np.asarray(self._raw(a) - self._raw(b))

    def mul(self, a, b, *, counter=None) -> np.ndarray:
        """``a * b``."""
        return np.asarray(self._raw(a) * self._raw(b))

    def matvec(self, W, x, *, counter=None) -> np.ndarray:
        """``W @ x``."""
        W, x = self._raw(W), self._raw(x)
        self._shapes(self.name, W, x)
        return W @ x

    def outer(self, g, x, *, counter=None) -> np.ndarray:
        """``np.outer(g, x)``."""
        return np.outer(self._raw(g), self._raw(x))

    def dot(self, a, b, *, counter=None) -> np.ndarray:
        """``a @ b``."""
        return np.asarray(self._raw(a) @ self._raw(b))


class _NarrowType(FloatType):
    """A storage format narrower than its arithmetic: every operation computed in ``WIDE``
    (float32 for binary16, float64 for binary32) and rounded once to the storage format,
    overflows to infinity counted (module rules)."""

    WIDE: type                       # the arithmetic's numpy type

    def _raw(self, a) -> np.ndarray:
        return self._exact(a)

    def _round(self, v: np.ndarray, counter=None) -> np.ndarray:
        """Round wider results to the storage format, counting finite -> inf overflows."""
        v = np.asarray(v)
        with np.errstate(over="ignore"):
            r = v.astype(self.storage)
        self._count(int(np.count_nonzero(np.isfinite(v) & ~np.isfinite(r))), counter)
        return r

    def quantize(self, x, *, strict: bool = False, counter=None) -> np.ndarray:
        """float64 to the storage format, round to nearest even; overflow to inf is counted
        (or, with ``strict=True``, raised like inf and NaN)."""
        v = np.asarray(x, dtype=np.float64)
        with np.errstate(over="ignore"):
            r = v.astype(self.storage)
        if strict:
            self._check_strict(v, r)
        self._count(int(np.count_nonzero(np.isfinite(v) & ~np.isfinite(r))), counter)
        return r

    def _wide(self, a) -> np.ndarray:
        return self._raw(a).astype(self.WIDE)

    def add(self, a, b, *, counter=None) -> np.ndarray:
        """``a + b`` in the wide format, rounded once."""
        return self._round(self._wide(a) + self._wide(b), counter)

    def sub(self, a, b, *, counter=None) -> np.ndarray:
        """``a - b`` in the wide format, rounded once."""
        return self._round(self._wide(a) - self._wide(b), counter)

    def mul(self, a, b, *, counter=None) -> np.ndarray:
        """``a * b`` (exact in the wide format), rounded once."""
        return self._round(self._wide(a) * self._wide(b), counter)

    def outer(self, g, x, *, counter=None) -> np.ndarray:
        """``out[i, j] = mul(g[i], x[j])``."""
        return self._round(np.outer(self._wide(g), self._wide(x)), counter)

    def dot(self, a, b, *, counter=None) -> np.ndarray:
        """``sum_j a[j] * b[j]`` with the :meth:`matvec` rule; a 0-d array."""
        return self.matvec(self._raw(a).reshape(1, -1), b, counter=counter)[0]


class Fp16Type(_NarrowType):
    """IEEE binary16 storage with float32 arithmetic (module rules); ``accumulate`` is
    ``"float32"`` (the default) or ``"fp16"`` (every product and partial sum of a
    ``matvec``/``dot`` rounded to float16)."""

    ACCUMULATE = ("float32", "fp16")
    WIDE = np.float32

    def __init__(self, name: str = "fp16", segments: int = PWL_DEFAULT_SEGMENTS,
                 accumulate: str = "float32") -> None:
        if accumulate not in self.ACCUMULATE:
            raise DTypeError(f"fp16 accumulate must be one of {', '.join(self.ACCUMULATE)}, "
                             f"not {accumulate!r}")
        super().__init__(name, np.float16, segments)
        self.accumulate = accumulate

    def __repr__(self) -> str:
        if self.accumulate != "float32":
            return f"<DType {self.name} accumulate={self.accumulate}>"
        return super().__repr__()

    def matvec(self, W, x, *, counter=None) -> np.ndarray:
        """``W @ x``: exact float32 products summed in float32 in order j = 0..K-1, then one
        rounding to float16; with ``accumulate="fp16"`` every product and every partial sum
        is rounded to float16 (a chain of FP16 multiplies and adds)."""
        W, x = self._wide(W), self._wide(x)
        self._shapes(self.name, W, x)
        if W.shape[1] == 0:
            return np.zeros((W.shape[0],) + x.shape[1:], dtype=np.float16)
        p = W * x[None, :] if x.ndim == 1 else W[:, :, None] * x[None, :, :]
        if self.accumulate == "fp16":
            return self._chain16(p, counter)
        acc = np.cumsum(p, axis=1, dtype=np.float32)[:, -1]    # sequential accumulation
        # + 0.0: the accumulator starts cleared to +0, so an all -0 sum is +0, as in a MAC.
        return self._round(acc + np.float32(0.0), counter)

    def _chain16(self, p: np.ndarray, counter) -> np.ndarray:
        """FP16 MAC chains along axis 1 of exact float32 products ``p``: each product rounded
        to float16, then added in order from +0, each partial sum rounded (numpy's float16
        cumsum adds one element at a time and rounds every sum)."""
        products = self._round(p, counter)
        with np.errstate(over="ignore", invalid="ignore"):
            out = np.cumsum(products, axis=1, dtype=np.float16)[:, -1] + np.float16(0.0)
        finite = np.isfinite(products).all(axis=1)
        self._count(int(np.count_nonzero(finite & ~np.isfinite(out))), counter)
        return np.asarray(out)

class Fp32Type(_NarrowType):
    """IEEE binary32 storage; unfused multiply-add chains (module rules)."""

    WIDE = np.float64

    def __init__(self, name: str = "fp32", segments: int = PWL_DEFAULT_SEGMENTS) -> None:
        super().__init__(name, np.float32, segments)

    def matvec(self, W, x, *, counter=None) -> np.ndarray:
        """``W @ x``: every product rounded to float32, summed in float32 in order
        j = 0..K-1 from a +0 accumulator (each partial sum rounded)."""
        W, x = self._wide(W), self._wide(x)
        self._shapes(self.name, W, x)
        if W.shape[1] == 0:
            return np.zeros((W.shape[0],) + x.shape[1:], dtype=np.float32)
        exact = W * x[None, :] if x.ndim == 1 else W[:, :, None] * x[None, :, :]
        with np.errstate(over="ignore", invalid="ignore"):
            products = exact.astype(np.float32)                        # the multiplier
            acc = np.cumsum(products, axis=1, dtype=np.float32)[:, -1]  # the adder, in order
            # + 0.0: the accumulator starts cleared to +0, so an all -0 sum is +0, as in a MAC.
            out = acc + np.float32(0.0)
        finite = np.isfinite(exact).all(axis=1)
        self._count(int(np.count_nonzero(finite & ~np.isfinite(out))), counter)
        return out
