"""LearningGroup's RTL parameters, from the architecture file and the TLM unit models.

The number format is the architecture's ``dtype`` (fp16: :func:`rtl.fpu.float_format`); the
VPU's accumulation registers are :data:`machines.learninggroup.tlm.vpu.REGISTERS`; the
encoder's widths are :func:`machines.learninggroup.tlm.timing.encoder_params` of the
architecture's ``[timing]`` table and ``max_groups``.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlaccel.isa.arch import Arch
from rlaccel.isa.dtypes import get_dtype
from rlaccel.machines.learninggroup.tlm import timing, vpu

from rlaccel.rtl.fpu import FloatFormat, float_format
from rlaccel.rtl.params import FloatWords, per_arch
from rlaccel.rtl.signals import bits_for

__all__ = ["LgParams", "lg_params"]


@dataclass(frozen=True)
class LgParams(FloatWords):
    """The VPU's format (``word_bits``: :class:`rtl.params.FloatWords`) and registers, and the
    encoder's widths."""

    arch: Arch
    fmt: FloatFormat
    registers: int                  # accumulation registers (and broadcast activations) per VPU
    enc: timing.EncoderParams
    #: VPUs of the RTL core's bench (:mod:`.core`; the machine's cores have
    #: ``arch.knobs.lanes``, 264): the controller is the same for any number, and a narrow
    #: core keeps the MyHDL simulation of its FP16 units short
    core_lanes: int = 8

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


@per_arch("learninggroup")
def lg_params(a: Arch) -> LgParams:
    """The VPU's and the encoder's parameters of an architecture."""
    return LgParams(arch=a, fmt=float_format(get_dtype(a.knobs.dtype)), registers=vpu.REGISTERS,
                    enc=timing.encoder_params(a.extra["timing"], a.knobs.max_groups))
