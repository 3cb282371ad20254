"""HDQL's knobs: the two tasks' presets (the DARL paper and the QHD code) and errors that name the
knob."""

import pytest

from rlaccel.machines.darl.config import HdqlConfig, task_config
from rlaccel.programs.manifest import ManifestError


def test_presets():
    cp, ll = task_config("cartpole"), task_config("lunarlander")
    assert (cp.env, cp.target, cp.batch, cp.gamma, cp.epsilon, cp.terminal_reward) == (
        "CartPole-v1", 500.0, 8, 0.9, 0.2, -5.0)
    assert (ll.env, ll.target, ll.batch, ll.gamma, ll.epsilon, ll.terminal_reward) == (
        "LunarLander-v3", 200.0, 16, 0.99, 0.5, None)
    assert cp.d == ll.d == 2048 and cp.beta == 0.05 and cp.act_with == "target"
    assert task_config("cartpole", agents=8, seed=3).agents == 8


@pytest.mark.parametrize("kw, msg", [
    (dict(d=2040), "d = 2040 is not a multiple of chunk = 16"),
    (dict(agents=3), r"power-of-two number of agents \(1, 2, 4, 8, \.\.\.\), not 3"),
    (dict(batch=0), "batch must be a positive integer, not 0"),
    (dict(gamma=1.5), r"gamma must be a number in \[0.0, 1.0\], not 1.5"),
    (dict(number="fp16"), "number must be one of float64, fixed32, not 'fp16'"),
    (dict(imag_sign=0), "imag_sign must be 1 or -1"),
    (dict(sync="max"), "sync must be one of average, sum"),
    (dict(beta_scale="sqrt"), "beta_scale must be one of agents, none"),
    (dict(seed=-1), "seed must be a non-negative integer, not -1"),
    (dict(seed=True), "seed must be a non-negative integer, not True"),
])
def test_bad_knobs_are_refused(kw, msg):
    with pytest.raises(ManifestError, match=msg):
        HdqlConfig(**kw)


def test_unknown_task_or_setting():
    with pytest.raises(ManifestError, match="unknown task 'pong'; known tasks are cartpole, "
                                            "lunarlander"):
        task_config("pong")
    with pytest.raises(ManifestError, match="unknown setting"):
        task_config("cartpole", lr=0.1)


def test_several_agents_averaging_every_round_learn_at_beta_times_agents():
    """The linear scaling rule: eq. 19's average of N agents' updates at N beta moves the
    common model as their sum at beta; one agent, the sum, once-per-episode synchronisation
    and beta_scale = "none" keep beta."""
    assert task_config("cartpole").learning_rate == 0.05
    assert task_config("cartpole", agents=8).learning_rate == 0.4
    assert task_config("lunarlander", agents=4, beta=0.1).learning_rate == 0.4
    for kw in (dict(sync="sum"), dict(sync_every="episode"), dict(beta_scale="none")):
        assert task_config("cartpole", agents=8, **kw).learning_rate == 0.05
