"""The lane (machines/adhdp/rtl/lane.py) computes exactly what isa.dtypes defines -- mul, add(c, mul),
sub(c, mul), one-rounding dot products -- with the same saturation flags, in MyHDL and as
Verilog in Icarus; its Verilog is Verilator-clean."""

from rlaccel.rtl.cosim import run
from rlaccel.rtl.hdl import lint
from rlaccel.machines.adhdp.rtl.params import params

from tests.rtl.conftest import assert_clean


def test_10000_random_transactions_myhdl():
    r = run("lane", n=10_000, seed=11)
    assert_clean(r)
    assert r.transactions == 10_000
    cov = r.extra["coverage"]
    for op in ("mul", "muladd", "mulsub", "mac", "mact"):
        assert cov[op] > 500 and cov[f"{op} saturates"] > 0


def test_verilog_agrees_in_icarus_and_lints_clean(hdl_tools, tmp_path):
    """The converted Verilog, co-simulated in Icarus with the same bench, agrees; Verilator
    -Wall has nothing to say beyond the explained waivers."""
    assert_clean(run("lane", n=1000, seed=12, backend="icarus", workdir=tmp_path))
    assert lint(tmp_path / "lane.v", "lane") == []


def test_a_wrong_prediction_is_caught(monkeypatch):
    """The bench compares every bit: a predictor wrong in the last bit of products fails."""
    dt = params("adhdp").dt
    real = dt.mul
    monkeypatch.setattr(dt, "mul", lambda a, b, counter=None: real(a, b, counter=counter) ^ 1)
    r = run("lane", n=200, seed=13)
    assert r.mismatch_count > 0
    m = str(r.mismatches[0])
    assert m.startswith("lane: mul") and "expected y=" in m and "got y=" in m and "cycle" in m
