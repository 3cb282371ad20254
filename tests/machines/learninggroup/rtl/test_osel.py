"""LearningGroup's OSEL encoder (machines/learninggroup/rtl/osel.py) against encode_osel: every row's
hit or miss and cycles, the index list and the sparse row memory's tuples, in MyHDL and in
Icarus; Verilator-clean."""

from rlaccel.rtl.cosim import run
from rlaccel.rtl.hdl import lint
from rlaccel.machines.learninggroup.tlm import osel

from tests.rtl.conftest import assert_clean


def test_layers_myhdl():
    r = run("lg_osel", n=60, seed=31)
    assert_clean(r)
    cov = r.extra["coverage"]
    assert cov["hit"] > 100
    assert sum(v for k, v in cov.items() if k.startswith("miss of")) > 100
    assert any(k.startswith("miss of") and int(k.split()[2]) > 3 for k in cov)  # multi-beat


def test_verilog_agrees_in_icarus_and_lints_clean(hdl_tools, tmp_path):
    assert_clean(run("lg_osel", n=20, seed=32, backend="icarus", workdir=tmp_path))
    assert lint(tmp_path / "lg_osel.v", "lg_osel") == []


def test_a_wrong_timing_model_is_caught(monkeypatch):
    real = osel.miss_cycles
    monkeypatch.setattr(osel, "miss_cycles", lambda wl, p: real(wl, p) + 1)
    r = run("lg_osel", n=5, seed=33)
    assert r.mismatch_count == 5
    assert "expected cycles=" in str(r.mismatches[0])
