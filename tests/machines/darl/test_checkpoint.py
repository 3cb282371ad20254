"""A simulated DARL run stopped after a checkpoint and resumed from it ends as the
uninterrupted run does, bit for bit (every report field but the wall-clock ones, the
memories, the update caches), with one agent and with two agents that meet at the
butterfly's all-reduce every round: the agents are saved while each waits in its quantum
keeper, and resumed in the order SimPy would have woken them."""

from __future__ import annotations

import re

import numpy as np
import pytest

from rlaccel.isa.machine import machine
from rlaccel.programs import checkpoint as ckm
from rlaccel.machines.darl.task import AgentEnv
from rlaccel.programs.runner import _Setup, run
from tests.test_golden_results import stable

MANIFEST = str(machine("darl").programs / "cartpole.toml")
OVER = ["learning.d=64", "stages=4", "stop_at_target=false"]
IDENTITY = {"run": "darl test"}


def _setup(agents: int):
    return _Setup(MANIFEST, OVER + [f"agents={agents}"], arch=None, seed=None, trace=None,
                  progress=None, datapath=None, kernels="compiled", options={})


@pytest.mark.parametrize("agents, every", [(1, 7), (1, 60), (2, 9), (2, 70)])
def test_a_stopped_run_resumes_bit_for_bit(tmp_path, stopped_at_first_save, resumed_and_whole,
                                           agents, every):
    ck = tmp_path / "run.ckpt"
    saved = stopped_at_first_save(_setup(agents), ck, every, IDENTITY)
    saved_at = saved.get("exchanges", int)
    assert saved_at >= every

    resumed, whole = resumed_and_whole(lambda: _setup(agents), ck, every, IDENTITY, saved_at)
    for a, b in zip(resumed.platform.agents, whole.platform.agents):
        ca, cb = a.state["hdc"]["cache"], b.state["hdc"]["cache"]
        assert all(np.array_equal(x, y) for x, y in zip(ca.arrays, cb.arrays))
    assert len(resumed.r.state.curve.agent_returns) == 4


def test_checkpoints_along_the_way_change_nothing(tmp_path):
    over = OVER + ["agents=2"]
    a = run(MANIFEST, over)
    b = run(MANIFEST, over, checkpoint=tmp_path / "c.ckpt", checkpoint_every=5)
    assert b["sim"]["checkpoint"]["saves"] >= 5 and not (tmp_path / "c.ckpt").exists()
    del b["sim"]["checkpoint"]
    assert stable(a) == stable(b)


def test_lunarlander_is_saved_between_episodes_only():
    """Its Box2D bodies are not attributes a checkpoint holds; a reset rebuilds them from
    the environment's generator, which it does hold."""
    env = AgentEnv("LunarLander-v3")
    assert env.savable                                  # no episode yet
    env.reset(seed=1)
    assert not env.savable
    while not env.done:
        env.step(0)
    assert env.savable
    assert AgentEnv("CartPole-v1").savable and _cartpole_mid_episode().savable


def _cartpole_mid_episode():
    env = AgentEnv("CartPole-v1")
    env.reset(seed=1)
    env.step(0)
    return env


@pytest.mark.parametrize("change, message", [
    (lambda m: m.update(waiting=[]), "machine.waiting does not list agents [{other}] with "
                                     "their cycles"),
    (lambda m: m.update(answering=2), "machine.answering = 2 (must be between 0 and 1)"),
    (lambda m: m.update(interconnect=None), "its interconnect is not this machine's"),
], ids=["waiting", "answering", "interconnect"])
def test_a_machine_part_that_does_not_fit_is_refused(tmp_path, stopped_at_first_save, change,
                                                      message):
    ck = tmp_path / "run.ckpt"
    saved = stopped_at_first_save(_setup(2), ck, 9, IDENTITY)
    other = 1 - saved.fields["machine"]["answering"]
    change(saved.fields["machine"])
    ckm.write(ck, saved.identity, saved.fields, saved.arrays)
    with pytest.raises(ckm.CheckpointError, match=f"^{ck}: the checkpoint does not fit this "
                                                  f"run: {re.escape(message.format(other=other))}; "
                                                  f"delete it"):
        ckm.run_checkpointed(_setup(2), ck, 9, IDENTITY)
