"""The host of the DARL machine (the DARL paper, Fig. 2 and 6): environments, epsilon-greedy, replay
buffers and training stages on the CPU; the kernel (``machines/darl/programs/hdql.s``) on the
simulated accelerator, one agent each.

:class:`DarlHost` is what the agents share (the configuration, the random streams, the
learning curve); :meth:`DarlHost.link` gives agent ``k`` its :class:`AgentHost`, which
answers that agent's exchanges. Every agent's host runs exactly the per-agent schedule of
:class:`~.training.Training` (same streams, same order of draws): reset, per step epsilon-
greedy (a random action needs no kernel call, a greedy one is an ``F_ACT`` exchange), the
environment step, the transition stored, every ``train_every`` steps a batch of M from the
agent's buffer (an ``F_TRAIN`` exchange), and at the episode's end the stage's
synchronisation (``F_SYNC``: the kernel's butterfly all-reduce waits for every agent). With
a synchronisation every round (``cfg.sync_each_step``) every agent sends ``F_SYNC`` after
each step and batch, and an agent whose episode ended sends one a round until the last
agent's episode ends (:meth:`DarlHost.round_ends_stage`). The
agents' streams are independent, so the simulator's interleaving of the agents changes no
draw: the run equals ``Training`` with :class:`~.functional.FunctionalHdql` (fixed32) step
for step and bit for bit.

The first exchange brings beta, gamma and the position matrix (in turns, q16.16), drawn from
the run's ``init`` stream as the functional learner draws it. Every buffer is found by its
symbol. The host's own time (environment steps, replay sampling) is measured on this
machine and kept on agent 0's :class:`~rlaccel.tlm.hostlink.HostTimeline` (wall clock);
``t_env``, which IPS uses, is the environments' CPU time of this process (what an idle core
takes: on a shared machine the wall clock also counts waiting for a core).
"""

from __future__ import annotations

import math
import time

import numpy as np

from rlaccel.isa.dtypes import SaturationCounter, get_dtype
from rlaccel.util.errors import RlaccelError, SimError
from rlaccel.machines.darl.tlm import position_matrix
from rlaccel.tlm.hostlink import HostTimeline

from rlaccel.machines.darl.config import HdqlConfig
from rlaccel.machines.darl.replay import ReplayBuffer
from rlaccel.machines.darl.task import AgentEnv, env_shape
from rlaccel.machines.darl.training import Curve, streams

__all__ = ["DarlHost", "AgentHost", "MAXB"]

#: training samples one exchange carries (the program's MAXB)
MAXB = 16

#: the learning curve's lists and an agent's schedule, as a checkpoint holds them
_CURVE = ("agent_returns", "agent_steps", "greedy", "batches", "epsilon", "wall")
_SCHEDULE = ("phase", "stage", "greedy", "batches", "round", "pad", "nulls", "stepped",
             "done_round", "epsilon", "epsilon_of_stage")


