"""LearningGroup's FP16 VPU (machines/learninggroup/rtl/vpu.py) against VpuArray: the four registers
bit for bit after chains of MACs, the overflow count and the cycles, in MyHDL and in Icarus;
Verilator-clean."""

import numpy as np

from rlaccel.rtl.cosim import run
from rlaccel.rtl.hdl import lint
from rlaccel.machines.learninggroup.tlm import vpu

from tests.rtl.conftest import assert_clean


def test_300_chains_myhdl():
    r = run("lg_vpu", n=300, seed=21)
    assert_clean(r)
    assert r.transactions == 300
    assert r.extra["coverage"]["mac chain saturates"] > 20


def test_verilog_agrees_in_icarus_and_lints_clean(hdl_tools, tmp_path):
    assert_clean(run("lg_vpu", n=100, seed=22, backend="icarus", workdir=tmp_path))
    assert lint(tmp_path / "lg_vpu.v", "lg_vpu") == []


def test_a_wrong_prediction_is_caught(monkeypatch):
    """A model whose MAC is wrong in the last bit of the sum fails the bench."""
    real = vpu.mac

    def off_by_one(acc, w, a, counter=None):
        r = real(acc, w, a, counter=counter)
        return (r.view(np.uint16) ^ np.uint16(1)).view(np.float16)

    monkeypatch.setattr(vpu, "mac", off_by_one)
    r = run("lg_vpu", n=30, seed=23)
    assert r.mismatch_count > 0
    assert str(r.mismatches[0]).startswith("lg_vpu: mac chain")
