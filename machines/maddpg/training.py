"""Training-in-simulation (the MADDPG paper's Fig. 1): sample generation on the host and model updates
by a *learner*, with the episode bookkeeping and the timing of both phases.

:class:`Training` owns the task, the shared replay buffer, the random streams and the
curves; it does not know what trains the networks. A learner provides

* ``act(obs, rng) -> actions``: every agent's action for one step (on the host's CPU), and
* ``update(batches) -> dict``: one update round of every agent.

:class:`~.reference.MaddpgReference` is one learner; phase B's accelerator host is another,
so both see the same environment, buffer, batches, noise and schedule.

The schedule is openai/maddpg's: after each environment step (``t`` counts them from 1), when
the buffer holds at least ``cfg.start`` steps and ``t % update_every == 0``, one update
round. Random streams, all from ``cfg.seed`` (:func:`streams`): ``init`` (weights), ``env``
(the environment's seed), ``act`` (sample-generation noise), ``replay`` (batch indices and
the learners' Gumbel noise).

Timing (wall clock, ``time.perf_counter``): ``t_sg`` is sample generation per step --
every agent's inference, the environment step and storing the transition (eq. 7's T_SG);
``t_sample`` is drawing a round's batches; ``t_learn`` is the learner's ``update``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from rlaccel.machines.maddpg.replay import ReplayBuffer
from rlaccel.machines.maddpg.task import make_task

__all__ = ["streams", "Curve", "Training", "RandomPolicy"]


def streams(seed: int) -> dict:
    """The run's independent generators, derived from one seed."""
    init, env, act, replay = np.random.SeedSequence(seed).spawn(4)
    return {"init": np.random.default_rng(init),
            "env_seed": int(env.generate_state(1)[0]),
            "act": np.random.default_rng(act),
            "replay": np.random.default_rng(replay)}


@dataclass
class Curve:
    """Per finished episode: the sum over agents of their episode returns (openai/maddpg's
    "episode reward"), each agent's return, and for Predator-Prey the predators' touches
    (collisions between a predator and the prey: an adversary's reward / 10)."""

    returns: list = field(default_factory=list)
    agent_returns: list = field(default_factory=list)
    touches: list = field(default_factory=list)

    def window_means(self, window: int) -> list:
        """Mean episode reward over consecutive windows of ``window`` episodes."""
        r = np.asarray(self.returns, dtype=np.float64)
        k = len(r) // window
        return [float(r[j * window:(j + 1) * window].mean()) for j in range(k)]


class Training:
    """Sample generation, the buffer and the update schedule for one task and config."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.task = make_task(cfg.env, max_cycles=cfg.max_episode_len,
                              env_kwargs=cfg.env_kwargs,
                              shared_reward=cfg.shared_reward, policies=cfg.policies)
        self.rng = streams(cfg.seed)
        self.replay = ReplayBuffer(self.task.obs_dims, self.task.act_dims, cfg.buffer)
        self.curve = Curve()
        self.steps = 0
        self.rounds = 0
        self.t_sg = 0.0
        self.t_sample = 0.0
        self.t_learn = 0.0
        self._pred = [k for k, s in enumerate(self.task.specs) if s.adversary]
        self._obs = self.task.reset(seed=self.rng["env_seed"])
        self._ret = np.zeros(self.task.n)

    @property
    def episodes(self) -> int:
        return len(self.curve.returns)

    def batches(self, size: int | None = None) -> list:
        """One round's batches of ``size`` transitions (default ``cfg.batch``): one shared, or
        one per agent (``cfg.shared_batch``)."""
        rng, B = self.rng["replay"], size or self.cfg.batch
        if self.cfg.shared_batch:
            return [self.replay.sample(rng, B)] * self.task.n
        return [self.replay.sample(rng, B) for _ in range(self.task.n)]

    def step(self, act) -> bool:
        """One environment step with ``act(obs, rng)`` choosing the actions; True when an
        episode ended."""
        t0 = time.perf_counter()
        actions = act(self._obs, self.rng["act"])
        nxt, rew, done, over = self.task.step(actions)
        self.replay.add(self._obs, actions, rew, nxt, done)
        self.t_sg += time.perf_counter() - t0
        self.steps += 1
        self._ret += rew
        self._obs = nxt
        if over:
            c = self.curve
            c.returns.append(float(self._ret.sum()))
            c.agent_returns.append(self._ret.tolist())
            if self._pred:
                c.touches.append(float(self._ret[self._pred[0]]) / 10.0)
            self._ret = np.zeros(self.task.n)
            t0 = time.perf_counter()
            self._obs = self.task.reset()
            self.t_sg += time.perf_counter() - t0
        return over

    def due(self) -> bool:
        """Whether an update round follows the step just taken."""
        return len(self.replay) >= self.cfg.start and self.steps % self.cfg.update_every == 0

    def run(self, learner, episodes: int | None = None, callback=None) -> Curve:
        """Train ``learner`` for ``episodes`` more episodes (default ``cfg.episodes``);
        ``callback(self)`` after every episode."""
        target = self.episodes + (self.cfg.episodes if episodes is None else episodes)
        while self.episodes < target:
            over = self.step(learner.act)
            if self.due():
                t0 = time.perf_counter()
                b = self.batches()
                t1 = time.perf_counter()
                learner.update(b)
                self.t_learn += time.perf_counter() - t1
                self.t_sample += t1 - t0
                self.rounds += 1
            if over and callback is not None:
                callback(self)
        return self.curve

    def timing(self) -> dict:
        """Seconds per environment step (T_SG) and per update round (sampling, learner)."""
        per = lambda total, n: total / n if n else None  # noqa: E731
        return {"steps": self.steps, "rounds": self.rounds,
                "t_sg_per_step": per(self.t_sg, self.steps),
                "t_sample_per_round": per(self.t_sample, self.rounds),
                "t_learn_per_round": per(self.t_learn, self.rounds)}


class RandomPolicy:
    """A learner that acts uniformly at random (one-hot discrete actions) and never learns:
    the baseline the learning curves are compared with."""

    def __init__(self, task):
        self.task = task

    def act(self, obs, rng):
        return self.task.random_actions(rng)

    def update(self, batches):
        return {}
