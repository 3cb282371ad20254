"""DARL's RTL parameters, from the architecture file and the TLM unit models.

The data format is the architecture's ``dtype`` (``fixed32`` = q16.16). The butterfly is
built for the largest network the paper reports (Table 1, :data:`machines.darl.tlm.timing.
TABLE1`: 8 agents) or the architecture's ``agents`` if more; a reduction among 1, 2, 4 or 8
of them uses the first ``log2`` stages. Its links carry ``[interconnect] words_per_cycle``
words a beat when the architecture's interconnect is a butterfly (one word otherwise); each
agent's reduction buffer, a stand-in for its model memory, holds :data:`BUFFER_BEATS` beats.
The encoder takes the family's default workload's state features (``Workload().n``,
CartPole's 4) and its pipeline registers are the ``[timing]`` table's latency constants. The
codebook is :class:`machines.darl.tlm.codebook.Codebook` of the format (every fraction bit an
address bit unless ``addr_bits`` is given).
"""

from __future__ import annotations

from dataclasses import dataclass

from rlaccel.isa.arch import Arch
from rlaccel.isa.dtypes import FixedType, get_dtype
from rlaccel.util.errors import ArchError
from rlaccel.rtl.params import FixedWords, per_arch
from rlaccel.machines.darl.tlm.allreduce import stages
from rlaccel.machines.darl.tlm.codebook import Codebook
from rlaccel.machines.darl.tlm.models import constants
from rlaccel.machines.darl.tlm.timing import TABLE1, LatencyConstants, Workload

__all__ = ["DarlParams", "darl_params", "BUFFER_BEATS"]

#: beats of one agent's reduction buffer (longer vectors are reduced a buffer at a time)
BUFFER_BEATS = 8


@dataclass(frozen=True)
class DarlParams(FixedWords):
    """The blocks' view of an architecture: its format's word (:class:`rtl.params.FixedWords`)
    and these."""

    arch: Arch
    dt: FixedType
    agents: int
    stages: int
    width: int                 # words per link beat
    buffer_words: int          # words of one agent's reduction buffer
    features: int              # the encoder's state features N
    latency: LatencyConstants  # the [timing] table's constants (the encoder's registers)
    codebook: Codebook

    def beats(self, words: int) -> int:
        """Link beats (``width`` words each) that ``words`` words take."""
        return -(-int(words) // self.width)

    @property
    def entries(self) -> int:
        return self.beats(self.buffer_words)


@per_arch("darl")
def darl_params(a: Arch) -> DarlParams:
    """The parameters of an architecture; fixed-point formats only."""
    dt = get_dtype(a.knobs.dtype)
    if not isinstance(dt, FixedType):
        raise ArchError(f"{a.name}: the DARL blocks compute in fixed point, not {dt.name}")
    net = a.extra.get("interconnect") or {}
    width = int(net.get("words_per_cycle", 1)) if net.get("kind") == "butterfly" else 1
    agents = max(a.knobs.agents, *(n for _, n in TABLE1))
    return DarlParams(arch=a, dt=dt, agents=agents, stages=stages(agents), width=width,
                      buffer_words=BUFFER_BEATS * width, features=Workload().n,
                      latency=constants(a.extra["timing"]), codebook=Codebook(dt))
