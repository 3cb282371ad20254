"""A simulated LearningGroup run stopped after a checkpoint and resumed from it ends as the
uninterrupted run does, bit for bit (every report field but the wall-clock ones, the
memories, the sparse family's tuples, layers and counters); the host is saved between
episodes only (an exchange inside one is passed over, the next tried)."""

from __future__ import annotations

import pytest

from rlaccel.isa.machine import machine
from rlaccel.programs.runner import _Setup

MANIFEST = str(machine("learninggroup").programs / "predator_prey.toml")
OVER = ["learning.batch_episodes=2", "network.hid=16", "environment_kwargs.max_steps=6"]
STEPS = 40
IDENTITY = {"run": "learninggroup test"}


def _setup():
    return _Setup(MANIFEST, OVER, arch=None, seed=None, trace=None, progress=None,
                  datapath=None, kernels="compiled", options={"steps": STEPS})


@pytest.mark.parametrize("every", [3, 25])
def test_a_stopped_run_resumes_bit_for_bit(tmp_path, stopped_at_first_save, resumed_and_whole,
                                           every):
    ck = tmp_path / "run.ckpt"
    saved_at = stopped_at_first_save(_setup(), ck, every, IDENTITY).get("exchanges", int)
    assert saved_at >= every
    resumed, whole = resumed_and_whole(_setup, ck, every, IDENTITY, saved_at)
    a, b = (s.platform.agents[0] for s in (resumed, whole))
    assert a.state["sparse"].counters == b.state["sparse"].counters
