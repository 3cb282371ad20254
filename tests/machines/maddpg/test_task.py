"""The MPE tasks as the reference sees them: agents and widths, continuous (soft one-hot)
actions, the original MPE's shared reward on collaborative worlds, 25-step episodes."""

import numpy as np
import pytest

from rlaccel.machines.maddpg.task import make_task
from rlaccel.programs.manifest import ManifestError


def test_speaker_listener_agents():
    """Speaker: obs 3 (goal colour), 3 words; listener: obs 11, 5 moves; both MADDPG."""
    t = make_task("simple_speaker_listener_v4")
    assert t.agents == ("speaker_0", "listener_0")
    assert (t.obs_dims, t.act_dims) == ((3, 11), (3, 5))
    assert [s.policy for s in t.specs] == ["maddpg", "maddpg"] and t.shared_reward


def test_tag_agents_and_ddpg_prey():
    """Three predators (obs 16) trained by MADDPG, one faster prey (obs 14) by DDPG."""
    t = make_task("simple_tag_v3")
    assert t.agents == ("adversary_0", "adversary_1", "adversary_2", "agent_0")
    assert (t.obs_dims, t.act_dims) == ((16, 16, 16, 14), (5, 5, 5, 5))
    assert [s.policy for s in t.specs] == ["maddpg"] * 3 + ["ddpg"]
    assert [s.adversary for s in t.specs] == [True] * 3 + [False]
    assert not t.shared_reward                    # not a collaborative world
    assert [s.policy for s in make_task("simple_tag_v3", policies={"agent_0": "maddpg"})
            .specs] == ["maddpg"] * 4


def test_shared_reward_is_the_sum_and_episodes_last_25_steps():
    """With shared_reward every speaker-listener agent gets the sum of both agents' rewards,
    -2 d^2 (twice MPE2's own); the same seed gives the same episode; it ends after 25 steps
    with done = 0 (MPE never terminates)."""
    shared, own = make_task("simple_speaker_listener_v4"), \
        make_task("simple_speaker_listener_v4", shared_reward=False)
    shared.reset(seed=3), own.reset(seed=3)
    rng = np.random.default_rng(0)
    for k in range(25):
        acts = shared.random_actions(rng)
        o1, r1, d1, over1 = shared.step(acts)
        o2, r2, d2, over2 = own.step(acts)
        assert all((a == b).all() for a, b in zip(o1, o2))
        assert r2[0] == r2[1] < 0 and r1.tolist() == [2 * r2[0]] * 2
        assert d1.tolist() == [0, 0] and over1 == (k == 24)
    assert r1.dtype == np.float32 and o1[1].dtype == np.float32


def test_continuous_actions_move_the_listener():
    """A soft action vector accelerates the listener by 5 (its sensitivity) along
    a[2] - a[1] (x) and a[4] - a[3] (y): after one 0.1 s step its observed velocity (the first
    two entries of its observation) is 0.5 * (a[2] - a[1], a[4] - a[3])."""
    t = make_task("simple_speaker_listener_v4")
    t.reset(seed=1)
    o, *_ = t.step([np.float32([1, 0, 0]), np.float32([0, 0, 1, 0, 0])])
    np.testing.assert_allclose(o[1][:2], [0.5, 0.0])
    t.reset(seed=1)
    o, *_ = t.step([np.float32([1, 0, 0]), np.float32([0, 0, 0, 0.75, 0.25])])
    np.testing.assert_allclose(o[1][:2], [0.0, -0.25])


def test_random_actions_are_one_hot():
    t = make_task("simple_tag_v3")
    acts = t.random_actions(np.random.default_rng(1))
    assert all(a.sum() == 1 and set(a.tolist()) <= {0.0, 1.0} for a in acts)


@pytest.mark.parametrize("call, message", [
    (lambda: make_task("simple_spread_v3"),
     "environment 'simple_spread_v3' is not a MADDPG task: known tasks are "
     "simple_speaker_listener_v4, simple_tag_v3"),
    (lambda: make_task("simple_tag_v3", policies={"prey": "ddpg"}),
     "simple_tag_v3: no agent named prey"),
    (lambda: make_task("simple_tag_v3", policies={"agent_0": "dqn"}),
     "policy of agent_0 must be 'maddpg' or 'ddpg', not 'dqn'"),
    (lambda: make_task("simple_tag_v3", max_cycles=0), "max_cycles must be a positive integer"),
    (lambda: make_task("simple_tag_v3", env_kwargs={"num_dogs": 2}),
     "environment simple_tag_v3 with {'num_dogs': 2}"),
])
def test_errors(call, message):
    with pytest.raises(ManifestError, match=message):
        call()
