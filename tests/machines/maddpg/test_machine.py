"""The MADDPG machine end to end (machines/maddpg: learner.s on every agent, the host, the
plug-in): on the same batches and noise it computes what the float reference computes; a run
reports eq. 7's IPS and the learning curve; it uses the design-space exploration's units;
the pipelines show fill, steady state and bottleneck; the trace shows the ring against the
computation; a bad manifest is a clear error."""

import json
from pathlib import Path

import numpy as np
import pytest

from rlaccel.cli import main
from rlaccel.util.errors import ArchError
from rlaccel.programs import runner
from rlaccel.machines.maddpg.host import flatten
from rlaccel.machines.maddpg.optim import clip_by_norm
from rlaccel.machines.maddpg.plugin import config
from rlaccel.machines.maddpg.reference import MaddpgReference
from rlaccel.machines.maddpg.training import Training
from rlaccel.programs.manifest import ManifestError
from rlaccel.tlm.trace import ChromeTrace
from rlaccel.isa.machine import machine

ROOT = machine("maddpg").programs
CC, PP = ROOT / "speaker_listener.toml", ROOT / "simple_tag.toml"
#: small networks and batches: a round at step 40 (the buffer holds 32, every 10 steps)
TINY = ["learning.batch=16", "learning.hidden=[8,8]", "learning.learning_starts=32",
        "learning.update_every=10", "window=1"]


def _setup(manifest, overrides, steps, trace=None):
    return runner._Setup(manifest, overrides, arch=None, seed=None, trace=trace, progress=None,
                         datapath=None, kernels="compiled", options={"steps": steps})


@pytest.mark.parametrize("manifest", [CC, PP], ids=["cooperative", "predator-prey"])
def test_one_round_equals_the_reference(manifest):
    """The same initial weights, sample generation, batch and Gumbel noise as
    MaddpgReference: after one round every learner's clipped gradients, its four networks
    after Adam equal the reference's up to fp32 rounding (the machine sums every
    product in its MAC chain's order, numpy's BLAS in its own)."""
    s = _setup(manifest, TINY, 41)
    s.platform.run()
    cfg = config(s.m)
    tr = Training(cfg)
    ref = MaddpgReference(cfg, tr.task.specs, tr.rng["init"])
    tr.step(ref.act)
    while not tr.due():
        tr.step(ref.act)
    b = tr.batches()
    targets = ref.target_actions(b[0])
    grads = [(ag.critic_grads(b[0], targets)[0], ag.actor_grads(b[0])[0]) for ag in ref.agents]
    ref.update(b)
    for i, ag in enumerate(ref.agents):
        agent = s.platform.agents[i]

        def got(name):
            return np.array(agent.symbol_view(name))
        for net, g in (("GQ", grads[i][0]), ("GPI", grads[i][1])):
            for layer, (gw, gb) in enumerate(clip_by_norm(g, cfg.grad_clip), 1):
                want = np.concatenate([gw.ravel(), gb])
                assert np.abs(got(f"{net}{layer}") - want).max() <= 1e-5 * np.abs(want).max()
        for name, layers in (("PI", ag.actor), ("Q", ag.critic), ("PIT", ag.target_actor),
                             ("QT", ag.target_critic)):
            for layer, lw in enumerate(layers, 1):
                assert np.abs(got(f"{name}{layer}") - flatten([lw])).max() < 1e-5, \
                    (i, name, layer)


def test_the_run_reports_ips_and_the_learning_curve(tmp_path, capsys):
    """rlaccel run ... --steps N --seed S --json F: the JSON has timing.ips.system (eq. 7:
    one step and one round per iteration, with this host's measured T_SG) and
    learning.returns (every episode's summed reward)."""
    out = tmp_path / "r.json"
    args = ["run", str(PP), "--steps", "60", "--seed", "2", "--json", str(out)]
    for o in TINY:
        args += ["--set", o]
    assert main(args) == 0
    r = json.loads(out.read_text())
    ips = r["ips"] | r["timing"]["ips"]              # the measured terms are under timing
    assert "system" not in r["ips"] and "t_sg_s" not in r["ips"]
    assert r["learning"]["rounds"] == ips["rounds"] == 3
    assert len(r["learning"]["returns"]) == 2 and r["learning"]["steps"] == 60
    assert ips["system"] == pytest.approx(1 / (ips["t_sg_s"] + ips["t_sample_s"]
                                               + ips["learner_s"]))
    assert ips["learner_s"] > ips["compute_s"] > 0 and ips["transfer_s"] > 0
    assert "IPS" in capsys.readouterr().out


