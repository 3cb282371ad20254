"""IC3Net's forward and backward (machines/learninggroup/ic3net.py), checked against an
independent loss by central finite differences in float64."""

from __future__ import annotations

import numpy as np
import pytest

from rlaccel.machines.learninggroup import flgw
from rlaccel.machines.learninggroup.config import LAYERS, LearningConfig, NetConfig
from rlaccel.machines.learninggroup.episodes import Episodes
from rlaccel.machines.learninggroup.ic3net import IC3Net, init_params
from rlaccel.machines.learninggroup.reference import StepRecorder

VALUE_COEFF, ENTROPY = 0.01, 0.05


def _setup(groups: int, detach_gap: int, seed: int = 2):
    """A small float64 model, a batch of two episodes it played, its fixed advantages."""
    cfg = LearningConfig(env_kwargs={"nagents": 3, "dim": 4, "vision": 1, "max_steps": 7},
                         batch_episodes=2, seed=seed, dtype="float64", detach_gap=detach_gap)
    eps = Episodes(cfg)
    net = NetConfig(hid=5, groups=groups)
    params = init_params(net, eps.obs_dim, np.random.default_rng(seed), np.float64)
    model = IC3Net(net, eps.obs_dim, eps.nagents, params, np.float64)
    rec = StepRecorder(model)
    batch = eps.batch(rec)
    R = [e.returns(1.0) for e in batch.episodes]
    adv = [r - e.values for r, e in zip(R, batch.episodes)]
    return cfg, model, batch, rec.episode_steps, R, adv


def _loss(model, batch, base_steps, R, adv, gap):
    """The IC3Net loss written out from the forward values, independent of the backward
    code; the state entering a step t with t % gap == 0 is the unperturbed one (detached)."""
    total = 0.0
    for ep, base, Rt, At in zip(batch.episodes, base_steps, R, adv):
        model.begin_episode()
        prev = np.zeros(model.nagents)
        for t in range(ep.steps):
            if t and t % gap == 0:
                model.h, model.s = base[t].h_prev, base[t].s_prev
            p_env, p_talk, v = model.act(ep.obs[t], prev)
            prev = ep.act_talk[t]
            rows = np.arange(model.nagents)
            logp = np.log(p_env[rows, ep.act_env[t]]) + np.log(p_talk[rows, ep.act_talk[t]])
            ent = -(p_env * np.log(p_env)).sum() - (p_talk * np.log(p_talk)).sum()
            total += -(At[t] * logp).sum() + VALUE_COEFF * ((v - Rt[t]) ** 2).sum() \
                - ENTROPY * ent
    return total / batch.steps


def _grads(model, batch, steps, R, adv, gap):
    acc = model.zero_grads()
    loss = 0.0
    for ep, st, Rt, At in zip(batch.episodes, steps, R, adv):
        loss += model.backward_episode(st, ep.act_env, ep.act_talk, At, Rt, acc,
                                       value_coeff=VALUE_COEFF, entropy_coeff=ENTROPY,
                                       detach_gap=gap)
    return model.param_grads(acc, 1.0 / batch.steps), loss / batch.steps


def _probe(shape, rng, n=4):
    return [tuple(int(rng.integers(s)) for s in shape) for _ in range(n)]


@pytest.mark.parametrize("groups, gap", [(1, 100), (2, 3), (3, 100)])
def test_weight_and_bias_gradients_match_finite_differences(groups, gap):
    """Every weight and bias gradient (masked layers included: a masked weight has none)
    equals the central difference of the loss, with and without detach cuts."""
    cfg, model, batch, steps, R, adv = _setup(groups, gap)
    grads, loss = _grads(model, batch, steps, R, adv, gap)
    assert loss == pytest.approx(_loss(model, batch, steps, R, adv, gap), rel=1e-12)
    rng = np.random.default_rng(0)
    h = 1e-6
    for layer in LAYERS:
        for kind in ("W", "b"):
            name = f"{layer}.{kind}"
            P = model.params[name]
            probes = _probe(P.shape, rng)
            if kind == "W" and layer in model.masks:       # include a kept and a masked one
                m = model.masks[layer]
                probes += [tuple(np.argwhere(m == 1)[0]), tuple(np.argwhere(m == 0)[0])]
            for idx in probes:
                old = P[idx]
                vals = []
                for d in (h, -h):
                    P[idx] = old + d
                    model.refresh_masks()
                    vals.append(_loss(model, batch, steps, R, adv, gap))
                P[idx] = old
                model.refresh_masks()
                fd = (vals[0] - vals[1]) / (2 * h)
                assert grads[name][idx] == pytest.approx(fd, rel=1e-5, abs=1e-9), (name, idx)


