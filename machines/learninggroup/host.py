"""The LearningGroup host: the CPU side of the paper's system (Fig. 3). It steps the predator-
prey environment, draws the agents' actions from the probabilities the accelerator returns,
computes returns and advantages at the end of each episode and hands them to the accelerator
as its training data, and says when a batch is complete (weight update) and when to stop. It
talks to the accelerator only through the host link, finding every field by its symbol.

The exchange (``machines/learninggroup/programs/loop.inc``): every ``cc.host`` of the step loop sends
``OUT`` (per agent the action and talk probabilities and the value of the step just
computed) and receives ``CMD`` (0 step, 1 episode ended, 2 update, 3 halt), ``FIRST``,
``SCALE``, ``TALK`` and ``OBS``; after ``CMD`` = 1 the program's second ``cc.host`` receives
the episode's training data ``TD`` (per step the environment actions, the talk actions, the
advantages, the returns and the BPTT keep flag).

The environment, sampling, returns and success statistics are the float reference's
(:class:`.episodes.Episodes`), so a run on the machine differs from the reference only by
what the network computes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from rlaccel.util.errors import RlaccelError
from rlaccel.tlm.hostlink import HostTimeline

from rlaccel.machines.learninggroup.config import LearningConfig
from rlaccel.machines.learninggroup.episodes import Batch, Episodes

__all__ = ["LgHost", "HostPlan", "STEP", "EPISODE_END", "UPDATE", "HALT", "REPLY_FIELDS"]

STEP, EPISODE_END, UPDATE, HALT = 0, 1, 2, 3
#: the step reply, in the order the program lays it out from IN
REPLY_FIELDS = ("CMD", "FIRST", "SCALE", "TALK", "OBS")
#: the outputs of one agent: action probabilities, talk probabilities, value
NACT = 5
HEADS = NACT + 3


@dataclass(frozen=True)
class HostPlan:
    """When the host stops: after ``iterations`` weight updates, or (``steps`` > 0) at the
    first episode end with at least ``steps`` environment steps (the episodes of a partial
    batch are then updated once more); ``grad_scale``: ``"mean"`` sends 1/steps of the batch
    (IC3Net's loss normalisation), ``"sum"`` sends 1 (the FP16 machine's loss scaling)."""

    iterations: int
    steps: int = 0
    grad_scale: str = "sum"


class LgHost:
    """The host driver the simulator's host link calls (raw binary16 words both ways)."""

    def __init__(self, cfg: LearningConfig, plan: HostPlan, binary, dt):
        self.cfg, self.plan, self.dt = cfg, plan, dt
        self.episodes = Episodes(cfg)
        A = self.episodes.nagents
        base = binary.symbol("IN").address
        self.off = {}
        for name in REPLY_FIELDS:
            s = binary.symbol(name)
            self.off[name] = (s.address - base, max(s.length, 1))
        self.nin = self.off["OBS"][0] + self.off["OBS"][1]
        want = {"TALK": A, "OBS": A * self.episodes.obs_dim}
        for name, n in want.items():
            if self.off[name][1] != n:
                raise RlaccelError(f"the program's {name} has {self.off[name][1]} words; the "
                                   f"environment needs {n} ({A} agents, "
                                   f"{self.episodes.obs_dim} observation words each)")
        out = binary.symbol("OUT")
        if out.length != A * HEADS:
            raise RlaccelError(f"the program's OUT has {out.length} words, not {A} agents x "
                               f"{HEADS} outputs")
        td = binary.symbol("TD")
        self.tmax = td.length // (4 * A + 1)
        if td.length != self.tmax * (4 * A + 1) or self.tmax < cfg.env_kwargs.get(
                "max_steps", 20):
            raise RlaccelError(f"the program's TD ({td.length} words) does not hold "
                               f"{cfg.env_kwargs.get('max_steps', 20)} steps of {4 * A + 1} "
                               f"words: assemble it with TMAX >= the environment's max_steps")
        self.A = A
        self._fields = tuple(self.off[k][0] for k in ("CMD", "FIRST", "SCALE"))
        self._talk_at = slice(self.off["TALK"][0], self.off["TALK"][0] + self.off["TALK"][1])
        self._obs_at = slice(self.off["OBS"][0], self.off["OBS"][0] + self.off["OBS"][1])
        self._half = np.dtype(getattr(dt, "storage", object)) == np.float16
        self.timeline = HostTimeline()
        self.curve: list[dict] = []          # one row per weight update
        self.batch: list = []                # episodes of the batch being played
        self.last_batch: list = []           # the episodes of the last weight update
        self.all_episodes = 0
        self.successes = 0
        self.steps = 0
        self.finished = False
        self._phase = "start"                # what the next exchange answers
        self._x = self._talk = None
        self._episode = None

    # ---- the link ------------------------------------------------------------------------
    def exchange(self, out: np.ndarray) -> np.ndarray:
        if self._phase == "td":
            self._phase = "after_episode"
            return self._training_data()
        if self._phase == "step":
            probs = self.dt.to_float(out).reshape(self.A, HEADS)
            t0 = time.perf_counter()              # timeline.measure's, without its generator
            try:
                self._x, self._talk, done = self.episodes.step(
                    probs[:, :NACT], probs[:, NACT:NACT + 2], probs[:, NACT + 2])
            finally:
                self.timeline.add("environment", time.perf_counter() - t0)
            self.steps += 1
            if not done:
                return self._reply(STEP, first=0)
            self._episode = self.episodes.end()
            self._phase = "td"
            return self._reply(EPISODE_END)
        # start, after an episode's backward pass, after an update
        if self._phase == "after_episode":
            self.batch.append(self._episode)
            done_steps = self.plan.steps and self.steps >= self.plan.steps
            if len(self.batch) >= self.cfg.batch_episodes or done_steps:
                self._phase = "after_update"
                return self._reply(UPDATE, scale=self._scale())
        if self._phase == "after_update":
            self._record()
            if (len(self.curve) >= self.plan.iterations
                    or (self.plan.steps and self.steps >= self.plan.steps)):
                self.finished = True
                return self._reply(HALT)
        with self.timeline.measure("environment"):
            self._x, self._talk = self.episodes.begin()
        self._phase = "step"
        return self._reply(STEP, first=1)

    # ---- checkpoints (rlaccel.programs.checkpoint.Checkpointable) ----
    #: the per-agent state of the sparse family a checkpoint holds
    checkpoint_agent_state: tuple[str, ...] = ("sparse",)

    def checkpoint_state(self, agent) -> tuple[dict, dict] | None:
        """The run between episodes (:mod:`.checkpoint`); None inside an episode."""
        from rlaccel.machines.learninggroup.checkpoint import episodes_state, sparse_state
        from rlaccel.machines.learninggroup.tlm.state import state_of
        from rlaccel.programs.checkpoint import nest, rng_state
        if self._phase not in ("after_episode", "after_update"):
            return None
        ep = self.episodes
        arrays, fields = {}, {
            "phase": self._phase, "steps": self.steps, "all_episodes": self.all_episodes,
            "successes": self.successes, "finished": self.finished, "curve": self.curve,
            "count": ep.count, "env_rng": rng_state(ep._env_rng), "rng": rng_state(ep.rng)}
        for name, eps in (("batch", self.batch), ("last_batch", self.last_batch),
                          ("episode", [self._episode] if self._episode else [])):
            nest(name, episodes_state(eps), arrays, fields)
        nest("sparse", sparse_state(state_of(agent)), arrays, fields)
        return arrays, fields

    def restore(self, agent, saved) -> None:
        """Continue from :meth:`checkpoint_state`'s state in this freshly made host and
        agent."""
        from rlaccel.machines.learninggroup.checkpoint import restore_episodes, restore_sparse
        from rlaccel.machines.learninggroup.tlm.state import state_of
        self._phase = saved.get("phase", str)
        if self._phase not in ("after_episode", "after_update"):
            raise saved.unfit(f"phase = {self._phase!r}")
        self.steps = saved.get("steps", int, lo=0)
        self.all_episodes = saved.get("all_episodes", int, lo=0)
        self.successes = saved.get("successes", int, lo=0)
        self.finished = saved.get("finished", bool)
        self.curve = saved.get("curve", list)
        ep = self.episodes
        ep.count = saved.get("count", int, lo=0)
        saved.rng("env_rng", ep._env_rng)
        saved.rng("rng", ep.rng)
        self.batch = restore_episodes(saved.part("batch"))
        self.last_batch = restore_episodes(saved.part("last_batch"))
        episode = restore_episodes(saved.part("episode"))
        self._episode = episode[0] if episode else None
        restore_sparse(saved.part("sparse"), state_of(agent))

    def _reply(self, cmd: int, first: int = 0, scale: float = 0.0) -> np.ndarray:
        w = np.zeros(self.nin)
        c, f, s = self._fields
        w[c], w[f], w[s] = cmd, first, scale
        if cmd == STEP:
            w[self._talk_at] = self._talk
            w[self._obs_at] = np.asarray(self._x, np.float64).reshape(-1)
        return self._quantize(w)

    def _quantize(self, w: np.ndarray) -> np.ndarray:
        """``dt.quantize(w)``: for binary16 words all below 65520 in magnitude (no overflow
        to count) the cast it makes, without its checks."""
        if self._half and np.abs(w).max(initial=0.0) < 65520.0:
            return w.astype(np.float16)
        return self.dt.quantize(w)

    def _scale(self) -> float:
        if self.plan.grad_scale == "mean":
            return 1.0 / sum(e.steps for e in self.batch)
        return 1.0

    def _training_data(self) -> np.ndarray:
        """Per step: the environment and talk actions, the advantages R - v (v the values
        the accelerator returned), the returns and the keep flag (0 where IC3Net cuts BPTT:
        the state entering step t carries no gradient when t % detach_gap == 0)."""
        ep, A, c = self._episode, self.A, self.cfg
        R = ep.returns(c.gamma)
        adv = R - ep.values
        td = np.zeros((self.tmax, 4 * A + 1))
        T = ep.steps
        if T:
            keep = (np.arange(T) % c.detach_gap != 0).astype(np.float64)
            td[:T] = np.concatenate([np.asarray(ep.act_env[:T], np.float64),
                                     np.asarray(ep.act_talk[:T], np.float64), adv[:T], R[:T],
                                     keep[:, None]], axis=1)
        return self._quantize(td.reshape(-1))

    def _record(self) -> None:
        b = Batch(self.batch)
        row = {"iteration": len(self.curve) + 1, **b.stats()}
        self.curve.append(row)
        self.all_episodes += len(self.batch)
        self.successes += sum(e.success for e in self.batch)
        self.last_batch, self.batch = self.batch, []

    # ---- results -------------------------------------------------------------------------
    def learning(self) -> dict:
        rows = self.curve
        n = sum(r["episodes"] for r in rows)

        def rate(sub, key="success_rate"):
            m = sum(r["episodes"] for r in sub)
            return sum(r[key] * r["episodes"] for r in sub) / m if m else 0.0
        tail = rows[-max(1, len(rows) // 10):] if rows else []
        return {"success_rate": rate(rows), "caught_rate": rate(rows, "caught_rate"),
                "success_rate_last_tenth": rate(tail), "iterations": len(rows),
                "episodes": n, "steps": int(sum(r["steps"] for r in rows)),
                "curve": rows}
