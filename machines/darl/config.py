"""The knobs of an HDQL run, with the two tasks' presets (:func:`task_config`).

Defaults come from the paper (D = 2048, fixed32 on the machine, batch M = 8 for CartPole and 16
for LunarLander, Q' refreshed at the start of every episode / training stage, the agents
acting with Q') and, where the paper is silent, from the public QHD code of its co-authors
(``mariamaissa/cs_295_final``, ``QHD_Model.py`` and ``sim.py``; benchmarks.md section 5.1):
learning rate beta = 0.05, gamma 0.9 (CartPole) / 0.99 (LunarLander), epsilon 0.2 / 0.5
decayed by 0.99 per episode to 0.01, reward -5 on CartPole's failure, a replay buffer of
102,400 transitions, one training batch per environment step. ``machines/darl/README.md`` ("The
algorithm") lists every choice and why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from rlaccel.programs.manifest import ManifestError

__all__ = ["HdqlConfig", "TASKS", "task_config"]

#: the largest value of each count (d, the hypervector dimension, is also bounded by the
#: architecture's machine.hv_dim; the buffer's memory is estimated when a run is configured)
_MOST = {"d": 1 << 20, "chunk": 1 << 20, "batch": 1 << 20, "train_every": 1 << 40,
         "buffer": 1 << 32, "stages": 1 << 40, "agents": 1 << 10}

_CHOICES = {"act_with": ("target", "online"), "number": ("float64", "fixed32"),
            "norm": ("dimension", "chunk"), "sync": ("average", "sum"),
            "beta_scale": ("agents", "none"),
            "sync_every": ("auto", "episode", "step"), "form": ("qhd", "printed")}


@dataclass(frozen=True)
class HdqlConfig:
    """One HDQL run: environment, budget, hyper-parameters and number format."""

    env: str = "CartPole-v1"
    target: float = 500.0              # return that counts as reaching the target
    terminal_reward: float | None = -5.0   # training reward on termination (None: the env's)
    d: int = 2048                      # hypervector dimension
    chunk: int = 16                    # chunk of the regression layer (functional model)
    beta: float = 0.05                 # learning rate (eq. 14)
    gamma: float = 0.9                 # discount
    epsilon: float = 0.2               # exploration at the first stage
    epsilon_decay: float = 0.99        # per stage
    epsilon_min: float = 0.01
    batch: int = 8                     # M: samples per training batch
    train_every: int = 1               # environment steps per training batch
    buffer: int = 102400               # replay capacity per agent
    stages: int = 200                  # training stages (one episode per agent each)
    agents: int = 1
    seed: int = 1
    act_with: str = "target"           # the model the host's greedy action reads
    number: str = "float64"            # float64: reference.py; fixed32: functional.py
    norm: str = "dimension"            # value scale: 1/D (QHD) or eq. 9's per-chunk cosine
    imag_sign: int = 1                 # -1: eq. 9's printed minus sign
    form: str = "qhd"                  # "qhd": QHD's update on the next state (eq. 13-14 as
                                       # the algorithm DARL accelerates computes them);
                                       # "printed": eq. 9, 13 and 14 as the DARL paper prints
                                       # them (README section 2)
    sync: str = "average"              # Q' += the agents' average update (eq. 19) or "sum"
    beta_scale: str = "agents"         # "agents": several agents averaging every round learn
                                       # at beta x agents (the host loads it; the linear
                                       # scaling rule of data-parallel training: the average
                                       # of N agents' updates then moves the common model as
                                       # far as their sum at beta); "none": beta as given
    sync_every: str = "auto"           # when the agents synchronise (all-reduce, Q' += U,
                                       # Q <- Q'): "step", after every round of environment
                                       # steps (each agent's batch; section 4.1: the models are
                                       # synchronised for the inference stage), or "episode",
                                       # once per training stage; "auto": step for several
                                       # agents, episode for one (the target refresh, 3.3)

    def __post_init__(self):
        for name in ("d", "chunk", "batch", "train_every", "buffer", "stages", "agents"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ManifestError(f"HDQL: {name} must be a positive integer, not {v!r}")
            if v > _MOST[name]:
                raise ManifestError(f"HDQL: {name} must be at most {_MOST[name]:,}, not {v:,}")
        for name in ("target", "terminal_reward"):
            v = getattr(self, name)
            if v is None and name == "terminal_reward":
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                none = " or none (the environment's own)" if name == "terminal_reward" else ""
                raise ManifestError(f"HDQL: {name} must be a finite number{none}, not {v!r}")
        if self.d % self.chunk:
            raise ManifestError(f"HDQL: d = {self.d} is not a multiple of chunk = {self.chunk}")
        if self.agents & (self.agents - 1):
            raise ManifestError(f"HDQL: the butterfly all-reduce needs a power-of-two number "
                                f"of agents (1, 2, 4, 8, ...), not {self.agents}")
        for name, lo, hi in (("beta", 0.0, 1.0), ("gamma", 0.0, 1.0), ("epsilon", 0.0, 1.0),
                             ("epsilon_decay", 0.0, 1.0), ("epsilon_min", 0.0, 1.0)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
                raise ManifestError(f"HDQL: {name} must be a number in [{lo}, {hi}], not {v!r}")
        for name, allowed in _CHOICES.items():
            if getattr(self, name) not in allowed:
                raise ManifestError(f"HDQL: {name} must be one of {', '.join(allowed)}, not "
                                    f"{getattr(self, name)!r}")
        if self.form == "printed" and (self.norm, self.imag_sign) != ("dimension", 1):
            raise ManifestError("HDQL: form = 'printed' computes eq. 9 as printed (the "
                                "per-chunk cosine, the minus sign); leave norm and imag_sign "
                                "at their defaults")
        if self.imag_sign not in (1, -1):
            raise ManifestError(f"HDQL: imag_sign must be 1 or -1, not {self.imag_sign!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ManifestError(f"HDQL: seed must be a non-negative integer, not {self.seed!r}")

    @property
    def sync_each_step(self) -> bool:
        """Whether the agents synchronise after every round of steps (``sync_every``)."""
        return self.sync_every == "step" or (self.sync_every == "auto" and self.agents > 1)

    @property
    def learning_rate(self) -> float:
        """Eq. 14's beta as the learner uses it: ``beta x agents`` for several agents
        averaging every round with ``beta_scale = "agents"``, else ``beta``."""
        if self.beta_scale == "agents" and self.allreduce_each_iteration:
            return self.beta * self.agents
        return self.beta

    @property
    def allreduce_each_iteration(self) -> bool:
        """Whether every training iteration ends with the all-reduce of the shards (several
        agents averaging every round: Table 1's DARL8 L); the shards then hold the running
        average, and a round's end adds it to Q'."""
        return self.sync_each_step and self.agents > 1 and self.sync == "average"


#: task name -> the settings that differ from the defaults
TASKS = {
    "cartpole": dict(env="CartPole-v1", target=500.0, terminal_reward=-5.0, gamma=0.9,
                     epsilon=0.2, batch=8),
    "lunarlander": dict(env="LunarLander-v3", target=200.0, terminal_reward=None, gamma=0.99,
                        epsilon=0.5, batch=16, stages=1000),
}


def task_config(task: str, **overrides) -> HdqlConfig:
    """The preset of ``task`` (``cartpole`` or ``lunarlander``) with ``overrides``."""
    if task not in TASKS:
        raise ManifestError(f"HDQL: unknown task {task!r}; known tasks are {', '.join(TASKS)}")
    names = {f.name for f in fields(HdqlConfig)}
    unknown = sorted(set(overrides) - names)
    if unknown:
        raise ManifestError(f"HDQL: unknown setting(s) {', '.join(unknown)}")
    return replace(HdqlConfig(), **{**TASKS[task], **overrides})
