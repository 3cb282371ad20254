"""FIXAR's RTL parameters, from the architecture file and the TLM unit models.

The PE's widths are :data:`tlm.families.fixar.pe.WEIGHT_BITS` (32) and ``MUL_BITS`` (17);
its accumulator holds the exact sum of ``max_batch`` full products (a weight gradient sums
one product per vector of the batch). The PRNG has the ``[timing]`` table's ``prng_lanes``
lanes (``AapTiming().prng_lanes`` without one) of
:data:`tlm.families.fixar.prng.REGISTERS` xorshift registers and gives q16.16 samples
(``GAUSS_FRAC``).
"""

from __future__ import annotations

from dataclasses import dataclass

from rlaccel.isa.arch import Arch, load_arch
from rlaccel.machines.fixar.tlm import pe, prng
from rlaccel.machines.fixar.tlm.timing import AapTiming

from rlaccel.rtl.signals import bits_for

__all__ = ["FixarParams", "fixar_params"]


@dataclass(frozen=True)
class FixarParams:
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


_CACHE: dict[str, FixarParams] = {}


def fixar_params(arch: str = "fixar") -> FixarParams:
    a = load_arch(arch) if isinstance(arch, str) else arch
    key = a.path or a.name
    if key not in _CACHE:
        _CACHE[key] = FixarParams(arch=a, weight_bits=pe.WEIGHT_BITS, mul_bits=pe.MUL_BITS,
                                  max_terms=a.knobs.max_batch,
                                  prng_lanes=int(a.extra.get("timing", {}).get(
                                      "prng_lanes", AapTiming().prng_lanes)),
                                  prng_registers=prng.REGISTERS, gauss_frac=prng.GAUSS_FRAC)
    return _CACHE[key]
