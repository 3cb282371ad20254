"""The DDPG reference: gradients against finite differences, the update formulas, the units
it shares with the accelerator, fixed point against float, QAT, and determinism."""

import numpy as np
import pytest

from rlaccel.machines.fixar.config import ConfigError
from rlaccel.machines.fixar.host import DdpgHost, train
from rlaccel.machines.fixar.network import init_params
from rlaccel.machines.fixar.numerics import FixedEngine, FloatEngine
from rlaccel.machines.fixar.reference import NOISE_STREAM, DdpgReference
from rlaccel.machines.fixar.tlm.prng import NoiseGenerator

from tests.machines.fixar.conftest import A, S


def _agent(cfg, **kw):
    return DdpgReference(cfg.with_(**kw), S, A)


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        old = x[i]
        x[i] = old + eps
        hi = f()
        x[i] = old - eps
        lo = f()
        x[i] = old
        g[i] = (hi - lo) / (2 * eps)
    return g


def test_critic_gradient_against_finite_differences(tiny, batch):
    """Backward of ``q - y`` is the gradient of ``1/2 sum (q - y)^2`` (y held fixed)."""
    ag = _agent(tiny, numerics="float64")
    E, net = ag.engine, ag.critic_net
    X = E.concat(E.inputs(batch["s"]), E.inputs(batch["a"]))
    y = np.random.default_rng(0).normal(size=(8, 1))
    loss = lambda: 0.5 * float(((E.forward(net, ag.critic, X)[0] - y) ** 2).sum())  # noqa
    q, cache = E.forward(net, ag.critic, X)
    g, _ = E.backward(net, ag.critic, cache, q - y)
    assert np.allclose(g, _fd(loss, ag.critic), rtol=1e-5, atol=1e-8)


def test_action_and_actor_gradients_against_finite_differences(tiny, batch):
    """dQ/da through the critic's input layer, then the actor's gradient of
    ``J = -sum Q(s, mu(s))``, both against central differences."""
    ag = _agent(tiny, numerics="float64")
    E = ag.engine
    s = E.inputs(batch["s"])
    mu, acache = E.forward(ag.actor_net, ag.actor, s)
    q, ccache = E.forward(ag.critic_net, ag.critic, E.concat(s, mu))
    _, dqda = E.backward(ag.critic_net, ag.critic, ccache, E.unit_error(8),
                         input_cols=slice(S, S + A), weights=False)
    a = mu.copy()
    qsum = lambda: float(E.forward(ag.critic_net, ag.critic, E.concat(s, a))[0].sum())  # noqa
    assert np.allclose(dqda, _fd(qsum, a.reshape(-1)).reshape(a.shape), rtol=1e-5, atol=1e-9)
    g, _ = E.backward(ag.actor_net, ag.actor, acache, E.negate(dqda))
    J = lambda: -float(E.forward(ag.critic_net, ag.critic,  # noqa: E731
                                 E.concat(s, E.forward(ag.actor_net, ag.actor, s)[0]))[0].sum())
    assert np.allclose(g, _fd(J, ag.actor), rtol=1e-4, atol=1e-9)


@pytest.mark.parametrize("engine", [FloatEngine(np.float64), "fixed"])
def test_td_error_by_hand(tiny, engine):
    """y = r + gamma (1 - done) q': q = 2, r = 1, q' = 3, gamma = 0.5 -> e = 2 - 2.5 = -0.5;
    the same transition terminal -> e = 2 - 1 = 1."""
    E = engine if engine != "fixed" else FixedEngine(tiny.with_(numerics="fixed"))
    q = E.inputs([[2.0], [2.0]])
    e = E.td_error(q, np.array([1.0, 1.0]), np.array([0.0, 1.0]), E.inputs([[3.0], [3.0]]), 0.5)
    assert np.asarray(e * (E.e.lsb if engine == "fixed" else 1.0)).ravel().tolist() == [-0.5, 1.0]


