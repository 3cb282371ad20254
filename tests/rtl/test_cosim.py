"""rtl/cosim.py: one bench on every back end. The Verilator back end runs every block's
bench -- the same transactions, drivers and predictions -- with 0 mismatches and the same
cycles and coverage as the MyHDL block; a wrong prediction is caught there as on MyHDL;
every back end's waveform holds the block's ports at the architecture's clock period
(Verilator's also as FST). Verilator's libraries are compiled once (.hdl/) and reused by
later sessions."""

import struct

import pytest

from rlaccel.rtl.blocks import block_names
from rlaccel.rtl.cosim import run
from rlaccel.rtl.errors import RtlError

from tests.rtl.conftest import (ARCH, N, SEED, assert_clean, assert_vcd_clocked,
                                block_ports, myhdl_run, period_fs, wrong_first)


@pytest.mark.parametrize("block", block_names())
def test_every_block_on_verilator_equals_myhdl(hdl_tools, block):
    """The same seed's transactions: 0 mismatches on the compiled Verilog, and the cycle
    count and coverage the MyHDL block gives."""
    v = run(block, n=N.get(block, 60), seed=SEED, backend="verilator",
            arch=ARCH.get(block))
    assert_clean(v)
    m = myhdl_run(block)
    assert v.backend == "verilator" and v.transactions == m.transactions
    assert (v.cycles, v.extra) == (m.cycles, m.extra)


def test_the_decoders_words_hold_every_mnemonic():
    """N's decoder words of seed SEED: every mnemonic and illegal words, on every back end."""
    from rlaccel.machines.adhdp.rtl.decoder import mnemonics
    from rlaccel.rtl.blocks import bench
    m = myhdl_run("decoder")
    assert set(m.extra["coverage"]) == {*mnemonics(bench("decoder").params()), "illegal"}


def test_a_wrong_prediction_is_caught_on_verilator(hdl_tools):
    txns, key = wrong_first("activation", 30, 8)
    r = run("activation", backend="verilator", transactions=txns)
    assert r.transactions == 30 and r.mismatch_count == 1
    m = str(r.mismatches[0])
    assert m.startswith("activation: ") and f"expected {key}=" in m and "cycle" in m


@pytest.mark.parametrize("backend", ["myhdl", "icarus", "verilator"])
def test_the_vcd_holds_the_ports_at_the_clock_period(hdl_tools, tmp_path, backend):
    """activation at ADHDP's 175 MHz: a cycle of 5,714 ps in every back end's VCD."""
    vcd = tmp_path / "act.vcd"
    r = run("activation", n=20, seed=4, backend=backend, vcd=vcd, workdir=tmp_path / "w")
    assert_clean(r)
    assert_vcd_clocked(vcd, "activation", r.cycles)
    assert period_fs("activation") == 5_714_000


def test_verilator_writes_an_fst(hdl_tools, tmp_path):
    """The FST header: picoseconds, every port a variable, the end at the last cycle."""
    fst = tmp_path / "act.fst"
    r = run("activation", n=20, seed=4, backend="verilator", fst=fst)
    assert_clean(r)
    head = fst.read_bytes()[:74]
    kind, end, nvars, scale = head[0], *struct.unpack(">Q", head[17:25]), \
        *struct.unpack(">Q", head[49:57]), struct.unpack(">b", head[73:74])[0]
    assert (kind, scale) == (0, -12)
    assert nvars >= len(block_ports("activation"))
    period_ps = period_fs("activation") // 1000
    assert r.cycles * period_ps <= end <= (r.cycles + 2) * period_ps


def test_an_fst_comes_from_verilator_only():
    with pytest.raises(RtlError, match="an FST waveform comes from the Verilator back end, "
                                       "not icarus"):
        run("activation", n=2, backend="icarus", fst="x.fst")
