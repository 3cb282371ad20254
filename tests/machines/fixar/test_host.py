"""The host: real MuJoCo environments, warm-up, replay, evaluation from fixed start states."""

import numpy as np
import pytest

from rlaccel.util.errors import RlaccelError
from rlaccel.machines.fixar.config import DdpgConfig
from rlaccel.machines.fixar.host import DdpgHost, env_dims, make_env, train


@pytest.mark.parametrize("env_id, dims", [("HalfCheetah-v5", (17, 6)), ("Hopper-v5", (11, 3)),
                                          ("Swimmer-v5", (8, 2))])
def test_the_seeds_environments(env_id, dims):
    """Seed 002 (VI-B) gives HalfCheetah 17/6 and Swimmer 8/2 like gymnasium; it gives
    Hopper a 6-dimensional action, but Hopper has 3 actuators."""
    env = make_env(env_id)
    assert env_dims(env) == dims and env.spec.max_episode_steps == 1000
    assert (env.action_space.low == -1).all() and (env.action_space.high == 1).all()


def test_bad_environment():
    with pytest.raises(RlaccelError, match="environment 'NoSuchEnv-v0'"):
        make_env("NoSuchEnv-v0")
    with pytest.raises(RlaccelError, match="flat Box observation and action"):
        env_dims(make_env("CartPole-v1"))


def test_reset_and_steps_are_seeded():
    a, b = DdpgHost(DdpgConfig(seed=3)), DdpgHost(DdpgConfig(seed=3))
    assert (a.state == b.state).all()
    for _ in range(20):
        act = a.random_action()
        assert (act == b.random_action()).all()
        a.apply(act)
        b.apply(act)
    assert (a.state == b.state).all() and a.t == 20


def test_apply_clips_and_stores_the_transition():
    h = DdpgHost(DdpgConfig(buffer=10, batch=2, start_steps=0))
    s0 = h.state
    h.apply(np.array([5.0, -5.0, 0.5, 0, 0, 0]))
    assert h.replay.size == 1 and (h.replay.a[0] == [1, -1, 0.5, 0, 0, 0]).all()
    assert (h.replay.s[0] == s0).all() and (h.replay.s2[0] == h.state).all()
    assert h.batch() is None                        # fewer transitions than a batch
    h.apply(np.zeros(6))
    assert h.batch()["s"].shape == (2, 17)
    with pytest.raises(RlaccelError, match="not finite"):
        h.apply(np.full(6, np.nan))


def test_warm_up_then_training_and_fixed_evaluation_states():
    cfg = DdpgConfig(env_id="Swimmer-v5", steps=60, start_steps=50, batch=4, eval_every=30,
                     eval_episodes=2)

    class Zero:
        calls = []

        def step(self, t, state, batch):
            self.calls.append((t, batch["s"].shape))
            return np.zeros(2)

        def act(self, state):
            return np.zeros(2)

    agent = Zero()
    host = DdpgHost(cfg)
    out = train(agent, host)
    assert [t for t, _ in agent.calls] == list(range(50, 60)) and agent.calls[0][1] == (4, 8)
    assert out["train_steps"] == 10 and out["learning"]["eval_steps"] == [30, 60]
    r = out["learning"]["returns"]
    assert r[0] == r[1]                   # same policy, same ten start states, same return


def test_mujoco_warnings_are_python_warnings_and_leave_no_log(tmp_path, monkeypatch, capfd):
    import warnings

    from rlaccel.machines.fixar import host
    monkeypatch.chdir(tmp_path)
    make_env("HalfCheetah-v5")            # its model sets the attribute MuJoCo 4 deprecates
    assert "settotalmass" not in capfd.readouterr().err
    assert not (tmp_path / "MUJOCO_LOG.TXT").exists()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        host._mujoco_warning("Nan, Inf or huge value in QACC at DOF 0.\n")
    assert [(w.category, str(w.message)) for w in seen] == [
        (host.MujocoWarning, "MuJoCo: Nan, Inf or huge value in QACC at DOF 0.")]
