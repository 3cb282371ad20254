"""The float reference (MADDPG, the MADDPG paper's Algorithm 1; openai/maddpg): gradients of the value
and policy losses against finite differences, the target by hand, the round's schedule,
determinism."""

import copy

import numpy as np
import pytest

from rlaccel.util.errors import RlaccelError
from rlaccel.machines.maddpg.mlp import forward, gumbel_softmax
from rlaccel.machines.maddpg.reference import critic_input

from tests.machines.maddpg.conftest import MIXED, PAIR, make_batch


def to64(ag):
    for name in ("actor", "critic", "target_actor", "target_critic"):
        setattr(ag, name, [(W.astype(np.float64), b.astype(np.float64))
                           for W, b in getattr(ag, name)])


def fd_check(layers, loss, grads, h=1e-6):
    for (W, b), (dW, db) in zip(layers, grads):
        for p, dp in ((W, dW), (b, db)):
            for idx in np.ndindex(p.shape):
                old = p[idx]
                p[idx] = old + h
                up = loss()
                p[idx] = old - h
                num = (up - loss()) / (2 * h)
                p[idx] = old
                assert abs(dp[idx] - num) <= 1e-6 * max(1.0, abs(num)), (idx, dp[idx], num)


@pytest.mark.parametrize("specs, i", [(PAIR, 0), (PAIR, 1), (MIXED, 0), (MIXED, 1)])
def test_critic_gradient_is_the_value_loss_gradient(small, specs, i):
    """critic_grads = d/dtheta mean((Q_i(o, a) - y)^2), y = r_i + gamma (1 - d_i)
    Q'_i(o', a'), over the critic's input [o_1..o_N, a_1..a_N] (MADDPG) or [o_i, a_i]
    (DDPG)."""
    ref = small(specs)
    ag = ref.agents[i]
    to64(ag)
    b = make_batch(specs, 6, np.random.default_rng(1), np.float64)
    ta = [np.abs(x) for x in make_batch(specs, 6, np.random.default_rng(2), np.float64).act]
    grads, loss = ag.critic_grads(b, ta)

    def value_loss():
        q_next, _ = forward(ag.target_critic, critic_input(ag.kind, i, b.next_obs, ta))
        y = b.rew[i][:, None] + float(np.float32(0.95)) * (1 - b.done[i][:, None]) * q_next
        q, _ = forward(ag.critic, critic_input(ag.kind, i, b.obs, b.act))
        return float(np.mean((q - y) ** 2))
    assert loss == pytest.approx(value_loss(), rel=1e-12)
    fd_check(ag.critic, value_loss, grads)


@pytest.mark.parametrize("specs, i", [(PAIR, 0), (PAIR, 1), (MIXED, 0), (MIXED, 1)])
def test_actor_gradient_is_the_policy_loss_gradient(small, specs, i):
    """actor_grads = d/dtheta [-mean Q_i(o, a_1..softmax(mu_i(o_i) + g_i)..a_N)
    + 1e-3 mean(logits^2)], through the critic's input columns of agent i's action and the
    softmax."""
    ref = small(specs)
    ag = ref.agents[i]
    to64(ag)
    b = make_batch(specs, 5, np.random.default_rng(3), np.float64)
    grads, loss = ag.actor_grads(b)

    def policy_loss():
        logits, _ = forward(ag.actor, b.obs[i])
        act = list(b.act)
        act[i] = gumbel_softmax(logits, b.noise_policy[i])
        q, _ = forward(ag.critic, critic_input(ag.kind, i, b.obs, act))
        return float(-np.mean(q) + 1e-3 * np.mean(logits ** 2))
    assert loss == pytest.approx(policy_loss(), rel=1e-12)
    fd_check(ag.actor, policy_loss, grads)


def test_value_target_by_hand(small):
    """Critics with zero weights output their last bias: Q = 0.5, Q' = 2, so with r = 1,
    gamma 0.95: y = 1 + 0.95 * 2 = 2.9 (done = 0) or 1 (done = 1); the loss is the mean of
    (0.5 - y)^2 and its gradient w.r.t. the last bias 2 * mean(0.5 - y)."""
    ref = small()
    ag = ref.agents[0]
    for net, c in ((ag.critic, 0.5), (ag.target_critic, 2.0)):
        for W, bias in net:
            W[...] = 0
            bias[...] = 0
        net[-1][1][...] = c
    b = make_batch(PAIR, 2, np.random.default_rng(0))
    b.rew[0][:] = 1.0
    b.done[0][:] = [0.0, 1.0]
    grads, loss = ag.critic_grads(b, ref.target_actions(b))
    assert loss == pytest.approx(((0.5 - 2.9) ** 2 + (0.5 - 1.0) ** 2) / 2, rel=1e-6)
    assert float(grads[-1][1][0]) == pytest.approx((0.5 - 2.9) + (0.5 - 1.0), rel=1e-6)
    assert not grads[0][0].any()                  # zero weights after: no signal below


