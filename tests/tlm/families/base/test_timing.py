"""Cycle formulas of seed 001 section III (tiles of L weights, six-stage pipeline)."""

from pathlib import Path

from rlaccel.tlm.families.base.timing import PIPELINE, control_timing, matrix_timing, tiles
from rlaccel.isa.machine import machine

ADHDP = machine("adhdp").programs


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


def test_synapse_ports_set_the_weight_update_only():
    """[datapath] synapse_ports: with a read and a write port a WU tile takes one cycle;
    BP_WU keeps two (BP and WU share the lanes), everything else is unchanged."""
    for mn, rows, n in (("wu", 20, 8), ("vu.commit", 20, 9)):
        one, two = (matrix_timing(mn, rows, n, 4, 0, synapse_ports=p)[0] for p in (1, 2))
        assert one == 2 * two == 2 * tiles(rows, n, 4)
    for mn in ("ff", "bp", "bp_wu", "bp_wu.vu", "vu.init", "vu.step", "ff.mov"):
        assert matrix_timing(mn, 20, 9, 4, 4, synapse_ports=2) == matrix_timing(mn, 20, 9, 4, 4)


def test_synapse_ports_schedule_follows_the_timing():
    """The element-level schedule of a WU uses each tile when its cycle comes: the last tile
    is read at the start of its own cycles, the instruction's last."""
    from rlaccel.tlm.families.base.timing import matrix_schedule
    o = {"rows": 20, "cols": 8, "off": 0}
    for ports, per_tile in ((1, 2), (2, 1)):
        s = matrix_schedule("wu", o, 4, synapse_ports=ports)
        t0, stride, rstep, coff, per, cstep = s[("syn", "r")]
        assert (t0, stride, rstep, per, cstep) == (0, 8, per_tile * 2, 4, per_tile)
        last = rstep * 19 + cstep * 1
        assert last == matrix_timing("wu", 20, 8, 4, 0, synapse_ports=ports)[0] - per_tile


def test_bad_synapse_ports_is_a_clear_error():
    import pytest

    from rlaccel.util.errors import RlaccelError
    from rlaccel.programs.runner import run
    with pytest.raises(RlaccelError, match=r"\[datapath\] synapse_ports must be one of 1, 2"):
        run(ADHDP / "cartpole.toml", ["max_steps=5"], trials=1,
            arch_overrides={"datapath.synapse_ports": 3})


def test_two_ports_compiled_run_equals_reference_run():
    """Both controller loops take the port count from the family's timing: same report."""
    from rlaccel.programs.runner import run
    over = ["virtual_update=true", "stop_on_success=false", "max_steps=40"]
    knobs = {"datapath.synapse_ports": 2}
    fast = run(ADHDP / "triple_link.toml", over, arch="adhdp-vu", trials=2,
               arch_overrides=knobs)
    slow = run(ADHDP / "triple_link.toml", over, arch="adhdp-vu", trials=2,
               arch_overrides=knobs, kernels="reference")
    one = run(ADHDP / "triple_link.toml", over, arch="adhdp-vu", trials=2)
    for k in ("cycles", "stall_cycles", "instructions", "per_iteration"):
        assert fast[k] == slow[k], k
    assert fast["instructions"] == one["instructions"] and fast["cycles"] < one["cycles"]
