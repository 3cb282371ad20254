"""DDPG as FIXAR runs it, without a simulator: the float32 CPU baseline and, with ``numerics =
"fixed"``, the accelerator's fixed-point arithmetic and Algorithm 1's QAT.

One time step (the FIXAR paper, section III and Fig. 3), given the current state and a batch:

1. **critic**: ``a' = mu'(s')``, ``y = r + gamma (1 - done) Q'(s', a')``, ``q = Q(s, a)``;
   back-propagate ``q - y`` (the loss ``1/2 sum (q - y)^2``), weight gradients, Adam;
2. **actor**: ``mu(s)``, ``Q(s, mu(s))`` with the *updated* critic ("with updated weights,
   the critic network leads the BP and WU of the actor network"), back-propagate ``dQ/dQ = 1``
   through the critic to the action's inputs, then ``-dQ/da`` through the actor, weight
   gradients, Adam;
3. **targets**: soft updates of both target networks (tau);
4. **action**: ``mu(s_t)`` for the current state "based on the updated weights", plus the
   PRNG's Gaussian noise (sigma), returned to the host.

Every random choice takes the seed: initial weights (``default_rng([seed, 1])``), the noise
(:class:`~rlaccel.machines.fixar.tlm.prng.NoiseGenerator` stream :data:`NOISE_STREAM`, the
hardware's generator, so the simulator will draw the same noise), and the host's batches and
warm-up actions (:mod:`.host`). Same seed, same bits.

``python machines/fixar/bench/reference.py`` runs it on the MuJoCo environments.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rlaccel.machines.fixar.tlm.adam import AdamHyper
from rlaccel.machines.fixar.tlm.prng import NoiseGenerator

from rlaccel.machines.fixar.config import ConfigError, DdpgConfig
from rlaccel.machines.fixar.host import DdpgHost, train
from rlaccel.machines.fixar.network import actor_net, critic_net, init_params
from rlaccel.machines.fixar.numerics import AdamState, make_engine

__all__ = ["DdpgReference", "run", "NOISE_STREAM"]

#: the PRNG stream of exploration noise
NOISE_STREAM = 1


class DdpgReference:
    """The DDPG agent on one engine (float32, float64 or fixed point)."""

    def __init__(self, cfg: DdpgConfig, state_dim: int, action_dim: int) -> None:
        self.cfg = cfg
        self.S, self.A = state_dim, action_dim
        self.engine = E = make_engine(cfg)
        self.actor_net = actor_net(state_dim, action_dim, cfg.hidden)
        self.critic_net = critic_net(state_dim, action_dim, cfg.hidden)
        rng = np.random.default_rng([cfg.seed, 1])
        self.actor = E.load(init_params(self.actor_net, rng))
        self.critic = E.load(init_params(self.critic_net, rng))
        self.actor_target = self.actor.copy()
        self.critic_target = self.critic.copy()
        hp = dict(beta1=cfg.beta1, beta2=cfg.beta2, eps=cfg.adam_eps)
        self.opt_actor = AdamState(self.actor_net.size, AdamHyper(lr=cfg.lr_actor, **hp))
        self.opt_critic = AdamState(self.critic_net.size, AdamHyper(lr=cfg.lr_critic, **hp))
        self.noise = NoiseGenerator(cfg.seed, NOISE_STREAM)
        self.updates = 0
        self.quantized_at: int | None = None

    # ---- one time step ----
    def step(self, t: int, state, batch: dict) -> np.ndarray:
        """Train on ``batch``, then return the exploring action for ``state`` (float64)."""
        cfg = self.cfg
        if cfg.qat and self.quantized_at is None and t >= cfg.qat_delay:
            self.engine.begin_qat()
            self.quantized_at = t
        self.update(batch)
        E = self.engine
        a, _ = E.forward(self.actor_net, self.actor, E.inputs(np.asarray(state)[None, :]),
                         monitor=True)
        a = E.add_noise(a, self.noise.gaussian_raw(self.A)[None, :], cfg.noise_sigma)
        return E.to_float(a)[0]

    def act(self, state) -> np.ndarray:
        """The deterministic action (evaluation): no noise, no monitoring, no state change."""
        E = self.engine
        a, _ = E.forward(self.actor_net, self.actor, E.inputs(np.asarray(state)[None, :]))
        return E.to_float(a)[0]

    def update(self, batch: dict) -> dict:
        """One critic and one actor update on ``batch`` and the soft target updates; returns
        the batch's TD errors and Q values (engine words) for inspection."""
        E, cfg, S, A = self.engine, self.cfg, self.S, self.A
        s, a, s2 = E.inputs(batch["s"]), E.inputs(batch["a"]), E.inputs(batch["s2"])
        B = s.shape[0]
        # 1. critic
        a2, _ = E.forward(self.actor_net, self.actor_target, s2, monitor=True)
        q2, _ = E.forward(self.critic_net, self.critic_target, E.concat(s2, a2), monitor=True)
        q, cache = E.forward(self.critic_net, self.critic, E.concat(s, a), monitor=True)
        err = E.td_error(q, batch["r"], batch["done"], q2, cfg.gamma)
        g_critic, _ = E.backward(self.critic_net, self.critic, cache, err)
        self.critic = E.adam(self.critic, g_critic, self.opt_critic)
        # 2. actor, through the updated critic
        mu, acache = E.forward(self.actor_net, self.actor, s, monitor=True)
        _, ccache = E.forward(self.critic_net, self.critic, E.concat(s, mu), monitor=True)
        _, dq_da = E.backward(self.critic_net, self.critic, ccache, E.unit_error(B),
                              input_cols=slice(S, S + A), weights=False)
        g_actor, _ = E.backward(self.actor_net, self.actor, acache, E.negate(dq_da))
        self.actor = E.adam(self.actor, g_actor, self.opt_actor)
        # 3. targets
        self.actor_target = E.soft(self.actor_target, self.actor, cfg.tau)
        self.critic_target = E.soft(self.critic_target, self.critic, cfg.tau)
        self.updates += 1
        return {"td_error": err, "q": q}

    def stats(self) -> dict:
        return {"updates": self.updates, "quantized_at": self.quantized_at,
                **self.engine.stats()}

    # ---- checkpoints (float engines; the fixed-point machine checkpoints on the simulator) --
    _ARRAYS = ("actor", "critic", "actor_target", "critic_target")

    def checkpoint_state(self) -> tuple[dict, dict]:
        """Parameters, targets, Adam's moments and steps, the noise generator: ``(arrays,
        fields)`` for :func:`rlaccel.programs.checkpoint.write`."""
        if self.engine.name != "float":
            raise ConfigError("a reference checkpoint holds a float engine's state; the "
                              "fixed-point machine checkpoints on the simulator (rlaccel run "
                              "--checkpoint)")
        arrays = {k: getattr(self, k) for k in self._ARRAYS}
        for net in ("actor", "critic"):
            opt = getattr(self, f"opt_{net}")
            arrays[f"m_{net}"], arrays[f"v_{net}"] = opt.m, opt.v
        arrays["noise"] = self.noise.state()
        fields = {"updates": self.updates, "t_actor": self.opt_actor.t,
                  "t_critic": self.opt_critic.t, "noise_cycles": self.noise.cycles}
        return arrays, fields

    def restore(self, saved) -> None:
        """Continue from :meth:`checkpoint_state`'s state (``saved``, a
        :class:`~rlaccel.programs.checkpoint.Saved`) in this fresh agent."""
        for k in self._ARRAYS:
            ref = getattr(self, k)
            setattr(self, k, saved.array(k, ref.dtype, ref.shape).copy())
        for net in ("actor", "critic"):
            opt = getattr(self, f"opt_{net}")
            opt.m = saved.array(f"m_{net}", np.float32, opt.m.shape).copy()
            opt.v = saved.array(f"v_{net}", np.float32, opt.v.shape).copy()
            opt.t = saved.get(f"t_{net}", int, lo=0)
        self.noise.restore(saved.array("noise", np.uint32, self.noise.regs.shape))
        self.noise.cycles = saved.get("noise_cycles", int, lo=0)
        self.updates = saved.get("updates", int, lo=0)


