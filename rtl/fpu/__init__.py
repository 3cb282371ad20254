"""IEEE binary floating-point multiplier and adder, combinational, any exponent/fraction width.

What :mod:`rlaccel.isa.dtypes` defines for ``fp16`` and ``fp32`` (``mul`` and ``add``: the
exact result rounded once to the format, round to nearest even, with subnormals; a finite
result that rounds to infinity is an overflow, counted as a saturation), built from four
blocks, one a module:

* :func:`unpack` -- one operand: sign, exponent, significand with its hidden bit, NaN, inf;
* :func:`fmul` -- two unpacked operands, the ``(M+1) x (M+1)`` significand product, the
  exponent sum;
* :func:`fadd` -- two unpacked operands, the larger magnitude first, the smaller aligned with
  a guard, a round and a sticky bit (3 extra bits), added or subtracted;
* :func:`round_pack` (used by both) -- normalise ``sig * 2**x`` (leading-one search), pick
  the normal or the subnormal quantum, round half to even, detect overflow, pack.

NaN inputs and invalid operations (``inf * 0``, ``inf - inf``) give the quiet NaN
:attr:`FloatFormat.qnan` (sign 0, top fraction bit set). numpy keeps an operand's payload
and the x86 default NaN has the sign set, so a NaN result matches the functional model as a
NaN, not bit for bit; every other result is bit for bit (the benches compare NaN as a class).

The widths come from the format (:mod:`.format`): :func:`float_format` reads ``np.finfo`` of
the dtype's storage (``fp16``: 5 exponent bits, 10 fraction bits; ``fp32``: 8 and 23).
"""

from rlaccel.rtl.fpu.fadd import fadd
from rlaccel.rtl.fpu.fmul import fmul
from rlaccel.rtl.fpu.format import FloatFormat, float_format, fmul_signals
from rlaccel.rtl.fpu.round_pack import round_pack
from rlaccel.rtl.fpu.unpack import unpack

__all__ = ["FloatFormat", "float_format", "fmul", "fadd", "round_pack", "unpack",
           "fmul_signals"]
