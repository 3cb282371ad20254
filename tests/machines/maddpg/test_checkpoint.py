"""A simulated MADDPG run stopped after a checkpoint and resumed from it ends as the
uninterrupted run does, bit for bit (every report field but the wall-clock ones, the
learners' memories): the learners are saved at the start of a round, each waiting in its
quantum keeper for its batch, with the episode in progress in the MPE world (rounds every
ten steps, episodes of 25), the shared buffer, the streams and the policies; and the MPE
task alone continues an episode from its saved state step for step."""

from __future__ import annotations

import numpy as np
import pytest

from rlaccel.isa.machine import machine
from rlaccel.machines.maddpg.task import make_task
from rlaccel.programs import checkpoint as ckm
from rlaccel.programs.runner import _Setup, run
from tests.test_golden_results import stable

MANIFEST = str(machine("maddpg").programs / "speaker_listener.toml")
OVER = ["episodes=4", "learning.batch=16", "learning.hidden=[16, 16]",
        "learning.update_every=10", "learning.learning_starts=16"]
IDENTITY = {"run": "maddpg test"}


def _setup():
    return _Setup(MANIFEST, OVER, arch=None, seed=None, trace=None, progress=None,
                  datapath=None, kernels="compiled", options={})


@pytest.mark.parametrize("every", [3, 13])
def test_a_stopped_run_resumes_bit_for_bit(tmp_path, stopped_at_first_save, resumed_and_whole,
                                           every):
    ck = tmp_path / "run.ckpt"
    saved_at = stopped_at_first_save(_setup(), ck, every, IDENTITY).get("exchanges", int)
    assert saved_at >= every
    resumed, whole = resumed_and_whole(_setup, ck, every, IDENTITY, saved_at)
    assert resumed.r.state.training.rounds == whole.r.state.training.rounds > 3


def test_checkpoints_along_the_way_change_nothing(tmp_path):
    a = run(MANIFEST, OVER)
    b = run(MANIFEST, OVER, checkpoint=tmp_path / "c.ckpt", checkpoint_every=2)
    assert b["sim"]["checkpoint"]["saves"] >= 3 and not (tmp_path / "c.ckpt").exists()
    del b["sim"]["checkpoint"]
    assert stable(a) == stable(b)


@pytest.mark.parametrize("name", ["simple_speaker_listener_v4", "simple_tag_v3"])
def test_an_episode_continues_from_its_saved_state(tmp_path, name):
    rng = np.random.default_rng(0)
    a = make_task(name)
    a.reset(seed=5)
    for _ in range(7):
        a.step(a.random_actions(rng))
    arrays, fields = {}, {}
    ckm.nest("task", a.checkpoint_state(), arrays, fields)
    ckm.write(tmp_path / "t.ckpt", {}, fields, arrays)
    saved = ckm.read(tmp_path / "t.ckpt")
    b = make_task(name)
    b.restore(saved.part("task"))
    assert saved.used == set(saved.arrays)
    for _ in range(60):                                # past the episode's end and a reset
        acts = a.random_actions(rng)
        x, y = a.step(acts), b.step(acts)
        assert all(np.array_equal(p, q) for p, q in zip(x[0], y[0]))
        assert np.array_equal(x[1], y[1]) and x[3] == y[3]
        if x[3]:
            assert all(np.array_equal(p, q) for p, q in zip(a.reset(), b.reset()))
