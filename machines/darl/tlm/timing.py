"""Cycles of one kernel iteration of DARL (the DARL paper, Table 1's L), as pure functions of the
workload, a few latency constants, and the three optimisations of Fig. 10(a) as switches.

The paper gives the dataflow (Fig. 2-5) but no cycle formula, and Table 1 only totals:
417 / 421 cycles for one agent on CartPole / LunarLander, 547 / 624 for eight. We model the
kernel as the HLS dataflow the figures describe, every layer ``C`` elements wide (one chunk
of the hypervector per cycle), ``K = D / C`` chunks:

=================  =============================================================================
part               cycles
=================  =============================================================================
``io``             read the sample from HBM PS0 and return the result (AXI, kernel control)
``encode``         depth of eq. 1-6 for the first chunk: read P, multiply, ``ceil(log2 N)``
                   adder levels, codebook read (switch off: a CORDIC sin/cos instead)
``regress``        depth of eq. 9-10 for the first chunk: the delayed update's ``Q + U``
                   adder (switch on), an ``A x C`` systolic array's wavefront ``C + A - 1``
                   (switch off, no chunk fragmentation: one ``A x D`` array, ``D + A - 1``),
                   the chunk accumulator
``stream``         the other ``K - 1`` chunks, one per cycle (0 without chunk fragmentation:
                   the whole vector is in the one array's wavefront)
``reduce``         real plus imaginary partial sums, then the scale (a shift)
``select``         ``ceil(log2 A)`` comparator levels and the mask multiplexer (eq. 11-13)
``v_update``       eq. 14: two multiplies, two adds
``update``         eq. 15-16 over ``K`` chunks: with the delayed update, ``U`` streamed into the
                   cache (II 1; it lands on Q in the next iteration's regression); without, a
                   read-modify-write of ``Q[a]`` through the model memory (II 2: a read and a
                   write of the same array per chunk), plus the adder
``allreduce``      several agents: the iteration ends with the butterfly all-reduce of the
                   agent's shard (eq. 19-22, all ``A`` rows: ``2 A D`` words, since agents mark
                   different rows), ``log2 n`` stages, each a link access of ``hop + ceil(2 A D
                   / link_words)`` cycles and the add (:func:`.allreduce.allreduce_cycles`, the
                   platform butterfly's charge); not overlapped with the update stream
=================  =============================================================================

An inference iteration (no action marked) stops after ``select``. The constants are
:class:`LatencyConstants`; which come from where is in ``machines/darl/README.md``: none is
fitted to Table 1 (``io`` is two m_axi transactions at Vitis HLS's default latency, ``hop``
a butterfly stage's registers, sum and SLR crossing: the architecture's ``[sources]``), so
every column of Table 1 is a prediction of the model. Their defaults are read
from the machine's architecture file, ``machines/darl/archs/darl.toml`` (:data:`ARCH`: its
``[timing]`` and its ``[interconnect]`` latency and width), the one place they are stated.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from math import ceil, log2
from pathlib import Path

from rlaccel.util.errors import ArchError
from rlaccel.isa.arch import load_arch

from rlaccel.machines.darl.tlm.allreduce import allreduce_cycles, stages
from rlaccel.machines.darl.tlm.regression import chunks

__all__ = ["LatencyConstants", "Workload", "Optimisations", "iteration_cycles",
           "instruction_cycles", "latency_cycles", "TABLE1", "ARCH"]

#: the machine's architecture, where :class:`LatencyConstants`' defaults come from
ARCH = load_arch(Path(__file__).resolve().parents[1] / "archs" / "darl.toml")
_TIMING, _NET = ARCH.extra["timing"], ARCH.extra["interconnect"]

#: Table 1 of the DARL paper: (environment, agents) -> L in cycles
TABLE1 = {("CartPole", 1): 417, ("CartPole", 8): 547,
          ("LunarLander", 1): 421, ("LunarLander", 8): 624}


@dataclass(frozen=True)
class LatencyConstants:
    """Latencies in cycles at the architecture's clock (see ``machines/darl/README.md`` for
    each one's source; the defaults are :data:`ARCH`'s)."""

    io: int = _TIMING["io"]                    # two m_axi transactions (UG1399's default)
    mem_read: int = _TIMING["mem_read"]        # a BRAM/URAM read with registered output
    mul: int = _TIMING["mul"]                  # a pipelined 32 x 32 fixed-point multiply
    add: int = _TIMING["add"]                  # an adder or comparator level
    codebook: int = _TIMING["codebook"]        # codebook read: address + BRAM output register
    cordic: int = _TIMING["cordic"]            # sin/cos without the codebook (CORDIC)
    write: int = _TIMING["write"]              # a BRAM write
    hop: int = _NET["latency"]                 # a butterfly stage's latency
    link_words: int = _NET["words_per_cycle"]  # assumed: words a butterfly link moves a cycle

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            lo = 1 if f.name == "link_words" else 0
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise ArchError(f"latency constant {f.name} must be an integer >= {lo}, "
                                f"not {v!r}")


@dataclass(frozen=True)
class Workload:
    """What one iteration processes: hypervector ``d``, ``chunk`` elements per cycle, ``n``
    state features, ``a`` actions, ``agents``."""

    d: int = 2048
    chunk: int = 16
    n: int = 4
    a: int = 2
    agents: int = 1

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ArchError(f"workload: {f.name} must be a positive integer, not {v!r}")
        chunks(self.d, self.chunk)
        stages(self.agents)


@dataclass(frozen=True)
class Optimisations:
    """The three optimisations of Fig. 10(a), each on by default."""

    codebook: bool = True
    chunking: bool = True
    delayed_update: bool = True


def _clog2(x: int) -> int:
    return ceil(log2(x)) if x > 1 else 0


def iteration_cycles(w: Workload, c: LatencyConstants = LatencyConstants(),
                     opt: Optimisations = Optimisations(), *, train: bool = True) -> dict:
    """The cycles of one iteration by part (the keys of the module's table), in order."""
    k = chunks(w.d, w.chunk)
    parts = {"io": c.io}
    parts["encode"] = (c.mem_read + c.mul + _clog2(w.n) * c.add
                       + (c.codebook if opt.codebook else c.cordic))
    wave = (w.chunk if opt.chunking else w.d) + w.a - 1
    parts["regress"] = (c.add if opt.delayed_update else 0) + wave + c.add
    parts["stream"] = k - 1 if opt.chunking else 0
    parts["reduce"] = 2 * c.add
    parts["select"] = _clog2(w.a) * c.add + c.add
    if train:
        parts["v_update"] = 2 * c.mul + 2 * c.add
        if opt.delayed_update:
            parts["update"] = c.mem_read + c.mul + k + c.write
        else:
            parts["update"] = c.mem_read + c.mul + c.add + 2 * k + c.write
        parts["allreduce"] = allreduce_cycles(w.agents, 2 * w.a * w.d, latency=c.hop,
                                              width=c.link_words)
    return parts


def latency_cycles(w: Workload, c: LatencyConstants = LatencyConstants(),
                   opt: Optimisations = Optimisations(), *, train: bool = True) -> int:
    """Table 1's L: the cycles of one iteration (a training one by default)."""
    return sum(iteration_cycles(w, c, opt, train=train).values())


def instruction_cycles(mnemonic: str, *, n: int, d: int, chunk: int,
                       c: LatencyConstants = LatencyConstants(),
                       opt: Optimisations = Optimisations()) -> int:
    """Busy cycles of one ``hdc`` instruction on its unit: its part of :func:`iteration_cycles`
    (``n`` the operand: state features for ``henc``/``hld``, actions for the others).

    A training iteration (``henc`` s and s', ``hreg``, ``hreg.t``, ``hsel.mask``, ``hsel.max``,
    ``hupd``, ``hpush``), each issued in one cycle with results ready when its unit is done,
    takes ``io + encode`` (the encoders, concurrently), ``regress + stream + reduce`` (the two
    sets of arrays, concurrently, the second issued a cycle later), ``select`` (``hsel.mask``'s
    multiplexer, then ``hsel.max``'s ``ceil(log2 A)`` comparator levels, issued a cycle
    later), ``v_update`` and ``update``: :func:`latency_cycles` with one agent. An inference
    iteration (``henc``, ``hreg.t``, ``hsel.argmax``) takes the training-free
    :func:`latency_cycles`. ``hld`` streams ``n d`` words at a chunk a cycle; ``hsync`` two
    passes over the model (``Q' += U``, ``Q <- Q'``); ``hallreduce`` is the interconnect's."""
    chunks(d, chunk)                 # a whole number of chunks, else an ArchError
    if mnemonic == "hld":
        return max(1, -(-n * d // chunk))
    if mnemonic == "hsync":
        return max(1, 2 * (-(-2 * n * d // chunk)))
    w = Workload(d=d, chunk=chunk, n=n, a=n)
    parts = iteration_cycles(w, c, opt)
    if mnemonic == "henc":
        return parts["io"] + parts["encode"]
    if mnemonic in ("hreg", "hreg.t"):
        return parts["regress"] + parts["stream"] + parts["reduce"]
    if mnemonic == "hsel.argmax":
        return parts["select"]
    if mnemonic == "hsel.mask":
        return c.add
    if mnemonic == "hsel.max":
        return max(1, _clog2(n) * c.add)
    if mnemonic == "hupd":
        return parts["v_update"]
    if mnemonic == "hpush":
        return parts["update"]
    raise ArchError(f"no cycle count for '{mnemonic}'")
