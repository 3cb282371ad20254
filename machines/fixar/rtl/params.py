"""FIXAR's RTL parameters, from the architecture file and the TLM unit models.

The PE's widths are :data:`machines.fixar.tlm.pe.WEIGHT_BITS` (32) and ``MUL_BITS`` (17);
its accumulator holds the exact sum of ``max_batch`` full products (a weight gradient sums
one product per vector of the batch). The PRNG has the ``[timing]`` table's ``prng_lanes``
lanes (``AapTiming().prng_lanes`` without one) of
:data:`machines.fixar.tlm.prng.REGISTERS` xorshift registers and gives q16.16 samples
(``GAUSS_FRAC``). The AAP core's array is ``[timing]`` ``pe_rows`` x ``pe_cols`` of those PEs
(the family's defaults without them).
"""

from __future__ import annotations

from dataclasses import dataclass

from rlaccel.isa.arch import Arch
from rlaccel.util.errors import ArchError
from rlaccel.machines.fixar.tlm import pe, prng
from rlaccel.machines.fixar.tlm.timing import AapTiming

from rlaccel.rtl.params import per_arch
from rlaccel.rtl.signals import bits_for

__all__ = ["FixarParams", "fixar_params", "ArrayParams", "array_params"]


@dataclass(frozen=True)
class FixarParams:
    """A PE's widths and the PRNG's lanes."""

    arch: Arch
    weight_bits: int
    mul_bits: int
    max_terms: int
    prng_lanes: int
    prng_registers: int
    gauss_frac: int

    @property
    def acc_bits(self) -> int:
        """Exact sum of max_terms products of a weight and a 32-bit activation."""
        return 2 * self.weight_bits + bits_for(self.max_terms)


@per_arch("fixar")
def fixar_params(a: Arch) -> FixarParams:
    """The PE's and the PRNG's parameters of an architecture."""
    return FixarParams(arch=a, weight_bits=pe.WEIGHT_BITS, mul_bits=pe.MUL_BITS,
                       max_terms=a.knobs.max_batch,
                       prng_lanes=int(a.extra.get("timing", {}).get(
                           "prng_lanes", AapTiming().prng_lanes)),
                       prng_registers=prng.REGISTERS, gauss_frac=prng.GAUSS_FRAC)


@dataclass(frozen=True)
class ArrayParams:
    """The AAP core's array of PEs."""

    pe: FixarParams            # the PE's widths (and max_batch: tiles of an output block)
    rows: int                  # R: inputs per tile ([timing] pe_rows)
    cols: int                  # C: outputs per tile ([timing] pe_cols)

    @property
    def arch(self) -> Arch:
        return self.pe.arch

    @property
    def max_tiles(self) -> int:
        """Tiles (input blocks) one output block may accumulate: the PE accumulator's bound,
        :attr:`FixarParams.max_terms` (``max_batch``)."""
        return self.pe.max_terms

    @property
    def sum_bits(self) -> int:
        """A column accumulator: the exact sum of ``R`` products a tile, ``max_tiles`` tiles."""
        return self.pe.acc_bits + bits_for(self.rows)

    @property
    def timing(self) -> AapTiming:
        """The family's timing model of one core of this size."""
        return AapTiming(cores=1, pe_rows=self.rows, pe_cols=self.cols)


@per_arch("fixar")
def array_params(a: Arch) -> ArrayParams:
    """The array of an architecture: the PE's parameters, ``[timing]`` ``pe_rows`` x
    ``pe_cols`` (the family's defaults without them)."""
    t = a.extra.get("timing", {}) or {}
    dflt = AapTiming()
    size = {}
    for k, d in (("pe_rows", dflt.pe_rows), ("pe_cols", dflt.pe_cols)):
        v = t.get(k, d)
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 64:
            raise ArchError(f"{a.name}: [timing] {k} = {v!r}: the PE array needs an integer "
                            f"from 1 to 64")
        size[k] = v
    return ArrayParams(pe=fixar_params(a), rows=size["pe_rows"], cols=size["pe_cols"])
