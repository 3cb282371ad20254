"""The models an HDQL learner keeps: Q', each agent's Q and shard, separate arrays of the
given type, all zero at the start; ``model`` picks the online or the target model; the end
of a stage sets every Q to Q' and empties every shard."""

import numpy as np

from rlaccel.machines.darl.models import AgentModels


def test_every_array_is_its_own_and_zero_at_the_start():
    m = AgentModels(np.zeros((2, 4), dtype=np.int64), agents=3)
    arrays = [m.tr, m.ti, *m.qr, *m.qi, *m.sr, *m.si]
    assert len(arrays) == 2 + 4 * 3
    assert all(a.shape == (2, 4) and a.dtype == np.int64 and not a.any() for a in arrays)
    assert len({id(a) for a in arrays}) == len(arrays)


def test_model_picks_the_agents_online_model_or_the_common_target():
    m = AgentModels(np.zeros((2, 4)), agents=2)
    qr, qi = m.model(1, "online")
    assert qr is m.qr[1] and qi is m.qi[1]
    tr, ti = m.model(1, "target")
    assert tr is m.tr and ti is m.ti


def test_a_restart_copies_q_prime_into_every_q_and_empties_the_shards():
    m = AgentModels(np.zeros((2, 4)), agents=2)
    rng = np.random.default_rng(0)
    m.tr[...], m.ti[...] = rng.normal(size=(2, 4)), rng.normal(size=(2, 4))
    for k in range(2):
        m.qr[k][...], m.sr[k][...], m.si[k][...] = 1.0, 2.0, 3.0
    m._restart_agents()
    for k in range(2):
        assert np.array_equal(m.qr[k], m.tr) and np.array_equal(m.qi[k], m.ti)
        assert m.qr[k] is not m.tr and not m.sr[k].any() and not m.si[k].any()
