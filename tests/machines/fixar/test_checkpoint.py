"""A simulated FIXAR run stopped after a checkpoint and resumed from it ends as the
uninterrupted run does, bit for bit: the same report in every field but the wall-clock ones
(evaluation and episode returns, accelerator cycles and energy, QAT quantisers), the same
online and target weights and Adam moments, PRNG registers (a checkpoint before the QAT
freeze, one at the freeze's own exchange and one after it); the host's environment continues
mid-episode; a checkpoint of another run is refused."""

from __future__ import annotations

import numpy as np
import pytest

from rlaccel.machines.fixar.config import DdpgConfig
from rlaccel.machines.fixar.host import DdpgHost
from rlaccel.programs import checkpoint as ckm
from rlaccel.programs.runner import _Setup, run
from rlaccel.isa.machine import machine
from tests.test_golden_results import stable

HERE = machine("fixar").programs
PENDULUM = str(HERE / "pendulum.toml")
OVER = ["learning.hidden=[32, 24]", "learning.batch=8", "learning.start_steps=100",
        "learning.eval_every=50", "learning.eval_episodes=1", "learning.qat_delay=150"]
STEPS = 300
IDENTITY = {"run": "fixar test"}


def _setup():
    return _Setup(PENDULUM, OVER, arch=None, seed=None, trace=None, progress=None,
                  datapath=None, kernels="compiled", options={"steps": STEPS})


def _memories(s) -> dict:
    return {k: m.data.copy() for k, m in s.platform.agents[0].memories.items()}


# every: the first checkpoint's exchange. 400 falls in an evaluation (exchanges 201-400 and
# 401 are the evaluations at steps 50 and 100), so the run is saved at the next training
# request, exchange 402, step 100; 652 is the request that freezes (step 150); 680 is after it.
@pytest.mark.parametrize("every, saved_at, step", [(400, 402, 100), (652, 652, 150),
                                                   (680, 680, 178)],
                         ids=["before-freeze", "at-freeze", "after-freeze"])
def test_a_stopped_run_resumes_bit_for_bit(tmp_path, stopped_at_first_save, every, saved_at,
                                           step):
    ck = tmp_path / "run.ckpt"
    saved = stopped_at_first_save(_setup(), ck, every, IDENTITY)
    driver = saved.part("host")
    assert saved.get("exchanges", int) == saved_at
    assert driver.part("host").get("t", int) == step
    assert driver.get("quantized_at", int, none=True) == (None if step < 150 else 150)

    resumed = _setup()
    res_a = ckm.run_checkpointed(resumed, ck, every, IDENTITY)
    whole = _setup()
    res_b = whole.platform.run()                       # the uninterrupted run, as run() does
    assert resumed.checkpoint["resumed_at"] == saved_at and not ck.exists()
    a, b = resumed.r.state, whole.r.state
    assert a.host.learning() == b.host.learning()
    assert len(a.host.evals) == STEPS // 50 and a.quantized_at == b.quantized_at == 150
    mine, theirs = _memories(resumed), _memories(whole)
    syn = mine["synapse"] != theirs["synapse"]
    assert not syn.any(), f"{syn.sum()} synapse words differ"
    assert all(np.array_equal(mine[k], theirs[k]) for k in theirs)
    fa = resumed.platform.agents[0].state["fixar"]
    fb = whole.platform.agents[0].state["fixar"]
    assert fa.qat_report() == fb.qat_report() != {}
    assert np.array_equal(fa.prng[1].state(), fb.prng[1].state())
    ra, rb = resumed.report(res_a), whole.report(res_b)
    assert stable(ra) == stable(rb)                    # cycles, energy, IPS, curve, QAT
    assert ra["train_steps"] == STEPS - 100 and ra["resumed_at"] is None


def test_the_host_continues_mid_episode(tmp_path):
    """A host saved to a checkpoint file (HalfCheetah, 1000-step episodes) and restored into
    a fresh one steps on like the original across an episode's end: the environment's MuJoCo
    state, time limit and generators, the replay buffer and the curve are kept."""
    cfg = DdpgConfig(env_id="HalfCheetah-v5", seed=4, steps=2000, start_steps=2000)
    h = DdpgHost(cfg)
    for _ in range(980):
        h.apply(h.random_action())
    arrays, fields = h.checkpoint_state()
    ckm.write(tmp_path / "host.ckpt", IDENTITY, fields, arrays)
    h2 = DdpgHost(cfg)
    h2.restore(ckm.read(tmp_path / "host.ckpt"))
    assert h2.replay.s.shape == h.replay.s.shape and h2.replay.size == 980
    for _ in range(40):
        a = h.random_action()
        assert np.array_equal(a, h2.random_action())
        h.apply(a)
        h2.apply(a)
        assert np.array_equal(h.obs, h2.obs)
    assert h.episodes == h2.episodes and len(h.episodes) == 1
    b1 = h.replay.sample(16, np.random.default_rng(0))
    b2 = h2.replay.sample(16, np.random.default_rng(0))
    assert all(np.array_equal(b1[k], b2[k]) for k in b1)


def test_a_checkpoint_of_another_run_is_refused(tmp_path):
    ck = tmp_path / "c.ckpt"
    ckm.write(ck, {"seed": 9}, {"exchanges": 1}, {})
    with pytest.raises(ckm.CheckpointError, match=r"made by another run \(it differs in "):
        run(PENDULUM, OVER, steps=STEPS, checkpoint=ck, checkpoint_every=100)
    ck.write_bytes(b"not a checkpoint")
    with pytest.raises(ckm.CheckpointError, match="not an rlaccel checkpoint"):
        run(PENDULUM, OVER, steps=STEPS, checkpoint=ck, checkpoint_every=100)
    with pytest.raises(ckm.CheckpointError, match="at least 1, not 0"):
        run(PENDULUM, OVER, steps=STEPS, checkpoint=tmp_path / "n.ckpt", checkpoint_every=0)


def test_family_state_that_does_not_fit_is_refused(tmp_path, stopped_at_first_save):
    """A checkpoint rewritten with a fresh digest whose QAT quantisers or PRNG registers are
    not what the ddpg family keeps is refused by name, not run."""
    ck = tmp_path / "run.ckpt"
    saved = stopped_at_first_save(_setup(), ck, 652, IDENTITY)
    family = saved.fields["host"]["fixar"]
    assert family["qparams"]
    again = "; delete it to start afresh, or give another --checkpoint file"

    family["qparams"][0][2] = "0.5"
    ckm.write(ck, IDENTITY, saved.fields, saved.arrays)
    with pytest.raises(ckm.CheckpointError, match=f"^{ck}: the checkpoint does not fit this "
                       r"run: its QAT quantisers are not \(monitored slot, bits, delta, zero, "
                       f"exponent\\){again}$"):
        ckm.run_checkpointed(_setup(), ck, 652, IDENTITY)

    saved = ckm.read(ck)
    saved.fields["host"]["fixar"]["qparams"] = family["qparams"][:0]
    saved.arrays["host.fixar.prng.1"][:] = 0
    ckm.write(ck, IDENTITY, saved.fields, saved.arrays)
    with pytest.raises(ckm.CheckpointError, match=r"PRNG stream 1: PRNG: a state must be "
                                                  r"\(16, 6\) nonzero words; delete it"):
        ckm.run_checkpointed(_setup(), ck, 652, IDENTITY)