def test_a_run_without_a_round_times_a_probe_round():
    """Steps that end before learning starts: eq. 7 still gets its T_MU, from one round
    simulated on a fresh machine from the buffer the run left (the run itself unchanged)."""
    r = runner.run(PP, TINY, steps=20)
    ips = r["ips"] | r["timing"]["ips"]
    assert r["learning"]["rounds"] == ips["rounds"] == 0 and ips["probe"]
    assert ips["learner_s"] > ips["compute_s"] > 0
    assert ips["system"] == pytest.approx(1 / (ips["t_sg_s"] + ips["t_sample_s"]
                                               + ips["learner_s"]))


def test_the_run_uses_the_design_space_exploration():
    """Every learner's compute units have the unroll factors of rlaccel dse maddpg, and the
    DSPs (5 F per unit) of the learners in an SLR add up to the design's use there."""
    from rlaccel.machines.maddpg.dse import explore_manifest
    s = _setup(PP, TINY, 41)
    s.platform.run()
    d = explore_manifest(PP, TINY)
    for a, name in zip(s.platform.agents, d["agents"]):
        F = a.state["marl.learner"].factors
        want = [st["F"] for p in ("value", "policy") for st in d["unroll_factors"][name][p]]
        assert [F[u] for u in range(29)] == want
    dsp = {name: 5 * sum(a.state["marl.learner"].factors[u] for u in range(29))
           for a, name in zip(s.platform.agents, d["agents"])}
    for slr in d["slr"]:
        assert sum(dsp[n] for n in slr["agents"]) == slr["dsp_used"]


def test_pipelines_fill_then_stream_at_the_bottleneck():
    """The reference's networks at batch 64: every stage within the DSE's 118 cycles per
    sample (Cooperative Communication, f = 12); once full, each pipeline lets a sample out
    every 118 cycles; a sample's all-gather (7 cycles) hides under that. (The paper's eq. 6
    design, f = 12, forced: the default search is bound by our elements' LUTs at f = 1.)"""
    s = _setup(CC, ["learning.batch=64", "learning.learning_starts=64",
                    "learning.update_every=100", "window=1", "dse.f=12"], 101)
    res = s.platform.run()
    r = s.report(res)
    for name in ("value", "policy"):
        p = r["pipelines"][name]
        assert p["bottleneck_cycles"] == r["dse"]["stage_cycles"] == 118
        assert p["steady_interval_cycles"] == 118
        assert p["first_sample_cycles"] < p["batch_cycles"] == p["first_sample_cycles"] + 63 * 118
    assert r["ring"]["hidden_by_formula"] and r["ring"]["per_sample_allgather_cycles"] == 7
    assert p["limited_by"] == "stage" and "(bottleneck " in summary_of(r)


def summary_of(r):
    from rlaccel.machines.maddpg.results import summary
    return summary({**r, "program": "learner.s", "arch": "maddpg", "seed": 1,
                    "sim": {"wall_s": 0.0}, "instructions": 0, "cycles": 0})


def test_a_slow_ring_is_reported_as_the_limit():
    """Hops of 200 cycles: a sample's all-gather (205 cycles) is slower than the slowest
    stage (118): the value pipeline's critics wait for the other learner's action, so its
    samples leave every 205 cycles, and the run says so."""
    s = runner._Setup(CC, ["learning.batch=64", "learning.learning_starts=64",
                           "learning.update_every=100", "window=1", "dse.f=12"], arch=None,
                      seed=None,
                      trace=None, progress=None, datapath=None, kernels="compiled",
                      options={"steps": 101}, arch_overrides={"interconnect.latency": 200})
    r = s.report(s.platform.run())
    assert r["ring"]["per_sample_allgather_cycles"] == 205
    assert not r["ring"]["hidden_by_formula"]
    v, pol = r["pipelines"]["value"], r["pipelines"]["policy"]
    assert v["limited_by"] == "ring" and v["steady_interval_cycles"] == 205
    assert pol["limited_by"] == "stage" and pol["steady_interval_cycles"] == 118
    assert min(r["ring"]["exposed_cycles_per_round"]) > 60 * (205 - 118)
    text = summary_of(r)
    assert "NOT hidden" in text and "then one per 205 (the ring" in text


def test_the_trace_shows_the_ring_against_the_computation():
    """With a trace, every learner has a track per compute unit, named after its stage, and
    one for its ring port; the ring's messages run while the units compute the batch."""
    trace = ChromeTrace(300.0)
    s = _setup(CC, TINY, 41, trace=trace)
    s.report(s.platform.run())
    tracks = {(e["pid"], e["args"]["name"]) for e in trace.events() if e["name"] == "thread_name"}
    for pid in (1, 2):
        assert {(pid, "cu00 value: FP pi' L1"), (pid, "cu14 value: WU q L1"),
                (pid, "cu15 policy: FP pi L1"), (pid, "cu29 head pi' (value)"),
                (pid, "ring")} <= tracks
    ev = [e for e in trace.events() if e.get("cat") == "unit"]
    ring = [e for e in ev if e["name"].startswith("rgather")]
    work = [e for e in ev if e["name"] in ("pfp", "pfpo")]
    assert ring and work
    overlap = [r for r in ring if any(w["pid"] == r["pid"] and w["ts"] < r["ts"] + r["dur"]
                                      and r["ts"] < w["ts"] + w["dur"] for w in work)]
    assert overlap


