"""The environments as HDQL sees them (the DARL paper, section 6.1): gymnasium ``CartPole-v1``
(two actions, four features, 500 steps at most, target return 500) and ``LunarLander-v3``
(four actions, eight features, 1000 steps at most, target 200), one instance per agent.

:class:`AgentEnv` steps one environment and keeps the episode's return (the environment's own
rewards, what the targets are measured in) apart from the *training* reward stored in the
replay buffer: on CartPole the QHD code trains with -5 on the step that fails
(``terminal_reward``); a time-limit truncation is not a failure and keeps its +1.
Observations are float64 copies of the environment's float32 arrays.
"""

from __future__ import annotations

from typing import NamedTuple

import gymnasium as gym
import numpy as np

from rlaccel.programs.manifest import ManifestError

__all__ = ["AgentEnv", "Transition", "env_shape"]


def _make(env_id: str, **kwargs):
    try:
        env = gym.make(env_id, **kwargs)
    except (gym.error.Error, TypeError) as exc:
        raise ManifestError(f"environment {env_id!r}: {exc}") from None
    if not isinstance(env.action_space, gym.spaces.Discrete):
        raise ManifestError(f"environment {env_id!r}: HDQL needs discrete actions, not "
                            f"{env.action_space}")
    if len(env.observation_space.shape) != 1:
        raise ManifestError(f"environment {env_id!r}: HDQL needs a flat observation vector, "
                            f"not shape {env.observation_space.shape}")
    return env


def env_shape(env_id: str) -> tuple[int, int]:
    """``(features N, actions A)`` of an environment."""
    env = _make(env_id)
    shape = (int(env.observation_space.shape[0]), int(env.action_space.n))
    env.close()
    return shape


class Transition(NamedTuple):
    """One environment step of one agent."""

    obs: np.ndarray
    action: int
    train_reward: float          # what the replay buffer stores
    next_obs: np.ndarray
    terminated: bool
    truncated: bool
    env_reward: float            # what the episode's return counts


class AgentEnv:
    """One agent's environment, its current observation and its episode bookkeeping
    (``make_kwargs`` go to ``gymnasium.make``, e.g. ``max_episode_steps``)."""

    def __init__(self, env_id: str, terminal_reward: float | None = None, **make_kwargs):
        self.env = _make(env_id, **make_kwargs)
        self.n_obs = int(self.env.observation_space.shape[0])
        self.n_actions = int(self.env.action_space.n)
        self.terminal_reward = terminal_reward
        self.obs: np.ndarray | None = None
        self.ret = 0.0
        self.steps = 0
        self.done = True

    def reset(self, seed: int | None = None) -> np.ndarray:
        """Start an episode (``seed`` seeds the environment's generator, the first time)."""
        obs, _ = self.env.reset(seed=seed)
        self.obs = np.asarray(obs, dtype=np.float64)
        self.ret, self.steps, self.done = 0.0, 0, False
        return self.obs

    def step(self, action: int) -> Transition:
        """Take ``action``; the transition to store, with the training reward."""
        if self.done:
            raise ManifestError("AgentEnv: step after the episode ended (reset first)")
        nxt, r, term, trunc, _ = self.env.step(int(action))
        nxt = np.asarray(nxt, dtype=np.float64)
        r = float(r)
        train_r = self.terminal_reward if (term and self.terminal_reward is not None) else r
        t = Transition(self.obs, int(action), float(train_r), nxt, bool(term), bool(trunc), r)
        self.ret += r
        self.steps += 1
        self.obs = nxt
        self.done = bool(term or trunc)
        return t

    @property
    def savable(self) -> bool:
        """Whether :meth:`checkpoint_state` can hold the environment now: always for one
        whose state is plain attributes (CartPole), between episodes only for a Box2D one
        (LunarLander: its bodies are rebuilt from the generator at every reset)."""
        return self.done or not hasattr(self.env.unwrapped, "world")

    def checkpoint_state(self) -> tuple[dict, dict]:
        """The environment (:func:`~rlaccel.programs.checkpoint.env_state`) and the
        episode's observation, return and steps, as ``(arrays, fields)``."""
        from rlaccel.programs.checkpoint import env_state, nest
        arrays = {} if self.obs is None else {"obs": self.obs}
        fields = {"ret": self.ret, "steps": self.steps, "done": self.done,
                  "has_obs": self.obs is not None}
        nest("env", env_state(self.env), arrays, fields)
        return arrays, fields

    def restore(self, saved) -> None:
        """Continue from :meth:`checkpoint_state`'s state in this fresh environment."""
        from rlaccel.programs.checkpoint import set_env_state
        set_env_state(self.env, saved.part("env"))
        self.obs = (saved.array("obs", np.float64, (self.n_obs,))
                    if saved.get("has_obs", bool) else None)
        self.ret = saved.get("ret", float)
        self.steps = saved.get("steps", int, lo=0)
        self.done = saved.get("done", bool)

    def close(self) -> None:
        self.env.close()
