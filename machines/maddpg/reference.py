"""The float reference: MADDPG (the MADDPG paper, Algorithm 1; openai/maddpg) in float32 numpy, with
no simulator. It is what the accelerator's learners must compute, and the CPU-only baseline
of the MADDPG paper's Fig. 7 (one training thread, agent after agent).

Per agent ``i`` (a :class:`AgentLearner`): a policy ``mu_i`` (obs_i -> logits over act_dim_i
actions, Gumbel-softmax head), a critic ``Q_i``, and target copies ``mu'_i``, ``Q'_i``. A
MADDPG agent's critic reads every agent's observation and action, ``[o_1..o_N, a_1..a_N]``;
a DDPG agent's (the Predator-Prey prey) reads ``[o_i, a_i]``. One update round, for a batch
of B transitions (:class:`~.replay.Batch`, which carries the Gumbel noise):

* value (eq. 2): ``a'_j = softmax(mu'_j(o'_j) + g'_j)`` for every agent (what the learners
  exchange over the ring), ``y = r_i + gamma (1 - d_i) Q'_i(o', a')``, loss
  ``mean((Q_i(o, a) - y)^2)``;
* policy (eq. 1): ``a_i = softmax(mu_i(o_i) + g_i)``, the other agents' actions from the
  batch, loss ``-mean(Q_i(o, a)) + actor_reg * mean(logits^2)``;
* gradients clipped per tensor, an optimiser step (Adam by default), then the targets
  ``theta' = (1 - tau) theta' + tau theta``.

``schedule`` (:class:`~.config.MaddpgConfig`) says when parameters change within a round:
``"parallel"`` -- every gradient from the parameters at the start of the round, targets
after every agent (Algorithm 1; the accelerator) -- or ``"sequential"`` (openai/maddpg).

:class:`MaddpgReference` is a *learner*: ``act`` (the host's inference) and ``update``
(one round); :mod:`.training` runs it on the environment. Every random choice comes from a
generator the caller seeds, so a seed fixes every bit of a run.
"""

from __future__ import annotations

import numpy as np

from rlaccel.util.errors import RlaccelError

from rlaccel.machines.maddpg.mlp import backward, forward, gumbel_softmax, init_mlp, softmax_backward
from rlaccel.machines.maddpg.optim import clip_by_norm, make_optimizer, soft_update
from rlaccel.machines.maddpg.replay import Batch, gumbel_noise

__all__ = ["AgentLearner", "MaddpgReference", "critic_input"]


def critic_input(kind: str, i: int, obs: list, act: list) -> np.ndarray:
    """The critic's input rows: ``[o_1..o_N, a_1..a_N]`` (maddpg) or ``[o_i, a_i]`` (ddpg)."""
    if kind == "ddpg":
        return np.concatenate([obs[i], act[i]], axis=1)
    return np.concatenate(list(obs) + list(act), axis=1)


def _copy(layers) -> list:
    return [(W.copy(), b.copy()) for W, b in layers]


class AgentLearner:
    """One agent's four networks, its two optimisers and its update math."""

    def __init__(self, cfg, specs, i: int, rng: np.random.Generator):
        self.cfg, self.i, self.spec = cfg, i, specs[i]
        self.kind = self.spec.policy
        obs_dims = [s.obs_dim for s in specs]
        act_dims = [s.act_dim for s in specs]
        if self.kind == "ddpg":
            q_in = obs_dims[i] + act_dims[i]
        else:
            q_in = sum(obs_dims) + sum(act_dims)
        #: where agent i's action sits in the critic input
        self.act_col = (obs_dims[i] if self.kind == "ddpg"
                        else sum(obs_dims) + sum(act_dims[:i]))
        h = tuple(cfg.hidden)
        self.actor_sizes = (obs_dims[i],) + h + (act_dims[i],)
        self.critic_sizes = (q_in,) + h + (1,)
        self.actor = init_mlp(rng, self.actor_sizes)
        self.critic = init_mlp(rng, self.critic_sizes)
        if cfg.target_init == "copy":
            self.target_actor, self.target_critic = _copy(self.actor), _copy(self.critic)
        else:            # openai/maddpg: the target networks have their own initialisation
            self.target_actor = init_mlp(rng, self.actor_sizes)
            self.target_critic = init_mlp(rng, self.critic_sizes)
        self.actor_opt = make_optimizer(cfg, self.actor)
        self.critic_opt = make_optimizer(cfg, self.critic)

    # ---- inference ----
    def act(self, obs: np.ndarray, noise: np.ndarray) -> np.ndarray:
        """Gumbel-softmax actions of the policy for observations ``(B, obs_dim)``."""
        logits, _ = forward(self.actor, obs)
        return gumbel_softmax(logits, noise)

    def target_act(self, next_obs: np.ndarray, noise: np.ndarray) -> np.ndarray:
        logits, _ = forward(self.target_actor, next_obs)
        return gumbel_softmax(logits, noise)

    # ---- gradients ----
    def critic_grads(self, b: Batch, target_actions: list) -> tuple[list, float]:
        """Gradients of the value loss (eq. 2) and the loss, given every agent's target action
        on the batch's next observations."""
        i, cfg = self.i, self.cfg
        q_next, _ = forward(self.target_critic,
                            critic_input(self.kind, i, b.next_obs, target_actions))
        y = b.rew[i][:, None] + np.float32(cfg.gamma) * (1 - b.done[i][:, None]) * q_next
        q, inputs = forward(self.critic, critic_input(self.kind, i, b.obs, b.act))
        err = q - y
        grads, _ = backward(self.critic, inputs, (2.0 / b.size) * err)
        return grads, float(np.mean(err * err))

    def actor_grads(self, b: Batch) -> tuple[list, float]:
        """Gradients of the policy loss (eq. 1 with the reference's regulariser) and the
        loss; the critic is this agent's current critic."""
        i, cfg, B = self.i, self.cfg, b.size
        logits, a_inputs = forward(self.actor, b.obs[i])
        a_i = gumbel_softmax(logits, b.noise_policy[i])
        act = list(b.act)
        act[i] = a_i
        q, q_inputs = forward(self.critic, critic_input(self.kind, i, b.obs, act))
        _, dx = backward(self.critic, q_inputs, np.full((B, 1), -1.0 / B, np.float32),
                         input_grad=True)
        da = dx[:, self.act_col:self.act_col + a_i.shape[1]]
        dlogits = softmax_backward(a_i, da)
        dlogits += np.float32(2.0 * cfg.actor_reg / logits.size) * logits
        grads, _ = backward(self.actor, a_inputs, dlogits)
        loss = -float(np.mean(q)) + cfg.actor_reg * float(np.mean(logits * logits))
        return grads, loss

    # ---- steps ----
    def step_critic(self, grads) -> None:
        self.critic_opt.step(self.critic, clip_by_norm(grads, self.cfg.grad_clip))

    def step_actor(self, grads) -> None:
        self.actor_opt.step(self.actor, clip_by_norm(grads, self.cfg.grad_clip))

    def update_targets(self) -> None:
        soft_update(self.target_actor, self.actor, self.cfg.tau)
        soft_update(self.target_critic, self.critic, self.cfg.tau)


