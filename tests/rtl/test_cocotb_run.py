"""rtl/cocotb_run.py and rtl/cocotb_bench.py: every block's bench as a cocotb test under
Icarus -- the benches' own transactions, drivers and predictions (one description, run by
cocotb's scheduler instead of MyHDL's) -- with 0 mismatches and the cycle count and coverage
of the MyHDL block; a wrong prediction fails the cocotb test; its VCD holds the block's
ports at the architecture's clock period."""

import pytest

from rlaccel.rtl.blocks import block_names
from rlaccel.rtl.cocotb_run import run

from tests.rtl.conftest import (ARCH, N, SEED, assert_clean, assert_vcd_clocked, myhdl_run,
                                wrong_first)


@pytest.mark.parametrize("block", block_names())
def test_every_block_under_cocotb_equals_myhdl(hdl_tools, block, tmp_path):
    c = run(block, n=N.get(block, 60), seed=SEED, arch=ARCH.get(block),
            workdir=tmp_path)
    assert_clean(c)
    m = myhdl_run(block)
    assert c.backend == "cocotb" and c.transactions == m.transactions
    assert (c.cycles, c.extra) == (m.cycles, m.extra)


def test_a_wrong_prediction_fails_the_cocotb_test(hdl_tools, tmp_path):
    txns, key = wrong_first("lane", 30, 9)
    r = run("lane", transactions=txns, workdir=tmp_path)
    assert r.transactions == 30 and r.mismatch_count == 1
    assert r.mismatches[0].startswith("lane: ") and f"expected {key}=" in r.mismatches[0]
    assert 'failures="1"' in (tmp_path / "results.xml").read_text()  # cocotb's verdict


def test_the_vcd_holds_the_ports_at_the_clock_period(hdl_tools, tmp_path):
    vcd = tmp_path / "lane.vcd"
    r = run("lane", n=20, seed=4, vcd=vcd, workdir=tmp_path / "w")
    assert_clean(r)
    assert_vcd_clocked(vcd, "lane", r.cycles)
