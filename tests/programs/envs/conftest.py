"""Shared fixtures of the plant tests: make an env by id, roll it out under a policy."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import gymnasium as gym
import numpy as np
import pytest

import rlaccel.programs.envs  # noqa: F401  (registers the rlaccel/ ids)


@dataclass
class Rollout:
    """What one episode produced: states[0] is the reset state, then one row per step."""

    states: list[np.ndarray] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    infos: list[dict] = field(default_factory=list)
    terminated_at: int | None = None  # 1-based step index of the terminating step

    @property
    def array(self) -> np.ndarray:
        return np.array(self.states)


def rollout(env: gym.Env, policy: Callable[[int, np.ndarray], float], steps: int, *,
            seed: int | None = None, state=None, stop: bool = True) -> Rollout:
    """Reset ``env`` (with ``seed`` or an exact ``state``) and step ``policy(k, obs)``."""
    options = None if state is None else {"state": state}
    obs, _ = env.reset(seed=seed, options=options)
    out = Rollout(states=[obs])
    for k in range(1, steps + 1):
        obs, reward, terminated, truncated, info = env.step(
            np.array([policy(k, obs)], dtype=np.float64))
        out.states.append(obs)
        out.rewards.append(reward)
        out.infos.append(info)
        if terminated and out.terminated_at is None:
            out.terminated_at = k
            if stop:
                break
    return out


@pytest.fixture
def run() -> Callable[..., Rollout]:
    """The :func:`rollout` helper."""
    return rollout


def numerical_power(energy: Callable[[np.ndarray], float], state: np.ndarray,
                    derivative: np.ndarray, h: float = 1e-6) -> float:
    """dE/dt along ``derivative`` by a central difference of ``energy``."""
    return (energy(state + h * derivative) - energy(state - h * derivative)) / (2.0 * h)


@pytest.fixture
def power() -> Callable[..., float]:
    """The :func:`numerical_power` helper."""
    return numerical_power
