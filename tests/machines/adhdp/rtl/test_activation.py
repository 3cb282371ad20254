"""The activation unit (machines/adhdp/rtl/activation.py) evaluates isa.dtypes' PWL tables (tanh, sigmoid,
bsig), relu, the bypass and every derivative bit for bit, in MyHDL and in Icarus; its
Verilog is Verilator-clean."""

from rlaccel.machines.adhdp.rtl.activation import ACT
from rlaccel.rtl.cosim import run
from rlaccel.rtl.hdl import lint

from tests.rtl.conftest import assert_clean


def test_10000_random_transactions_myhdl():
    r = run("activation", n=10_000, seed=21)
    assert_clean(r)
    cov = r.extra["coverage"]
    for name in ACT:
        assert cov[name] > 500 and cov["d" + name] > 300
    assert cov["dtanh saturates"] > 0          # 1 - y^2 below the range for large |y|


def test_verilog_agrees_in_icarus_and_lints_clean(hdl_tools, tmp_path):
    """The converted Verilog, co-simulated in Icarus with the same bench, agrees; Verilator
    -Wall has nothing to say beyond the explained waivers."""
    assert_clean(run("activation", n=2000, seed=22, backend="icarus", workdir=tmp_path))
    assert lint(tmp_path / "activation.v", "activation") == []
