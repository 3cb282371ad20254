"""DARL's RTL parameters, from the architecture file and the TLM unit models.

The data format is the architecture's ``dtype`` (``fixed32`` = q16.16). The butterfly is
built for the largest network the seed reports (Table 1, :data:`tlm.families.darl.timing.
TABLE1`: 8 agents) or the architecture's ``agents`` if more; a reduction among 1, 2, 4 or 8
of them uses the first ``log2`` stages. Its links carry ``[interconnect] words_per_cycle``
words a beat when the architecture's interconnect is a butterfly (one word otherwise); each
agent's reduction buffer, a stand-in for its model memory, holds :data:`BUFFER_BEATS` beats.
The encoder takes the family's default workload's state features (``Workload().n``, CartPole's
4) and its pipeline registers are the ``[timing]`` table's latency constants. The codebook is :class:`tlm.families.darl.codebook.Codebook` of the format (every
fraction bit an address bit unless ``addr_bits`` is given).
"""

from __future__ import annotations

from dataclasses import dataclass

from rlaccel.isa.arch import Arch, load_arch
from rlaccel.isa.dtypes import FixedType, get_dtype
from rlaccel.util.errors import ArchError
from rlaccel.machines.darl.tlm.allreduce import stages
from rlaccel.machines.darl.tlm.codebook import Codebook
from rlaccel.machines.darl.tlm.models import constants
from rlaccel.machines.darl.tlm.timing import TABLE1, LatencyConstants, Workload

__all__ = ["DarlParams", "darl_params", "BUFFER_BEATS"]

#: beats of one agent's reduction buffer (longer vectors are reduced a buffer at a time)
BUFFER_BEATS = 8


@dataclass(frozen=True)
class DarlParams:
    arch: Arch
    dt: FixedType
    agents: int
    stages: int
    width: int                 # words per link beat
    buffer_words: int          # words of one agent's reduction buffer
    features: int              # the encoder's state features N
    latency: LatencyConstants  # the [timing] table's constants (the encoder's registers)
    codebook: Codebook

    @property
    def word_bits(self) -> int:
        return self.dt.bits

    @property
    def frac_bits(self) -> int:
        return self.dt.frac_bits

    @property
    def min_raw(self) -> int:
        return self.dt.min_raw

    @property
    def max_raw(self) -> int:
        return self.dt.max_raw

    def beats(self, words: int) -> int:
        """Link beats (``width`` words each) that ``words`` words take."""
        return -(-int(words) // self.width)

    @property
    def entries(self) -> int:
        return self.beats(self.buffer_words)


_CACHE: dict[str, DarlParams] = {}


def darl_params(arch: str = "darl") -> DarlParams:
    a = load_arch(arch) if isinstance(arch, str) else arch
    key = a.path or a.name
    if key not in _CACHE:
        dt = get_dtype(a.knobs.dtype)
        if not isinstance(dt, FixedType):
            raise ArchError(f"{a.name}: the DARL blocks compute in fixed point, not {dt.name}")
        net = a.extra.get("interconnect") or {}
        width = int(net.get("words_per_cycle", 1)) if net.get("kind") == "butterfly" else 1
        agents = max(a.knobs.agents, *(n for _, n in TABLE1))
        _CACHE[key] = DarlParams(arch=a, dt=dt, agents=agents, stages=stages(agents),
                                 width=width, buffer_words=BUFFER_BEATS * width,
                                 features=Workload().n, latency=constants(a.extra["timing"]),
                                 codebook=Codebook(dt))
    return _CACHE[key]
