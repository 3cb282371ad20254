"""MADDPG's ring (machines/maddpg/rtl/ring.py) against ring.allgather and allgather_cycles: every
node's copy of every learner's vector, every node's done cycle with different vector sizes
and start cycles, for the two-learner machine and the four-learner maddpg-pp; in MyHDL and
in Icarus; Verilator-clean."""

import pytest

from rlaccel.rtl.cosim import run
from rlaccel.rtl.hdl import lint
from rlaccel.machines.maddpg.tlm import ring

from tests.rtl.conftest import assert_clean


@pytest.mark.parametrize("arch", ["maddpg", "maddpg-pp"])
def test_allgathers_myhdl(arch):
    assert_clean(run("maddpg_ring", n=25, seed=71, arch=arch))


def test_verilog_agrees_in_icarus_and_lints_clean(hdl_tools, tmp_path):
    assert_clean(run("maddpg_ring", n=20, seed=72, backend="icarus", workdir=tmp_path,
                     arch="maddpg-pp"))
    assert lint(tmp_path / "maddpg_ring.v", "maddpg_ring") == []


def test_a_wrong_hop_is_caught(monkeypatch):
    real = ring.allgather_cycles
    monkeypatch.setattr(ring, "allgather_cycles",
                        lambda sizes, latency, per_beat=1, width=1, starts=None:
                        real(sizes, latency + 1, per_beat, width, starts))
    r = run("maddpg_ring", n=5, seed=73)
    assert r.mismatch_count == 5 and "expected done=" in str(r.mismatches[0])
