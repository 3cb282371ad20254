"""MADDPG's RTL parameters: the number format from the architecture (``fp32``:
:func:`rtl.fpu.float_format`), the ring's hop from its ``[interconnect]`` table, and the
compute unit's build parameters.

A compute unit's unroll factor and layer shape are not machine knobs: the design-space
exploration (:mod:`machines.maddpg.tlm.dse`) picks ``F`` per layer. The RTL instance checked
here is built for ``unroll`` elements and layers up to ``max_in x max_out`` (registers for
the activations and accumulators, ``F`` weight banks of ``ceil(max_in max_out / F)`` words);
:func:`maddpg_params` takes other values.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlaccel.isa.arch import Arch
from rlaccel.isa.dtypes import get_dtype

from rlaccel.rtl.fpu import FloatFormat, float_format
from rlaccel.rtl.params import FloatWords, per_arch

__all__ = ["MaddpgParams", "maddpg_params", "UNROLL", "MAX_IN", "MAX_OUT"]

#: the checked instance: 4 multiply-add elements, layers up to 16 x 16
UNROLL = 4
MAX_IN = 16
MAX_OUT = 16


@dataclass(frozen=True)
class MaddpgParams(FloatWords):
    """The number format (``word_bits``: :class:`rtl.params.FloatWords`), the compute unit's
    build parameters and the ring's."""

    arch: Arch
    fmt: FloatFormat
    unroll: int
    max_in: int
    max_out: int
    hop_latency: int           # [interconnect] latency
    link_words: int            # [interconnect] words_per_cycle
    learners: int              # agents on the ring

    @property
    def bank_words(self) -> int:
        return -(-self.max_in * self.max_out // self.unroll)


@per_arch("maddpg")
def maddpg_params(a: Arch, unroll: int = UNROLL, max_in: int = MAX_IN,
                  max_out: int = MAX_OUT) -> MaddpgParams:
    """The parameters of an architecture, for a compute unit of ``unroll`` elements and
    layers up to ``max_in x max_out``."""
    net = a.extra.get("interconnect") or {}
    return MaddpgParams(arch=a, fmt=float_format(get_dtype(a.knobs.dtype)), unroll=unroll,
                        max_in=max_in, max_out=max_out, hop_latency=int(net.get("latency", 0)),
                        link_words=int(net.get("words_per_cycle", 1)), learners=a.knobs.agents)
