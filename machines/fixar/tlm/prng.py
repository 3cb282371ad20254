"""FIXAR's pseudo-random number generator: Gaussian exploration noise for the actor's output
(the FIXAR paper, section III: "The pseudo random number generator (PRNG) module injects random
noise to the final results of the actor's inference to help action exploration").

The paper names the module only. We choose a generator that costs a few hundred LUTs and no
DSP, and whose output is exactly a fixed-point number:

* each output **lane** has six 32-bit xorshift registers (Marsaglia 2003, "Xorshift RNGs",
  the (13, 17, 5) triple: ``x ^= x << 13; x ^= x >> 17; x ^= x << 5``, period 2**32 - 1);
* every cycle each register steps once and gives two 16-bit uniforms (its halves), twelve
  per lane, and the lane outputs their centred sum (Irwin-Hall, the central limit theorem
  with 12 terms, variance 1 and range +-6)::

      g_raw = sum_{k<12} u_k - 6 * (2**16 - 1)        (q16.16: g = g_raw / 2**16)

  which has mean exactly 0 and variance ``(2**32 - 1) / 2**32``; its tails end at +-6
  sigma, where a true Gaussian has mass 2e-9, irrelevant for exploration noise;
* registers are seeded from ``(seed, stream, lane, k)`` by splitmix64 (nonzero), so every
  stream is reproducible on its own and distinct streams are independent in practice.

``lanes`` outputs come out per cycle (:mod:`.timing` charges ``ceil(n / lanes)`` cycles).
Outputs are assigned lane by lane, cycle by cycle: output ``j`` is lane ``j % lanes`` of
cycle ``j // lanes`` of a request.
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import DTypeError

from rlaccel.machines.fixar.tlm.timing import AapTiming

__all__ = ["REGISTERS", "GAUSS_FRAC", "splitmix64", "xorshift32", "NoiseGenerator"]

#: xorshift registers per lane (two 16-bit uniforms each: 12 terms)
REGISTERS = 6
#: fraction bits of a Gaussian sample (q16.16, the machine's fixed32)
GAUSS_FRAC = 16
_OFFSET = REGISTERS * ((1 << 16) - 1)
_M64 = (1 << 64) - 1


def splitmix64(x: int) -> int:
    """One splitmix64 output for state ``x`` (Steele, Lea & Flood 2014)."""
    z = (x + 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def xorshift32(x: int) -> int:
    """One step of Marsaglia's xorshift32 (13, 17, 5) on a Python int."""
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    return x


def _seed_word(seed: int, stream: int, lane: int, k: int) -> int:
    h = splitmix64(seed & _M64)
    for part in (stream, lane, k):
        h = splitmix64(h ^ (part & _M64))
    w = (h ^ (h >> 32)) & 0xFFFFFFFF
    return w or 0x6C078965          # xorshift's one forbidden state is 0


class NoiseGenerator:
    """One PRNG stream: ``lanes`` lanes of :data:`REGISTERS` xorshift32 registers (by
    default the architecture's ``prng_lanes``)."""

    def __init__(self, seed: int, stream: int = 0, lanes: int = AapTiming.prng_lanes) -> None:
        if lanes < 1:
            raise DTypeError(f"PRNG: {lanes} lanes; need at least one")
        self.seed, self.stream, self.lanes = int(seed), int(stream), int(lanes)
        self.regs = np.array([[_seed_word(seed, stream, lane, k) for k in range(REGISTERS)]
                              for lane in range(lanes)], dtype=np.uint32)
        self.cycles = 0

    def _cycle(self) -> np.ndarray:
        x = self.regs
        x ^= x << np.uint32(13)
        x ^= x >> np.uint32(17)
        x ^= x << np.uint32(5)
        self.cycles += 1
        halves = (x >> np.uint32(16)).astype(np.int64) + (x & np.uint32(0xFFFF)).astype(np.int64)
        return halves.sum(axis=1) - np.int64(_OFFSET)

    def gaussian_raw(self, n: int) -> np.ndarray:
        """``n`` standard-normal samples as q16.16 raw int64 (``ceil(n / lanes)`` cycles)."""
        if n < 0:
            raise DTypeError(f"PRNG: cannot draw {n} samples")
        cycles = -(-n // self.lanes)
        if cycles == 0:
            return np.zeros(0, dtype=np.int64)
        return np.concatenate([self._cycle() for _ in range(cycles)])[:n]

    def gaussian(self, n: int) -> np.ndarray:
        """:meth:`gaussian_raw` as float64 values (exact)."""
        return self.gaussian_raw(n).astype(np.float64) * 2.0 ** -GAUSS_FRAC

    def state(self) -> np.ndarray:
        """A copy of the registers (for checkpoints)."""
        return self.regs.copy()

    def restore(self, regs) -> None:
        """Load registers saved by :meth:`state`."""
        regs = np.asarray(regs, dtype=np.uint32)
        if regs.shape != self.regs.shape or not regs.all():
            raise DTypeError(f"PRNG: a state must be {self.regs.shape} nonzero words")
        self.regs = regs.copy()