def test_one_update_equals_the_formulas_written_out(tiny, batch):
    """agent.update against DDPG written independently in float64 numpy (Adam to float32
    rounding)."""
    cfg = tiny.with_(numerics="float64", gamma=0.9, tau=0.25)
    ag = DdpgReference(cfg, S, A)
    P = {k: getattr(ag, k).copy() for k in ("actor", "critic", "actor_target", "critic_target")}

    def layers(net, flat):
        return [(W.copy(), b.copy()) for W, b in net.views(flat)]

    def fwd(ls, x, out):
        hs = [x]
        for i, (W, b) in enumerate(ls):
            z = hs[-1] @ W.T + b
            hs.append(np.maximum(z, 0) if i < len(ls) - 1 else (np.tanh(z) if out else z))
        return hs

    def bwd(ls, hs, d, out):
        gs = []
        for i in range(len(ls) - 1, -1, -1):
            dz = d * (1 - hs[i + 1] ** 2) if (i == len(ls) - 1 and out) else \
                (d if i == len(ls) - 1 else d * (hs[i + 1] > 0))
            gs.insert(0, (dz.T @ hs[i], dz.sum(0)))
            d = dz @ ls[i][0]
        return gs, d

    def adam1(ls, gs, lr):          # first Adam step from zero moments: lr g / (|g| + eps)
        return [(W - lr * gW / (np.abs(gW) + 1e-8), b - lr * gb / (np.abs(gb) + 1e-8))
                for (W, b), (gW, gb) in zip(ls, gs)]

    s, a, s2 = (batch[k].astype(np.float64) for k in ("s", "a", "s2"))
    Ca, Ct = layers(ag.critic_net, P["critic"]), layers(ag.critic_net, P["critic_target"])
    Aa, At = layers(ag.actor_net, P["actor"]), layers(ag.actor_net, P["actor_target"])
    q2 = fwd(Ct, np.hstack([s2, fwd(At, s2, True)[-1]]), False)[-1]
    y = batch["r"][:, None] + 0.9 * (1 - batch["done"][:, None]) * q2
    hs = fwd(Ca, np.hstack([s, a]), False)
    Cn = adam1(Ca, bwd(Ca, hs, hs[-1] - y, False)[0], 1e-4)
    ha = fwd(Aa, s, True)
    hc = fwd(Cn, np.hstack([s, ha[-1]]), False)
    dqda = bwd(Cn, hc, np.ones((8, 1)), False)[1][:, S:]
    An = adam1(Aa, bwd(Aa, ha, -dqda, True)[0], 1e-4)
    ag.update(batch)
    flat = lambda ls: np.concatenate([np.concatenate([W.ravel(), b]) for W, b in ls])  # noqa
    assert np.allclose(ag.critic, flat(Cn), rtol=0, atol=1e-10)
    assert np.allclose(ag.actor, flat(An), rtol=0, atol=1e-10)
    assert np.allclose(ag.critic_target, 0.75 * P["critic_target"] + 0.25 * flat(Cn))
    assert np.allclose(ag.actor_target, 0.75 * P["actor_target"] + 0.25 * flat(An))


def test_action_noise_is_the_prngs(tiny, batch):
    """step() = the updated actor's action + sigma * the PRNG's Gaussian of stream 1."""
    ag = _agent(tiny, noise_sigma=0.5)
    state = batch["s"][0]
    a = ag.step(1000, state, batch)
    g = NoiseGenerator(tiny.seed, NOISE_STREAM).gaussian(A)
    assert np.allclose(a, ag.act(state) + 0.5 * g, atol=1e-6)


def _fixed_vs_float(cfg, batch):
    fx = DdpgReference(cfg.with_(numerics="fixed"), S, A)
    fl = DdpgReference(cfg.with_(numerics="float64"), S, A)
    X = fl.engine.concat(batch["s"].astype(np.float64), batch["a"].astype(np.float64))
    qf, cf = fl.engine.forward(fl.critic_net, fl.critic, X)
    qx, cx = fx.engine.forward(fx.critic_net, fx.critic, fx.engine.inputs(X))
    gf, _ = fl.engine.backward(fl.critic_net, fl.critic, cf, qf)
    gx, _ = fx.engine.backward(fx.critic_net, fx.critic, cx, fx.engine.inputs(qf))
    return (qf, fx.engine.to_float(qx)), (gf, gx * fx.engine.g.lsb), fx, (cf, cx)


def test_fixed32_tracks_float64_on_small_layers(tiny, batch):
    """q16.16 everywhere: Q within 1e-4 and critic gradients within 2e-4 of float64 (the
    weights themselves are rounded to 2**-17, so both nets differ by that too)."""
    (qf, qx), (gf, gx), fx, _ = _fixed_vs_float(tiny.with_(hidden=(40, 30)), batch)
    assert np.abs(qf - qx).max() < 1e-4 and np.abs(gf - gx).max() < 2e-4
    assert fx.engine.stats()["saturations"]["forward"] == 0


def test_fixed16_activations_are_stored_as_q8_8(tiny, batch):
    """Every layer input is stored with 8 fraction bits: the first hidden layer's stored
    activations are within an LSB (2**-8) of float64's, coarser than fixed32's 2**-16."""
    *_, (cf, cx) = _fixed_vs_float(tiny.with_(hidden=(40, 30), act_format="fixed16"), batch)
    assert [f for _, f in cx[:-1]] == [8, 8, 8]
    err = np.abs(cf[1] - cx[1][0] * 2.0 ** -8).max()
    assert 2.0 ** -12 < err < 2.0 ** -8


