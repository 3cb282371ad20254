"""rlaccel run --rtl maddpg_ring (machines/maddpg/rtl/transactor.py): every per-sample all-gather of a
short two-learner MADDPG run goes through the MyHDL ring; the report equals the pure-TLM
run's but for wall-clock fields, and a difference between the RTL and the TLM stops the run
with a SimError."""

import pytest

from rlaccel.util.errors import SimError
from rlaccel.programs.runner import run
from rlaccel.machines.maddpg.rtl.transactor import RtlRing

from tests.rtl.run_reports import differences, rtl_run
from rlaccel.isa.machine import machine

MANIFEST = machine("maddpg").programs / "speaker_listener.toml"
#: 100 steps, batches of 16 from step 32, an update round every 50 steps: two rounds
OVERRIDES = ["learning.batch=16", "learning.learning_starts=32", "learning.update_every=50"]
STEPS = 100
#: measured on this host (the report's 'timing'): the simulator's speed, the host's sampling
#: and sample-generation times and the IPS (eq. 7) terms computed from them
WALL_CLOCK = ("timing.sim.*", "timing.host.agents[*].timeline.measured_s.*",
              "timing.host_timeline.measured_s.*", "timing.ips.system",
              "timing.ips.system_cpu_time", "timing.ips.t_mu_s",
              "timing.ips.t_sample_cpu_s", "timing.ips.t_sample_s", "timing.ips.t_sg_cpu_s",
              "timing.ips.t_sg_s", "timing.efficiency.ips_per_w")


def _rtl_run(fault=None):
    return rtl_run(RtlRing, MANIFEST, OVERRIDES, fault, steps=STEPS)


def test_short_run_on_the_rtl_equals_the_tlm():
    tlm = run(MANIFEST, OVERRIDES, steps=STEPS)
    rtl, t = _rtl_run()
    assert differences(tlm, rtl, WALL_CLOCK) == []
    assert t.gathers == 4 and t.samples == 2 * 16
    assert t.rtl_cycles > 0 and "RTL ring (MyHDL):" in t.summary()


def _wrong_word(res):
    held, fin = res
    held[1][0][0] ^= 1
    return held, fin


def _late(res):
    held, fin = res
    return held, [fin[0] + 1] + fin[1:]


@pytest.mark.parametrize("fault, message", [
    (_wrong_word, r"agent 1: PC \d+ \(rgather .*\): the RTL ring differs from the TLM's "
                  r"all-gather at sample 0, word 0"),
    (_late, r"the RTL ring's node 0 finished sample 0's all-gather at cycle \d+ after the "
            r"first start, the TLM's stream at \d+ \(allgather_cycles: \d+\)"),
])
def test_a_difference_stops_the_run(fault, message):
    with pytest.raises(SimError, match=message):
        _rtl_run(fault)


def test_cli_run_with_rtl(capsys, tmp_path):
    from rlaccel.cli import main
    args = ["run", str(MANIFEST), "--steps", str(STEPS), "-q", "--json",
            str(tmp_path / "r.json"), "--rtl", "maddpg_ring"]
    for o in OVERRIDES:
        args += ["--set", o]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "RTL ring (MyHDL): 4 rgather instructions of 2 learners, 32 per-sample" in out
    assert (tmp_path / "r.json").exists()


def test_run_help_names_the_blocks(capsys):
    from rlaccel.cli import main
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for block in ("datapath", "fixar_prng", "lg_osel", "darl_butterfly", "maddpg_ring"):
        assert block in out