def test_grouping_matrix_gradients_match_the_straight_through_surrogate():
    """IG/OG gradients equal the finite difference of the loss with each mask replaced by
    the surrogate ``(H_in (1 + P - P0)) @ (H_out (1 + Q - Q0))`` (value: the mask)."""
    gap = 100
    cfg, model, batch, steps, R, adv = _setup(2, gap, seed=5)
    grads, _ = _grads(model, batch, steps, R, adv, gap)
    rng = np.random.default_rng(1)
    h = 1e-6
    for layer in model.masks:
        IG0, OG0 = model.params[f"{layer}.IG"].copy(), model.params[f"{layer}.OG"].copy()
        G = IG0.shape[1]
        H_in = flgw.selection(flgw.max_index_rows(IG0), G, 1, np.float64)
        H_out = flgw.selection(flgw.max_index_cols(OG0), G, 0, np.float64)
        P0, Q0 = flgw.softmax(IG0, 1), flgw.softmax(OG0, 0)
        W = model.params[f"{layer}.W"]
        for which, base in (("IG", IG0), ("OG", OG0)):
            for idx in _probe(base.shape, rng, 3):
                vals = []
                for d in (h, -h):
                    ig, og = IG0.copy(), OG0.copy()
                    (ig if which == "IG" else og)[idx] += d
                    sur = (H_in * (1 + flgw.softmax(ig, 1) - P0)) @ \
                        (H_out * (1 + flgw.softmax(og, 0) - Q0))
                    model.eff[layer] = W * sur
                    vals.append(_loss(model, batch, steps, R, adv, gap))
                model.refresh_masks()
                fd = (vals[0] - vals[1]) / (2 * h)
                got = grads[f"{layer}.{which}"][idx]
                assert got == pytest.approx(fd, rel=1e-5, abs=1e-9), (layer, which, idx)


def test_acting_keeps_the_steps_a_replay_recomputes():
    """The steps kept while acting are the ones a replay of the episode recomputes, bit for
    bit, so the backward pass may use them."""
    cfg, model, batch, steps, R, adv = _setup(2, 10)
    for ep, kept in zip(batch.episodes, steps):
        again = model.replay(ep.obs, ep.act_talk)
        for a, b in zip(kept, again):
            for name in ("x", "comm", "cin", "inp", "h_prev", "s_prev", "gates", "s", "h",
                         "p_env", "p_talk", "value"):
                assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_communication_is_the_gated_mean_of_the_others():
    """C[j, i] = g_j g_i / (A - 1) for i != j: a silent agent neither sends nor receives;
    one agent alone hears nothing."""
    net = NetConfig(hid=3)
    model = IC3Net(net, 4, 4, init_params(net, 4, np.random.default_rng(0)))
    C = model.comm_matrix(np.array([1, 0, 1, 1]))
    third = np.float32(1 / 3)
    assert np.allclose(C, [[0, 0, third, third], [0, 0, 0, 0],
                           [third, 0, 0, third], [third, 0, third, 0]])
    solo = IC3Net(net, 4, 1, init_params(net, 4, np.random.default_rng(0)))
    assert solo.comm_matrix(np.array([1])).tolist() == [[0.0]]


def test_initialisation_follows_pytorch_and_flgc():
    """Linear layers U(+-1/sqrt(fan_in)), LSTM U(+-1/sqrt(H)), IG/OG N(0,1) with the
    configured shapes; heads are never grouped."""
    net = NetConfig(hid=64, groups=4)
    p = init_params(net, 29, np.random.default_rng(0))
    assert p["encoder.W"].shape == (29, 64) and np.abs(p["encoder.W"]).max() <= 29 ** -0.5
    assert p["lstm_hh.W"].shape == (64, 256) and np.abs(p["lstm_hh.W"]).max() <= 64 ** -0.5
    assert p["lstm_ih.IG"].shape == (64, 4) and p["lstm_ih.OG"].shape == (4, 256)
    assert abs(p["lstm_ih.OG"].std() - 1.0) < 0.1
    assert "action.IG" not in p and all(v.dtype == np.float32 for v in p.values())
