"""DARL's speed workload (``bench/speed.py``): one agent learning CartPole, the machine
(fixed32 on the simulator) against the float64 reference (:mod:`.reference`) driven by the
same host loop (:class:`.training.Training`), per environment step."""

from __future__ import annotations

from rlaccel.programs.speed import Workload

__all__ = ["WORKLOAD"]


def _steps(report: dict) -> int:
    return report["learning"]["env_steps"]


def _reference(steps: int, seed: int) -> int:
    """The float64 learner for whole stages until ``steps`` environment steps (the run's
    ``--steps``: the first stage end after them)."""
    from rlaccel.machines.darl.config import task_config
    from rlaccel.machines.darl.reference import HdqlReference
    from rlaccel.machines.darl.task import env_shape
    from rlaccel.machines.darl.training import Training, streams
    cfg = task_config("cartpole", agents=1, number="float64", seed=seed)
    n, a = env_shape(cfg.env)
    tr = Training(cfg, learner=HdqlReference(cfg, n, a, streams(cfg.seed, 1)["init"]))
    while tr.steps < steps:
        tr.run_stage()
    return tr.steps


WORKLOAD = Workload(
    title="CartPole, 1 agent, D = 2048",
    manifest="cartpole.toml", option="steps",
    overrides=("stop_at_target=false", "stages=1000000"),
    budgets={"quick": (300, 3000), "full": (500, 10000)},
    steps=_steps, reference=_reference,
    seeds={"quick": (4, 500), "full": (8, 2000)})
