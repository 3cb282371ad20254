"""FIXAR's speed workload (``bench/speed.py``): DDPG training on HalfCheetah at B = 64 after
a random warm-up, the simulated machine (fixed32) against the float32 reference
(:mod:`.reference`), per environment step (the budgets' difference is all training
steps)."""

from __future__ import annotations

from rlaccel.programs.speed import Workload

__all__ = ["WORKLOAD"]

#: uniform random steps before training (both budgets include them, so they cancel)
WARM = 300
_OVERRIDES = (f"learning.start_steps={WARM}", "learning.eval_every=1000000000")


def _steps(report: dict) -> int:
    return report["config"]["steps"]


def _reference(steps: int, seed: int) -> int:
    from rlaccel.machines.fixar.config import DdpgConfig
    from rlaccel.machines.fixar.reference import run
    run(DdpgConfig(env_id="HalfCheetah-v5", seed=seed, steps=steps, start_steps=WARM,
                   eval_every=10 ** 9))
    return steps


WORKLOAD = Workload(
    title="HalfCheetah, B = 64",
    manifest="halfcheetah.toml", option="steps", overrides=_OVERRIDES,
    budgets={"quick": (WARM + 20, WARM + 220), "full": (WARM + 50, WARM + 1050)},
    steps=_steps, reference=_reference,
    seeds={"quick": (2, WARM + 50), "full": (4, WARM + 300)})