def test_qat_switches_to_monitored_16_bit_codes(tiny, batch):
    """Before the delay: fixed32 and the monitor; from t = d: codes in the monitored ranges."""
    ag = _agent(tiny, numerics="fixed", qat_delay=5)
    for t in range(5):
        ag.step(t, batch["s"][0], batch)
    assert ag.quantized_at is None and ag.engine.monitors[("critic", 0)].seen
    ag.step(5, batch["s"][0], batch)
    st = ag.stats()
    assert ag.quantized_at == 5 and "critic.L1" in st["qat"] and "actor.L3" in st["qat"]
    E = ag.engine
    X = E.concat(E.inputs(batch["s"]), E.inputs(batch["a"]))
    _, cache = E.forward(ag.critic_net, ag.critic, X)
    p = E.qparams[("critic", 0)]
    assert cache[0][1] == p.frac_bits and np.abs(cache[0][0]).max() < 1 << 17
    lo, hi = E.monitors[("critic", 0)].amin, E.monitors[("critic", 0)].amax
    vals = cache[0][0] * 2.0 ** -cache[0][1]
    assert vals.min() >= lo - p.delta and vals.max() <= hi + p.delta


def test_qat_needs_a_delay(tiny, batch):
    ag = _agent(tiny, numerics="fixed", qat_delay=0)
    with pytest.raises(ConfigError, match="no activation was monitored"):
        ag.step(0, batch["s"][0], batch)


@pytest.mark.parametrize("numerics", ["float32", "fixed"])
def test_same_seed_same_bits_and_evaluation_changes_nothing(tiny, numerics):
    """Two runs of one seed agree bit for bit; evaluating more often changes no weight."""
    def run(cfg):
        host = DdpgHost(cfg)
        ag = DdpgReference(cfg, host.state_dim, host.action_dim)
        out = train(ag, host)
        return ag, out

    cfg = tiny.with_(env_id="Swimmer-v5", numerics=numerics, steps=160, start_steps=120)
    a1, o1 = run(cfg)
    a2, o2 = run(cfg)
    a3, _ = run(cfg.with_(eval_every=40))
    assert o1["train_steps"] == 40
    for k in ("actor", "critic", "actor_target", "critic_target"):
        assert (getattr(a1, k) == getattr(a2, k)).all() and (getattr(a1, k) == getattr(a3, k)).all()
    assert o1["learning"] == o2["learning"]
    a4, _ = run(cfg.with_(seed=2))
    assert not (a4.actor == a1.actor).all()


def test_initial_weights_depend_only_on_the_seed(tiny):
    ag = _agent(tiny)
    want = init_params(ag.actor_net, np.random.default_rng([tiny.seed, 1])).astype(np.float32)
    assert (ag.actor == want).all() and ag.actor.dtype == np.float32


@pytest.mark.parametrize("rule, moves", [("segment", False), ("output", True)])
def test_saturated_tanh_stops_the_actor_gradient(tiny, batch, rule, moves):
    """Pre-activations beyond the PWL table's xmax (4): the table's slope there is zero, so no
    gradient reaches the actor; ``1 - y^2`` would still push (0.00134 of it)."""
    ag = _agent(tiny, numerics="fixed", tanh_grad=rule)
    E = ag.engine
    b_out = ag.actor_net.views(ag.actor)[-1][1]
    b_out[...] = E.w.quantize(10.0)                   # every action pre-activation ~ 10
    s = E.inputs(batch["s"])
    mu, cache = E.forward(ag.actor_net, ag.actor, s)
    g, _ = E.backward(ag.actor_net, ag.actor, cache, E.inputs(np.ones((8, A))))
    assert bool(np.any(g != 0)) is moves


def test_float32_reference_resumes_from_its_checkpoint_bit_for_bit(tmp_path):
    """A float32 run checkpointed at its evaluations and continued to a larger budget ends
    with the uninterrupted run's curve and weights; a fixed-point reference cannot be
    checkpointed (the simulator checkpoints the machine)."""
    from rlaccel.machines.fixar.config import DdpgConfig
    from rlaccel.machines.fixar.reference import run as ref_run
    from rlaccel.programs.checkpoint import CheckpointError
    base = DdpgConfig(env_id="HalfCheetah-v5", seed=2, steps=900, start_steps=300,
                      eval_every=300, eval_episodes=1, hidden=(32, 24), batch=16)
    ck = tmp_path / "r.ckpt"
    first = ref_run(base.with_(steps=600), checkpoint=ck)
    assert ck.exists() and first["resumed_at"] is None
    resumed = ref_run(base, checkpoint=ck)
    whole = ref_run(base)
    assert resumed["resumed_at"] == 600
    assert resumed["learning"]["returns"] == whole["learning"]["returns"]
    assert resumed["learning"]["episode_returns"] == whole["learning"]["episode_returns"]
    with pytest.raises(CheckpointError, match="another run"):
        ref_run(base.with_(seed=3, steps=300 + 600), checkpoint=ck)
    with pytest.raises(ConfigError, match="float engine"):
        ref_run(base.with_(numerics="fixed", steps=300), checkpoint=tmp_path / "f.ckpt")
