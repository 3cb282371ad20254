"""IC3Net + FLGW trained on the simulated LearningGroup machine (machines/learninggroup/*.s,
host.py, plugin.py): the machine's forward pass and accumulated gradients equal the float
reference's on the same episodes up to FP16 rounding, grouped and dense; the run's report has
what other checks rely on; runs are deterministic; bad manifests are clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rlaccel.machines.learninggroup.config import NetConfig
from rlaccel.machines.learninggroup.ic3net import IC3Net, layer_shapes
from rlaccel.programs.manifest import ManifestError
from rlaccel.programs.runner import _Setup, run
from rlaccel.isa.machine import machine

MANIFEST = machine("learninggroup").programs / "predator_prey.toml"
TINY = ["network.hid=16", "environment_kwargs.nagents=3", "environment_kwargs.dim=3",
        "learning.batch_episodes=2", "iterations=1"]
_NAMES = {"encoder": "ENC", "comm": "COMM", "lstm_ih": "IH", "lstm_hh": "HH"}


def _machine_params(S, sym, net, nobs):
    """The reference's parameters read from the machine's global parameter memory."""
    H, G = net.hid, net.groups
    params = {}
    for layer, (m, n) in layer_shapes(net, nobs).items():
        if layer in _NAMES:
            a = sym(f"W_{_NAMES[layer]}")
            W = S[a:a + (m + 1) * n].astype(np.float32).reshape(m + 1, n)
            params[f"{layer}.W"], params[f"{layer}.b"] = W[:m].copy(), W[m].copy()
            if G > 1:
                for z, shape in (("IG", (m, G)), ("OG", (G, n))):
                    b = sym(f"{z}_{_NAMES[layer]}")
                    params[f"{layer}.{z}"] = S[b:b + shape[0] * shape[1]] \
                        .astype(np.float32).reshape(shape)
    a = sym("W_HEAD")
    WH = S[a:a + (H + 1) * 8].astype(np.float32).reshape(H + 1, 8)
    for name, cols in (("action", slice(0, 5)), ("talk", slice(5, 7)), ("value", slice(7, 8))):
        params[f"{name}.W"], params[f"{name}.b"] = WH[:H, cols].copy(), WH[H, cols].copy()
    return params


@pytest.mark.parametrize("groups", [1, 2])
def test_the_machines_gradients_are_the_references(groups):
    """One iteration of two episodes: replaying the machine's episodes through the float32
    reference from the machine's initial weights gives its value estimates and, summed over
    the batch, its weight and bias gradients (the accumulators just before the update) to
    within FP16 rounding -- the program's forward pass, BPTT with the detach cuts, the
    communication and the masks are the reference's."""
    s = _Setup(MANIFEST, TINY + [f"network.groups={groups}"], arch=None, seed=3, trace=None,
               progress=None, datapath=None, kernels="reference", options={})
    host, agent = s.r.hosts, s.platform.agent
    S0 = agent.memory("synapse").copy()
    snap = {}
    exchange = host.exchange

    def spy(out):
        reply = exchange(out)
        if host._phase == "after_update" and "S" not in snap:
            snap["S"] = agent.memory("synapse").copy()       # before the program's update
        return reply
    host.exchange = spy
    s.platform.run()
    sym = lambda name: s.asm.binary.symbol(name).address     # noqa: E731
    net, nobs, A = NetConfig(hid=16, groups=groups), host.episodes.obs_dim, 3
    model = IC3Net(net, nobs, A, _machine_params(S0, sym, net, nobs), np.float32)
    acc = model.zero_grads()
    cfg = host.cfg
    for ep in host.last_batch:
        steps = model.replay(ep.obs, ep.act_talk)
        assert np.allclose([st.value for st in steps], ep.values, atol=2e-3)
        R = ep.returns(cfg.gamma)
        model.backward_episode(steps, ep.act_env, ep.act_talk, R - ep.values, R, acc,
                               value_coeff=cfg.value_coeff, entropy_coeff=0.0,
                               detach_gap=cfg.detach_gap)
    S1 = snap["S"]
    for layer, (m, n) in layer_shapes(net, nobs).items():
        if layer not in _NAMES:
            continue
        a = sym(f"G_{_NAMES[layer]}")
        got = S1[a:a + (m + 1) * n].astype(np.float64).reshape(m + 1, n)
        want = acc[f"{layer}.Weff"] * model.masks.get(layer, 1)
        scale = np.abs(want).max()
        assert scale > 0
        assert np.abs(got[:m] - want).max() < 0.02 * scale, layer
        assert np.abs(got[m] - acc[f"{layer}.b"]).max() < 0.02 * np.abs(acc[f"{layer}.b"]).max()
        if layer in model.masks:
            assert not got[:m][model.masks[layer] == 0].any()       # masked: no gradient
    a = sym("G_HEAD")
    got = S1[a:a + 17 * 8].astype(np.float64).reshape(17, 8)[:16]
    want = np.concatenate([acc["action.Weff"], acc["talk.Weff"], acc["value.Weff"]], axis=1)
    assert np.abs(got - want).max() < 0.02 * np.abs(want).max()


