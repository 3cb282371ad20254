"""The CPU-only baseline (machines/maddpg/baseline.py): measured in a child process with one
BLAS thread whatever the caller's environment, every figure the minimum of its repeats with
the median, the maximum and the spread beside it; the PyTorch learner computes the
reference's round (openai/maddpg's agent-by-agent order) and is only ever used when asked."""

import numpy as np
import pytest

from rlaccel.machines.maddpg.baseline import measure, stats
from rlaccel.machines.maddpg.config import MaddpgConfig
from rlaccel.machines.maddpg.reference import MaddpgReference
from rlaccel.machines.maddpg.training import Training
from rlaccel.util.errors import RlaccelError


def test_stats_are_the_minimum_and_the_spread_above_it():
    s = stats([4.0, 2.0, 3.0, 10.0])
    assert (s["min"], s["median"], s["max"], s["n"]) == (2.0, 3.5, 10.0, 4)
    assert s["spread"] == pytest.approx(0.75)


def test_measure_runs_on_one_blas_thread_and_reports_every_batch(monkeypatch):
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")       # the child pins it to 1 anyway
    r = measure("simple_speaker_listener_v4", [8, 16], repeats=3, steps=50, hidden=(8, 8))
    assert r["blas_threads"] == "1" and r["backend"] == "numpy" and r["steps"] == 50
    assert len(r["load_average"]) == 2 and r["t_sg_cpu_s"] == r["t_sg"]["min"] > 0
    cpu = r["cpu"]                                        # what the numerator depends on
    assert cpu["name"] and set(cpu["simd"]) <= {"AVX2", "FMA3", "AVX512F"}
    assert cpu["blas_core"] is None or cpu["blas_core"]
    for B in ("8", "16"):
        row = r["batches"][B]
        for name in ("training", "sampling", "openai_list_sampling"):
            s = row[f"{name}_cpu"]
            assert row[f"{name}_cpu_s"] == s["min"] <= s["median"] <= s["max"]
        assert row["training_cpu"]["n"] == 3


def test_measure_passes_the_environment_its_arguments():
    r = measure("simple_tag_v3", [8], repeats=1, steps=25, hidden=(8, 8),
                policies={"agent_0": "ddpg"}, env_kwargs={"num_adversaries": 1},
                openai_lists=False)
    assert r["batches"]["8"]["training_cpu"]["n"] == 1
    with pytest.raises(RlaccelError, match=r"CPU baseline \(numpy, simple_tag_v3\) failed: "):
        measure("simple_tag_v3", [8], repeats=1, steps=25, env_kwargs={"no_such": 1})


def test_an_unknown_backend_is_refused():
    with pytest.raises(RlaccelError, match=r"^CPU baseline: backend must be one of numpy, "
                                           r"torch, not 'jax'$"):
        measure("simple_speaker_listener_v4", [8], backend="jax")


@pytest.mark.parametrize("env,policies", [("simple_speaker_listener_v4", {}),
                                          ("simple_tag_v3", {"agent_0": "ddpg"})])
def test_the_torch_round_is_the_references_sequential_round(env, policies):
    pytest.importorskip("torch", reason="the torch extra is not installed")
    from rlaccel.machines.maddpg.torch_maddpg import TorchMaddpg
    # SGD: PyTorch's Adam puts epsilon after the bias correction, TF1's (the reference's)
    # before it, which moves a step whose gradient is near epsilon by up to half of lr
    cfg = MaddpgConfig(env=env, seed=3, hidden=(16, 16), policies=policies,
                       schedule="sequential", optimizer="sgd")
    tr = Training(cfg)
    ref = MaddpgReference(cfg, tr.task.specs, tr.rng["init"])
    t = TorchMaddpg(ref)
    while tr.steps < 64:
        tr.step(ref.act)
    b = tr.batches(32)
    t.update([t.tensors(x) for x in b])
    ref.update(b)
    for ag, ta in zip(ref.agents, t.agents):
        for name in ("actor", "critic", "target_actor", "target_critic"):
            lin = [m for m in getattr(ta, name) if hasattr(m, "weight")]
            for (W, bias), m in zip(getattr(ag, name), lin):
                np.testing.assert_allclose(m.weight.detach().numpy(), W, rtol=0, atol=1e-6)
                np.testing.assert_allclose(m.bias.detach().numpy(), bias, rtol=0, atol=1e-6)
