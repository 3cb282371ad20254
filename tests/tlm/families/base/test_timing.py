"""Cycle formulas of seed 001 section III (tiles of L weights, six-stage pipeline)."""

from rlaccel.tlm.families.base.timing import PIPELINE, control_timing, matrix_timing, tiles


def test_tiles():
    assert tiles(6, 4, 4) == 6 and tiles(6, 5, 4) == 12 and tiles(20, 9, 4) == 60


def test_ff_row_wise_with_buffer_load():
    assert matrix_timing("ff", 6, 5, 4, act=4) == (2 + 12, 6)
    assert matrix_timing("ff", 1, 6, 4, act=0) == (2 + 2, 5)   # activate stage bypassed


def test_backward_costs():
    """BP_WU reads each weight row once, BP and WU on alternate cycles: 2 per tile."""
    assert matrix_timing("bp", 6, 5, 4, act=4)[0] == 12 + 2
    assert matrix_timing("bp", 1, 4, 4, act=4)[0] == 1 + 1 + 1   # one tile: a STALL slot
    assert matrix_timing("wu", 6, 5, 4, act=0)[0] == 24
    assert matrix_timing("bp_wu", 6, 5, 4, act=4)[0] == 24 + 2


def test_vu_scales_linearly():
    """A virtual step costs O(N_h), a regular update plus forward O(N_i N_h) (section IV)."""
    step = matrix_timing("vu.step", 20, 9, 4, 4)[0]
    regular = matrix_timing("wu", 20, 9, 4, 0)[0] + matrix_timing("ff", 20, 9, 4, 4)[0]
    assert step == 10 and regular == 120 + 63


def test_e_accumulation_costs_no_cycle():
    """IV-B: E is accumulated inside BP/BP_WU "without introducing any overhead"."""
    for n in (1, 4, 6, 20):
        assert matrix_timing("bp_wu.vu", 1, n, 4, 4) == matrix_timing("bp_wu", 1, n, 4, 4)
        assert matrix_timing("bp.vu", 3, n, 4, 4) == matrix_timing("bp", 3, n, 4, 4)


def test_vector_move_moves_a_tile_a_cycle():
    assert matrix_timing("ff.mov", 1, 30, 4, 0) == (8, 5)


def test_pipeline_and_control():
    assert len(PIPELINE) == 6
    assert control_timing("cc.bsqlt") == 2 and control_timing("cc.jmp") == 1
