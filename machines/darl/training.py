"""The host side of HDQL (the DARL paper, Fig. 2 and 6): environments, epsilon-greedy, replay
buffers, training stages and their synchronisation, the learning curve and wall-clock time.

:class:`Training` owns everything but the hypervector arithmetic, which a *learner* does:

* ``act(k, obs) -> int``: agent ``k``'s greedy action (an inference iteration of the kernel);
* ``train(k, batch)``: one training batch of agent ``k`` (M iterations);
* ``end_stage()``: the synchronisation after a training stage (all-reduce, Q' and Q).

:class:`~.reference.HdqlReference` (float64) and :class:`~.functional.FunctionalHdql`
(the unit models, fixed32) are learners; phase B's accelerator host is another, so all see the
same environments, buffers, batches, exploration and schedule.

A **training stage** is one episode of every agent: all agents reset, step their own
environment in turn (agent 0 first) until each episode ends (an agent whose episode ended
waits), then the learner synchronises. Per step of agent ``k``: with probability epsilon a
uniformly random action (no kernel call), else ``act``; the environment step; the transition
stored with its training reward; every ``train_every`` steps a batch of M from ``k``'s buffer
and ``train``. Epsilon decays once per stage. With one agent a stage is an episode and the
synchronisation is the paper's target refresh at the next episode's start. With several agents
(``cfg.sync_each_step``, the default) the learner also synchronises after every *round* (each
active agent's step and batch), before the next inference: section 4.1 has the models
synchronised for the inference stage, Table 1 the all-reduce in every step's latency.

Random streams, all from ``cfg.seed`` (:func:`streams`): ``init`` (the position matrix),
one environment seed, one exploration and one replay generator per agent.

Timing (``time.perf_counter``, seconds): ``t_env`` environment steps and resets, ``t_act``
the learner's ``act``, ``t_train`` sampling and ``train``, ``t_sync`` ``end_stage``; ``wall``
everything, and the wall time at the end of every stage (for the time to target).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from rlaccel.machines.darl.config import HdqlConfig
from rlaccel.machines.darl.replay import ReplayBuffer
from rlaccel.machines.darl.task import AgentEnv, env_shape

__all__ = ["streams", "make_learner", "Curve", "Training"]


def streams(seed: int, agents: int) -> dict:
    """The run's independent generators, derived from one seed."""
    init, env, explore, replay = np.random.SeedSequence(seed).spawn(4)
    return {"init": np.random.default_rng(init),
            "env_seeds": [int(s.generate_state(1)[0]) for s in env.spawn(agents)],
            "explore": [np.random.default_rng(s) for s in explore.spawn(agents)],
            "replay": [np.random.default_rng(s) for s in replay.spawn(agents)]}


def make_learner(cfg: HdqlConfig, n_obs: int, n_actions: int, rng: np.random.Generator):
    """The float64 reference, or the unit models in fixed32 (``cfg.number``): their compiled
    kernels (:class:`~.functional.CompiledHdql`, the same bits) where numba is there."""
    if cfg.number == "float64":
        from rlaccel.machines.darl.reference import HdqlReference
        return HdqlReference(cfg, n_obs, n_actions, rng)
    from rlaccel.machines.darl.functional import CompiledHdql, FunctionalHdql, compiled_available
    if compiled_available(cfg):
        return CompiledHdql(cfg, n_obs, n_actions, rng)
    return FunctionalHdql(cfg, n_obs, n_actions, rng)


@dataclass
class Curve:
    """Per stage: every agent's episode return and length, the kernel's inference
    iterations (greedy steps, eq. 24's T') and training batches (T''), epsilon, and the wall
    time at its end."""

    agent_returns: list = field(default_factory=list)
    agent_steps: list = field(default_factory=list)
    greedy: list = field(default_factory=list)
    batches: list = field(default_factory=list)
    epsilon: list = field(default_factory=list)
    wall: list = field(default_factory=list)

    @property
    def returns(self) -> list:
        """The stage's return: the mean over agents of their episode returns."""
        return [float(np.mean(r)) for r in self.agent_returns]

    def first_stage(self, target: float, how: str = "mean") -> int | None:
        """1-based index of the first stage whose mean (``how="mean"``) or best
        (``"any"``) agent return reaches ``target``, or None."""
        for i, r in enumerate(self.agent_returns):
            if (np.mean(r) if how == "mean" else np.max(r)) >= target:
                return i + 1
        return None

    def moving_mean(self, window: int) -> list:
        """Mean of the stage returns over the last ``window`` stages (fewer at the start)."""
        r = np.asarray(self.returns, dtype=np.float64)
        c = np.concatenate([[0.0], np.cumsum(r)])
        return [float((c[i + 1] - c[max(0, i + 1 - window)]) / min(i + 1, window))
                for i in range(len(r))]


