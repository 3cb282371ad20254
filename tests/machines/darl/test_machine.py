"""HDQL on the simulated DARL machine (machines/darl/programs/hdql.s, host.py, plugin.py): the
simulator learns exactly what the unit models learn (FunctionalHdql in fixed32, bit for bit,
1 and several agents), an iteration takes Table 1's L as timing.py computes it (with each
optimisation of Fig. 10(a) switched off too), runs are reproducible, and bad manifests are
clear errors."""

from __future__ import annotations

import numpy as np
import pytest

from rlaccel.machines.darl.training import Training
from rlaccel.programs.manifest import ManifestError
from rlaccel.programs.runner import _Setup, run
from rlaccel.machines.darl.tlm import latency_cycles
from rlaccel.machines.darl.tlm.timing import Optimisations, Workload

CP = "machines/darl/programs/cartpole.toml"
LL = "machines/darl/programs/lunarlander.toml"


def _setup(manifest, *overrides, arch_overrides=None):
    return _Setup(manifest, list(overrides), arch=None, seed=None, trace=None, progress=None,
                  datapath=None, kernels="compiled", options={}, arch_overrides=arch_overrides)


@pytest.mark.parametrize("agents,stages,sync,every", [
    (1, 4, "average", "auto"), (2, 2, "average", "auto"), (4, 2, "average", "step"),
    (2, 2, "sum", "episode"), (2, 2, "average", "episode")])
def test_the_simulator_learns_what_the_unit_models_learn_bit_for_bit(agents, stages, sync,
                                                                      every):
    """Also with a synchronisation every round (several agents by default): agents whose
    episode ended join every round's all-reduce until the last agent's episode ends."""
    s = _setup(CP, f"agents={agents}", f"stages={stages}", "stop_at_target=false",
               f"learning.sync='{sync}'", f"learning.sync_every='{every}'")
    s.platform.run()
    host = s.r.state
    ref = Training(host.cfg)                   # fixed32: FunctionalHdql, same streams
    assert host.cfg.number == "fixed32" and host.cfg.sync == sync
    assert host.cfg.sync_each_step == (every == "step" or (every == "auto" and agents > 1))
    ref.run(stages)
    assert host.curve.agent_returns == ref.curve.agent_returns
    assert host.curve.batches == ref.curve.batches and host.curve.greedy == ref.curve.greedy
    L = ref.learner
    for k in range(agents):
        assert np.array_equal(s.platform.symbol_view("QD", k),
                              np.concatenate([L.tr.ravel(), L.ti.ravel()]))
        assert np.array_equal(s.platform.symbol_view("Q", k),
                              np.concatenate([L.qr[k].ravel(), L.qi[k].ravel()]))
    assert np.abs(s.platform.symbol_view("QD", 0)).max() > 0      # it did learn something


@pytest.mark.parametrize("manifest,n,a", [(CP, 4, 2), (LL, 8, 4)])
def test_an_iteration_takes_table_1s_latency_as_the_formula_gives_it(manifest, n, a):
    r = run(manifest, ["stages=1", "stop_at_target=false"])
    w = Workload(n=n, a=a)
    assert r["latency_cycles"] == latency_cycles(w)
    assert r["latency_inference_cycles"] == latency_cycles(w, train=False)
    assert r["latency_cycles"] == {CP: 427, LL: 431}[manifest]
    assert r["timing"]["ips"]["system"] > 0 and r["learning"]["returns"]


