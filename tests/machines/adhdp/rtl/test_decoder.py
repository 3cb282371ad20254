"""The decoder (machines/adhdp/rtl/decoder.py), generated from the ISA table, agrees with Encoding.decode on
legal words of every mnemonic, on single-bit corruptions and on random words; its Verilog
is Verilator-clean."""

from rlaccel.rtl.cosim import run
from rlaccel.machines.adhdp.rtl.decoder import mnemonics
from rlaccel.rtl.hdl import lint
from rlaccel.machines.adhdp.rtl.params import params

from tests.rtl.conftest import assert_clean


def test_10000_random_words_myhdl():
    r = run("decoder", n=10_000, seed=31)
    assert_clean(r)
    cov = r.extra["coverage"]
    assert set(mnemonics(params("adhdp"))) <= set(cov)
    assert cov["illegal"] > 1000


def test_verilog_agrees_in_icarus_and_lints_clean(hdl_tools, tmp_path):
    """The converted Verilog, co-simulated in Icarus with the same bench, agrees; Verilator
    -Wall has nothing to say beyond the explained waivers."""
    assert_clean(run("decoder", n=2000, seed=32, backend="icarus", workdir=tmp_path))
    assert lint(tmp_path / "decoder.v", "decoder") == []
