"""The simulated FIXAR against the DDPG reference: the same training, bit for bit, in fixed
point (32-bit, Algorithm 1's QAT after a delay, and 16-bit from the start); cycles per step
against the timing formulas; the run's report; manifests and programs that cannot run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rlaccel.isa.arch import load_arch
from rlaccel.util.errors import RlaccelError
from rlaccel.machines.fixar.host import DdpgHost, train
from rlaccel.machines.fixar.reference import DdpgReference
from rlaccel.programs.manifest import ManifestError
from rlaccel.programs.runner import _Setup, run
from rlaccel.machines.fixar.tlm.models import aap_timing
from rlaccel.machines.fixar.tlm.timing import ddpg_step
from rlaccel.isa.machine import machine

HERE = machine("fixar").programs
PENDULUM = str(HERE / "pendulum.toml")
SMALL = ["learning.hidden=[32, 24]", "learning.batch=8", "learning.start_steps=100",
         "learning.eval_every=100", "learning.eval_episodes=1"]


def _simulate(overrides, steps, arch=None):
    s = _Setup(PENDULUM, overrides, arch=arch, seed=None, trace=None, progress=None,
               datapath=None, kernels="compiled", options={"steps": steps})
    s.platform.run()
    return s


def _reference(cfg):
    host = DdpgHost(cfg)
    agent = DdpgReference(cfg, host.state_dim, host.action_dim)
    out = train(agent, host)
    return agent, out


def _synapse(s, name, n):
    a = s.asm.binary.symbol(name).address
    return s.platform.agents[0].memory("synapse")[a:a + n]


@pytest.mark.parametrize("extra,arch", [([], None), (["learning.qat_delay=150"], None),
                                        ([], "fixar-fixed16")],
                         ids=["fixed32", "qat", "fixed16"])
def test_simulator_trains_like_the_reference_bit_for_bit(extra, arch):
    """Every action (so every evaluation return), the online and target weights and Adam's
    moments after 200 training steps equal the fixed-point reference's."""
    s = _simulate(SMALL + extra, 300, arch)
    drv = s.r.state
    agent, out = _reference(drv.cfg)
    assert drv.cfg.act_format == ("fixed16" if arch else "fixed32")
    assert drv.cfg.weight_format == "q4.28" and drv.cfg.grad_format == "fixed32"
    assert drv.host.learning()["returns"] == out["learning"]["returns"]
    assert drv.quantized_at == agent.quantized_at
    na, nc = agent.actor.size, agent.critic.size
    assert np.array_equal(_synapse(s, "ACTOR", na), agent.actor)
    assert np.array_equal(_synapse(s, "CRITIC", nc), agent.critic)
    assert np.array_equal(_synapse(s, "TACTOR", na), agent.actor_target)
    assert np.array_equal(_synapse(s, "TCRITIC", nc), agent.critic_target)
    m = _synapse(s, "MCRITIC", 2 * nc).astype(np.int32).view(np.float32)
    assert np.array_equal(m[:nc], agent.opt_critic.m) and np.array_equal(m[nc:],
                                                                         agent.opt_critic.v)


def test_weight_and_gradient_formats_are_honoured_bit_for_bit(tmp_path):
    """An architecture with other weight and gradient formats (q8.24 weights, q12.20
    gradients) trains as the fixed-point reference does in those formats, bit for bit, and
    its weight words are those formats' (the same weights differ from the default's)."""
    arch = tmp_path / "fmt.toml"
    arch.write_text('inherit = "fixar"\n[fixar]\nweights = "q8.24"\ngradients = "q12.20"\n')
    s = _simulate(SMALL, 200, str(arch))
    drv = s.r.state
    assert (drv.cfg.weight_format, drv.cfg.grad_format) == ("q8.24", "q12.20")
    agent, out = _reference(drv.cfg)
    assert drv.host.learning()["returns"] == out["learning"]["returns"]
    na, nc = agent.actor.size, agent.critic.size
    assert np.array_equal(_synapse(s, "ACTOR", na), agent.actor)
    assert np.array_equal(_synapse(s, "TCRITIC", nc), agent.critic_target)
    default = _reference(drv.cfg.with_(weight_format="q4.28", grad_format="fixed32"))[0]
    # the same initial weights at 4 more fraction bits: the words differ by about 2**4
    assert not np.array_equal(default.actor, agent.actor)


@pytest.mark.parametrize("table,match", [
    ('weights = "fp32"', r"\[fixar\] weights = 'fp32'.*fixed point"),
    ('gradients = "q8.40"', r"\[fixar\] gradients = 'q8.40'.*32 bits"),
    ('store = "fixed16"\nweights = "q30.2"', r"\[fixar\] weights = q30.2.*fraction bits"),
    ('store = "fixed16"\ngradients = "q4.28"', r"\[fixar\] gradients = q4.28"),
])
def test_impossible_format_combinations_are_clear_errors(tmp_path, table, match):
    """A manifest whose architecture combines formats the datapath cannot run is refused
    before anything runs, with an RlaccelError naming the key (not a traceback)."""
    arch = tmp_path / "bad.toml"
    arch.write_text(f'inherit = "fixar"\n[fixar]\n{table}\n')
    with pytest.raises(RlaccelError, match=match):
        _Setup(PENDULUM, SMALL, arch=str(arch), seed=None, trace=None, progress=None,
               datapath=None, kernels="compiled", options={"steps": 10})


