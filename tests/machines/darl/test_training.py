"""The host loop: a training stage is one episode of every agent, epsilon-greedy with a
kernel call only for greedy steps, one batch per step, the synchronisation once per stage
or after every round of steps, seeded throughout."""

import numpy as np

from rlaccel.machines.darl.config import task_config
from rlaccel.machines.darl.training import Curve, Training, streams


class Recorder:
    """A learner that records the calls and acts 0."""

    def __init__(self):
        self.acts, self.trains, self.syncs = [], [], 0

    def act(self, k, obs):
        self.acts.append(k)
        return 0

    def train(self, k, batch):
        self.trains.append((k, len(batch)))

    def end_stage(self):
        self.syncs += 1


def test_stage_schedule_with_two_agents():
    cfg = task_config("cartpole", agents=2, epsilon=0.5, stages=3, d=64, sync_every="episode")
    rec = Recorder()
    tr = Training(cfg, learner=rec)
    tr.run()
    c = tr.curve
    assert rec.syncs == 3 and len(c.agent_returns) == 3 and all(len(r) == 2 for r in
                                                                 c.agent_returns)
    steps = sum(sum(s) for s in c.agent_steps)
    assert steps == tr.steps == len(rec.trains) == sum(c.batches)
    assert len(rec.acts) == sum(c.greedy) < steps          # random steps make no kernel call
    assert c.epsilon == [0.5, 0.5 * 0.99, 0.5 * 0.99 ** 2]
    assert [n for _, n in rec.trains[:4]] == [1, 1, 2, 2]   # all stored while fewer than M
    assert max(n for _, n in rec.trains) == 8
    assert c.agent_returns[0] == [float(s) for s in c.agent_steps[0]]   # CartPole pays 1/step
    assert tr.summary()["env_steps"] == steps


def test_several_agents_synchronise_after_every_round_by_default():
    """A round is every active agent's step and batch; the last round's synchronisation is
    the stage end, so a stage synchronises once per step of its longest episode."""
    cfg = task_config("cartpole", agents=2, epsilon=0.5, stages=3, d=64)
    assert cfg.sync_each_step and not task_config("cartpole").sync_each_step
    rec = Recorder()
    tr = Training(cfg, learner=rec)
    tr.run()
    assert rec.syncs == sum(max(s) for s in tr.curve.agent_steps)
    one = Recorder()
    Training(task_config("cartpole", stages=3, d=64, sync_every="step"), learner=one).run()
    assert one.syncs == len(one.trains)                    # one agent told to: every step


def test_same_seed_same_run():
    cfg = task_config("cartpole", stages=4, d=64, seed=5)
    a, b = Training(cfg), Training(cfg)
    a.run()
    b.run()
    assert a.curve.agent_returns == b.curve.agent_returns
    assert np.array_equal(a.learner.tr, b.learner.tr)
    c = Training(task_config("cartpole", stages=4, d=64, seed=6))
    c.run()
    assert not np.array_equal(a.learner.P, c.learner.P)


def test_streams_are_independent_per_agent():
    s = streams(1, 4)
    assert len(set(s["env_seeds"])) == 4
    assert len({g.random() for g in s["explore"]}) == 4


def test_curve_bookkeeping():
    c = Curve(agent_returns=[[10, 20], [500, 480], [500, 500]])
    assert c.returns == [15.0, 490.0, 500.0]
    assert c.first_stage(500) == 3 and c.first_stage(500, "any") == 2
    assert c.first_stage(1000) is None
    assert c.moving_mean(2) == [15.0, 252.5, 495.0]


def test_fixed32_learner_runs_a_stage():
    cfg = task_config("cartpole", number="fixed32", stages=1, d=64)
    tr = Training(cfg)
    tr.run()
    assert tr.learner.fixed and tr.stages == 1
