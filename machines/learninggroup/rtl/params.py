"""LearningGroup's RTL parameters, from the architecture file and the TLM unit models.

The number format is the architecture's ``dtype`` (fp16: :func:`rtl.fpu.float_format`); the
VPU's accumulation registers are :data:`tlm.families.learninggroup.vpu.REGISTERS`; the
encoder's widths are :func:`tlm.families.learninggroup.timing.encoder_params` of the
architecture's ``[timing]`` table and ``max_groups``.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlaccel.isa.arch import Arch, load_arch
from rlaccel.isa.dtypes import get_dtype
from rlaccel.machines.learninggroup.tlm import timing, vpu

from rlaccel.rtl.fpu import FloatFormat, float_format
from rlaccel.rtl.signals import bits_for

__all__ = ["LgParams", "lg_params"]


@dataclass(frozen=True)
class LgParams:
    arch: Arch
    fmt: FloatFormat
    registers: int                  # accumulation registers (and broadcast activations) per VPU
    enc: timing.EncoderParams

    @property
    def word_bits(self) -> int:
        return self.fmt.bits

    @property
    def sel_bits(self) -> int:
        return bits_for(self.registers - 1)

    @property
    def index_bits(self) -> int:
        """A max index (group number)."""
        return self.enc.max_index_bits

    @property
    def columns(self) -> int:
        """Columns of one bitvector (one comparator each)."""
        return self.enc.bitvector_bits


_CACHE: dict[str, LgParams] = {}


def lg_params(arch: str = "learninggroup") -> LgParams:
    a = load_arch(arch) if isinstance(arch, str) else arch
    key = a.path or a.name
    if key not in _CACHE:
        dt = get_dtype(a.knobs.dtype)
        _CACHE[key] = LgParams(arch=a, fmt=float_format(dt), registers=vpu.REGISTERS,
                               enc=timing.encoder_params(a.extra["timing"], a.knobs.max_groups))
    return _CACHE[key]
