"""MADDPG in PyTorch on the CPU: the software stack of the MADDPG paper's CPU-only baseline
(its section V-B: Python 3.11 and PyTorch 2.0.1, every agent trained in one thread, agent
after agent).

An optional extra (``pip install rlaccel[torch]``); nothing else imports it, and
:mod:`.baseline` measures it only when asked (``--baseline torch``). It is a learner with the
same ``update(batches)`` as :class:`~.reference.MaddpgReference`, built from the reference's
own initial weights, and computes the same round: per agent (openai/maddpg's order) the
value step on ``y = r + gamma (1 - d) Q'(o', a')`` with every agent's target action
``softmax(mu'_j(o'_j) + g'_j)``, the policy step on ``-mean(Q) + actor_reg mean(logits^2)``
with the agent's fresh Gumbel-softmax action, gradients clipped per tensor (as
``tf.clip_by_norm`` per variable), ``torch.optim.Adam`` (or ``SGD``) and the soft target
update. Every
layer is an ``nn.Linear``, every step an eager framework call, as a PyTorch port of the
reference implementation is written: what the baseline's time is made of at small batches is
those calls, not the arithmetic.
"""

from __future__ import annotations

import numpy as np

__all__ = ["TorchMaddpg", "available"]


def available() -> bool:
    """Whether PyTorch can be imported here."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def _mlp(layers):
    """An ``nn.Sequential`` of Linear and ReLU layers holding ``layers``' weights (W: out x in)."""
    import torch
    from torch import nn
    mods = []
    for k, (W, b) in enumerate(layers):
        lin = nn.Linear(W.shape[1], W.shape[0])
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(np.ascontiguousarray(W)))
            lin.bias.copy_(torch.from_numpy(np.ascontiguousarray(b)))
        mods.append(lin)
        if k < len(layers) - 1:
            mods.append(nn.ReLU())
    return nn.Sequential(*mods)


def _optimizer(module, cfg):
    """``torch.optim.Adam`` (or ``SGD``, as ``cfg.optimizer`` says) over a module."""
    import torch
    if cfg.optimizer == "sgd":
        return torch.optim.SGD(module.parameters(), lr=cfg.lr)
    return torch.optim.Adam(module.parameters(), lr=cfg.lr, betas=(cfg.adam_beta1,
                                                                   cfg.adam_beta2),
                            eps=cfg.adam_eps)


class _Agent:
    """One agent's four networks and two optimisers, copied from a reference agent."""

    def __init__(self, ref_agent, cfg):
        self.i, self.kind, self.act_col = ref_agent.i, ref_agent.kind, ref_agent.act_col
        self.actor = _mlp(ref_agent.actor)
        self.critic = _mlp(ref_agent.critic)
        self.target_actor = _mlp(ref_agent.target_actor)
        self.target_critic = _mlp(ref_agent.target_critic)
        self.actor_opt = _optimizer(self.actor, cfg)
        self.critic_opt = _optimizer(self.critic, cfg)

    def critic_input(self, obs, act):
        import torch
        if self.kind == "ddpg":
            return torch.cat([obs[self.i], act[self.i]], dim=1)
        return torch.cat(list(obs) + list(act), dim=1)


class TorchMaddpg:
    """MADDPG's update round in PyTorch for the agents of ``reference`` (a
    :class:`~.reference.MaddpgReference`, whose initial weights it copies)."""

    def __init__(self, reference, threads: int = 1):
        import torch
        torch.set_num_threads(threads)
        self.cfg = reference.cfg
        self.agents = [_Agent(a, self.cfg) for a in reference.agents]
        self.n = len(self.agents)

    @staticmethod
    def tensors(batch) -> dict:
        """A :class:`~.replay.Batch` as float32 tensors (done before the round is timed:
        drawing the batch is replay sampling, not training)."""
        import torch
        t = lambda xs: [torch.from_numpy(np.ascontiguousarray(x)) for x in xs]  # noqa: E731
        return {"obs": t(batch.obs), "act": t(batch.act), "next_obs": t(batch.next_obs),
                "rew": [torch.from_numpy(r)[:, None] for r in batch.rew],
                "done": [torch.from_numpy(d)[:, None] for d in batch.done],
                "noise_target": t(batch.noise_target), "noise_policy": t(batch.noise_policy)}

    def _clip(self, module) -> None:
        import torch
        if self.cfg.grad_clip is not None:
            for p in module.parameters():
                torch.nn.utils.clip_grad_norm_([p], self.cfg.grad_clip)

    def update(self, batches: list) -> dict:
        """One round: every agent's value and policy step and soft target update, agent after
        agent; ``batches[i]`` is agent i's batch from :meth:`tensors`."""
        import torch
        import torch.nn.functional as F
        cfg, q_loss, p_loss = self.cfg, [], []
        for ag, b in zip(self.agents, batches):
            i = ag.i
            with torch.no_grad():
                target_act = [F.softmax(a.target_actor(b["next_obs"][j]) + b["noise_target"][j],
                                        dim=-1) for j, a in enumerate(self.agents)]
                q_next = ag.target_critic(ag.critic_input(b["next_obs"], target_act))
                y = b["rew"][i] + cfg.gamma * (1.0 - b["done"][i]) * q_next
            q = ag.critic(ag.critic_input(b["obs"], b["act"]))
            loss = F.mse_loss(q, y)
            ag.critic_opt.zero_grad()
            loss.backward()
            self._clip(ag.critic)
            ag.critic_opt.step()
            q_loss.append(loss.item())

            logits = ag.actor(b["obs"][i])
            act = list(b["act"])
            act[i] = F.softmax(logits + b["noise_policy"][i], dim=-1)
            ploss = (-ag.critic(ag.critic_input(b["obs"], act)).mean()
                     + cfg.actor_reg * (logits ** 2).mean())
            ag.actor_opt.zero_grad()
            ploss.backward()
            self._clip(ag.actor)
            ag.actor_opt.step()
            p_loss.append(ploss.item())

            with torch.no_grad():
                for tgt, src in ((ag.target_actor, ag.actor), (ag.target_critic, ag.critic)):
                    for tp, p in zip(tgt.parameters(), src.parameters()):
                        tp.mul_(1.0 - cfg.tau).add_(p, alpha=cfg.tau)
        return {"q_loss": q_loss, "p_loss": p_loss}
