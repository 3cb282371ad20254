"""LearningGroup's RTL core (machines/learninggroup/rtl/core.py: the controller around its
VPUs) against the TLM's cycle-by-cycle controller on a VpuArray: every lane's registers and
each pass's cycles, from start to done."""

from rlaccel.rtl.cosim import run
from rlaccel.machines.learninggroup.rtl import benches

from tests.rtl.conftest import assert_clean


def test_passes_equal_the_tlm_controller():
    r = run("lg_core", n=40, seed=5)
    assert_clean(r)
    cov = r.extra["coverage"]
    assert cov["pass"] == 40 and cov["long pass"] > 10 and cov["pass of 0 cycles"] >= 1


def test_a_wrong_cycle_count_is_caught(monkeypatch):
    """A controller model one cycle longer per pass fails the bench."""
    real = benches.run_pass
    monkeypatch.setattr(benches, "run_pass", lambda *a, **k: real(*a, **k) + 1)
    r = run("lg_core", n=5, seed=6)
    assert r.mismatch_count == 5


def test_verilog_agrees_in_icarus_and_lints_clean(hdl_tools, tmp_path):
    from rlaccel.rtl.hdl import lint
    assert_clean(run("lg_core", n=10, seed=7, backend="icarus", workdir=tmp_path))
    assert lint(tmp_path / "lg_core.v", "lg_core") == []
