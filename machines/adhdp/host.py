"""The ADHDP host: steps the plant, keeps the trial and learning-rate bookkeeping, and talks
to the accelerator only through the host link and the binary's symbols.

:class:`Trials` is the host logic on its own (environment, the Si-lab normalisation and
learning-rate schedule, trials, success); the simulator's :class:`AdhdpHost` and the float64
golden model (:mod:`programs.adhdp.reference`) both drive it, so both see the same plant.

Reply layout (``machines/adhdp/programs/layout.inc``): the words from ``IN`` up to the end of ``X``;
every field is found by its symbol name, never by a hard-coded address.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import gymnasium as gym
import numpy as np

import rlaccel.programs.envs  # noqa: F401 - registers the rlaccel/ environments
from rlaccel.util.errors import RlaccelError
from rlaccel.tlm.hostlink import HostTimeline

__all__ = ["LearningConfig", "Trials", "AdhdpHost", "REPLY_FIELDS"]

REPLY_FIELDS = ("R", "TERM", "FIRST", "DONE", "LRC", "LRA", "X")


@dataclass(frozen=True)
class LearningConfig:
    """Host-side knobs of a run (the chip-side ones -- I_c, I_a, E_c, E_a, gamma -- are
    program constants)."""

    env_id: str = "rlaccel/CartPoleADP-v0"
    env_kwargs: dict = field(default_factory=dict)
    trials: int = 100
    max_steps: int = 1000            # a trial that lasts this many steps is a success
    stop_on_success: bool = True
    lr_critic: float = 0.3           # l_c(0)
    lr_actor: float = 0.3            # l_a(0)
    lr_decay: float = 0.05           # subtracted every lr_every steps (Si-lab code)
    lr_every: int = 5
    lr_threshold: float = 0.01       # below it the rate is set to lr_floor
    lr_floor: float = 0.005
    seed: int = 1


class Trials:
    """The plant and the trial bookkeeping, independent of what computes the actions."""

    def __init__(self, cfg: LearningConfig):
        self.cfg = cfg
        from rlaccel.programs.envs import make_checked
        self.env = make_checked(cfg.env_id, cfg.env_kwargs, actions=1).unwrapped
        self.scale = np.asarray(getattr(self.env, "state_scale",
                                        np.ones(self.env.observation_space.shape)), float)
        self.steps: list[int] = []        # steps balanced per finished trial
        self.failed: list[bool] = []
        self.t = 0
        self.running = False
        self.finished = False
        self.obs = None

    # ---- learning-rate schedule (Si-lab code) ----
    def lr(self, l0: float) -> float:
        c = self.cfg
        v = l0 - c.lr_decay * (self.t // c.lr_every)
        return c.lr_floor if v < c.lr_threshold else v

    @property
    def success_trial(self) -> int | None:
        """1-based index of the first successful trial, or None."""
        for i, (n, f) in enumerate(zip(self.steps, self.failed)):
            if not f and n >= self.cfg.max_steps:
                return i + 1
        return None

    def reply(self, u: float) -> dict:
        """Apply action u (ignored at a trial's start) and say what the chip sees next."""
        c = self.cfg
        if not self.running:
            if len(self.steps) >= c.trials or (c.stop_on_success and self.success_trial):
                self.finished = True
                return self._pack(r=0.0, term=0, first=0, done=1)
            seed = c.seed if not self.steps else None
            self.obs, _ = self.env.reset(seed=seed)
            self.t = 0
            self.running = True
            return self._pack(r=0.0, term=0, first=1, done=0)
        if not np.isfinite(u):
            raise RlaccelError(f"the action is not finite ({u}) at step {self.t + 1} of trial "
                               f"{len(self.steps) + 1}: the networks diverged (try smaller "
                               f"learning rates or a fixed-point architecture, which saturates)")
        self.obs, r, term, _trunc, _ = self.env.step(np.array([u], dtype=np.float64))
        self.t += 1
        if term or self.t >= c.max_steps:
            self.steps.append(self.t)
            self.failed.append(bool(term))
            self.running = False
        return self._pack(r=float(r), term=int(term), first=0, done=0)

    def _pack(self, r, term, first, done) -> dict:
        x = np.zeros_like(self.scale) if self.obs is None else np.asarray(self.obs) / self.scale
        return {"R": r, "TERM": float(term), "FIRST": float(first), "DONE": float(done),
                "LRC": self.lr(self.cfg.lr_critic), "LRA": self.lr(self.cfg.lr_actor), "X": x}

    # ---- checkpoints (rlaccel.programs.checkpoint) ----
    def checkpoint_state(self) -> tuple[dict, dict]:
        """The plant and the trial bookkeeping, as ``(arrays, fields)``."""
        from rlaccel.programs.checkpoint import env_state, nest
        arrays = {} if self.obs is None else {"obs": np.asarray(self.obs)}
        fields = {"t": self.t, "running": self.running, "finished": self.finished,
                  "steps": list(self.steps), "failed": list(self.failed),
                  "obs": self.obs is not None}
        nest("env", env_state(self.env), arrays, fields)
        return arrays, fields

    def restore(self, saved) -> None:
        """Continue from :meth:`checkpoint_state`'s state (``saved``: its
        :class:`~rlaccel.programs.checkpoint.Saved`)."""
        from rlaccel.programs.checkpoint import set_env_state
        steps, failed = saved.get("steps", list), saved.get("failed", list)
        if (len(steps) != len(failed) or not all(type(n) is int and n >= 0 for n in steps)
                or not all(type(f) is bool for f in failed)):
            raise saved.unfit("its trials are not lists of step counts and failures")
        self.t = saved.get("t", int, lo=0)
        self.running = saved.get("running", bool)
        self.finished = saved.get("finished", bool)
        self.steps, self.failed = steps, failed
        n = len(self.scale)
        self.obs = saved.array("obs", shape=(n,)) if saved.get("obs", bool) else None
        set_env_state(self.env, saved.part("env"))

    def serve(self, step: Callable[[dict], float]) -> dict:
        """Run a float model against the plant: ``step`` gets each of :meth:`reply`'s replies
        and returns the next action (0 before the first), until the host is done; returns
        the learning record."""
        u = 0.0
        while True:
            rep = self.reply(u)
            if rep["DONE"]:
                return self.learning()
            u = step(rep)

    def learning(self) -> dict:
        return {"steps_per_trial": list(self.steps), "failed": list(self.failed),
                "trials": len(self.steps), "success": self.success_trial is not None,
                "trials_to_success": self.success_trial, "max_steps": self.cfg.max_steps}


class AdhdpHost:
    """The host driver the simulator's host link calls (raw words in, raw words out)."""

    def __init__(self, trials: Trials, binary, dt):
        self.trials = trials
        self.dt = dt
        base = binary.symbol("IN").address
        self.nin = binary.symbol("X").address + binary.symbol("X").length - base
        self.offsets = {}
        for name in REPLY_FIELDS:
            s = binary.symbol(name)
            self.offsets[name] = (s.address - base, max(s.length, 1))
        nx = self.offsets["X"][1]
        if nx != len(trials.scale):
            raise RlaccelError(f"the program's state vector X has {nx} words but "
                               f"{trials.cfg.env_id} has {len(trials.scale)} state variables")
        self.u_trace: list[float] = []
        self.timeline = HostTimeline()          # the host's own time (wall clock, measured)
        #: the compiled twin that answers a running trial's exchanges (:mod:`.plant`; None:
        #: Trials answers every exchange), set up at the first exchange (a batch's members
        #: are answered by the batch's host instead)
        self.plant = None
        self._plant_checked = False

    @property
    def finished(self) -> bool:
        return self.trials.finished

    # ---- checkpoints (rlaccel.programs.checkpoint.Checkpointable) ----
    #: the per-agent state of its families a checkpoint needs (the base family keeps none)
    checkpoint_agent_state: tuple[str, ...] = ()

    def checkpoint_state(self, agent) -> tuple[dict, dict]:
        """The plant and trials (:meth:`Trials.checkpoint_state`); at any exchange."""
        if self.plant is not None:
            self.plant.sync()
        return self.trials.checkpoint_state()

    def restore(self, agent, saved) -> None:
        self.trials.restore(saved)
        if self.plant is not None and self.trials.running:
            self.plant.begin()

    def exchange(self, out: np.ndarray) -> np.ndarray:
        if not self._plant_checked:
            from rlaccel.machines.adhdp.plant import compiled_plant
            self.plant = compiled_plant(self.trials, self, self.dt)
            self._plant_checked = True
        plant = self.plant
        if plant is not None and self.trials.running and plant.finite(out[0]):
            t0 = time.perf_counter()
            words = plant.answer(out[0])
            self.timeline.add("environment", time.perf_counter() - t0)
            return words
        u = float(self.dt.to_float(out[:1])[0])
        with self.timeline.measure("environment"):
            rep = self.trials.reply(u)
            if plant is not None and self.trials.running:
                plant.begin()
        words = np.zeros(self.nin, dtype=float)
        for name, (off, n) in self.offsets.items():
            words[off:off + n] = rep[name]
        return self.dt.quantize(words)