class DarlHost:
    """The shared host of an HDQL run on ``cfg.agents`` agents; the run stops at the end of
    the first stage after ``cfg.stages`` stages, ``steps`` environment steps (0: no limit) or,
    with ``stop_at_target``, the first stage whose mean return reaches ``cfg.target``."""

    def __init__(self, cfg: HdqlConfig, steps: int = 0, stop_at_target: bool = False):
        self.cfg = cfg
        self.fmt = get_dtype("fixed32")
        #: the raw 1.0 of a command flag or a mask bit (quantized once)
        self.one = int(self.fmt.quantize(1.0))
        self.counter = SaturationCounter()
        self.n_obs, self.n_actions = env_shape(cfg.env)
        self.rng = streams(cfg.seed, cfg.agents)
        self.P = position_matrix(self.n_obs, cfg.d, self.rng["init"])
        self.steps_limit, self.stop_at_target = steps, stop_at_target
        self.curve = Curve()
        self.steps = 0
        self.hosts = [AgentHost(self, k) for k in range(cfg.agents)]
        self.timeline = self.hosts[0].timeline
        self.done = False
        self.reported = 0
        self.ended: dict = {}            # stage -> the round whose synchronisation ended it
        self.wall0 = time.perf_counter()
        self.t_env = 0.0
        self.t_sample = 0.0

    def link(self, k: int) -> "AgentHost":
        return self.hosts[k]

    @property
    def finished(self) -> bool:
        return self.done

    def init_words(self) -> np.ndarray:
        """beta, gamma and P in turns (row-major), raw: the first exchange's reply."""
        t = self.fmt
        return np.concatenate([t.quantize([self.cfg.learning_rate, self.cfg.gamma]),
                               t.quantize(self.P / (2.0 * math.pi)).reshape(-1)])

    def round_ends_stage(self, stage: int, rnd: int) -> bool:
        """With a synchronisation every round (``cfg.sync_each_step``): whether round ``rnd``
        of ``stage`` was its last, i.e. every agent's episode had ended by then. Asked by an
        agent back from that round's all-reduce, which every agent's round-``rnd`` step
        precedes; the first agent to see the end records it for the others."""
        if stage in self.ended:
            return self.ended[stage] == rnd
        if all(h.stage == stage and h.done_round is not None and h.done_round <= rnd
               for h in self.hosts):
            self.ended[stage] = rnd
            return True
        return False

    # ---- checkpoints (saved with agent 0's part, :meth:`AgentHost.checkpoint_state`) ----
    def checkpoint_state(self) -> tuple[dict, dict]:
        """What the agents share: the learning curve, the step count, the stages' ends, the
        saturation count and the host's measured times."""
        c = self.curve
        return {}, {"curve": {k: getattr(c, k) for k in _CURVE}, "steps": self.steps,
                    "done": self.done, "ended": [[s, r] for s, r in self.ended.items()],
                    "saturations": int(self.counter.saturations), "t_env": self.t_env,
                    "t_sample": self.t_sample, "wall": time.perf_counter() - self.wall0}

    def restore(self, saved) -> None:
        """Continue from :meth:`checkpoint_state`'s state in this fresh host."""
        curve = saved.part("curve")
        for k in _CURVE:
            setattr(self.curve, k, curve.get(k, list))
        self.steps = saved.get("steps", int, lo=0)
        self.done = saved.get("done", bool)
        ended = saved.get("ended", list)
        if not all(isinstance(e, list) and len(e) == 2 and all(type(x) is int for x in e)
                   for e in ended):
            raise saved.unfit("ended is not a list of stages and rounds")
        self.ended = {s: r for s, r in ended}
        self.counter.saturations = saved.get("saturations", int, lo=0)
        self.t_env = saved.get("t_env", float)
        self.t_sample = saved.get("t_sample", float)
        self.wall0 = time.perf_counter() - saved.get("wall", float)

    def end_of_stage(self, stage: int) -> None:
        """An agent is back from the synchronisation after ``stage``. The all-reduce took every
        agent, so every episode of the stage is over: the first agent back closes the stage
        (before any agent resets its environment) and decides whether the run goes on."""
        c = self.curve
        if len(c.agent_returns) > stage:
            return
        hs = self.hosts
        c.agent_returns.append([h.env.ret for h in hs])
        c.agent_steps.append([h.env.steps for h in hs])
        c.greedy.append(sum(h.greedy for h in hs))
        c.batches.append(sum(h.batches for h in hs))
        c.epsilon.append(hs[0].epsilon_of_stage)
        c.wall.append(time.perf_counter() - self.wall0)
        n = len(c.agent_returns)
        if (n >= self.cfg.stages or (self.steps_limit and self.steps >= self.steps_limit)
                or (self.stop_at_target and np.mean(c.agent_returns[-1]) >= self.cfg.target)):
            self.done = True


