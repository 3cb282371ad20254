"""Training-in-simulation: the update schedule, the curves, the random streams (same seed,
same bits), the timing of sample generation and updates."""

import numpy as np
import pytest

from rlaccel.machines.maddpg.config import MaddpgConfig
from rlaccel.machines.maddpg.reference import MaddpgReference
from rlaccel.machines.maddpg.training import Curve, RandomPolicy, Training, streams


class Counting(RandomPolicy):
    def __init__(self, task):
        super().__init__(task)
        self.updates = []

    def update(self, batches):
        self.updates.append(batches)
        return {}


def test_schedule_learning_starts_then_every_k_steps():
    """Rounds follow steps t with t % update_every == 0 once the buffer holds `start` steps:
    start 60, every 20, 4 episodes of 25 steps -> rounds after steps 60, 80, 100."""
    cfg = MaddpgConfig(episodes=4, batch=8, learning_starts=60, update_every=20)
    tr = Training(cfg)
    learner = Counting(tr.task)
    tr.run(learner)
    assert (tr.steps, tr.rounds, len(learner.updates), tr.episodes) == (100, 3, 3, 4)
    b = learner.updates[0]
    assert len(b) == 2 and b[0] is b[1] and b[0].size == 8      # one shared batch


def test_batch_per_agent_when_not_shared():
    tr = Training(MaddpgConfig(env="simple_tag_v3", episodes=1, batch=4, learning_starts=25,
                               update_every=25, shared_batch=False))
    learner = Counting(tr.task)
    tr.run(learner)
    b = learner.updates[0]
    assert len(b) == 4 and len({id(x) for x in b}) == 4


def test_curves_and_touches():
    """Episode returns are the sum over agents; Predator-Prey also records touches (a
    predator's return / 10) and every agent's return."""
    tr = Training(MaddpgConfig(env="simple_tag_v3", episodes=6, learning_starts=10**6))
    c = tr.run(RandomPolicy(tr.task))
    assert len(c.returns) == len(c.touches) == len(c.agent_returns) == 6
    for total, parts, touches in zip(c.returns, c.agent_returns, c.touches):
        assert total == pytest.approx(sum(parts), rel=1e-5)
        assert touches == parts[0] / 10 == parts[1] / 10 and touches >= 0
    assert Curve(returns=[1, 2, 3, 4, 5]).window_means(2) == [1.5, 3.5]


def run(seed, episodes=6):
    cfg = MaddpgConfig(episodes=episodes, seed=seed, batch=32, learning_starts=50,
                       update_every=10, hidden=(16, 16))
    tr = Training(cfg)
    ref = MaddpgReference(cfg, tr.task.specs, tr.rng["init"])
    tr.run(ref)
    return tr, ref


def weights(ref):
    return b"".join(p.tobytes() for ag in ref.agents
                    for net in (ag.actor, ag.critic, ag.target_actor, ag.target_critic)
                    for layer in net for p in layer)


def test_same_seed_same_bits():
    """Two runs with one seed have identical curves and weights; another seed differs."""
    (t1, r1), (t2, r2), (t3, r3) = run(3), run(3), run(4)
    assert t1.rounds == 11 and r1.rounds == 11           # steps 50, 60, ..., 150
    assert t1.curve.returns == t2.curve.returns and weights(r1) == weights(r2)
    assert t1.curve.returns != t3.curve.returns and weights(r1) != weights(r3)


def test_streams_are_independent_and_seeded():
    a, b = streams(1), streams(1)
    assert a["env_seed"] == b["env_seed"] != streams(2)["env_seed"]
    assert a["act"].random() == b["act"].random() != a["replay"].random()


def test_timing_counts_both_phases():
    tr, _ = run(1, episodes=4)
    t = tr.timing()
    assert t["steps"] == 100 and t["rounds"] == 6
    assert t["t_sg_per_step"] > 0 and t["t_learn_per_round"] > 0 and t["t_sample_per_round"] > 0
    assert np.isfinite(list(v for v in t.values())).all()
