"""MADDPG's RTL parameters: the number format from the architecture (``fp32``:
:func:`rtl.fpu.float_format`), the ring's hop from its ``[interconnect]`` table, and the
compute unit's build parameters.

A compute unit's unroll factor and layer shape are not machine knobs: the design-space
exploration (:mod:`tlm.families.maddpg.dse`) picks ``F`` per layer. The RTL instance checked
here is built for ``unroll`` elements and layers up to ``max_in x max_out`` (registers for
the activations and accumulators, ``F`` weight banks of ``ceil(max_in max_out / F)`` words);
:func:`maddpg_params` takes other values.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlaccel.isa.arch import Arch, load_arch
from rlaccel.isa.dtypes import get_dtype

from rlaccel.rtl.fpu import FloatFormat, float_format

__all__ = ["MaddpgParams", "maddpg_params", "UNROLL", "MAX_IN", "MAX_OUT"]

#: the checked instance: 4 multiply-add elements, layers up to 16 x 16
UNROLL = 4
MAX_IN = 16
MAX_OUT = 16


@dataclass(frozen=True)
class MaddpgParams:
    arch: Arch
    fmt: FloatFormat
    unroll: int
    max_in: int
    max_out: int
    hop_latency: int           # [interconnect] latency
    link_words: int            # [interconnect] words_per_cycle
    learners: int              # agents on the ring

    @property
    def word_bits(self) -> int:
        return self.fmt.bits

    @property
    def bank_words(self) -> int:
        return -(-self.max_in * self.max_out // self.unroll)


_CACHE: dict = {}


def maddpg_params(arch: str = "maddpg", unroll: int = UNROLL, max_in: int = MAX_IN,
                  max_out: int = MAX_OUT) -> MaddpgParams:
    a = load_arch(arch) if isinstance(arch, str) else arch
    key = (a.path or a.name, unroll, max_in, max_out)
    if key not in _CACHE:
        net = a.extra.get("interconnect") or {}
        _CACHE[key] = MaddpgParams(arch=a, fmt=float_format(get_dtype(a.knobs.dtype)),
                                   unroll=unroll, max_in=max_in, max_out=max_out,
                                   hop_latency=int(net.get("latency", 0)),
                                   link_words=int(net.get("words_per_cycle", 1)),
                                   learners=a.knobs.agents)
    return _CACHE[key]
