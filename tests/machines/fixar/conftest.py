"""Small DDPG fixtures: tiny networks so the tests run in seconds."""

import numpy as np
import pytest

from rlaccel.machines.fixar.config import DdpgConfig

S, A = 3, 2


@pytest.fixture
def tiny():
    """A configuration with 6-5 hidden layers (the algorithm is the same at 400-300)."""
    return DdpgConfig(hidden=(6, 5), batch=8, steps=400, start_steps=100, eval_every=200,
                      eval_episodes=1, buffer=1000)


@pytest.fixture
def batch():
    rng = np.random.default_rng(11)
    return {"s": rng.normal(size=(8, S)).astype(np.float32),
            "a": rng.uniform(-1, 1, size=(8, A)).astype(np.float32),
            "r": rng.normal(size=8).astype(np.float32),
            "s2": rng.normal(size=(8, S)).astype(np.float32),
            "done": (rng.uniform(size=8) < 0.25).astype(np.float32)}
