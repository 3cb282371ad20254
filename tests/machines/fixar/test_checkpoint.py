"""A simulated FIXAR run stopped after a checkpoint and resumed from it trains on bit for
bit: the same evaluation and episode returns, online and target weights, Adam moments and
QAT quantisers as the uninterrupted run (a checkpoint before and one after the freeze); the
host's environment continues mid-episode; a checkpoint of another run is refused."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from rlaccel.machines.fixar import checkpoint as ckm
from rlaccel.machines.fixar.config import DdpgConfig
from rlaccel.machines.fixar.host import DdpgHost
from rlaccel.isa.machine import machine

HERE = machine("fixar").programs
PENDULUM = str(HERE / "pendulum.toml")
OVER = ["learning.hidden=[32, 24]", "learning.batch=8", "learning.start_steps=100",
        "learning.eval_every=50", "learning.eval_episodes=1", "learning.qat_delay=150"]
STEPS = 300


class _Stop(Exception):
    pass


def _memories(s) -> dict:
    return {k: m.data.copy() for k, m in s.platform.agents[0].memories.items()}


@pytest.mark.parametrize("every", [125, 175], ids=["before-freeze", "after-freeze"])
def test_a_stopped_run_resumes_bit_for_bit(tmp_path, monkeypatch, every):
    ck = tmp_path / "run.ckpt"
    save = ckm.Checkpointer.save

    def save_then_stop(self, driver):
        save(self, driver)
        raise _Stop

    monkeypatch.setattr(ckm.Checkpointer, "save", save_then_stop)
    s = ckm.prepare(PENDULUM, OVER, checkpoint=ck, every=every, steps=STEPS)
    with pytest.raises(_Stop):
        s.platform.run()
    monkeypatch.undo()
    assert pickle.loads(ck.read_bytes())["t"] == every

    resumed = ckm.prepare(PENDULUM, OVER, checkpoint=ck, every=every, steps=STEPS)
    res_a = resumed.platform.run()
    whole = ckm.prepare(PENDULUM, OVER, checkpoint=tmp_path / "other.ckpt", every=10 ** 6,
                        steps=STEPS)
    res_b = whole.platform.run()
    a, b = resumed.r.state, whole.r.state
    assert a.resumed_at == every and b.resumed_at is None
    assert a.host.learning() == b.host.learning()
    assert len(a.host.evals) == STEPS // 50 and a.quantized_at == b.quantized_at == 150
    mine, theirs = _memories(resumed), _memories(whole)
    syn = mine["synapse"] != theirs["synapse"]
    assert not syn.any(), f"{syn.sum()} synapse words differ"
    fa = resumed.platform.agents[0].state["fixar"]
    fb = whole.platform.agents[0].state["fixar"]
    assert fa.qat_report() == fb.qat_report() != {}
    assert np.array_equal(fa.prng[1].state(), fb.prng[1].state())
    # the report: the whole learning curve; the accelerator counts the resumed part only
    ra, rb = resumed.report(res_a), whole.report(res_b)
    assert ra["learning"] == rb["learning"] and ra["resumed_at"] == every
    assert (ra["train_steps"], rb["train_steps"]) == (STEPS - every, STEPS - 100)


def test_the_host_continues_mid_episode():
    """A pickled host (HalfCheetah, 1000-step episodes) steps on like the original across
    an episode's end: the environment's MuJoCo state, time limit and generators are kept."""
    cfg = DdpgConfig(env_id="HalfCheetah-v5", seed=4, steps=2000, start_steps=2000)
    h = DdpgHost(cfg)
    for _ in range(980):
        h.apply(h.random_action())
    h2 = pickle.loads(pickle.dumps(h))
    assert h2.replay.s.shape == h.replay.s.shape and h2.replay.size == 980
    for _ in range(40):
        a = h.random_action()
        assert np.array_equal(a, h2.random_action())
        h.apply(a)
        h2.apply(a)
        assert np.array_equal(h.obs, h2.obs)
    assert h.episodes == h2.episodes and len(h.episodes) == 1
    rng = np.random.default_rng(0)
    b1 = h.replay.sample(16, rng)
    b2 = h2.replay.sample(16, np.random.default_rng(0))
    assert all(np.array_equal(b1[k], b2[k]) for k in b1)


def test_a_checkpoint_of_another_run_is_refused(tmp_path):
    ck = tmp_path / "c.ckpt"
    ck.write_bytes(pickle.dumps({"format": ckm.FORMAT, "fingerprint": {"seed": 9}}))
    with pytest.raises(ckm.FixarCheckpointError, match=r"made by another run \(it differs in "):
        ckm.prepare(PENDULUM, OVER, checkpoint=ck, every=100, steps=STEPS)
    ck.write_bytes(b"not a pickle")
    with pytest.raises(ckm.FixarCheckpointError, match="not a FIXAR checkpoint"):
        ckm.prepare(PENDULUM, OVER, checkpoint=ck, every=100, steps=STEPS)
    with pytest.raises(ckm.FixarCheckpointError, match="at least 1 step, not 0"):
        ckm.Checkpointer(tmp_path / "n.ckpt", 0, {})
