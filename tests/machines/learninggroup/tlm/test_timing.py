"""Cycle formulas (machines/learninggroup/tlm/timing.py) on hand-computed cases."""

from __future__ import annotations

import pytest

from rlaccel.util.errors import SimError
from rlaccel.machines.learninggroup.tlm import timing as t

P = t.EncoderParams()


def test_encoder_params_derive_their_index_widths():
    """4-bit max index for 16 groups, 5 for 32; 9-bit non-zero indexes for 512 columns."""
    assert (P.max_index_bits, P.nz_index_bits) == (4, 9)
    assert t.EncoderParams(max_groups=32).max_index_bits == 5


def test_max_index_cycles():
    """128 x G and G x 512 at 32 words per cycle: G=2 -> 8 + 32; G=16 -> 64 + 256."""
    assert t.max_index_cycles(128, 512, 2, P) == 40
    assert t.max_index_cycles(128, 512, 16, P) == 320
    assert t.max_index_cycles(3, 5, 2, P) == 2


def test_tuple_and_miss_cycles():
    """A WL-256 tuple is 512 + 9 + 4 + 256*9 = 2829 bits: 6 writes of 512, a miss 7
    cycles; a compact tuple (no indexes) is 525 bits, 2 writes."""
    assert t.tuple_bits(256, P) == 2829
    assert t.tuple_write_cycles(256, P) == 6 and t.miss_cycles(256, P) == 7
    compact = t.EncoderParams(store_nz_indexes=False)
    assert t.tuple_bits(256, compact) == 525 and t.miss_cycles(256, compact) == 3
    assert t.hit_cycles(P) == 1


def test_compression_cycles_read_rows_32_words_at_a_time():
    """ceil(33/32) + ceil(32/32) + 0 + ceil(1/32) = 4."""
    assert t.compression_cycles([33, 32, 0, 1], P) == 4


def test_core_passes_take_four_rows_at_once():
    """Four dense 128-wide rows are 512 weights, 2 cycles of 264 VPUs; a fifth row starts a
    pass of its own; rows without work are skipped; a wide row fills several cycles."""
    assert t.core_passes([128] * 4).tolist() == [2]
    assert t.core_passes([128] * 5).tolist() == [2, 1]
    assert t.core_passes([10, 0, 10, 10, 10, 300]).tolist() == [1, 2]
    assert t.core_passes([512] * 4).tolist() == [8]
    assert t.core_cycles([32] * 43) == 11             # G = 16 rows of a 512-wide layer
    assert t.core_passes([]).tolist() == []
    with pytest.raises(SimError, match=r"vector of counts >= 0"):
        t.core_passes([3, -1])


def test_layer_cycles_wait_for_the_slowest_core():
    """max over cores, plus the aggregator's cycles."""
    assert t.layer_cycles([[128] * 4, [128] * 8, [128]], aggregator_cycles=3) == 4 + 3


def test_utilization_and_gflops():
    """Peak 3 x 264 x 2 x 175 MHz = 277.2 GFLOPS; 2 cycles for 512 MACs on one core of three
    is 512 / (2 * 792) of the VPU-cycles."""
    assert t.peak_gflops() == pytest.approx(277.2)
    assert t.utilization(512, 2) == pytest.approx(512 / 1584)
    assert t.gflops(2 * 792 * 175, 175) == pytest.approx(277.2)
    assert t.utilization(5, 0) == 0.0 and t.gflops(5, 0) == 0.0


def test_core_stream_cycles_fill_the_vpus_with_at_most_four_rows_a_cycle():
    """Eight rows of 150 are 1200 weights: four-row passes of 600 take 3 cycles each (6);
    the stream takes ceil(1200 / 264) = 5 (each cycle spans at most three such rows). Rows
    of 32 leave VPUs idle either way: four rows a cycle, 11 cycles for 43 rows. Rows without
    work are skipped; a wide row spans cycles."""
    assert t.core_cycles([150] * 8) == 6 and t.core_stream_cycles([150] * 8) == 5
    assert t.core_stream_cycles([32] * 43) == 11 == t.core_cycles([32] * 43)
    assert t.core_stream_cycles([10, 0, 10, 10, 10, 300]) == 3     # 40, 264, 36 weights
    assert t.core_stream_cycles([128] * 4) == 2
    assert t.core_stream_cycles([32] * 43, rows_per_cycle=8) == 6  # 8 x 32 = 256 a cycle
    assert t.core_stream_cycles([]) == 0
    with pytest.raises(SimError, match=r"vector of counts >= 0"):
        t.core_stream_cycles([3, -1])


def test_stream_cycles_never_exceed_four_row_passes():
    """The stream is a lower bound on the pass model, on random workloads."""
    import numpy as np
    rng = np.random.default_rng(0)
    for _ in range(200):
        wl = rng.integers(0, 600, size=rng.integers(1, 50))
        assert t.core_stream_cycles(wl) <= t.core_cycles(wl)


def test_speedup_bound_is_four_rows_of_n_over_264():
    """512-wide rows: 4 x 512 / 264 = 7.76x at most; 128-wide: 1.94x."""
    assert t.speedup_bound(512) == pytest.approx(7.7576, abs=1e-4)
    assert t.speedup_bound(128) == pytest.approx(1.9394, abs=1e-4)
