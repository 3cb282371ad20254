"""Cycle formulas of the AAP cores (seed 002, section V-B), the Adam unit, the soft update and
the accelerator's IPS, on hand-computed cases (HalfCheetah: S = 17, A = 6)."""

import pytest

from rlaccel.machines.fixar.tlm.timing import (AapTiming, accelerator_ips, bp_cycles,
                                               ddpg_step, ff_cycles, tiles, unit_cycles,
                                               wg_cycles)

CFG = AapTiming()


def test_tiles():
    assert tiles(400, 17) == 25 * 2 and tiles(300, 400) == 19 * 25 and tiles(1, 300) == 19


def test_forward_interleaves_input_blocks_across_cores():
    """A 300x400 layer: 19 output blocks x ceil(25 input blocks / 2 cores) = 19 x 13."""
    assert ff_cycles(300, 400, 1) == 247
    assert ff_cycles(300, 400, 64) == 64 * 247
    assert ff_cycles(400, 17, 1) == 25                 # 2 input blocks: one per core
    assert ff_cycles(300, 400, 1, AapTiming(cores=1)) == 475


def test_forward_half_precision_pairs_vectors():
    assert ff_cycles(300, 400, 64, half=True) == 32 * 247
    assert ff_cycles(300, 400, 1, half=True) == 247    # one vector gains nothing
    assert ff_cycles(300, 400, 3, half=True) == 2 * 247


def test_backward_distributes_vectors_across_cores():
    """W^T e of a 300x400 layer: 25 output blocks x 19 input blocks per vector."""
    assert bp_cycles(300, 400, 64) == 32 * 475
    assert bp_cycles(300, 400, 63) == 32 * 475
    assert bp_cycles(300, 400, 64, half=True) == 32 * 475          # the error is 32-bit
    assert bp_cycles(300, 400, 64, AapTiming(bp_half=True), half=True) == 16 * 475


def test_weight_gradients():
    """G = sum e x^T: one tile a cycle per vector; half precision covers 32 inputs a tile."""
    assert wg_cycles(300, 400, 64) == 32 * 19 * 25
    assert wg_cycles(300, 400, 64, half=True) == 32 * 19 * 13
    assert wg_cycles(400, 23, 64) == 32 * 25 * 2


def test_streaming_units():
    assert unit_cycles(259_507, 16, 20) == 16_220 + 20
    assert unit_cycles(6, 16) == 1 and unit_cycles(0, 16, 20) == 0


def test_ddpg_step_macs_by_hand():
    """Per batch vector: actor FF 128,600 (x2: target and online), critic FF 129,500 (x3),
    critic BP 120,300 and WG 129,500, critic dQ/da 122,700, actor BP 121,800 and WG
    128,600 = 1,268,600; plus one actor FF for the action."""
    st = ddpg_step(17, 6, 64)
    assert st.macs == 64 * 1_268_600 + 128_600


def test_ddpg_step_cycles_by_hand():
    """B = 64, full precision: the matrix phases' busy cycles, each hand-summed."""
    st = ddpg_step(17, 6, 64)
    cyc = {p.name: p.cycles for p in st.phases}
    assert cyc["critic FF L1"] == 64 * 25 * 1 and cyc["critic FF L2"] == 64 * 247
    assert cyc["critic FF L3"] == 64 * 1 * 10          # 19 input blocks over 2 cores
    assert cyc["critic BP L3"] == 32 * 19 * 1 and "critic BP L1" not in cyc
    assert cyc["critic dQ/da BP L1"] == 32 * 1 * 25
    assert cyc["actor WG L1"] == 32 * 25 * 2
    assert cyc["critic Adam"] == -(-130_201 // 16) + 20
    assert cyc["actor Adam"] == -(-129_306 // 16) + 20
    assert cyc["action FF L2"] == 247
    soft = [p for p in st.phases if p.name == "soft update"][0]
    assert soft.overlapped and soft.cycles == -(-259_507 // 16)
    n_matrix = sum(1 for p in st.phases if p.unit == "aap")
    assert st.cycles == sum(p.cycles for p in st.phases if not p.overlapped) \
        + CFG.pipeline_depth * (n_matrix + 1) + 1


def test_ips_is_batch_samples_per_second():
    st = ddpg_step(17, 6, 128)
    assert accelerator_ips(st) == pytest.approx(128 * 164e6 / st.cycles)
    assert 0 < st.utilization() < st.array_utilization() < 1
    half = ddpg_step(17, 6, 128, half=True)
    assert half.cycles < st.cycles