def test_target_actions_use_target_policies_and_their_noise(small):
    """a'_j = softmax(mu'_j(o'_j) + g'_j), from agent j's target policy (not its policy)."""
    ref = small()
    b = make_batch(PAIR, 4, np.random.default_rng(0))
    ta = ref.target_actions(b)
    for j, ag in enumerate(ref.agents):
        logits, _ = forward(ag.target_actor, b.next_obs[j])
        assert ta[j].tobytes() == gumbel_softmax(logits, b.noise_target[j]).tobytes()
        assert ta[j].dtype == np.float32
        np.testing.assert_allclose(ta[j].sum(axis=1), 1, rtol=1e-6)


def _round(ref, b, perturb_agent0_actor):
    ref = copy.deepcopy(ref)
    if perturb_agent0_actor:
        for W, _ in ref.agents[0].actor:
            W += 0.5
    ref.update([b, b])
    return ref


@pytest.mark.parametrize("schedule", ["parallel", "sequential"])
def test_schedule(small, schedule):
    """Parallel (Algorithm 1): agent 1's round uses agent 0's target policy as it was at the
    start, so agent 0's policy does not reach agent 1's critic. Sequential (openai/maddpg):
    agent 0's targets are soft-updated before agent 1's turn, so it does. Either way agent 0's
    own update never depends on agent 1's policy or critic."""
    ref = small(schedule=schedule, target_init="copy")
    b = make_batch(PAIR, 16, np.random.default_rng(4))
    plain, moved = _round(ref, b, False), _round(ref, b, True)
    same_critic1 = all((p[0] == q[0]).all() for p, q in
                       zip(plain.agents[1].critic, moved.agents[1].critic))
    assert same_critic1 == (schedule == "parallel")
    other = copy.deepcopy(ref)
    for W, _ in other.agents[1].actor + other.agents[1].critic:
        W *= -1
    other.update([b, b])
    plain0 = _round(ref, b, False).agents[0]
    for name in ("actor", "critic", "target_actor", "target_critic"):
        for (W1, b1), (W2, b2) in zip(getattr(plain0, name), getattr(other.agents[0], name)):
            assert W1.tobytes() == W2.tobytes() and b1.tobytes() == b2.tobytes()


def test_targets_move_by_tau(small):
    """After a round every target is (1 - tau) old target + tau new parameters."""
    ref = small(target_init="independent")
    old = copy.deepcopy(ref)
    ref.update([make_batch(PAIR, 8, np.random.default_rng(5))] * 2)
    for a_new, a_old in zip(ref.agents, old.agents):
        for tgt, src, tgt0 in ((a_new.target_actor, a_new.actor, a_old.target_actor),
                               (a_new.target_critic, a_new.critic, a_old.target_critic)):
            for (T, _), (S, _), (T0, _) in zip(tgt, src, tgt0):
                np.testing.assert_allclose(T, 0.99 * T0 + 0.01 * S, rtol=1e-5, atol=1e-7)


def test_target_init(small):
    """'copy' starts targets equal to the networks; 'independent' (openai/maddpg) does not."""
    a = small(target_init="copy").agents[0]
    assert all((W == T).all() for (W, _), (T, _) in zip(a.actor, a.target_actor))
    a = small(target_init="independent").agents[0]
    assert not any((W == T).all() for (W, _), (T, _) in zip(a.actor, a.target_actor))


def test_updates_on_one_batch_reduce_the_value_loss(small):
    """Twenty rounds on the same batch fit the critics to it."""
    ref = small(lr=1e-2)
    b = make_batch(PAIR, 64, np.random.default_rng(6))
    first = ref.update([b, b])["q_loss"]
    for _ in range(19):
        last = ref.update([b, b])["q_loss"]
    assert all(l < 0.5 * f for l, f in zip(last, first))


def test_act_is_a_seeded_distribution(small):
    """Actions are probability vectors in float32; the same generator state gives the same
    actions."""
    ref = small()
    obs = [np.ones(3, np.float32), np.ones(11, np.float32)]
    a1 = ref.act(obs, np.random.default_rng(7))
    a2 = ref.act(obs, np.random.default_rng(7))
    assert [a.shape for a in a1] == [(3,), (5,)]
    assert all(x.tobytes() == y.tobytes() for x, y in zip(a1, a2))
    assert all(x.dtype == np.float32 and abs(x.sum() - 1) < 1e-6 for x in a1)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_divergence_is_an_error(small):
    ref = small()
    b = make_batch(PAIR, 4, np.random.default_rng(0))
    b.rew[0][0] = np.inf
    with pytest.raises(RlaccelError, match="MADDPG update round 1, agent 0 .speaker_0.: the "
                                           "value loss is not finite .inf.; the networks "
                                           "diverged"):
        ref.update([b, b])
    with pytest.raises(RlaccelError, match="1 batches for 2 agents"):
        ref.update([b])
