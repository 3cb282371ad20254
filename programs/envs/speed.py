"""Measure the step rate of each plant: ``python -m programs.envs.speed [steps] [repeats]``.

Steps each env (default options, seeded random actions, reset on termination) and prints the
median steps per second over the repeats. A measurement tool, not a test: no thresholds.
"""

from __future__ import annotations

import statistics
import sys
import time

import gymnasium as gym
import numpy as np

from rlaccel.programs.envs import ENV_IDS


def steps_per_second(env_id: str, steps: int = 2000, repeats: int = 7,
                     **kwargs) -> list[float]:
    """Steps per second of ``env_id`` (unwrapped), one number per repeat."""
    env = gym.make(env_id, **kwargs).unwrapped
    actions = np.random.default_rng(0).uniform(-1.0, 1.0, size=(steps, 1))
    rates = []
    for _ in range(repeats):
        env.reset(seed=0)
        start = time.perf_counter()
        for a in actions:
            if env.step(a)[2]:
                env.reset()
        rates.append(steps / (time.perf_counter() - start))
    return rates


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    steps = int(argv[0]) if argv else 2000
    repeats = int(argv[1]) if len(argv) > 1 else 7
    for env_id in ENV_IDS:
        env = gym.make(env_id).unwrapped
        rates = steps_per_second(env_id, steps, repeats)
        print(f"{env_id:24s} substeps={env.substeps}  median {statistics.median(rates):8.0f} "
              f"steps/s  (min {min(rates):.0f}, max {max(rates):.0f})")


if __name__ == "__main__":
    main()