class Training:
    """One HDQL run's host side for ``cfg``, driving ``learner`` (by default the one
    :func:`make_learner` builds)."""

    def __init__(self, cfg: HdqlConfig, learner=None):
        self.cfg = cfg
        self.n_obs, self.n_actions = env_shape(cfg.env)
        self.rng = streams(cfg.seed, cfg.agents)
        self.envs = [AgentEnv(cfg.env, cfg.terminal_reward) for _ in range(cfg.agents)]
        self.buffers = [ReplayBuffer(self.n_obs, cfg.buffer) for _ in range(cfg.agents)]
        self.learner = (learner if learner is not None
                        else make_learner(cfg, self.n_obs, self.n_actions, self.rng["init"]))
        self.epsilon = float(cfg.epsilon)
        self.curve = Curve()
        self.steps = 0
        self.t_env = self.t_act = self.t_train = self.t_sync = self.wall = 0.0

    @property
    def stages(self) -> int:
        return len(self.curve.agent_returns)

    def run_stage(self) -> list:
        """One training stage; every agent's episode return."""
        cfg, clock = self.cfg, time.perf_counter
        start = clock()
        first = self.stages == 0
        t0 = clock()
        for k, env in enumerate(self.envs):
            env.reset(seed=self.rng["env_seeds"][k] if first else None)
        self.t_env += clock() - t0
        greedy = batches = 0
        active = list(range(cfg.agents))
        while active:
            for k in active:
                env, explore = self.envs[k], self.rng["explore"][k]
                if explore.random() < self.epsilon:
                    a = int(explore.integers(self.n_actions))
                else:
                    t0 = clock()
                    a = self.learner.act(k, env.obs)
                    self.t_act += clock() - t0
                    greedy += 1
                t0 = clock()
                tr = env.step(a)
                self.t_env += clock() - t0
                self.buffers[k].add(tr.obs, tr.action, tr.train_reward, tr.next_obs)
                self.steps += 1
                if env.steps % cfg.train_every == 0:
                    t0 = clock()
                    self.learner.train(k, self.buffers[k].sample(self.rng["replay"][k],
                                                                 cfg.batch))
                    self.t_train += clock() - t0
                    batches += 1
            active = [k for k in active if not self.envs[k].done]
            if cfg.sync_each_step and active:
                # every agent has trained on this round's batch: synchronise before the next
                # inference (the last round's synchronisation is the stage end below)
                t0 = clock()
                self.learner.end_stage()
                self.t_sync += clock() - t0
        t0 = clock()
        self.learner.end_stage()
        self.t_sync += clock() - t0
        c = self.curve
        c.agent_returns.append([e.ret for e in self.envs])
        c.agent_steps.append([e.steps for e in self.envs])
        c.greedy.append(greedy)
        c.batches.append(batches)
        c.epsilon.append(self.epsilon)
        self.epsilon = max(self.epsilon * cfg.epsilon_decay, cfg.epsilon_min)
        self.wall += clock() - start
        c.wall.append(self.wall)
        return c.agent_returns[-1]

    def run(self, stages: int | None = None, *, stop_at_target: bool = False) -> Curve:
        """Run ``stages`` stages (``cfg.stages`` by default), or until the mean return of a
        stage reaches the target when ``stop_at_target``."""
        for _ in range(self.cfg.stages if stages is None else stages):
            returns = self.run_stage()
            if stop_at_target and np.mean(returns) >= self.cfg.target:
                break
        return self.curve

    def summary(self) -> dict:
        """The run's figures, JSON-ready."""
        c, cfg = self.curve, self.cfg
        first = c.first_stage(cfg.target)
        first_any = c.first_stage(cfg.target, "any")
        return {
            "stages": self.stages, "env_steps": self.steps,
            "first_stage_at_target": first,
            "first_stage_any_agent_at_target": first_any,
            "episodes_to_target": None if first is None else first * cfg.agents,
            "wall_to_target_s": None if first is None else c.wall[first - 1],
            "best_return": max(c.returns) if c.returns else None,
            "best_mean100": max(c.moving_mean(100)) if c.returns else None,
            "wall_s": self.wall,
            "wall_per_env_step_us": 1e6 * self.wall / max(self.steps, 1),
            "t_env_s": self.t_env, "t_act_s": self.t_act, "t_train_s": self.t_train,
            "t_sync_s": self.t_sync,
        }