class AgentHost:
    """Agent ``k``'s side of the host link (module docstring)."""

    def __init__(self, shared: DarlHost, k: int):
        self.shared, self.k = shared, k
        cfg = shared.cfg
        self.timeline = HostTimeline()
        self.env = AgentEnv(cfg.env, cfg.terminal_reward)
        self.buffer = ReplayBuffer(shared.n_obs, cfg.buffer)
        self.explore = shared.rng["explore"][k]
        self.replay = shared.rng["replay"][k]
        self.epsilon = float(cfg.epsilon)
        self.epsilon_of_stage = self.epsilon
        self.phase = "init"
        self.stage = 0
        self.greedy = self.batches = 0
        self.round = 0                   # synchronisations of this stage so far
        self.pad = 0                     # all-reduces owed after a short batch
        self.nulls = False               # a finished agent's all-reduces sent this round
        self.stepped = False             # the environment stepped since the last one
        self.done_round = None           # the round in which the episode ended
        self.sym: dict = {}

    def bind(self, binary) -> None:
        """Find the buffers of the agent's binary by symbol and check their sizes."""
        sym = {s.name: s for s in binary.symbols}
        need = ("OUT", "BG", "PIN", "IN", "F_ACT", "F_TRAIN", "F_SYNC", "F_TRAINAR", "F_NULL",
                "STATE", "SLOTS")
        missing = [s for s in need if s not in sym]
        if missing:
            raise RlaccelError(f"{binary.origin}: the program has no symbol(s) "
                               f"{', '.join(missing)}, which the DARL host needs")
        sh = self.shared
        n, a = sh.n_obs, sh.n_actions
        self.sw = 2 * n + a + 2
        want = {"BG": 2, "PIN": n * sh.cfg.d, "STATE": n, "SLOTS": MAXB * self.sw}
        for name, size in want.items():
            if sym[name].length != size:
                raise RlaccelError(f"{binary.origin}: symbol {name} has {sym[name].length} "
                                   f"words; {sh.cfg.env} with D = {sh.cfg.d} needs {size}")
        self.sym = sym
        self.base = sym["IN"].address
        self.nin = sym["SLOTS"].address + sym["SLOTS"].length - self.base

    @property
    def finished(self) -> bool:
        return self.shared.finished

    # ---- checkpoints (rlaccel.programs.checkpoint.Checkpointable) ----
    #: the per-agent state of the hdc family a checkpoint holds (its update cache; the
    #: codebook and the optimisations come from the architecture)
    checkpoint_agent_state: tuple[str, ...] = ("hdc",)

    def checkpoint_state(self, agent) -> tuple[dict, dict] | None:
        """The agent's environment, replay buffer, random streams, schedule and counters,
        its hdc family's update cache and, for agent 0, what the agents share
        (:meth:`DarlHost.checkpoint_state`); None while an episode of an environment that
        cannot be saved mid-episode runs (:attr:`~.task.AgentEnv.savable`)."""
        from rlaccel.programs.checkpoint import nest, rng_state
        if not self.env.savable:
            return None
        arrays, fields = {}, {k: getattr(self, k) for k in _SCHEDULE}
        fields["explore"], fields["replay"] = rng_state(self.explore), rng_state(self.replay)
        nest("env", self.env.checkpoint_state(), arrays, fields)
        nest("buffer", self.buffer.checkpoint_state(), arrays, fields)
        cache = agent.state.get("hdc", {}).get("cache")
        fields["cache"] = cache is not None
        if cache is not None:
            arrays.update(zip(("cache.acts", "cache.ur", "cache.ui", "cache.counts"),
                              cache.arrays))
        if self.k == 0:
            nest("shared", self.shared.checkpoint_state(), arrays, fields)
        return arrays, fields

    def restore(self, agent, saved) -> None:
        """Continue from :meth:`checkpoint_state`'s state in this freshly made host and
        agent (agent 0 first: it restores what the agents share)."""
        if self.k == 0:
            self.shared.restore(saved.part("shared"))
        kinds = {"phase": str, "stage": int, "greedy": int, "batches": int, "round": int,
                 "pad": int, "nulls": bool, "stepped": bool}
        for k, kind in kinds.items():
            setattr(self, k, saved.get(k, kind))
        for k in ("epsilon", "epsilon_of_stage"):          # a float, or a whole minimum
            v = saved.get(k, type(saved.fields.get(k)) if type(saved.fields.get(k)) is int
                          else float)
            setattr(self, k, v)
        if self.phase not in ("init", "run", "act", "sync"):
            raise saved.unfit(f"phase = {self.phase!r}")
        self.done_round = saved.get("done_round", int, none=True)
        saved.rng("explore", self.explore)
        saved.rng("replay", self.replay)
        self.env.restore(saved.part("env"))
        self.buffer.restore(saved.part("buffer"))
        cache = agent.state.get("hdc", {}).get("cache")
        if saved.get("cache", bool) != (cache is not None):
            raise saved.unfit("its update cache is not this agent's")
        if cache is not None:
            for name, a in zip(("acts", "ur", "ui", "counts"), cache.arrays):
                np.copyto(a, saved.array(f"cache.{name}", a.dtype, a.shape))  # the kernels'

    # ---- the agent's schedule -----------------------------------------------------------
    def _reply(self) -> np.ndarray:
        return np.zeros(self.nin, dtype=np.int64)

    def _at(self, name: str) -> int:
        return self.sym[name].address - self.base

    def _start_stage(self) -> None:
        sh = self.shared
        c0 = time.process_time()
        self.env.reset(seed=sh.rng["env_seeds"][self.k] if self.stage == 0 else None)
        sh.t_env += time.process_time() - c0
        self.greedy = self.batches = 0
        self.epsilon_of_stage = self.epsilon
        self.round, self.stepped, self.done_round = 0, False, None

    def _step(self, a: int):
        """Step the environment with ``a``; a training command if a batch is due."""
        sh, cfg = self.shared, self.shared.cfg
        t0, c0 = time.perf_counter(), time.process_time()
        tr = self.env.step(a)
        self.timeline.add("environment", time.perf_counter() - t0)
        sh.t_env += time.process_time() - c0
        self.buffer.add(tr.obs, tr.action, tr.train_reward, tr.next_obs)
        sh.steps += 1
        self.stepped = True
        if self.env.done:
            self.done_round = self.round
        if self.env.steps % cfg.train_every == 0:
            t0 = time.perf_counter()
            batch = self.buffer.sample(self.replay, cfg.batch)
            dt = time.perf_counter() - t0
            sh.t_sample += dt
            self.timeline.add("replay sampling", dt)
            self.batches += 1
            return self._train(batch)
        return None

    def _train(self, batch) -> np.ndarray:
        t, sh = self.shared.fmt, self.shared
        n = sh.n_obs
        r = self._reply()
        each = sh.cfg.allreduce_each_iteration
        r[self._at("F_TRAINAR" if each else "F_TRAIN")] = sh.one
        if each:                           # every agent joins cfg.batch all-reduces a round
            self.pad = sh.cfg.batch - len(batch)
        s0 = self._at("SLOTS")
        rew = t.quantize(batch.rew, counter=sh.counter)
        obs = t.quantize(batch.obs, counter=sh.counter)
        nxt = t.quantize(batch.next_obs, counter=sh.counter)
        for j in range(len(batch)):
            at = s0 + j * self.sw
            r[at] = sh.one
            r[at + 1:at + 1 + n] = obs[j]
            r[at + 1 + n:at + 1 + 2 * n] = nxt[j]
            r[at + 1 + 2 * n] = rew[j]
            r[at + 2 + 2 * n + int(batch.act[j])] = sh.one
        return r

    def _null(self, n: int) -> np.ndarray:
        """``n`` all-reduces with no update: the agent's share of the others' iterations."""
        r = self._reply()
        r[self._at("F_NULL")] = self.shared.one
        s0 = self._at("SLOTS")
        r[s0:s0 + n * self.sw:self.sw] = self.shared.one
        return r

    def _next(self) -> np.ndarray:
        """Advance the schedule to the next kernel call."""
        sh = self.shared
        cfg = sh.cfg
        while True:
            if self.pad:
                n, self.pad = self.pad, 0
                return self._null(n)
            if (cfg.allreduce_each_iteration and self.env.done and not self.stepped
                    and not self.nulls and (self.round + 1) % cfg.train_every == 0):
                self.nulls = True                  # a round in which the others train
                return self._null(cfg.batch)
            if self.env.done or (self.stepped and sh.cfg.sync_each_step):
                # the end of the episode (the stage's synchronisation) or, synchronising every
                # round, of this round (a finished agent joins every round's all-reduce)
                self.stepped = self.nulls = False
                r = self._reply()
                r[self._at("F_SYNC")] = sh.one
                self.phase = "sync"
                return r
            if self.explore.random() < self.epsilon:
                cmd = self._step(int(self.explore.integers(sh.n_actions)))
                if cmd is not None:
                    return cmd
                continue
            r = self._reply()
            r[self._at("F_ACT")] = sh.one
            at = self._at("STATE")
            r[at:at + sh.n_obs] = sh.fmt.quantize(self.env.obs, counter=sh.counter)
            self.greedy += 1
            self.phase = "act"
            return r

    def exchange(self, out: np.ndarray) -> np.ndarray:
        sh = self.shared
        if self.phase == "init":
            self.phase = "run"
            self._start_stage()
            return sh.init_words()
        if self.phase == "act":
            self.phase = "run"
            a = int(round(float(sh.fmt.to_float(out[0]))))
            if not 0 <= a < sh.n_actions:
                raise SimError(f"DARL host: agent {self.k}'s kernel returned action {a}, not "
                               f"one of 0..{sh.n_actions - 1}")
            cmd = self._step(a)
            if cmd is not None:
                return cmd
        elif self.phase == "sync":
            self.phase = "run"
            if sh.cfg.sync_each_step:
                self.round += 1
                if not sh.round_ends_stage(self.stage, self.round - 1):
                    return self._next()
            sh.end_of_stage(self.stage)
            self.stage += 1
            self.epsilon = max(self.epsilon * sh.cfg.epsilon_decay, sh.cfg.epsilon_min)
            if sh.done:
                return self._reply()                   # no flag set: halt
            self._start_stage()
        return self._next()
