"""LearningGroup's speed workload (``bench/speed.py``): IC3Net with grouping on
predator-prey (A = 4, G = 4, B = 16 episodes an iteration), the simulated machine (fp16)
against the float32 reference (:mod:`.reference`), per environment step."""

from __future__ import annotations

from rlaccel.programs.speed import Workload

__all__ = ["WORKLOAD"]


def _steps(report: dict) -> int:
    return report["learning"]["steps"]


def _reference(steps: int, seed: int) -> int:
    """Whole iterations of the reference until ``steps`` environment steps."""
    from rlaccel.isa.machine import machine
    from rlaccel.machines.learninggroup.config import NetConfig
    from rlaccel.machines.learninggroup.plugin import learning_config
    from rlaccel.machines.learninggroup.reference import Ic3netReference
    from rlaccel.programs.runner import configure
    _, m = configure(machine("learninggroup").programs / "predator_prey.toml", seed=seed)
    ref = Ic3netReference(NetConfig(hid=m["network"]["hid"], groups=m["network"]["groups"]),
                          learning_config(m))
    done = 0
    while done < steps:
        done += ref.iteration()["steps"]
    return done


WORKLOAD = Workload(
    title="predator-prey, A = 4, G = 4, B = 16",
    manifest="predator_prey.toml", option="steps",
    budgets={"quick": (300, 1500), "full": (300, 6000)},
    steps=_steps, reference=_reference,
    seeds={"quick": (2, 300), "full": (4, 1000)})
