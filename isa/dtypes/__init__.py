"""``isa.dtypes``: the one definition of every number format rlaccel computes in.

Every arithmetic the simulator and the RTL test benches perform goes through a
:class:`DType` from :func:`get_dtype`, so bit-exactness is a property of this package.

>>> from rlaccel.isa.dtypes import get_dtype
>>> q = get_dtype("q6.18")
>>> w = q.quantize([[0.5, -1.0], [2.0, 0.25]]); x = q.quantize([1.5, 0.75])
>>> q.to_float(q.matvec(w, x)).tolist()
[0.0, 3.1875]
>>> hex(int(q.to_words(q.quantize(-1.0))))
'0xfc0000'

Modules: :mod:`~isa.dtypes.fixed` (qM.N arithmetic and its rounding and accumulator rules),
:mod:`~isa.dtypes.floating` (float64, fp16, fp32), :mod:`~isa.dtypes.pwl` (activation tables),
:mod:`~isa.dtypes.activations` (names, ISA order, derivatives), :mod:`~isa.dtypes.registry`
(names, FIXAR's fixed32/fixed16), :mod:`~isa.dtypes.base` (saturation counting, words).
"""

from rlaccel.isa.dtypes.activations import ACTIVATIONS
from rlaccel.isa.dtypes.base import DType, SaturationCounter
from rlaccel.isa.dtypes.fixed import FixedType
from rlaccel.isa.dtypes.floating import Float64Type, FloatType, Fp16Type, Fp32Type
from rlaccel.isa.dtypes.pwl import PWL_DEFAULT_SEGMENTS, PWL_DEFAULT_XMAX, PwlTable
from rlaccel.isa.dtypes.registry import ALIASES, VALID_FORMS, get_dtype

__all__ = [
    "ACTIVATIONS",
    "ALIASES",
    "DType",
    "FixedType",
    "Float64Type",
    "FloatType",
    "Fp16Type",
    "Fp32Type",
    "PWL_DEFAULT_SEGMENTS",
    "PWL_DEFAULT_XMAX",
    "PwlTable",
    "SaturationCounter",
    "VALID_FORMS",
    "get_dtype",
]
