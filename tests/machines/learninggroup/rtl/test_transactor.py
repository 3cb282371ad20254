"""rlaccel run --rtl lg_osel (machines/learninggroup/rtl/transactor.py): every osel encoding of a short
LearningGroup run goes through the MyHDL encoder; the report equals the pure-TLM run's but for
wall-clock fields, and a difference between the RTL and the TLM stops the run with a
SimError."""

import pytest

from rlaccel.util.errors import SimError
from rlaccel.programs.runner import run
from rlaccel.rtl.errors import RtlError
from rlaccel.machines.learninggroup.rtl.transactor import RtlOsel

from tests.rtl.run_reports import differences, rtl_run
from rlaccel.isa.machine import machine

MANIFEST = machine("learninggroup").programs / "predator_prey.toml"
#: one weight update of one episode, 8 hidden units: 16 osel instructions
OVERRIDES = ["iterations=1", "learning.batch_episodes=1", "network.hid=8"]
#: measured on this host (the report's 'timing'): the simulator's speed, the environment's
#: time per iteration
WALL_CLOCK = ("timing.sim.*", "timing.host.agents[*].timeline.measured_s.*",
              "timing.latency.host_s_per_iteration")


def _rtl_run(fault=None):
    return rtl_run(RtlOsel, MANIFEST, OVERRIDES, fault)


def test_short_run_on_the_rtl_equals_the_tlm():
    tlm = run(MANIFEST, OVERRIDES)
    rtl, t = _rtl_run()
    assert differences(tlm, rtl, WALL_CLOCK) == []
    assert t.instructions == 16 and t.functional == 0
    assert t.misses > 0 and t.hits > 0 and t.rows == t.misses + t.hits
    assert t.rtl_cycles > t.rows                      # misses take the port's beats too
    assert "RTL OSEL encoder (MyHDL): 16 osel instructions" in t.summary()


def _flip_bit(got):
    slot = min(got["tuples"])
    bv, wl, ix = got["tuples"][slot]
    got["tuples"][slot] = (bv ^ 1, wl, ix)
    return got


def _slow_row(got):
    got["cycles"][0] += 1
    return got


@pytest.mark.parametrize("fault, message", [
    (_flip_bit, r"PC \d+ \(osel .*\): the RTL encoder differs from the TLM's encode_osel: "
                r"slot \d+'s bitvector"),
    (_slow_row, r"row 0 \(max index \d+\): TLM miss of \d+ cycles, RTL miss of \d+ cycles"),
])
def test_a_difference_stops_the_run(fault, message):
    with pytest.raises(SimError, match=message):
        _rtl_run(fault)


def test_another_machine_is_refused():
    t = RtlOsel()
    with pytest.raises(RtlError, match=r"--rtl lg_osel runs on a LearningGroup machine"):
        run(machine("darl").programs / "cartpole.toml", ["stages=1"], datapath=t)
