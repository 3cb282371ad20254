"""The FIXAR host: the MuJoCo environment, the replay buffer, warm-up, evaluation and the
learning curve, independent of what computes the actions.

The FIXAR paper, Fig. 3: every time step the host sends the current state and a random batch of
``B`` transitions; the accelerator trains on the batch, then computes the action for the
state (with exploration noise) and returns it; the host steps the environment with it and
stores the transition. :func:`train` is that loop around any *agent* with

* ``step(t, state, batch) -> action``: train on ``batch`` (None during warm-up, never called
  then) and return the exploring action for ``state`` (network output in ``[-1, 1]``);
* ``act(state) -> action``: the deterministic action, for evaluation (no side effects, so
  evaluating never changes training).

The float reference (:mod:`.reference`) is one agent; phase B's accelerator driver is
another, sharing this host.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import gymnasium as gym
import numpy as np

from rlaccel.util.errors import RlaccelError

from rlaccel.machines.fixar.config import DdpgConfig
from rlaccel.machines.fixar.replay import ReplayBuffer

__all__ = ["make_env", "env_dims", "DdpgHost", "train", "EVAL_SEED_OFFSET"]

#: evaluation episodes start from the states of seeds ``seed + EVAL_SEED_OFFSET + k``, the
#: same ten at every evaluation (the FIXAR paper: "for given random 10 states")
EVAL_SEED_OFFSET = 10_000


class MujocoWarning(UserWarning):
    """A warning MuJoCo's C library gave while it built or stepped a model."""


#: MuJoCo warnings that say nothing about the run: MuJoCo 4 deprecates the compiler
#: attribute ``settotalmass`` that Gymnasium's ``half_cheetah.xml`` sets; the model is
#: built as before
_BENIGN = ("compiler attribute 'settotalmass' is deprecated",)


def _mujoco_warning(text: str) -> None:
    if not any(b in text for b in _BENIGN):
        warnings.warn(f"MuJoCo: {text.strip()}", MujocoWarning, stacklevel=2)


def _route_mujoco_warnings() -> None:
    """MuJoCo's warnings as Python warnings (:class:`MujocoWarning`) instead of its default,
    which prints them and appends them to ``MUJOCO_LOG.TXT`` in the working folder."""
    try:
        import mujoco
    except ImportError:                 # a Gymnasium environment without MuJoCo
        return
    if mujoco.get_mju_user_warning() is None:
        mujoco.set_mju_user_warning(_mujoco_warning)


def make_env(env_id: str) -> gym.Env:
    """``gym.make(env_id)`` (with its time limit); an RlaccelError names a bad id. MuJoCo's
    warnings become :class:`MujocoWarning` (:func:`_route_mujoco_warnings`)."""
    _route_mujoco_warnings()
    try:
        return gym.make(env_id)
    except (gym.error.Error, ValueError, TypeError, ImportError) as exc:
        raise RlaccelError(f"environment {env_id!r}: {exc}") from None


def env_dims(env: gym.Env) -> tuple[int, int]:
    """``(state_dim, action_dim)`` of a continuous-control environment."""
    obs, act = env.observation_space, env.action_space
    if not isinstance(act, gym.spaces.Box) or len(obs.shape) != 1 or len(act.shape) != 1:
        raise RlaccelError(f"{env.spec.id if env.spec else env}: DDPG needs a flat Box "
                           f"observation and action space, not {obs} and {act}")
    return int(obs.shape[0]), int(act.shape[0])


@dataclass
class _Timers:
    env: float = 0.0
    sample: float = 0.0
    agent: float = 0.0
    evaluate: float = 0.0
    train_steps: int = 0
    extra: dict = field(default_factory=dict)


