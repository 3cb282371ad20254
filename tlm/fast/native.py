"""Calls from compiled code into the native code numpy itself runs, so that float64 results
equal numpy's bit for bit.

numpy computes ``W @ x`` with the BLAS it ships (OpenBLAS: ``cblas_dgemv`` or ``cblas_ddot``,
whose summation order is its own) and ``np.tanh``/``np.exp``/``np.maximum`` with its own SIMD
loops (which differ from the C library's ``tanh`` in the last bit for about a third of the
inputs). Compiled kernels therefore call the very same functions: the BLAS entry points of
numpy's bundled library, found by name, and numpy's ufunc inner loops, obtained through
numpy's ``_get_strided_loop`` interface (NEP 43). :func:`float_natives` returns their
addresses, or ``None`` when they cannot be found or fail the self-check against numpy, and
the float kernels are then not used (those instructions run their reference semantics).

``call_gemv``, ``call_ddot``, ``call_loop`` and ``call_clock`` call an address with numba (an
LLVM indirect call), or through ctypes when numba is absent: the same native functions either
way, each made from its C signature, stated once (:data:`_SIGNATURES`).
"""

from __future__ import annotations

import ctypes
import glob
import os

import numpy as np

from rlaccel.tlm.fast.jit import HAVE_NUMBA

__all__ = ["call_gemv", "call_ddot", "call_loop", "memcpy", "float_natives", "NATIVE_FIELDS",
           "ROW_MAJOR", "COL_MAJOR", "TRANS", "clock_address", "call_clock"]

#: CBLAS enumerations
ROW_MAJOR, COL_MAJOR, TRANS = 101, 102, 112

#: what :func:`float_natives` returns, in order (addresses; a ufunc loop has its context and
#: auxiliary data beside it)
NATIVE_FIELDS = ("gemv", "ddot", "tanh", "tanh_ctx", "tanh_aux", "exp", "exp_ctx", "exp_aux",
                 "maximum", "maximum_ctx", "maximum_aux", "minimum", "minimum_ctx",
                 "minimum_aux")

#: the C signature of each native call: its result (None: void), then its parameters, each
#: "i32", "i64", "f64" or "ptr" (an address, passed as an int64)
_SIGNATURES = {
    "gemv": (None, ("i32", "i32", "i64", "i64", "f64", "ptr", "i64", "ptr", "i64", "f64",
                    "ptr", "i64")),
    "ddot": ("f64", ("i64", "ptr", "i64", "ptr", "i64")),
    "loop": ("i32", ("ptr", "ptr", "ptr", "ptr", "ptr")),
    "clock": ("i32", ("i32", "ptr")),
}
_CTYPES = {None: None, "i32": ctypes.c_int, "i64": ctypes.c_int64, "f64": ctypes.c_double,
           "ptr": ctypes.c_void_p}


def _ctypes_call(result, params):
    """``call(fptr, *args)`` through ctypes."""
    proto = ctypes.CFUNCTYPE(_CTYPES[result], *(_CTYPES[k] for k in params))
    conv = [float if k == "f64" else int for k in params]

    def call(fptr, *args):
        return proto(int(fptr))(*(c(a) for c, a in zip(conv, args)))
    return call


_py_gemv, _py_ddot, _py_loop, _py_clock = (_ctypes_call(*_SIGNATURES[k])
                                           for k in ("gemv", "ddot", "loop", "clock"))


if HAVE_NUMBA:
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    _I8P = ir.IntType(8).as_pointer()
    _NUMBA = {None: types.void, "i32": types.int32, "i64": types.int64, "f64": types.float64}
    _LLVM = {None: ir.VoidType(), "i32": ir.IntType(32), "i64": ir.IntType(64),
             "f64": ir.DoubleType(), "ptr": _I8P}

    def _native_call(result, params):
        """``call(fptr, *args)`` compiled: an LLVM indirect call of the address ``fptr``
        (every argument an int64 but the doubles; 32-bit ones truncated, addresses cast)."""
        sig = _NUMBA[result](types.int64, types.BaseTuple.from_types(
            [types.float64 if k == "f64" else types.int64 for k in params]))
        fnty = ir.FunctionType(_LLVM[result], [_LLVM[k] for k in params])

        def arg(builder, kind, v):
            if kind == "i32":
                return builder.trunc(v, _LLVM["i32"])
            return builder.inttoptr(v, _I8P) if kind == "ptr" else v

        @intrinsic
        def call(typingctx, fptr, *args):
            def codegen(context, builder, signature, llargs):
                f = builder.inttoptr(llargs[0], fnty.as_pointer())
                values = cgutils.unpack_tuple(builder, llargs[1], len(params))
                out = builder.call(f, [arg(builder, k, v) for k, v in zip(params, values)])
                return context.get_dummy_value() if result is None else out
            return sig, codegen
        return call

    call_gemv, call_ddot, call_loop, call_clock = (_native_call(*_SIGNATURES[k])
                                                   for k in ("gemv", "ddot", "loop", "clock"))

    @intrinsic
    def memcpy(typingctx, dst, src, n):
        """Copy ``n`` bytes from address ``src`` to address ``dst`` (LLVM's memcpy)."""
        sig = types.void(types.int64, types.int64, types.int64)

        def codegen(context, builder, signature, args):
            d, s_, k = args
            cgutils.raw_memcpy(builder, builder.inttoptr(d, _I8P), builder.inttoptr(s_, _I8P),
                               k, 1)
            return context.get_dummy_value()
        return sig, codegen
