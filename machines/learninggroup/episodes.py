"""The host side of IC3Net training: the environment, action sampling, episodes, batches,
returns and the success statistics, independent of what computes the network.

The float reference (:mod:`.reference`) and the simulator's host driver (:mod:`.host`) both
drive an :class:`Episodes` with a *policy*: any object with ``begin_episode()`` and
``act(obs, talk_prev) -> (p_env, p_talk, value)`` (probabilities A x 5 and A x 2, values A).
So both see the same environment, the same random numbers and the same bookkeeping, and a
run on the simulated machine differs from the reference only by what the network computes.

Randomness: one ``SeedSequence(seed)`` gives the episode seeds (each ``reset(seed=...)``) and
the action-sampling generator, so a seed fixes every episode given the policy's outputs.
Sampling is the inverse CDF of the probabilities the policy returns (as ``torch.multinomial``
draws one sample), in float64.

Returns are IC3Net's individual returns (``mean_ratio = 0``): ``R_t = r_t + gamma R_{t+1}``
per agent within an episode; the advantage is ``R - v`` with the policy's values.
Success rate (the paper's accuracy, IC3Net's ``success``): the fraction of episodes that end
with every predator on the prey.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from rlaccel.programs.envs import make_parallel

from rlaccel.machines.learninggroup.config import LearningConfig

__all__ = ["Policy", "Episode", "Batch", "Episodes", "sample", "discounted_returns"]


class Policy(Protocol):
    def begin_episode(self) -> None: ...

    def act(self, obs: np.ndarray, talk_prev: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...


def sample(p: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row of the probabilities ``p`` by the inverse CDF (float64)."""
    c = np.cumsum(np.asarray(p, np.float64), axis=1)
    u = rng.random(c.shape[0]) * c[:, -1]
    return np.minimum((c <= u[:, None]).sum(axis=1), c.shape[1] - 1)


def discounted_returns(rewards: np.ndarray, gamma: float) -> np.ndarray:
    """``R_t = r_t + gamma R_{t+1}`` along axis 0 of a T x A array (R_T = 0)."""
    out = np.empty_like(rewards, dtype=np.float64)
    acc = np.zeros(rewards.shape[1:], dtype=np.float64)
    for t in range(len(rewards) - 1, -1, -1):
        acc = rewards[t] + gamma * acc
        out[t] = acc
    return out


@dataclass
class Episode:
    """One episode, T steps of A agents."""

    obs: np.ndarray        # T x A x D float32, what the policy saw
    act_env: np.ndarray    # T x A
    act_talk: np.ndarray   # T x A
    rewards: np.ndarray    # T x A
    values: np.ndarray     # T x A, the policy's value estimates
    success: bool          # every predator on the prey at the end
    caught: bool           # at least one predator reached the prey

    @property
    def steps(self) -> int:
        return len(self.rewards)

    def returns(self, gamma: float) -> np.ndarray:
        return discounted_returns(self.rewards, gamma)

    def advantages(self, gamma: float) -> np.ndarray:
        return self.returns(gamma) - self.values


@dataclass
class Batch:
    """The episodes of one iteration (one weight update)."""

    episodes: list[Episode]

    @property
    def steps(self) -> int:
        return sum(e.steps for e in self.episodes)

    def stats(self) -> dict:
        n = len(self.episodes)
        return {"episodes": n, "steps": self.steps,
                "success_rate": sum(e.success for e in self.episodes) / n,
                "caught_rate": sum(e.caught for e in self.episodes) / n,
                "mean_steps": self.steps / n,
                "mean_reward": float(np.mean([e.rewards.sum(axis=0).mean()
                                              for e in self.episodes]))}


class Episodes:
    """The environment and the bookkeeping of a run (module docstring)."""

    def __init__(self, cfg: LearningConfig):
        self.cfg = cfg
        self.env = make_parallel(cfg.env_id, **cfg.env_kwargs)
        self.agents = list(self.env.possible_agents)
        self.nagents = len(self.agents)
        self.obs_dim = int(np.prod(self.env.observation_space(self.agents[0]).shape))
        env_ss, act_ss = np.random.SeedSequence(cfg.seed).spawn(2)
        self._env_rng = np.random.default_rng(env_ss)
        self.rng = np.random.default_rng(act_ss)
        self.count = 0

    def _stack(self, obs: dict) -> np.ndarray:
        return np.stack([np.asarray(obs[a], np.float32).reshape(-1) for a in self.agents])

    def run(self, policy: Policy) -> Episode:
        """Play one episode with ``policy`` choosing the actions."""
        x, talk = self.begin()
        policy.begin_episode()
        while True:
            p_env, p_talk, value = policy.act(x, talk)
            x, talk, done = self.step(p_env, p_talk, value)
            if done:
                return self.end()

    # ---- the same episode one step at a time (the simulator's host answers the machine) --
    def begin(self) -> tuple[np.ndarray, np.ndarray]:
        """Start an episode: the first observations (A x D) and talk actions (zeros)."""
        obs, _ = self.env.reset(seed=int(self._env_rng.integers(2 ** 62)))
        self._rows: dict[str, list] = {"obs": [], "env": [], "talk": [], "r": [], "v": []}
        self._x = self._stack(obs)
        self._talk = np.zeros(self.nagents, dtype=np.int64)
        self._info = {}
        return self._x, self._talk

    def step(self, p_env, p_talk, value) -> tuple[np.ndarray, np.ndarray, bool]:
        """Draw the actions from the policy's probabilities, step the environment: the next
        observations, the talk actions just drawn, and whether the episode has ended."""
        a_env = sample(p_env, self.rng)
        talk = sample(p_talk, self.rng)
        obs, rew, term, trunc, info = self.env.step(
            {a: int(a_env[i]) for i, a in enumerate(self.agents)})
        rows = self._rows
        rows["obs"].append(self._x), rows["env"].append(a_env), rows["talk"].append(talk)
        rows["r"].append([rew[a] for a in self.agents])
        rows["v"].append(np.asarray(value, np.float64))
        self._x, self._talk, self._info = self._stack(obs), talk, info
        return self._x, talk, bool(all(term.values()) or all(trunc.values()))

    def end(self) -> Episode:
        """The episode just played."""
        rows = self._rows
        self.count += 1
        last = self._info[self.agents[0]]
        return Episode(np.stack(rows["obs"]), np.stack(rows["env"]), np.stack(rows["talk"]),
                       np.asarray(rows["r"], np.float64), np.stack(rows["v"]),
                       bool(last["success"]), bool(last["caught"]))

    def batch(self, policy: Policy, n: int | None = None) -> Batch:
        """``n`` episodes (default ``batch_episodes``)."""
        return Batch([self.run(policy) for _ in range(n or self.cfg.batch_episodes)])