def test_ips_of_the_two_phases_equal_single_phase_runs(tmp_path):
    """A QAT run reports the IPS of its 32-bit and 16-bit phases and its mean: the phases'
    equal those of a fixed32 run and of a 16-bit-from-the-start run of the same settings,
    and the mean is the harmonic mix of the two by their steps."""
    sets = SMALL + ["learning.eval_every=1000"]
    qat = run(PENDULUM, sets + ["learning.qat_delay=180"], steps=260)
    f32 = run(PENDULUM, sets, steps=260)
    f16 = run(PENDULUM, sets, steps=260, arch="fixar-fixed16")
    ph = qat["phases"]
    assert (ph["32bit"]["train_steps"], ph["16bit"]["train_steps"]) == (80, 80)
    assert qat["ips"]["accelerator_32bit"] == pytest.approx(f32["ips"]["accelerator"])
    assert qat["ips"]["accelerator_16bit"] == pytest.approx(f16["ips"]["accelerator"])
    assert f32["ips"]["accelerator_16bit"] is None and f16["ips"]["accelerator_32bit"] is None
    assert qat["ips"]["accelerator_16bit"] > 1.1 * qat["ips"]["accelerator_32bit"]
    mean = 160 / (80 / qat["ips"]["accelerator_32bit"] + 80 / qat["ips"]["accelerator_16bit"])
    assert qat["ips"]["accelerator"] == pytest.approx(mean)


def test_cycles_per_step_follow_the_formulas():
    """The simulated training body takes the cycles of timing.ddpg_step (section V-B) up to
    the pipeline fills: the hazard model makes a result usable depth - 1 cycles after the
    last tile (the formula adds depth) and weight gradients that do not depend on the
    previous instruction hide their fill."""
    B = 16
    s = _simulate(["learning.hidden=[40, 30]", f"learning.batch={B}", "learning.start_steps=50",
                   "learning.eval_every=100000"], 53)
    c = s.platform.agents[0].controller
    first = s.asm.binary.symbol("train").address
    last = s.asm.binary.symbol("tend").address
    assert c.exec_count[first] == 3
    cycles = sum(c.cycles_at[first:last + 1]) / 3
    arch = load_arch("fixar")
    st = ddpg_step(3, 1, B, aap_timing(arch.knobs, arch.extra["timing"]), hidden=(40, 30))
    fills = sum(1 for p in st.phases if p.fill and not p.overlapped)
    assert st.cycles - fills * 10 <= cycles <= st.cycles
    assert cycles < st.cycles                   # some fill is hidden


def test_run_reports_the_issue_interface(tmp_path):
    """rlaccel run's JSON has ips.accelerator, timing.ips.system (this host's measured time
    in it), utilization, energy_pj, cycles and learning.returns; IPS is B samples per
    simulated second of a training step."""
    r = run(PENDULUM, SMALL + ["learning.eval_every=150"], steps=150,
            json_path=str(tmp_path / "r.json"))
    assert r["learning"]["returns"] and len(r["learning"]["returns"]) == 1
    assert r["ips"]["accelerator"] == pytest.approx(8 * 164e6 / r["cycles_per_step"])
    assert 0 < r["timing"]["ips"]["system"] < r["ips"]["accelerator"]
    assert 0 < r["utilization"]["pe"] <= 1 and set(r["utilization"]["cores"]) == {"aap0",
                                                                                   "aap1"}
    assert r["energy_pj"] > 0 and r["cycles"] > 0 and r["train_steps"] == 50
    assert (tmp_path / "r.json").exists()


@pytest.mark.parametrize("override,match", [
    (["learning.nosuch=1"], "nosuch"),
    (["learning.hidden=[8, 8, 8]"], "two hidden layers"),
    (["learning.batch=1024"], "max_batch"),
    (["learning.qat_delay=-5"], "qat_delay"),
    (["learning.gamma=2.0"], "gamma"),
])
def test_bad_manifests_are_clear_errors(override, match):
    with pytest.raises(RlaccelError, match=match):
        _Setup(PENDULUM, override, arch=None, seed=None, trace=None, progress=None,
               datapath=None, kernels="compiled", options={"steps": 10})


def test_a_network_that_does_not_fit_the_memories_is_a_clear_error():
    """2000-1500 hidden layers need more words than fixar's memories hold (the first
    exchange alone, 6 M words): the assembler names the instruction and the limit, not a
    traceback from the simulator."""
    with pytest.raises(RlaccelError, match="does not fit"):
        _Setup(PENDULUM, ["learning.hidden=[2000, 1500]"], arch=None, seed=None, trace=None,
               progress=None, datapath=None, kernels="compiled", options={"steps": 10})


def test_bad_environment_is_a_clear_error():
    with pytest.raises((RlaccelError, ManifestError), match="NoSuchEnv"):
        _Setup(PENDULUM, ["environment=NoSuchEnv-v0"], arch=None, seed=None, trace=None,
               progress=None, datapath=None, kernels="compiled", options={"steps": 10})
