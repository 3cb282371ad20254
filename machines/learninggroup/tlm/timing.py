"""Cycle formulas of LearningGroup's units, as pure functions (the paper; the sections cited
with each). The paper gives the structure (one max index per cycle through the encoder, N
comparators in parallel, up to four sparse rows per core at once, C cores, 175 MHz) but no
port widths; where a width is ours it is a field of :class:`EncoderParams` or an argument,
marked "assumed", and ``machines/learninggroup/README.md`` discusses it.

The defaults (:data:`CLOCK_MHZ`, :data:`CORES`, :data:`VPUS`, :data:`ROWS_PER_PASS` and
:class:`EncoderParams`' widths) are read from the machine's architecture file,
``machines/learninggroup/archs/learninggroup.toml`` (:data:`ARCH`), the one place they are
stated; a run reads its own architecture (:func:`encoder_params`, the models' knobs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rlaccel.util.errors import SimError
from rlaccel.isa.arch import load_arch

__all__ = ["EncoderParams", "max_index_cycles", "tuple_bits", "tuple_write_cycles",
           "miss_cycles", "hit_cycles", "compression_cycles", "scan_compression_cycles",
           "core_passes", "core_cycles",
           "core_stream_cycles", "speedup_bound", "layer_cycles", "utilization", "gflops",
           "peak_gflops", "CLOCK_MHZ", "CORES", "VPUS", "ROWS_PER_PASS", "vector_cycles",
           "frame_cycles", "encoder_params", "ARCH"]

#: the machine's architecture, where the defaults below come from
ARCH = load_arch(Path(__file__).resolve().parents[1] / "archs" / "learninggroup.toml")
_TIMING = ARCH.extra["timing"]
#: seed section IV-A and Fig. 8: 175 MHz, C = 3 cores of N = 264 VPUs
CLOCK_MHZ = ARCH.knobs.clock_mhz
CORES = ARCH.knobs.cores
VPUS = ARCH.knobs.lanes
#: Fig. 7: a core processes up to four sparse rows at once (four activations, four registers)
ROWS_PER_PASS = _TIMING["rows_per_pass"]


@dataclass(frozen=True)
class EncoderParams:
    """Widths of the sparse data encoder, its memories and the weight-compression path (by
    default the architecture file's, :data:`ARCH`).

    From the paper (section III-B, IV-C, Fig. 5): ``bitvector_bits`` 512, ``workload_bits`` 9,
    ``max_groups`` 16 ("we design the accelerator to support the grouping up to 16"; the
    4-bit max index), one max index per cycle, the N comparators of a miss in parallel
    (``compare_cycles`` 1). Assumed (the paper gives no widths): the max-index unit reads
    ``grouping_words_per_cycle`` = 32 FP16 grouping-matrix words per cycle (a 512-bit port),
    the sparse row memory is written ``srm_port_bits`` = 512 bits per cycle, the load
    allocation unit reads ``weight_words_per_cycle`` = 32 FP16 weights per cycle from the
    global parameter memory, and a hit costs one cycle (its index-list write).
    ``store_nz_indexes``: Fig. 5's tuple holds the non-zero indexes (9 bits each); the text's
    "compact tuple format" lists only bitvector, workload and max index.
    """

    bitvector_bits: int = _TIMING["bitvector_bits"]
    workload_bits: int = _TIMING["workload_bits"]
    max_groups: int = ARCH.knobs.max_groups
    compare_cycles: int = 1
    hit_cycles: int = 1
    grouping_words_per_cycle: int = _TIMING["grouping_words_per_cycle"]
    srm_port_bits: int = _TIMING["srm_port_bits"]
    weight_words_per_cycle: int = _TIMING["weight_words_per_cycle"]
    store_nz_indexes: bool = True
    weight_bits: int = ARCH.geometry.word_bits
    grouping_bits: int = ARCH.geometry.word_bits

    @property
    def max_index_bits(self) -> int:
        """Bits of a max index (4 for 16 groups, 5 for 32)."""
        return max(1, math.ceil(math.log2(self.max_groups)))

    @property
    def nz_index_bits(self) -> int:
        """Bits of a non-zero index inside a bitvector (9 for 512)."""
        return max(1, math.ceil(math.log2(self.bitvector_bits)))


def max_index_cycles(rows: int, cols: int, groups: int, p: EncoderParams) -> int:
    """MaxIndex (Fig. 10): stream IG (rows x G) and OG (G x cols) through compare-and-keep
    lanes, ``grouping_words_per_cycle`` words per cycle."""
    w = p.grouping_words_per_cycle
    return math.ceil(rows * groups / w) + math.ceil(groups * cols / w)


def tuple_bits(workload: int, p: EncoderParams) -> int:
    """Bits of one sparse data tuple: bitvector, workload, max index and (if stored) the
    non-zero indexes."""
    nz = workload * p.nz_index_bits if p.store_nz_indexes else 0
    return p.bitvector_bits + p.workload_bits + p.max_index_bits + nz


def tuple_write_cycles(workload: int, p: EncoderParams) -> int:
    """Cycles to write one tuple into the sparse row memory."""
    return math.ceil(tuple_bits(workload, p) / p.srm_port_bits)


def miss_cycles(workload: int, p: EncoderParams) -> int:
    """Index Miss (Fig. 5, 10): compare the max index with every column's in parallel, then
    write the tuple (the index-list write overlaps it)."""
    return p.compare_cycles + tuple_write_cycles(workload, p)


def hit_cycles(p: EncoderParams) -> int:
    """Index Hit: only the index-list write."""
    return p.hit_cycles


def compression_cycles(workloads, p: EncoderParams) -> int:
    """Weight Compression (Fig. 10): read the unmasked weights of every row, row by row,
    ``weight_words_per_cycle`` per cycle."""
    wl = np.asarray(workloads, dtype=np.int64)
    w = p.weight_words_per_cycle
    return int(((wl + w - 1) // w).sum())


def scan_compression_cycles(rows: int, cols: int, p: EncoderParams) -> int:
    """Weight Compression without non-zero indexes: every row's ``cols``-bit bitvector is
    scanned, ``weight_words_per_cycle`` positions a cycle, whatever its workload."""
    return rows * -(-int(cols) // p.weight_words_per_cycle)


def core_passes(workloads, vpus: int = VPUS, rows_per_pass: int = ROWS_PER_PASS) -> np.ndarray:
    """Cycles of each pass of one core (Fig. 7): the core takes its rows in order, up to
    ``rows_per_pass`` at a time (rows without work are skipped), flattens their workloads
    into one vector and streams it through the ``vpus`` VPUs, ``ceil(sum / vpus)`` cycles."""
    wl = np.asarray(workloads, dtype=np.int64)
    if wl.ndim != 1 or (wl < 0).any():
        raise SimError(f"core workloads must be a vector of counts >= 0, not {wl!r}")
    wl = wl[wl > 0]
    if not wl.size:
        return np.zeros(0, dtype=np.int64)
    pad = (-wl.size) % rows_per_pass
    sums = np.concatenate([wl, np.zeros(pad, np.int64)]).reshape(-1, rows_per_pass).sum(1)
    return (sums + vpus - 1) // vpus


def core_cycles(workloads, vpus: int = VPUS, rows_per_pass: int = ROWS_PER_PASS) -> int:
    """Cycles of one core over its rows (sum of :func:`core_passes`)."""
    return int(core_passes(workloads, vpus, rows_per_pass).sum())


def core_stream_cycles(workloads, vpus: int = VPUS, rows_per_cycle: int = ROWS_PER_PASS) -> int:
    """The most generous reading of Fig. 7, for comparison with :func:`core_cycles`: the
    core's rows are one flattened stream of workloads, and every cycle its ``vpus`` VPUs take
    the next ``vpus`` weights of the stream, as long as they belong to at most
    ``rows_per_cycle`` rows (four activations, four registers); a row may be split across
    cycles. No pass boundaries, so this is a lower bound on any packing of four rows at a
    time. Rows of ``vpus / rows_per_cycle`` weights or fewer leave VPUs idle whatever the
    packing: that bounds a layer of row width N at ``rows_per_cycle * N / vpus`` times the
    dense layer's speed (:func:`speedup_bound`)."""
    wl = np.asarray(workloads, dtype=np.int64)
    if wl.ndim != 1 or (wl < 0).any():
        raise SimError(f"core workloads must be a vector of counts >= 0, not {wl!r}")
    rem = [int(w) for w in wl if w > 0]
    cycles, i = 0, 0
    while i < len(rem):
        cap, rows = vpus, 0
        while cap and rows < rows_per_cycle and i < len(rem):
            take = min(cap, rem[i])
            cap -= take
            rem[i] -= take
            rows += 1
            if not rem[i]:
                i += 1
        cycles += 1
    return cycles


def speedup_bound(cols: int, vpus: int = VPUS, rows_per_cycle: int = ROWS_PER_PASS) -> float:
    """The largest sparse speed-up over the dense layer that ``rows_per_cycle`` rows per
    cycle allow for a layer whose dense rows are ``cols`` wide (every grouping): the dense
    layer needs at least ``rows * cols / vpus`` cycles per core, the sparse one at least
    ``rows / rows_per_cycle``."""
    return rows_per_cycle * cols / vpus


def layer_cycles(core_workloads, vpus: int = VPUS, rows_per_pass: int = ROWS_PER_PASS,
                 aggregator_cycles: int = 0) -> int:
    """One matrix-vector product over the cores: the slowest core, then the aggregator
    (section III; its latency is not given, 0 by default)."""
    return max(core_cycles(w, vpus, rows_per_pass) for w in core_workloads) + aggregator_cycles


def utilization(macs: int, cycles: int, vpus: int = VPUS, cores: int = CORES) -> float:
    """Fraction of VPU-cycles that did a multiply-accumulate (section III-D)."""
    return macs / (cycles * vpus * cores) if cycles else 0.0


def gflops(flops: float, cycles: int, clock_mhz: float = CLOCK_MHZ) -> float:
    """Operations per second at the clock, in GFLOPS (a MAC counts two operations)."""
    return flops / (cycles / (clock_mhz * 1e6)) / 1e9 if cycles else 0.0


def peak_gflops(vpus: int = VPUS, cores: int = CORES, clock_mhz: float = CLOCK_MHZ) -> float:
    """Every VPU doing a MAC every cycle: 3 x 264 x 2 x 175 MHz = 277.2 GFLOPS."""
    return 2 * vpus * cores * clock_mhz / 1e3


def vector_cycles(elements: int, ops: int, vpus: int) -> int:
    """A vector operation of ``ops`` FP16 operations per element on every VPU of every core:
    ``ops`` passes of ``ceil(elements / vpus)`` cycles (section III-D: one multiplier and one
    adder per VPU; a pass per operation, the elements spread over the VPUs)."""
    return ops * -(-int(elements) // vpus) if elements else 0


def frame_cycles(words: int, words_per_cycle: int) -> int:
    """Moving ``words`` words through the activation memory, ``words_per_cycle`` per cycle."""
    return -(-int(words) // words_per_cycle)


def encoder_params(timing, max_groups: int) -> EncoderParams:
    """The encoder's widths from an architecture's ``[timing]`` table (the sparse family's
    keys) and its ``max_groups`` knob (the max index has ``ceil(log2(max_groups))`` bits)."""
    return EncoderParams(bitvector_bits=timing["bitvector_bits"],
                         workload_bits=timing["workload_bits"], max_groups=max_groups,
                         grouping_words_per_cycle=timing["grouping_words_per_cycle"],
                         srm_port_bits=timing["srm_port_bits"],
                         weight_words_per_cycle=timing["weight_words_per_cycle"])
