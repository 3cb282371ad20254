"""Number formats by name: ``get_dtype("q6.18")``.

Names (case-insensitive, surrounding blanks ignored):

* ``qM.N``: signed fixed point, M integer bits counting the sign, N fraction bits,
  M >= 1, N >= 0, M + N <= 32 (``q6.18``: 24 bits, range [-32, 32), LSB 2^-18).
* ``fixed32`` = ``q16.16`` and ``fixed16`` = ``q8.8``: FIXAR's formats (the FIXAR paper). FIXAR
  says only "32-bit fixed point", halved to 16-bit activations after the quantization delay,
  never where the binary point is. We put it in the middle of the word: 16.16 keeps the
  DDPG critic's returns (hundreds to thousands on MuJoCo) inside +-32768 while its LSB
  (1.5e-5) stays below an Adam step of 1e-4, and FIXAR's PE splits a 32-bit operand into two
  16-bit halves at exactly that boundary; fixed16 halves both parts (range +-128, LSB 2^-8,
  the 8-bit resolution QuaRL finds sufficient). A QAT format with another split is simply a
  ``qM.N`` name.
* ``fp16`` (IEEE binary16, float32 arithmetic), ``fp32`` (IEEE binary32 with unfused
  multiply-add chains: the MADDPG accelerator's format, the MADDPG paper) and ``float64`` (the exact
  reference).

Options: ``segments`` (positive int, default 16) is the PWL segment count
:meth:`~isa.dtypes.DType.activate` uses when none is given. ``accumulate`` (fp16 only:
``"float32"``, the default, or ``"fp16"``) is how ``matvec``/``dot`` accumulate
(:mod:`~isa.dtypes.floating`); ``None`` means the format's default.

Instances are cached per (name, options), so ``get_dtype("Q6.18") is get_dtype("q6.18")``;
``fixed32`` and ``q16.16`` are distinct instances of the same format (``.format``).
"""

from __future__ import annotations

import re

import numpy as np

from rlaccel.isa.dtypes.base import DType
from rlaccel.isa.dtypes.fixed import FixedType
from rlaccel.isa.dtypes.floating import Float64Type, Fp16Type, Fp32Type
from rlaccel.isa.dtypes.pwl import PWL_DEFAULT_SEGMENTS
from rlaccel.util.errors import DTypeError
from rlaccel.util.numbers import is_whole

__all__ = ["get_dtype", "ALIASES", "VALID_FORMS"]

#: FIXAR's format names and the qM.N each one is.
ALIASES = {"fixed32": (16, 16), "fixed16": (8, 8)}

VALID_FORMS = ("qM.N (M >= 1 integer bits counting the sign, N >= 0 fraction bits, "
               "M + N <= 32, e.g. q6.18), fixed32 (= q16.16), fixed16 (= q8.8), fp16, fp32, "
               "float64")

_Q = re.compile(r"q(\d+)\.(\d+)")
_OPTIONS = {"segments": PWL_DEFAULT_SEGMENTS, "accumulate": None}
_cache: dict[tuple, DType] = {}


def get_dtype(name: str, **opts) -> DType:
    """The (cached) number format called ``name``; see the module docstring for names and
    options. Unknown names or options raise :class:`~rlaccel.util.errors.DTypeError`."""
    unknown = sorted(set(opts) - set(_OPTIONS))
    if unknown:
        raise DTypeError(f"unknown number-format option {', '.join(unknown)}: valid options "
                         f"are {', '.join(_OPTIONS)}")
    full = {**_OPTIONS, **{k: v for k, v in opts.items() if v is not None}}
    seg = full["segments"]
    if not is_whole(seg, types=(int, np.integer)):
        raise DTypeError(f"segments must be a positive integer, not {seg!r}")
    seg = int(seg)
    if not isinstance(name, str):
        raise DTypeError(f"a number format name must be a string, not {name!r}; valid forms: "
                         f"{VALID_FORMS}")
    key_name = name.strip().lower()
    acc = full["accumulate"]
    if acc is not None and key_name != "fp16":
        raise DTypeError(f"the accumulate option applies to fp16 only, not {name!r}")
    if acc == "float32":
        acc = None                      # the default rule: the same instance as get_dtype("fp16")
    key = (key_name, seg) if acc is None else (key_name, seg, acc)
    dt = _cache.get(key)
    if dt is None:
        dt = _cache[key] = _make(key_name, name, seg, acc)
    return dt


def _make(key: str, original: str, seg: int, accumulate: str | None = None) -> DType:
    if key == "float64":
        return Float64Type(segments=seg)
    if key == "fp16":
        return Fp16Type(segments=seg, accumulate=accumulate or "float32")
    if key == "fp32":
        return Fp32Type(segments=seg)
    if key in ALIASES:
        return FixedType(*ALIASES[key], name=key, segments=seg)
    m = _Q.fullmatch(key)
    if m:
        ib, fb = int(m.group(1)), int(m.group(2))
        if ib >= 1 and ib + fb <= 32:
            return FixedType(ib, fb, segments=seg)
        why = ("M counts the sign bit and must be >= 1" if ib < 1 else
               f"M + N = {ib + fb} exceeds 32 bits")
        raise DTypeError(f"invalid number format {original!r}: {why}; valid forms: "
                         f"{VALID_FORMS}")
    raise DTypeError(f"unknown number format {original!r}; valid forms: {VALID_FORMS}")
