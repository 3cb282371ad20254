"""The environments as HDQL sees them: CartPole-v1 and LunarLander-v3 from gymnasium, the
training reward apart from the environment's, failure versus time limit."""

import gymnasium as gym
import numpy as np
import pytest

from rlaccel.machines.darl.task import AgentEnv, env_shape
from rlaccel.programs.manifest import ManifestError


def test_shapes_limits_and_thresholds_of_the_two_tasks():
    assert env_shape("CartPole-v1") == (4, 2)
    assert env_shape("LunarLander-v3") == (8, 4)
    assert gym.spec("CartPole-v1").max_episode_steps == 500
    assert gym.spec("LunarLander-v3").max_episode_steps == 1000


def test_cartpole_failure_trains_with_the_terminal_reward():
    env = AgentEnv("CartPole-v1", terminal_reward=-5.0)
    env.reset(seed=0)
    trs = []
    while not env.done:
        trs.append(env.step(0))                  # always push left: falls in a few steps
    last = trs[-1]
    assert last.terminated and not last.truncated
    assert last.train_reward == -5.0 and last.env_reward == 1.0   # trained with -5, paid +1
    assert all(t.train_reward == 1.0 for t in trs[:-1])
    assert env.ret == len(trs) and env.steps == len(trs)
    assert np.array_equal(trs[1].obs, trs[0].next_obs) and trs[0].obs.dtype == np.float64
    with pytest.raises(ManifestError, match="step after the episode ended"):
        env.step(0)


def test_a_time_limit_is_not_a_failure():
    env = AgentEnv("CartPole-v1", terminal_reward=-5.0, max_episode_steps=3)
    env.reset(seed=0)
    trs = [env.step(a) for a in (0, 1, 0)]
    assert env.done and trs[-1].truncated and not trs[-1].terminated
    assert trs[-1].train_reward == 1.0


def test_lunarlander_steps_and_seeded_resets():
    a, b = AgentEnv("LunarLander-v3"), AgentEnv("LunarLander-v3")
    assert np.array_equal(a.reset(seed=7), b.reset(seed=7))
    ta, tb = a.step(2), b.step(2)
    assert np.array_equal(ta.next_obs, tb.next_obs) and ta.next_obs.shape == (8,)
    assert ta.train_reward == ta.env_reward


def test_environments_the_algorithm_cannot_use():
    with pytest.raises(ManifestError, match="HDQL needs discrete actions"):
        env_shape("Pendulum-v1")
    with pytest.raises(ManifestError, match="environment 'NoSuchEnv-v0'"):
        env_shape("NoSuchEnv-v0")