else:
    call_gemv, call_ddot, call_loop, call_clock = _py_gemv, _py_ddot, _py_loop, _py_clock

    def memcpy(dst, src, n):
        ctypes.memmove(int(dst), int(src), int(n))


def clock_address() -> int:
    """The address of the C library's ``clock_gettime`` (what ``time.perf_counter`` reads
    on Linux, clock 1: CLOCK_MONOTONIC), for compiled code that measures its own parts;
    0 when there is none."""
    if "clock" not in _CACHE:
        try:
            libc = ctypes.CDLL(None)
            _CACHE["clock"] = ctypes.cast(libc.clock_gettime, ctypes.c_void_p).value or 0
        except (OSError, AttributeError):
            _CACHE["clock"] = 0
    return _CACHE["clock"]


_CACHE: dict = {}


def _blas():
    """(gemv, ddot) addresses in numpy's bundled OpenBLAS (64-bit integers), or None."""
    base = os.path.dirname(np.__file__)
    for path in sorted(glob.glob(base + ".libs/*openblas64*")):
        try:
            lib = ctypes.CDLL(path)
            gemv, ddot = lib.scipy_cblas_dgemv64_, lib.scipy_cblas_ddot64_
        except (OSError, AttributeError):
            continue
        _CACHE["lib"] = lib
        return (ctypes.cast(gemv, ctypes.c_void_p).value,
                ctypes.cast(ddot, ctypes.c_void_p).value)
    return None


def _ufunc_loop(ufunc, nargs: int):
    """(loop, context, auxdata) of a float64 ufunc's strided loop (NEP 43), kept alive."""
    f8 = np.dtype(np.float64)
    _, info = ufunc._resolve_dtypes_and_context((f8,) * nargs)
    ufunc._get_strided_loop(info)
    api = ctypes.pythonapi
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    ptr = api.PyCapsule_GetPointer(info, api.PyCapsule_GetName(info))
    loop, ctx, aux, flags = (ctypes.c_void_p * 4).from_address(ptr)
    if not loop or (flags or 0) & 1:            # NPY_METH_REQUIRES_PYAPI
        raise RuntimeError(f"{ufunc.__name__}: no native float64 loop")
    _CACHE.setdefault("capsules", []).append(info)
    return loop, ctx or 0, aux or 0


def float_natives() -> np.ndarray | None:
    """The addresses of :data:`NATIVE_FIELDS` as an int64 array, or None when numpy's BLAS
    or loops cannot be reached or do not reproduce numpy's own results (checked once)."""
    if "natives" in _CACHE:
        return _CACHE["natives"]
    out = None
    try:
        blas = _blas()
        if blas is not None:
            loops = [_ufunc_loop(np.tanh, 2), _ufunc_loop(np.exp, 2),
                     _ufunc_loop(np.maximum, 3), _ufunc_loop(np.minimum, 3)]
            out = np.array([*blas, *(v for lp in loops for v in lp)], dtype=np.int64)
            if not _self_check(out):
                out = None
    except (AttributeError, RuntimeError, TypeError, ValueError, OSError):
        out = None
    _CACHE["natives"] = out
    return out


def _self_check(nat: np.ndarray) -> bool:
    """The natives give numpy's bits on a few random products and activations (called
    through ctypes; the kernels' tests check the compiled calls)."""
    gemv, ddot, loop = _py_gemv, _py_ddot, _py_loop
    rng = np.random.default_rng(12345)
    for m, k in ((6, 5), (20, 9), (1, 7), (3, 1)):
        W = rng.standard_normal((m, k))
        x = rng.standard_normal(k)
        y = np.zeros(m)
        gemv(nat[0], COL_MAJOR, TRANS, k, m, 1.0, W.ctypes.data, k, x.ctypes.data, 1,
                  0.0, y.ctypes.data, 1)
        if m > 1 and k > 1 and not np.array_equal(y, W @ x):
            return False
        if 0.0 + ddot(nat[1], k, x.ctypes.data, 1, x.ctypes.data, 1) != x @ x:
            return False
    v = rng.standard_normal(37) * 3
    for (fn, j) in ((np.tanh, 2), (np.exp, 5)):
        out = np.zeros_like(v)
        buf = np.array([v.ctypes.data, out.ctypes.data, len(v), 8, 8], dtype=np.int64)
        loop(nat[j], nat[j + 1], buf.ctypes.data, buf[2:].ctypes.data,
                  buf[3:].ctypes.data, nat[j + 2])
        if not np.array_equal(out, fn(v)):
            return False
    return True
