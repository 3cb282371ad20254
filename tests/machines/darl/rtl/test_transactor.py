"""rlaccel run --rtl darl_butterfly (machines/darl/rtl/transactor.py): every hallreduce of a short
two-agent DARL run goes through the MyHDL butterfly network; the report equals the pure-TLM
run's but for wall-clock fields, and a difference between the RTL and the TLM stops the run
with a SimError."""

import pytest

from rlaccel.util.errors import SimError
from rlaccel.programs.runner import run
from rlaccel.machines.darl.rtl.transactor import RtlButterfly

from tests.rtl.run_reports import differences, rtl_run
from rlaccel.isa.machine import machine

MANIFEST = machine("darl").programs / "cartpole.toml"
#: two agents, D = 64 (shards of 2 x 2 x 64 = 256 words), one training stage, the agents
#: synchronised at its end (one all-reduce; "step", the default for several agents,
#: reduces after every round of steps: a hundred times as many, minutes on the RTL)
OVERRIDES = ["agents=2", "learning.d=64", "stages=1", "learning.sync_every=episode"]
#: measured on this host (the report's 'timing'): the simulator's speed, the environment's
#: and sampling times and the IPS (eq. 23) and IPS/W computed from this host's T_env
WALL_CLOCK = ("timing.sim.*", "timing.host.agents[*].timeline.measured_s.*",
              "timing.learning.wall_s", "timing.ips.system", "timing.ips.t_env_measured_s",
              "timing.ips.terms.ips", "timing.ips.terms.t_inf", "timing.power.ips_per_watt")


def _rtl_run(fault=None):
    return rtl_run(RtlButterfly, MANIFEST, OVERRIDES, fault)


def test_short_run_on_the_rtl_equals_the_tlm():
    tlm = run(MANIFEST, OVERRIDES)
    rtl, t = _rtl_run()
    assert differences(tlm, rtl, WALL_CLOCK) == []
    assert t.reductions == tlm["by_opcode"]["hallreduce"]["count"] // 2 > 0
    assert t.words == 256 * t.reductions and t.rtl_cycles == t.chunks * (1 + 1)
    assert "RTL butterfly (MyHDL):" in t.summary()


def _wrong_word(chunk):
    res, cycles, sats = chunk
    res[1] = res[1].copy()
    res[1][5] += 1
    return res, cycles, sats


def _slow(chunk):
    res, cycles, sats = chunk
    return res, cycles + 1, sats


@pytest.mark.parametrize("fault, message", [
    (_wrong_word, r"agent 1: PC \d+ \(hallreduce .*\): the RTL butterfly differs from the "
                  r"TLM's all-reduce at word 5 of 256"),
    (_slow, r"the RTL butterfly took 3 cycles for 256 words among 2 agents; the TLM's "
            r"allreduce_cycles with the block's link latency 1 gives 2"),
])
def test_a_difference_stops_the_run(fault, message):
    with pytest.raises(SimError, match=message):
        _rtl_run(fault)