class MaddpgReference:
    """MADDPG for the agents ``specs`` (:class:`~.task.AgentSpec`), float32 numpy."""

    def __init__(self, cfg, specs, rng: np.random.Generator):
        self.cfg = cfg
        self.specs = tuple(specs)
        self.n = len(self.specs)
        self.agents = [AgentLearner(cfg, self.specs, i, rng) for i in range(self.n)]
        self.rounds = 0

    def act(self, obs: list, rng: np.random.Generator) -> list:
        """Every agent's action for one step (sample generation, Algorithm 1 line 6): the
        policy's Gumbel-softmax sample with noise from ``rng``."""
        out = []
        for ag, o in zip(self.agents, obs):
            noise = gumbel_noise(rng, (1, ag.spec.act_dim))
            out.append(ag.act(o[None, :], noise)[0])
        return out

    def target_actions(self, b: Batch) -> list:
        """``a'_j = softmax(mu'_j(o'_j) + g'_j)`` for every agent j: what learner j sends
        over the ring."""
        return [ag.target_act(b.next_obs[j], b.noise_target[j])
                for j, ag in enumerate(self.agents)]

    def update(self, batches: list) -> dict:
        """One update round (Algorithm 1 lines 9-14); ``batches[i]`` is agent i's batch (the
        same object for every agent with a shared batch). Returns the mean losses."""
        if len(batches) != self.n:
            raise RlaccelError(f"MADDPG update: {len(batches)} batches for {self.n} agents")
        self.rounds += 1
        q_loss, p_loss = [], []
        if self.cfg.schedule == "parallel":
            steps = []
            shared = {}
            for ag, b in zip(self.agents, batches):
                if id(b) not in shared:
                    shared[id(b)] = self.target_actions(b)
                cg, ql = ag.critic_grads(b, shared[id(b)])
                q_loss.append(self._finite(ql, ag, "value"))
                pg, pl = ag.actor_grads(b)
                p_loss.append(self._finite(pl, ag, "policy"))
                steps.append((cg, pg))
            for ag, (cg, pg) in zip(self.agents, steps):
                ag.step_critic(cg)
                ag.step_actor(pg)
            for ag in self.agents:
                ag.update_targets()
        else:
            for ag, b in zip(self.agents, batches):
                cg, ql = ag.critic_grads(b, self.target_actions(b))
                q_loss.append(self._finite(ql, ag, "value"))
                ag.step_critic(cg)
                pg, pl = ag.actor_grads(b)
                p_loss.append(self._finite(pl, ag, "policy"))
                ag.step_actor(pg)
                ag.update_targets()
        return {"q_loss": q_loss, "p_loss": p_loss}

    def _finite(self, loss: float, ag: AgentLearner, what: str) -> float:
        if not np.isfinite(loss):
            raise RlaccelError(f"MADDPG update round {self.rounds}, agent {ag.i} "
                               f"({ag.spec.name}): the {what} loss is not finite ({loss}); "
                               f"the networks diverged")
        return loss

    def policy_weights(self) -> list:
        """Every agent's policy layers (what the learners send back to the host)."""
        return [ag.actor for ag in self.agents]
