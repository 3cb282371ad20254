"""The host bookkeeping (machines/learninggroup/episodes.py): sampling, returns, episodes,
batches and the success rate."""

from __future__ import annotations

import numpy as np
import pytest

from rlaccel.machines.learninggroup.config import LearningConfig
from rlaccel.machines.learninggroup.episodes import (Batch, Episode, Episodes,
                                                     discounted_returns, sample)


class _Draws:
    """A generator stand-in returning chosen uniforms."""

    def __init__(self, u):
        self.u = np.asarray(u, float)

    def random(self, n):
        assert n == len(self.u)
        return self.u


def test_sample_is_the_inverse_cdf():
    """u falls in [c_{k-1}, c_k) of the cumulative probabilities -> action k."""
    p = np.array([[0.2, 0.5, 0.3], [0.2, 0.5, 0.3], [0.2, 0.5, 0.3], [0.0, 0.0, 1.0]])
    assert sample(p, _Draws([0.1, 0.2, 0.95, 0.0])).tolist() == [0, 1, 2, 2]


def test_discounted_returns_by_hand():
    """R_t = r_t + gamma R_{t+1}, per agent, R_T = 0."""
    r = np.array([[1.0, 0.0], [0.0, -1.0], [2.0, 0.5]])
    assert discounted_returns(r, 0.5).tolist() == [[1.5, -0.375], [1.0, -0.75], [2.0, 0.5]]
    assert discounted_returns(r, 1.0)[0].tolist() == [3.0, -0.5]


class _Walker:
    """A policy that always moves toward the prey it is told about (for tests)."""

    def __init__(self, env, probs=None):
        self.env, self.probs = env, probs
        self.calls = 0

    def begin_episode(self):
        self.calls = 0

    def act(self, obs, talk_prev):
        self.calls += 1
        A = obs.shape[0]
        p = np.zeros((A, 5))
        for i, (r, c) in enumerate(self.env.predator_loc):
            pr, pc = self.env.prey_loc
            p[i, 0 if pr < r else 2 if pr > r else 3 if pc < c else 1 if pc > c else 4] = 1
        return p, np.tile([0.5, 0.5], (A, 1)), np.zeros(A)


def test_a_greedy_walker_always_succeeds_and_returns_count_the_penalty():
    """Walking straight to the prey ends every episode with all predators on it (success);
    each agent's return is -0.05 per step it spent off the prey."""
    cfg = LearningConfig(env_kwargs={"nagents": 3, "dim": 5, "max_steps": 20}, seed=4)
    eps = Episodes(cfg)
    batch = eps.batch(_Walker(eps.env), 5)
    for ep in batch.episodes:
        assert ep.success and ep.caught and ep.steps <= 8
        assert ep.obs.shape == (ep.steps, 3, 29) and ep.obs.dtype == np.float32
        off = (ep.rewards < 0).sum(axis=0)
        assert ep.returns(1.0)[0] == pytest.approx(-0.05 * off)
    stats = batch.stats()
    assert stats["success_rate"] == 1.0 and stats["episodes"] == 5
    assert stats["steps"] == sum(e.steps for e in batch.episodes)


def test_a_standing_policy_fails_and_runs_to_max_steps():
    """Predators that never move (start cells differ from the prey's) never succeed."""
    cfg = LearningConfig(env_kwargs={"nagents": 2, "dim": 5, "max_steps": 6}, seed=4)
    eps = Episodes(cfg)

    class Stay(_Walker):
        def act(self, obs, talk_prev):
            p, t, v = super().act(obs, talk_prev)
            p[:] = 0
            p[:, 4] = 1
            return p, t, v

    ep = eps.run(Stay(eps.env))
    assert ep.steps == 6 and not ep.success and not ep.caught
    assert ep.rewards.tolist() == [[-0.05, -0.05]] * 6


def test_same_seed_same_episodes():
    """The paper fixes episode starts and action draws: the same policy outputs give the same
    episodes; another seed gives others."""
    def run(seed):
        eps = Episodes(LearningConfig(env_kwargs={"nagents": 3}, seed=seed))

        class Uniform(_Walker):
            def act(self, obs, talk_prev):
                return np.full((3, 5), 0.2), np.full((3, 2), 0.5), np.zeros(3)

        return [(e.act_env, e.act_talk, e.obs) for e in eps.batch(Uniform(eps.env), 3).episodes]

    a, b, c = run(7), run(7), run(8)
    for x, y in zip(a, b):
        assert all(np.array_equal(u, v) for u, v in zip(x, y))
    assert not all(np.array_equal(x[0], y[0]) for x, y in zip(a, c) if x[0].shape == y[0].shape)


def test_batch_stats_success_rate():
    """success_rate and caught_rate are fractions of episodes."""
    def ep(success, caught, steps):
        z = np.zeros((steps, 2))
        return Episode(np.zeros((steps, 2, 3), np.float32), z, z, z - 0.05, z, success, caught)

    s = Batch([ep(True, True, 3), ep(False, True, 5), ep(False, False, 4), ep(True, True, 2)])
    st = s.stats()
    assert (st["success_rate"], st["caught_rate"], st["steps"], st["mean_steps"]) == \
        (0.5, 0.75, 14, 3.5)
