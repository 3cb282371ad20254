"""MADDPG's speed workload (``bench/speed.py``): speaker-listener with update rounds at
B = 1024 (every 100 steps once the buffer holds a batch), the simulated machine (two
learners on the ring, fp32) against the float32 reference (:mod:`.reference`), per
environment step."""

from __future__ import annotations

from rlaccel.programs.speed import Workload

__all__ = ["WORKLOAD"]

#: the buffer's fill before the first update round (both budgets include it)
START = 1024
_OVERRIDES = (f"learning.learning_starts={START}",)


def _steps(report: dict) -> int:
    return report["learning"]["steps"]


def _reference(steps: int, seed: int) -> int:
    from dataclasses import replace

    from rlaccel.isa.machine import machine
    from rlaccel.machines.maddpg.plugin import config
    from rlaccel.machines.maddpg.reference import MaddpgReference
    from rlaccel.machines.maddpg.training import Training
    from rlaccel.programs.runner import configure
    _, m = configure(machine("maddpg").programs / "speaker_listener.toml", list(_OVERRIDES),
                     seed=seed, steps=steps)
    cfg = config(m)
    tr = Training(cfg)
    ref = MaddpgReference(cfg, tr.task.specs, tr.rng["init"])
    while tr.steps < steps:
        tr.step(ref.act)
        if tr.due():
            ref.update(tr.batches())
    return tr.steps


WORKLOAD = Workload(
    title="speaker-listener, B = 1024, update rounds",
    manifest="speaker_listener.toml", option="steps", overrides=_OVERRIDES,
    budgets={"quick": (START + 100, START + 5100), "full": (START + 100, START + 20100)},
    steps=_steps, reference=_reference,
    seeds={"quick": (2, START + 200), "full": (4, START + 1000)})
