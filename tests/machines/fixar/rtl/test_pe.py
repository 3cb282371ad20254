"""FIXAR's PE (machines/fixar/rtl/pe.py) against pe.product_full / pe.products_half summed exactly:
full- and half-precision sums bit for bit with the extremes of every operand, one term a
cycle (the family's tile rate); in MyHDL and in Icarus; Verilator-clean."""

from rlaccel.rtl.cosim import run
from rlaccel.rtl.hdl import lint
from rlaccel.machines.fixar.tlm import pe

from tests.rtl.conftest import assert_clean


def test_sums_myhdl():
    r = run("fixar_pe", n=400, seed=81)
    assert_clean(r)
    assert r.extra["coverage"]["full"] > 100 and r.extra["coverage"]["half"] > 100


def test_verilog_agrees_in_icarus_and_lints_clean(hdl_tools, tmp_path):
    assert_clean(run("fixar_pe", n=200, seed=82, backend="icarus", workdir=tmp_path))
    assert lint(tmp_path / "fixar_pe.v", "fixar_pe") == []


def test_a_wrong_split_is_caught(monkeypatch):
    """A model that takes the activation's low half as signed fails the bench."""
    monkeypatch.setattr(pe, "split", lambda a: (a >> 16, ((a & 0xFFFF) ^ 0x8000) - 0x8000))
    r = run("fixar_pe", n=100, seed=83)
    assert r.mismatch_count > 0 and str(r.mismatches[0]).startswith("fixar_pe: full")
