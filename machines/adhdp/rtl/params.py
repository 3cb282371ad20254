"""Every width and constant the ADHDP datapath's RTL blocks use, derived from an architecture
and its format.

Nothing here restates a number: word width and fraction bits come from ``isa.dtypes``,
lanes and memory sizes from ``isa.arch``, address and length widths from the encoding's
geometry, and the accumulator width from ``FixedType.accumulator_bits`` (wide enough for the
longest exact dot product an instruction can ask for, ``max_dim`` terms).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from rlaccel.isa.arch import Arch
from rlaccel.isa.dtypes import FixedType, get_dtype
from rlaccel.isa.encoding import Encoding, encoding_for
from rlaccel.util.errors import ArchError
from rlaccel.rtl.params import FixedWords, per_arch
from rlaccel.rtl.signals import bits_for

__all__ = ["Params", "params"]


@dataclass(frozen=True)
class Params(FixedWords):
    """The RTL's view of one architecture: its format's word (``word_bits`` W, ``frac_bits``
    N, ``min_raw``, ``max_raw``: :class:`rtl.params.FixedWords`) and these."""

    arch: Arch
    enc: Encoding
    dt: FixedType
    lanes: int              # L
    max_dim: int            # longest vector an instruction names
    unified_words: int
    synapse_words: int
    uaddr_bits: int
    saddr_bits: int
    dim_bits: int           # a length 1..max_dim, unbiased
    acc_bits: int           # exact accumulator of max_dim full products
    tree_bits: int          # exact sum of L full products (the adder tree's output)
    tiles: int              # ceil(max_dim / L): tiles of the longest vector

    @property
    def prod_bits(self) -> int:
        """A full product of two words."""
        return 2 * self.word_bits


@per_arch("adhdp")
def params(a: Arch) -> Params:
    """The parameters of an architecture; fixed-point formats only."""
    k, g = a.knobs, a.geometry
    dt = get_dtype(k.dtype, segments=k.pwl_segments)
    if dt.is_float:
        raise ArchError(f"the RTL blocks are fixed point; '{a.name}' computes in {dt.name}")
    return Params(arch=a, enc=encoding_for(a), dt=dt, lanes=k.lanes, max_dim=g.max_dim,
                  unified_words=g.unified_words, synapse_words=k.synapse_words,
                  uaddr_bits=g.widths["uaddr"], saddr_bits=g.widths["saddr"],
                  dim_bits=bits_for(g.max_dim), acc_bits=dt.accumulator_bits(g.max_dim),
                  tree_bits=dt.accumulator_bits(k.lanes), tiles=ceil(g.max_dim / k.lanes))