def identity(cfg: DdpgConfig) -> dict:
    """What a reference checkpoint must match to be resumed: the configuration but its step
    budget (a finished run's checkpoint continues to a larger budget)."""
    return {"reference": {k: (list(v) if isinstance(v, tuple) else v)
                          for k, v in cfg.__dict__.items() if k != "steps"}}


def run(cfg: DdpgConfig, on_eval=None, checkpoint=None) -> dict:
    """Train the reference on ``cfg.env_id`` for ``cfg.steps`` steps; the learning curve,
    wall times and the engine's statistics. With ``checkpoint`` (a path; float engines), the
    run resumes from that file when it exists and replaces it at every evaluation with the
    host's and the agent's whole state (:mod:`rlaccel.programs.checkpoint`'s format): a
    resumed run's curve and weights are the uninterrupted run's, bit for bit; ``result
    ["resumed_at"]`` says where it resumed (None: from the start)."""
    from rlaccel.programs import checkpoint as ck
    host = DdpgHost(cfg)
    agent = DdpgReference(cfg, host.state_dim, host.action_dim)
    resumed = None
    if checkpoint is not None and Path(checkpoint).exists():
        saved = ck.load(checkpoint, identity(cfg))
        host.restore(saved.part("host"))
        agent.restore(saved.part("agent"))
        resumed = host.t

    def hook(step, mean):
        if checkpoint is not None:
            arrays, fields = {}, {}
            ck.nest("host", host.checkpoint_state(), arrays, fields)
            ck.nest("agent", agent.checkpoint_state(), arrays, fields)
            ck.write(checkpoint, identity(cfg), fields, arrays)
        if on_eval is not None:
            on_eval(step, mean)

    result = train(agent, host, on_eval=hook)
    result["agent"] = agent.stats()
    result["resumed_at"] = resumed
    return result