def test_manifest_errors(tmp_path):
    with pytest.raises(ManifestError, match=r"environment 'simple_spread_v3' is not a MADDPG "
                                            r"task: known tasks are simple_speaker_listener_v4, "
                                            r"simple_tag_v3"):
        runner.run(CC, ["environment=simple_spread_v3"])
    with pytest.raises(ManifestError, match=r"speaker_listener.toml: simple_tag_v3 has 4 agents "
                                            r"\(adversary_0, adversary_1, adversary_2, agent_0\) "
                                            r"but architecture 'maddpg' has 2 learners "
                                            r"\(machine.agents\)"):
        runner.run(CC, ["environment=simple_tag_v3"])
    with pytest.raises(ManifestError, match=r"'learning.hidden' must be a list of 2 integers "
                                            r"from 1 to 65,536, not \[64, 64, 64\] \(the "
                                            r"learner program, learner.s, has two hidden "
                                            r"layers\)$"):
        runner.run(CC, ["learning.hidden=[64,64,64]"])
    with pytest.raises(ManifestError, match=r"speaker_listener.toml: MADDPG: adam_beta2 must be "
                                            r"in \[0, 1\) \(Adam divides by 1 - beta2\^t\), "
                                            r"not 1.0$"):
        runner.run(CC, ["learning.adam_beta2=1.0"])
    with pytest.raises(ManifestError, match=r"'learning.adam_beta2' must be from 0 to 1, not "
                                            r"1.5$"):
        runner.run(CC, ["learning.adam_beta2=1.5"])
    small = tmp_path / "small.toml"
    small.write_text('inherit = "maddpg"\n[machine]\n[device]\nname = "tiny"\n'
                     '[[device.slr]]\nname = "SLR0"\ndsp = 100\nbram = 10\n')
    with pytest.raises(ArchError, match=r"device tiny is too small for 2 learners even with the "
                                        r"slowest balanced design \(base factor 1\): SLR0 "
                                        r"\(speaker_0, listener_0\) needs 490 DSPs and 49 BRAMs but has 100 "
                                        r"and 10"):
        runner.run(CC, arch=str(small))


def test_a_forced_base_factor_that_does_not_fit_is_refused():
    """[dse] f beyond the DSE's own breaks eq. 6: refused for run and dse alike, naming the
    SLRs' needs and budgets (it printed a 20.4-million-DSP design)."""
    from rlaccel.machines.maddpg.dse import explore_manifest
    with pytest.raises(ManifestError) as e:
        explore_manifest(CC, ["dse.f=1000000"])
    assert str(e.value) == (
        f"{CC}: 'dse.f' = 1000000: the design does not fit u200 (SLR0 needs 10,228,485 DSPs "
        f"and 1,022,848.5 BRAMs but has 2,280 and 720; SLR1 needs 10,239,365 DSPs and "
        f"1,023,936.5 BRAMs but has 2,280 and 720); the DSE's own base factor 4 fits, and "
        f"so does any smaller one")


def test_dse_refuses_what_run_refuses():
    """The batch a learner's stream cannot take is refused by dse as by run."""
    from rlaccel.machines.maddpg.dse import explore_manifest
    for call in (lambda: explore_manifest(CC, ["learning.batch=100000"]),
                 lambda: runner.configure(CC, ["learning.batch=100000"])):
        with pytest.raises(ManifestError, match=r"'learning.batch' = 100000 exceeds the "
                                                r"\d+ samples a stream of 'maddpg' takes "
                                                r"\(machine.max_batch\)$"):
            call()


def test_a_forced_base_factor():
    """[dse] f = 4 sizes every unit from base factor 4 (T = ceil(22 x 64 / 4) = 352 cycles
    per sample on Cooperative Communication) and recounts the SLRs' use."""
    from rlaccel.machines.maddpg.dse import explore_manifest
    d = explore_manifest(CC, ["dse.f=4"])
    assert (d["f"], d["search"], d["stage_cycles"]) == (4, "forced", 352)
    sp = d["unroll_factors"]["speaker_0"]["value"]
    assert [s["F"] for s in sp][:3] == [1, 12, 1]            # 3x64, 64x64, 64x3 at 352
    assert d["slr"][0]["dsp_used"] == 5 * sum(
        s["F"] for p in ("value", "policy") for s in d["unroll_factors"]["speaker_0"][p])