def test_a_run_reports_utilization_and_the_success_rate(tmp_path):
    """rlaccel run ... --steps N --json F (the interface other checks rely on): the run stops
    at the first episode end after N steps, updates once and reports utilisation, the
    success rate and the paper's figures."""
    out = tmp_path / "r.json"
    r = run(MANIFEST, TINY[:4], steps=10, seed=2, json_path=str(out))
    saved = json.loads(out.read_text())
    for rep in (r, saved):
        assert 0 <= rep["learning"]["success_rate"] <= 1
        assert {"vpu", "vpu_matrix", "vpu_inference", "mac_lanes"} <= set(rep["utilization"])
        assert rep["learning"]["iterations"] == 1 and rep["learning"]["steps"] >= 10
    assert r["learning"]["episodes"] == 1
    assert r["throughput"]["gflops"] > 0 and r["latency"]["iteration_ms"] > 0
    assert set(r["stages"]["marks"]) == {"grouping", "forward", "backward", "update"}
    assert set(r["table1"]) == {"encoder", "comm", "lstm_ih", "lstm_hh"}


def test_the_same_seed_gives_the_same_run():
    a = run(MANIFEST, TINY, seed=5)
    b = run(MANIFEST, TINY, seed=5)
    c = run(MANIFEST, TINY, seed=6)
    for key in ("cycles", "energy_pj", "learning", "table1", "encoder"):
        assert a[key] == b[key]
    assert a["learning"]["curve"] != c["learning"]["curve"] or a["cycles"] != c["cycles"]


def test_manifest_errors_name_the_key():
    with pytest.raises(ManifestError, match=r"predator_prey.toml: network.groups = 17 is beyond "
                                            r"the hardware's 16 groups \(max_groups of "
                                            r"'learninggroup'\)"):
        run(MANIFEST, ["network.groups=17"], steps=1)
    with pytest.raises(ManifestError, match=r"predator_prey.toml: 'learning.grad_scale' must "
                                            r"be \"sum\" or \"mean\", not 'max'"):
        run(MANIFEST, ["learning.grad_scale='max'"], steps=1)
    with pytest.raises(ManifestError, match=r"predator_prey.toml: unknown environment_kwargs "
                                            r"speed; known: nagents, dim, vision, max_steps, "
                                            r"mode"):
        run(MANIFEST, ["environment_kwargs.speed=2"], steps=1)


def test_a_program_too_short_for_the_episodes_is_refused():
    """A binary assembled for 20 frames cannot back-propagate 30-step episodes."""
    from rlaccel.assembler.assemble import assemble_file
    from rlaccel.isa.dtypes import get_dtype
    from rlaccel.util.errors import RlaccelError
    from rlaccel.machines.learninggroup.host import HostPlan, LgHost
    from rlaccel.machines.learninggroup.plugin import defines, learning_config
    from rlaccel.programs.runner import configure
    _, m = configure(MANIFEST, TINY + ["environment_kwargs.max_steps=30"])
    binary = assemble_file(MANIFEST.parent / "predator_prey.s",
                           defines={**defines(m), "TMAX": 20}).binary
    with pytest.raises(RlaccelError, match=r"the program's TD \(260 words\) does not hold 30 "
                                           r"steps of 13 words: assemble it with TMAX >= the "
                                           r"environment's max_steps"):
        LgHost(learning_config(m), HostPlan(1), binary, get_dtype("fp16"))