@pytest.mark.parametrize("agents", [2, 8])
def test_several_agents_iteration_ends_with_the_butterfly_all_reduce(agents):
    """Table 1's DARL8 L: the simulated iteration (427) plus the simulated all-reduce of the
    2 A D-word shard, log2 N (hop + 2AD / 256) cycles, as the formula gives them (538 for
    eight agents against the paper's 547)."""
    r = run(CP, [f"agents={agents}", "stages=1", "stop_at_target=false"])
    w = Workload(agents=agents)
    assert r["latency_iteration_cycles"] == 427
    assert r["allreduce"]["each_iteration"]
    assert r["allreduce"]["iteration_cycles"] == r["allreduce"]["formula_cycles"]
    assert r["latency_cycles"] == latency_cycles(w) == r["latency_formula"]["train"]
    assert r["latency_cycles"] == {2: 464, 8: 538}[agents]
    # eq. 24's T_comm: the agents' exchanges overlap in the simulation, so the busiest
    # agent's transfer time; the serial host's figure is the sum over the agents
    hc = [a["host_cycles"] for a in r["agents"]]
    assert len(hc) == agents and min(hc) > 0
    assert r["ips"]["t_comm_s"] == pytest.approx(max(hc) / 171e6)
    assert r["ips"]["t_comm_serial_s"] == pytest.approx(sum(hc) / 171e6)
    ips = r["ips"]
    assert ips["quiet_host_parallel_envs"] > ips["quiet_host_parallel_envs_serial_link"]
    assert ips["quiet_host_parallel_envs"] > ips["quiet_host"]


@pytest.mark.parametrize("off", ["codebook", "chunking", "delayed_update"])
def test_each_optimisation_switched_off_costs_what_the_formula_says(off):
    r = run(CP, ["stages=1", "stop_at_target=false"], arch_overrides={f"hdc.{off}": False})
    assert r["latency_cycles"] == latency_cycles(Workload(), opt=Optimisations(**{off: False}))
    assert r["latency_cycles"] > 427
    assert r["optimisations"][off] is False


def test_the_delayed_update_switched_off_learns_the_same_values():
    """Training reads only the marked row, so updating Q at once changes nothing it uses."""
    a = _setup(CP, "stages=3", "stop_at_target=false")
    b = _setup(CP, "stages=3", "stop_at_target=false",
               arch_overrides={"hdc.delayed_update": False})
    a.platform.run()
    b.platform.run()
    assert a.r.state.curve.agent_returns == b.r.state.curve.agent_returns
    assert np.array_equal(a.platform.symbol_view("QD"), b.platform.symbol_view("QD"))


def test_same_seed_same_run_another_seed_another():
    r1 = run(CP, ["stages=3", "stop_at_target=false"])
    r2 = run(CP, ["stages=3", "stop_at_target=false"])
    r3 = run(CP, ["stages=3", "stop_at_target=false"], seed=2)
    assert r1["learning"]["agent_returns"] == r2["learning"]["agent_returns"]
    assert r1["cycles"] == r2["cycles"]
    assert r1["learning"]["agent_returns"] != r3["learning"]["agent_returns"]


@pytest.mark.parametrize("override,message", [
    ("agents=3", r"agents = 3: the butterfly network connects 1, 2, 4 or 8 agents"),
    ("agents=16", r"'agents' must be from 1 to 8, not 16 \(the U280 holds at most eight "
                  r"agents, the DARL paper, section 6.2\)"),
    ("learning.terminal_reward=nan", r"'learning.terminal_reward' must be a finite number, "
                                     r"not nan"),
    ("learning.d=2050", r"cartpole.toml: HDQL: d = 2050 is not a multiple of chunk = 16"),
    ("learning.batch=32", r"'learning.batch' = 32 exceeds the 16 samples"),
    ("learning.number='float64'", r"'learning.number' = 'float64': the DARL kernel"),
    ("learning.lr=0.1", r"'learning.lr' is not a setting of the run"),
    ("learning.beta=2.0", r"cartpole.toml: HDQL: beta must be a number in \[0.0, 1.0\]"),
    ("task='pong'", r"unknown task 'pong'"),
    ("steps=-1", r"'steps' must be from 0 to 1,099,511,627,776, not -1"),
])
def test_bad_manifests_are_clear_errors(override, message):
    with pytest.raises(ManifestError, match=message):
        run(CP, [override, "stages=1"])