class DdpgHost:
    """Environment, replay and bookkeeping of one run."""

    def __init__(self, cfg: DdpgConfig) -> None:
        self.cfg = cfg
        self.env = make_env(cfg.env_id)
        self.eval_env = make_env(cfg.env_id)
        self.state_dim, self.action_dim = env_dims(self.env)
        space = self.env.action_space
        self.low = np.asarray(space.low, np.float64)
        self.high = np.asarray(space.high, np.float64)
        self.rng = np.random.default_rng([cfg.seed, 0])      # batches and warm-up actions
        self.replay = ReplayBuffer(cfg.buffer, self.state_dim, self.action_dim)
        self.env.action_space.seed(cfg.seed)
        self.obs, _ = self.env.reset(seed=cfg.seed)
        self.t = 0
        self._ret = 0.0
        self._len = 0
        self.episodes: list[tuple[int, float, int]] = []     # (end step, return, length)
        self.evals: list[tuple[int, float]] = []              # (step, mean return)

    # ---- checkpoints (rlaccel.programs.checkpoint) ----
    def checkpoint_state(self) -> tuple[dict, dict]:
        """The training environment's whole state (:func:`~rlaccel.programs.checkpoint.
        env_state`), the replay buffer's filled rows, the generator, the episode in progress
        and the learning curve so far, as ``(arrays, fields)``. The evaluation environment
        needs nothing: every evaluation episode resets it with its seed."""
        from rlaccel.programs.checkpoint import env_state, nest, rng_state
        arrays = {"obs": np.asarray(self.obs)}
        fields = {"t": self.t, "return": self._ret, "length": self._len,
                  "rng": rng_state(self.rng), "episodes": [list(e) for e in self.episodes],
                  "evals": [list(e) for e in self.evals]}
        nest("replay", self.replay.checkpoint_state(), arrays, fields)
        nest("env", env_state(self.env), arrays, fields)
        return arrays, fields

    def restore(self, saved) -> None:
        """Continue from :meth:`checkpoint_state`'s state (``saved``: its
        :class:`~rlaccel.programs.checkpoint.Saved`) in this freshly made host."""
        from rlaccel.programs.checkpoint import set_env_state
        episodes, evals = saved.get("episodes", list), saved.get("evals", list)
        if not all(isinstance(e, list) and len(e) == 3 and type(e[0]) is type(e[2]) is int
                   and type(e[1]) is float for e in episodes):
            raise saved.unfit("its episodes are not (end step, return, length) triples")
        if not all(isinstance(e, list) and len(e) == 2 and type(e[0]) is int
                   and type(e[1]) is float for e in evals):
            raise saved.unfit("its evaluations are not (step, mean return) pairs")
        self.t = saved.get("t", int, lo=0)
        self._ret = saved.get("return", float)
        self._len = saved.get("length", int, lo=0)
        saved.rng("rng", self.rng)
        self.episodes = [tuple(e) for e in episodes]
        self.evals = [tuple(e) for e in evals]
        self.obs = saved.array("obs", shape=(self.state_dim,))
        self.replay.restore(saved.part("replay"))
        set_env_state(self.env, saved.part("env"))

    # ---- the time step ----
    @property
    def state(self) -> np.ndarray:
        return np.asarray(self.obs, np.float32)

    @property
    def warming_up(self) -> bool:
        return self.t < self.cfg.start_steps or self.replay.size < self.cfg.batch

    def random_action(self) -> np.ndarray:
        """A warm-up action, uniform in ``[-1, 1]`` per dimension."""
        return self.rng.uniform(-1.0, 1.0, size=self.action_dim)

    def batch(self) -> dict[str, np.ndarray] | None:
        """The training batch for this step, or None during warm-up."""
        if self.warming_up:
            return None
        return self.replay.sample(self.cfg.batch, self.rng)

    def to_env(self, action) -> np.ndarray:
        """A network action in ``[-1, 1]`` (clipped first) scaled to the action bounds."""
        a = np.clip(np.asarray(action, np.float64), -1.0, 1.0)
        return self.low + (a + 1.0) * 0.5 * (self.high - self.low)

    def apply(self, action) -> None:
        """Step the environment with ``action`` (clipped to ``[-1, 1]``, which is what the
        replay stores), store the transition, reset at an episode's end."""
        a = np.clip(np.asarray(action, np.float64), -1.0, 1.0)
        if not np.isfinite(a).all():
            raise RlaccelError(f"the action is not finite ({a}) at step {self.t}: the networks "
                               f"diverged")
        obs2, r, term, trunc, _ = self.env.step(self.to_env(a))
        self.replay.add(self.obs, a, r, obs2, term)
        self._ret += float(r)
        self._len += 1
        self.t += 1
        self.obs = obs2
        if term or trunc:
            self.episodes.append((self.t, self._ret, self._len))
            self._ret, self._len = 0.0, 0
            self.obs, _ = self.env.reset()

    # ---- evaluation ----
    def evaluate(self, act) -> float:
        """Mean return of ``eval_episodes`` deterministic episodes from fixed start states."""
        returns = []
        for k in range(self.cfg.eval_episodes):
            obs, _ = self.eval_env.reset(seed=self.cfg.seed + EVAL_SEED_OFFSET + k)
            total, done = 0.0, False
            while not done:
                obs, r, term, trunc, _ = self.eval_env.step(
                    self.to_env(act(np.asarray(obs, np.float32))))
                total += float(r)
                done = term or trunc
            returns.append(total)
        mean = float(np.mean(returns))
        self.evals.append((self.t, mean))
        return mean

    def learning(self) -> dict:
        return {"eval_steps": [s for s, _ in self.evals],
                "returns": [r for _, r in self.evals],
                "episode_ends": [e for e, _, _ in self.episodes],
                "episode_returns": [r for _, r, _ in self.episodes]}


def train(agent, host: DdpgHost, *, on_eval=None) -> dict:
    """Run ``host.cfg.steps`` time steps of Fig. 3 with ``agent``; evaluate every
    ``eval_every`` steps (``on_eval(step, mean_return)`` is called after each). Returns the
    learning curve and wall times (seconds) per part."""
    cfg = host.cfg
    tm = _Timers()
    start = time.perf_counter()
    while host.t < cfg.steps:
        t0 = time.perf_counter()
        batch = host.batch()
        t1 = time.perf_counter()
        if batch is None:
            action = host.random_action()
        else:
            action = agent.step(host.t, host.state, batch)
            tm.train_steps += 1
        t2 = time.perf_counter()
        host.apply(action)
        t3 = time.perf_counter()
        tm.sample += t1 - t0
        tm.agent += t2 - t1
        tm.env += t3 - t2
        if host.t % cfg.eval_every == 0:
            t4 = time.perf_counter()
            mean = host.evaluate(agent.act)
            tm.evaluate += time.perf_counter() - t4
            if on_eval is not None:
                on_eval(host.t, mean)
    wall = time.perf_counter() - start
    n = max(tm.train_steps, 1)
    return {
        "config": {k: (list(v) if isinstance(v, tuple) else v)
                   for k, v in cfg.__dict__.items()},
        "learning": host.learning(),
        "wall_s": {"total": wall, "env": tm.env, "sample": tm.sample, "agent": tm.agent,
                   "evaluate": tm.evaluate},
        "train_steps": tm.train_steps,
        "per_train_step_s": {"agent": tm.agent / n,
                             "env": tm.env / max(host.t, 1),
                             "sample": tm.sample / n,
                             "step": (tm.agent + tm.sample) / n + tm.env / max(host.t, 1)},
    }
