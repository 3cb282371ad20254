"""The float reference: IC3Net with fully learnable weight grouping trained on predator-prey,
in plain numpy (float32 by default), no simulator.

One iteration is what the paper's instruction scheduler runs (section III): weight grouping
(the masks of the current IG/OG), B episodes of forward passes while the host steps the
environment, then backward propagation and the weight update of the weights, biases and
grouping matrices (RMSprop), after which the next iteration regroups. The host side
(environment, sampling, returns, success) is :class:`.episodes.Episodes`, which the
simulator's host driver shares; the network is :class:`.ic3net.IC3Net`.

Deterministic for a seed: ``SeedSequence(seed)`` gives the initial weights and, through
:class:`Episodes`, every episode seed and action draw; the same seed gives the same bits.

>>> from rlaccel.machines.learninggroup.reference import Ic3netReference
>>> from rlaccel.machines.learninggroup.config import NetConfig, LearningConfig
>>> ref = Ic3netReference(NetConfig(hid=16, groups=2), LearningConfig(batch_episodes=2))
>>> row = ref.iteration()
>>> row["iteration"], row["episodes"], {"success_rate", "loss", "density"} <= set(row)
(1, 2, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from rlaccel.machines.learninggroup.config import LearningConfig, NetConfig
from rlaccel.machines.learninggroup.episodes import Batch, Episodes
from rlaccel.machines.learninggroup.ic3net import IC3Net, init_params
from rlaccel.machines.learninggroup.rmsprop import RMSprop

__all__ = ["Ic3netReference", "TrainResult", "StepRecorder"]


@dataclass
class TrainResult:
    """The learning curve (one row per iteration) and the wall time spent."""

    curve: list[dict] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def steps(self) -> int:
        return sum(r["steps"] for r in self.curve)

    def success_rate(self, last: int | None = None) -> float:
        """Success rate over the episodes of the last ``last`` iterations (all if None)."""
        rows = self.curve[-last:] if last else self.curve
        n = sum(r["episodes"] for r in rows)
        return sum(r["success_rate"] * r["episodes"] for r in rows) / n if n else 0.0


class StepRecorder:
    """The policy the host sees: the model, keeping each episode's forward steps."""

    def __init__(self, model: IC3Net):
        self.model = model
        self.episode_steps: list[list] = []

    def begin_episode(self) -> None:
        self.model.begin_episode()
        self.episode_steps.append(self.model.steps)

    def act(self, obs, talk_prev):
        return self.model.act(obs, talk_prev)


class Ic3netReference:
    """IC3Net + FLGW: network, optimiser and the shared host bookkeeping."""

    def __init__(self, net: NetConfig, cfg: LearningConfig):
        self.net, self.cfg = net, cfg
        self.dtype = np.dtype(cfg.dtype)
        self.episodes = Episodes(cfg)
        init_ss = np.random.SeedSequence([cfg.seed, 0x1C3])
        params = init_params(net, self.episodes.obs_dim, np.random.default_rng(init_ss),
                             self.dtype)
        self.model = IC3Net(net, self.episodes.obs_dim, self.episodes.nagents, params,
                            self.dtype)
        self.opt = RMSprop(params, cfg.lr, cfg.alpha, cfg.eps)
        self.iterations_done = 0

    def gradients(self, batch: Batch, episode_steps: list[list]) -> tuple[dict, float]:
        """Parameter gradients of a batch (summed, divided by its time steps) and its loss
        (the same scaling)."""
        c = self.cfg
        acc = self.model.zero_grads()
        loss = 0.0
        for ep, steps in zip(batch.episodes, episode_steps):
            R = ep.returns(c.gamma)
            loss += self.model.backward_episode(
                steps, ep.act_env, ep.act_talk, R - ep.values, R, acc,
                value_coeff=c.value_coeff, entropy_coeff=c.entropy_coeff,
                detach_gap=c.detach_gap)
        scale = 1.0 / batch.steps
        return self.model.param_grads(acc, scale), loss * scale

    def iteration(self) -> dict:
        """Regrouped masks are in place; play B episodes, update, regroup. Returns the
        iteration's row of the learning curve."""
        rec = StepRecorder(self.model)
        batch = self.episodes.batch(rec)
        grads, loss = self.gradients(batch, rec.episode_steps)
        self.opt.step(self.model.params, grads)
        self.model.refresh_masks()
        self.iterations_done += 1
        return {"iteration": self.iterations_done, "loss": loss, **batch.stats(),
                "density": self.density()}

    # ---- checkpoints (between iterations) ----
    def checkpoint_state(self) -> tuple[dict, dict]:
        """What the next iteration depends on, as ``(arrays, fields)`` for
        :func:`rlaccel.programs.checkpoint.write`: the parameters, RMSprop's square averages,
        the generators of the episode seeds and the action draws, the counts. The masks are
        the parameters' (:meth:`IC3Net.refresh_masks`); no episode is in flight."""
        from rlaccel.programs.checkpoint import rng_state
        arrays = {f"param.{k}": v for k, v in self.model.params.items()}
        arrays.update({f"square_avg.{k}": v for k, v in self.opt.square_avg.items()})
        ep = self.episodes
        return arrays, {"iterations_done": self.iterations_done, "episodes": ep.count,
                        "env_rng": rng_state(ep._env_rng), "rng": rng_state(ep.rng)}

    def restore(self, saved) -> None:
        """Continue from :meth:`checkpoint_state`'s state (``saved``, a
        :class:`~rlaccel.programs.checkpoint.Saved`) in this fresh reference."""
        for k, v in self.model.params.items():           # in place: the model shares them
            v[...] = saved.array(f"param.{k}", v.dtype, v.shape)
        for k, v in self.opt.square_avg.items():
            v[...] = saved.array(f"square_avg.{k}", v.dtype, v.shape)
        self.iterations_done = saved.get("iterations_done", int, lo=0)
        self.episodes.count = saved.get("episodes", int, lo=0)
        saved.rng("env_rng", self.episodes._env_rng)
        saved.rng("rng", self.episodes.rng)
        self.model.refresh_masks()

    def identity(self) -> dict:
        """What a checkpoint must match to be resumed: the network and the configuration
        but the iteration budget (a checkpoint continues to a larger one)."""
        return {"reference": {"net": dict(self.net.__dict__),
                              "learning": {k: v for k, v in self.cfg.__dict__.items()
                                           if k != "iterations"}}}

    def density(self) -> float:
        """Kept fraction of the grouped layers' weights (1.0 when nothing is grouped)."""
        masks = self.model.masks
        if not masks:
            return 1.0
        return float(sum(m.sum() for m in masks.values()) / sum(m.size for m in masks.values()))

    def train(self, iterations: int | None = None,
              callback: Callable[[dict, "Ic3netReference"], None] | None = None
              ) -> TrainResult:
        """Run ``iterations`` (default the config's) and return the curve; ``callback(row,
        self)`` is called after every iteration (progress, load-balance tracking)."""
        out = TrainResult()
        t0 = time.perf_counter()
        for _ in range(self.cfg.iterations if iterations is None else iterations):
            row = self.iteration()
            out.curve.append(row)
            if callback is not None:
                callback(row, self)
        out.wall_s = time.perf_counter() - t0
        return out
