"""DARL's butterfly all-reduce (machines/darl/rtl/butterfly.py) against butterfly_allreduce and
allreduce_cycles: 1-, 2-, 4- and 8-agent reductions, sums and averages, every agent's words
bit for bit, saturations and cycles, in MyHDL and in Icarus; Verilator-clean."""

from rlaccel.rtl.cosim import run
from rlaccel.machines.darl.rtl.butterfly import HOP_LATENCY
from rlaccel.rtl.hdl import lint
from rlaccel.machines.darl.tlm import allreduce

from tests.rtl.conftest import assert_clean


def test_reductions_myhdl():
    r = run("darl_butterfly", n=60, seed=41)
    assert_clean(r)
    cov = r.extra["coverage"]
    for k in ("2 agents", "4 agents", "8 agents", "average saturates", "sum"):
        assert cov.get(k, 0) > 0, cov


def test_verilog_agrees_in_icarus_and_lints_clean(hdl_tools, tmp_path):
    assert_clean(run("darl_butterfly", n=25, seed=42, backend="icarus", workdir=tmp_path))
    assert lint(tmp_path / "darl_butterfly.v", "darl_butterfly") == []


def test_cycles_follow_the_family_formula():
    assert allreduce.allreduce_cycles(8, 20, latency=HOP_LATENCY, width=16) == 3 * (1 + 2)


def test_a_wrong_model_is_caught(monkeypatch):
    """A model that rounds the average down instead of half up fails the bench."""
    real = allreduce.butterfly_allreduce

    def floor_average(shards, fmt="float64", *, average=True, counter=None):
        out = real(shards, fmt, average=False, counter=counter)
        k = len(shards).bit_length() - 1
        return [o >> k for o in out] if average else out

    import rlaccel.machines.darl.rtl.benches as b
    monkeypatch.setattr(b, "butterfly_allreduce", floor_average)
    r = run("darl_butterfly", n=30, seed=43)
    assert r.mismatch_count > 0
